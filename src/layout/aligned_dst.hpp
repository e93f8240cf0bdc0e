// aligned_stores' tile: dst row pieces that start on a 32-byte sector wherever the row
// starts. A block stages `piece + max_shift` src rows by `cols` src columns; dst row c (src
// column c) then writes the piece (256 bytes; 128 in the wide tile) that starts `shift`
// elements before the block's first row, so that its 16-byte stores fill whole sectors, two
// lanes a sector. Pieces of one dst row tile it without gaps because the shift depends only
// on where the row starts (the blocks' first rows are a piece apart, a multiple of 32 bytes);
// the first piece of a row is cut at row 0 and one more block row covers the last piece's shift.
#pragma once

#include <algorithm>
#include <cstdint>

#include "layout/elem_size.hpp"
#include "layout/hd.hpp"

namespace xpose::layout {

// Wide: 128-byte pieces by 128 src columns, for bytes from 16-byte aligned src rows (128-byte
// src rows where 64 columns read 64: u8 4096x64x64xC (3,1,2,0), C = 2-4, 81-85 -> 86-91% of a
// copy on the H100 in one call; on the H200 78-80% before, 83-84% at c41759c). Shifted src
// rows keep 256 x 64: they stage element by element, and 8 chunks a row put a warp's lanes on
// the same banks (10-12 points lost on u8 30011x29989).
template <int E, bool Wide = false>
struct AlignedDstTile {
  static_assert(!Wide || E == 1, "the wide tile is the bytes'");
  static constexpr int elem_bytes = E;
  static constexpr bool wide = Wide;
  static constexpr int piece = (Wide ? 128 : 256) / E;  // src rows per block = dst elements per row piece
  static constexpr int cols = Wide ? 128 : 64;           // src columns = dst rows per block
  static constexpr int max_shift = 32 / E - 1;   // a piece starts at most this many elements early
  static constexpr int rows = piece + max_shift; // src rows staged per block
  static constexpr int vec = 16 / E, vecs_per_piece = piece / vec;
  static constexpr int threads = 256;

  // Elements a dst row piece starting at `address` (of its unshifted first element) starts
  // early so that it begins on a 32-byte boundary.
  XPOSE_HD static constexpr int shift(uintptr_t address) { return int(address % 32) / E; }
  // Staged tile row of element k of vector v of a row piece shifted by s.
  XPOSE_HD static constexpr int tile_row(int s, int v, int k) { return max_shift - s + v * vec + k; }
  // Block rows that cover `rows` src rows once the pieces are shifted.
  // (rows + max_shift + piece - 1) / piece, without overflow for rows near INT64_MAX.
  XPOSE_HD static constexpr int64_t row_blocks(int64_t rows) {
    return rows / piece + (rows % piece + max_shift + piece - 1) / piece;
  }
  // Whether a block staging src rows r0.. and columns c0.. lies inside a matrix of m_rows x
  // m_cols with room to spare: every staged row one of the matrix, every column inside it, and
  // where src rows are shifted (not 16-byte aligned) every 16-byte chunk's aligned vectors
  // inside its row (shifted_chunk: whole); so every dst vector of its pieces is whole too. Such
  // blocks run without edge tests.
  XPOSE_HD static constexpr bool interior(int64_t m_rows, int64_t m_cols, int64_t r0, int64_t c0, bool shifted) {
    const bool rows_in = (r0 >= 0) & (r0 + rows <= m_rows);
    const bool cols_in = shifted ? (c0 * E >= 16) & ((c0 + cols) * E + 16 <= m_cols * E) : c0 + cols <= m_cols;
    return rows_in & cols_in;
  }
  // The tile rows [lowest, highest) that hold rows of a matrix of m_rows rows, for a block whose
  // staged rows start at r0 (>= -max_shift), in 32 bits: a dst vector whose first element is
  // tile row `at` is whole where at >= lowest and at + vec <= highest, and holds its elements
  // max(lowest - at, 0) .. min(highest - at, vec) - 1 otherwise.
  struct Held {
    int lowest, highest;
  };
  // (The device's integer min and max: selects cost permute_aligned_stores up to 13% more
  // instructions.)
  XPOSE_HD static constexpr Held held(int64_t m_rows, int64_t r0) {
#if defined(__CUDA_ARCH__)
    return {int(max(-r0, int64_t(0))), int(min(m_rows - r0, int64_t(rows)))};
#else
    return {int(std::max(-r0, int64_t(0))), int(std::min(m_rows - r0, int64_t(rows)))};
#endif
  }
};

// The tile aligned_stores takes for elements of E bytes, src rows 16-byte aligned or not.
constexpr bool aligned_dst_wide(int E, bool aligned_rows) { return E == 1 && aligned_rows; }
template <int E, bool AlignedRows>
using AlignedDstTileFor = AlignedDstTile<E, aligned_dst_wide(E, AlignedRows)>;

// f(A{}) with A the tile above for elements of elem_bytes bytes, src rows 16-byte aligned or
// not: at most 8 bytes, as the kernels move (16 instantiates the 8-byte tile; the plans refuse it).
template <class F>
auto with_aligned_dst_tile(int64_t elem_bytes, bool aligned_rows, F&& f) {
  return with_elem_bytes(elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value <= 8 ? decltype(e)::value : 8;
    return aligned_rows ? f(AlignedDstTileFor<E, true>{}) : f(AlignedDstTileFor<E, false>{});
  });
}

// aligned_stores' staged tile for 1- and 2-byte elements, stored column by column: staged src
// column c (dst row c) is `pitch` elements from column c - 1, and its rows follow in order.
// A dst vector is then 16 consecutive bytes of one column, read as the 5 aligned words
// around them and shifted (shift_out_words): 5 shared loads where a row-major tile took 16
// (8) element loads and their address arithmetic. Staging from aligned src rows writes a
// word at a time, the 4 / E rows of one column a thread holds (the pitch is whole words);
// from shifted ones an element at a time. The pitch is an odd number of words: a
// warp's 16 lanes of a column (rows 16 bytes apart) fall on 8 banks, the two columns' shifts
// can put them on the same 8, so a gather needs at most 4 wavefronts a word; staging at most 2
// (the wide tile's 4: its 8 chunks a row put a warp's lanes 16 words apart).
template <class A>
struct AlignedDstColumnTile {
  static constexpr int E = A::elem_bytes;
  static_assert(E == 1 || E == 2, "wider elements stage row by row");
  static constexpr int rows = A::rows, cols = A::cols;
  static constexpr int pitch_words = (rows * E + 3) / 4 + 1 - ((rows * E + 3) / 4) % 2;  // odd
  static constexpr int pitch = pitch_words * 4 / E, size = cols * pitch;  // elements
  XPOSE_HD static constexpr int at(int r, int c) { return c * pitch + r; }
};

// The 16 bytes that start `offset` (0..3) bytes into w[0] (little-endian), from 5 words.
XPOSE_HD inline void shift_out_words(const uint32_t (&w)[5], int offset, uint32_t (&out)[4]) {
  const unsigned bits = unsigned(offset) * 8;
#ifdef __CUDA_ARCH__  // a funnel shift of two registers, not a 64-bit shift of an aligned pair
  for (int i = 0; i < 4; ++i) out[i] = __funnelshift_r(w[i], w[i + 1], bits);
#else
  for (int i = 0; i < 4; ++i) out[i] = uint32_t(((uint64_t(w[i + 1]) << 32) | w[i]) >> bits);
#endif
}

// A 16-byte chunk of a src row that is not 16-byte aligned, loaded as the aligned vectors
// around it: `first` is the aligned vector holding its first byte, `offset` how many bytes
// into that vector it starts (0: the one vector is the chunk). The two vectors (one where
// offset is 0) are read whole only where they lie inside [row_begin, row_end), the row's
// bytes in the matrix, so no byte outside the matrix is read; else the chunk's bytes are
// read one element at a time.
struct ShiftedChunk {
  uintptr_t first;
  int offset;
  bool whole;
};

XPOSE_HD inline ShiftedChunk shifted_chunk(uintptr_t chunk, uintptr_t row_begin, uintptr_t row_end) {
  ShiftedChunk s;
  s.first = chunk & ~uintptr_t(15);
  s.offset = int(chunk & 15);
  s.whole = s.first >= row_begin && s.first + (s.offset ? 32 : 16) <= row_end;
  return s;
}

// The chunk's four words out of the two vectors' eight (little-endian): bytes offset ..
// offset + 15 of w (offset 0..15). Selects and funnel shifts, no indexing of registers by a
// run-time value: two words dropped where offset has 8, one more where it has 4 (11 selects
// where a select among four words took 15), then the bytes within a word.
XPOSE_HD inline void shift_out_chunk(const uint32_t (&w)[8], int offset, uint32_t (&out)[4]) {
  const bool by8 = offset & 8, by4 = offset & 4;
  const uint32_t u0 = by8 ? w[2] : w[0], u1 = by8 ? w[3] : w[1], u2 = by8 ? w[4] : w[2], u3 = by8 ? w[5] : w[3],
                 u4 = by8 ? w[6] : w[4], u5 = by8 ? w[7] : w[5];
  const uint32_t a[5] = {by4 ? u1 : u0, by4 ? u2 : u1, by4 ? u3 : u2, by4 ? u4 : u3, by4 ? u5 : u4};
  shift_out_words(a, offset & 3, out);
}

// A run of `bytes` bytes (a multiple of the element size) stored from an address `skew` bytes
// past a 16-byte boundary, as the aligned 16-byte dst vectors it touches: vector j holds the
// run's bytes at(j) .. at(j) + 15, whole where they all lie inside the run (one 16-byte store
// of the bytes shifted out of the two aligned 16-byte pieces of the staged run around them:
// shift_out_chunk(piece at(j) / 16 and the next, at(j) % 16)), else only its bytes first(j) ..
// last(j) - 1 are the run's (stored element by element). The vectors together cover the run
// once; no byte outside it is written. (skinny's shifted kernel stores lines and dense runs so.)
struct ShiftedRun {
  int skew, bytes;
  XPOSE_HD constexpr int vectors() const { return (skew + bytes + 15) / 16; }
  XPOSE_HD constexpr int at(int j) const { return 16 * j - skew; }
  XPOSE_HD constexpr bool whole(int j) const { return at(j) >= 0 && at(j) + 16 <= bytes; }
  XPOSE_HD constexpr int first(int j) const { return at(j) > 0 ? at(j) : 0; }
  XPOSE_HD constexpr int last(int j) const { return at(j) + 16 < bytes ? at(j) + 16 : bytes; }
};

// A run of `bytes` bytes whose first sits `offset` bytes (0..31) into its 32-byte sector, cut
// where each store instruction can fill whole sectors: `head` bytes up to the first sector
// boundary, `mid` bytes of whole sectors (16-byte vectors from bytes head + 16 m, m < mid / 16),
// `tail` bytes after them. The head and tail (the sectors shared with whatever lies around the
// run) are stored a byte a lane, edge byte b (b < head + tail) at run byte edge(b), so that one
// instruction writes all of the run's bytes of a shared sector: each partial sector write costs
// the L2 about as much as a whole one (quantize_staged, H200 s158).
struct SectorRun {
  int head, mid, tail;
  XPOSE_HD constexpr SectorRun(int offset, int bytes)  // offset 0..31, bytes >= 0: masks, not divisions
      : head(((32 - offset) & 31) < bytes ? (32 - offset) & 31 : bytes),
        mid((bytes - head) & ~31),
        tail(bytes - head - mid) {}
  XPOSE_HD constexpr int edges() const { return head + tail; }
  XPOSE_HD constexpr int edge(int b) const { return b < head ? b : b + mid; }
};

}  // namespace xpose::layout
