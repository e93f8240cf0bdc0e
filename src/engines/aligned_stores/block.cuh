// The block aligned_stores and permute_aligned_stores share: src rows staged into a shared tile
// as 16-byte vectors (shifted out of the aligned vectors around them where src rows are not
// 16-byte aligned), dst row pieces stored as 16-byte vectors shifted to start on 32-byte
// sectors (layout::AlignedDstTile). The two engines differ in where a block's rows and
// columns start: pitched rows of a (batched) matrix, or an N-D form's outer index with rows
// and columns that may be split (layout::NdAlignedStores).
#pragma once

#include <type_traits>

#include "engines/common.cuh"
#include "engines/vector.cuh"
#include "engines/words.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/micro_block.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::engines::aligned {

// How src rows come into the tile (the plan's variant).
enum Staging { shifted = 0, vectors = 1 };

// The tile of a block of E-byte elements staged `How` (layout::AlignedDstTileFor).
template <int E, Staging How>
using TileOf = layout::AlignedDstTileFor<E, How == vectors>;

// 1- and 2-byte elements stage into a tile stored column by column (a dst vector is 16
// consecutive bytes there: layout::AlignedDstColumnTile; row by row it took 16 or 8 shared
// loads a vector, and bytes ran well behind: docs/performance.md, "Known gaps"), wider
// elements into a row-major tile padded by one word.
template <class A>
using StagedTile = std::conditional_t<A::elem_bytes <= 2, layout::AlignedDstColumnTile<A>,
                                      layout::PaddedTile<A::rows, A::cols, layout::pad_for(A::elem_bytes)>>;

// Sixteen bytes of staged row j from element column col (a multiple of 16 / E) on, into the
// tile element by element (a column apart in the column tile).
template <class A, int E = A::elem_bytes>
__device__ __forceinline__ void stage_chunk(Elem<E>* tile, int j, int col, const uint32_t (&words)[4]) {
  Vector<E> v;
  v.bits = make_uint4(words[0], words[1], words[2], words[3]);
#pragma unroll
  for (int e = 0; e < 16 / E; ++e) tile[StagedTile<A>::at(j, col + e)] = v.e[e];
}

// Staged rows first .. first + 16 / E - 1 of column c as one 16-byte vector: 1- and 2-byte
// elements read as the aligned words around them, wider ones one by one.
template <class A, int E = A::elem_bytes>
__device__ __forceinline__ uint4 gather_vector(const Elem<E>* tile, int first, int c) {
  if constexpr (E <= 2) {
    const int at = StagedTile<A>::at(first, c) * E;  // bytes
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tile) + at / 4;
    uint32_t w[5], out[4];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = words[i];
    layout::shift_out_words(w, at % 4, out);
    return make_uint4(out[0], out[1], out[2], out[3]);
  } else {
    Vector<E> out;
#pragma unroll
    for (int k = 0; k < 16 / E; ++k) out.e[k] = tile[StagedTile<A>::at(first + k, c)];
    return whole(out);
  }
}

// Where src row r (dst row c) starts, in elements from the matrix's base: r pitches of ld_src
// (c of ld_dst) in a 2-D matrix; an N-D form's fused rows and columns map through
// layout::NdSplitIndex.
struct Pitched {
  int64_t ld;
  __device__ __forceinline__ int64_t operator()(int64_t i) const { return i * ld; }
};

// Split starts looked up in a block's table of them (from index `first` on), each split once
// instead of once for every chunk or vector that needs it.
struct Tabled {
  const int64_t* start;
  int64_t first;
  __device__ __forceinline__ int64_t operator()(int64_t i) const { return start[i - first]; }
};

// The table of `count` starts from index `first` on: split ones (layout::NdSplitIndex)
// computed into `table`; pitched ones need none.
template <class Map>
__device__ __forceinline__ auto tabled(const Map& map, int64_t* table, int64_t first, int count) {
  if constexpr (std::is_same_v<Map, Pitched>) {
    return map;
  } else {
    for (int i = threadIdx.x; i < count; i += blockDim.x)
      table[i] = map(max(first + i, int64_t(0)));  // staged rows start before 0
    return Tabled{table, first};
  }
}

// 1- and 2-byte elements from 16-byte aligned src rows: a thread takes K = 4 / E consecutive
// staged rows of one 16-byte column chunk and stages them as 16 / E words of the column tile,
// each word the K rows of one column (layout::chunk_columns): 16 / E shared stores for K
// chunks where a store an element took 16 / E a chunk (H200, fp16 4096x64x64x3 (3,1,2,0):
// 84 -> 89% of a copy). A chunk that reaches past the matrix's columns is read element by
// element. Rows outside the matrix, and the tile's padding rows past A::rows, stage zeros: no
// store reads them. (Shifted src rows stage element by element: K chunks a thread there, with
// their loads in flight together, ran 5-10% slower on the H200 for bytes.)
template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ void stage_words(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                            int64_t r0, int64_t c0) {
  using Tile = layout::AlignedDstColumnTile<A>;
  constexpr int K = 4 / E, chunks = A::cols / A::vec, lanes = A::threads / chunks;
  constexpr int groups = (A::rows + K - 1) / K, steps = (groups + lanes - 1) / lanes;
  static_assert(Tile::pitch % K == 0 && groups * K <= Tile::pitch, "a group of K rows is one word");
  const int v = threadIdx.x % chunks, lane = threadIdx.x / chunks;
  const int64_t c = c0 + int64_t(v) * A::vec;
  const bool full = !Edge || c + A::vec <= p.cols;
  const Elem<E>* col = src + c;
  Vector<E> in[steps][K];
#pragma unroll
  for (int k = 0; k < steps; ++k)
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const int j = K * (k * lanes + lane) + i;
      const int64_t r = r0 + j;
      in[k][i].bits = make_uint4(0, 0, 0, 0);
      const bool inside = (j < A::rows) & (!Edge || ((r >= 0) & (r < p.rows)));
      if (inside & full)
        in[k][i].bits = *reinterpret_cast<const uint4*>(col + rows(r));
      else if (inside)
        for (int e = 0; e < A::vec; ++e)
          if (c + e < p.cols) in[k][i].e[e] = col[rows(r) + e];
    }
#pragma unroll
  for (int k = 0; k < steps; ++k) {
    const int g = k * lanes + lane;
    if (g >= groups) continue;
    uint32_t rows_of[K][4], column[A::vec];
#pragma unroll
    for (int i = 0; i < K; ++i)
#pragma unroll
      for (int q = 0; q < 4; ++q) rows_of[i][q] = in[k][i].words[q];
    layout::chunk_columns<E>(rows_of, column);
#pragma unroll
    for (int t = 0; t < A::vec; ++t)
      *reinterpret_cast<uint32_t*>(tile + Tile::at(K * g, v * A::vec + t)) = column[t];
  }
}

// Src rows r0.. of columns c0.. into the tile from 16-byte aligned src rows, a 16-byte vector
// per load (measured well ahead of element by element on fp16 with a padded src). Each
// staging is its own kernel, not a branch: with two paths in one kernel the slower one lost
// ground (docs/experiments.md, 6).
template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ void stage_vectors(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                              int64_t r0, int64_t c0) {
  if constexpr (E <= 2) {
    stage_words<A, Edge>(tile, src, p, rows, r0, c0);
    return;
  }
  constexpr int vecs = A::cols / A::vec, lanes = A::threads / vecs, steps = (A::rows + lanes - 1) / lanes;
  const int v = threadIdx.x % vecs, lane = threadIdx.x / vecs;
  const int64_t c = c0 + v * A::vec;
  const bool full = !Edge || c + A::vec <= p.cols;  // else the matrix's last columns: element by element
  const Elem<E>* col = src + c;
  Vector<E> in[steps];
  bool inside[steps];
#pragma unroll
  for (int k = 0; k < steps; ++k) {
    const int j = k * lanes + lane;
    const int64_t r = r0 + j;
    inside[k] = (j < A::rows) & (!Edge || ((r >= 0) & (r < p.rows)));
    if (inside[k] & full) in[k].bits = *reinterpret_cast<const uint4*>(col + rows(r));
  }
  if (!full)
    for (int k = 0; k < steps; ++k)
      for (int e = 0; e < A::vec; ++e)
        if (inside[k] & (c + e < p.cols)) in[k].e[e] = col[rows(r0 + k * lanes + lane) + e];
#pragma unroll
  for (int k = 0; k < steps; ++k)
#pragma unroll
    for (int e = 0; e < A::vec; ++e)
      if (inside[k] & (c + e < p.cols)) tile[StagedTile<A>::at(k * lanes + lane, v * A::vec + e)] = in[k].e[e];
}

// Src's bytes, first to one past the last: no aligned vector is read outside them.
struct SrcSpan {
  const unsigned char *low, *high;
};

// 1- and 2-byte elements: the aligned vectors around the 16-byte chunk of staged row j (src row
// r0 + j) from column c on, their loads issued (layout::shifted_chunk): whole where both lie
// inside src's bytes (or the block lies inside: !Edge; a chunk past the row's last column stages
// bytes no store reads); `valid`: the caller's own bound on j.
struct ShiftedLoad {
  uint4 lo, hi;
  int offset;
  bool inside, whole;
};

template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ ShiftedLoad load_shifted(const Elem<E>* src, const Problem& p, const Rows& rows, int64_t r0,
                                                    int j, int64_t c, bool column_inside, bool valid,
                                                    const SrcSpan& span) {
  static_assert(E <= 2, "wider elements stage by stage_scattered");
  const auto address = [](const Elem<E>* e) { return reinterpret_cast<uintptr_t>(e); };
  const int64_t r = r0 + j;
  ShiftedLoad l;
  l.inside = valid & (j < A::rows) & (!Edge || ((r >= 0) & (r < p.rows) & column_inside));
  const Elem<E>* row = src;  // a table (Tabled) has no row past the tile: looked up only inside it
  if constexpr (std::is_same_v<Rows, Pitched>)
    row += rows(r);
  else if (l.inside)
    row += rows(r);
  // The vectors anywhere in src (a chunk's elements one at a time were 16 or 8 loads while the
  // warp waited: u8 5x501x709x75 (3,1,2,0) 40 -> 62% of a copy, H200).
  const layout::ShiftedChunk s = layout::shifted_chunk(address(row + c), reinterpret_cast<uintptr_t>(span.low),
                                                       reinterpret_cast<uintptr_t>(span.high));
  l.whole = l.inside & (!Edge || s.whole);
  l.offset = s.offset;
  // Global loads (__ldca): a pointer made from an integer loads through generic addressing.
  const uint4* from = reinterpret_cast<const uint4*>(s.first);
  l.lo = l.hi = make_uint4(0, 0, 0, 0);
  if (l.whole) l.lo = __ldca(from);
  if (l.whole & (s.offset != 0)) l.hi = __ldca(from + 1);
  return l;
}

// The chunk's 16 bytes shifted out of its vectors (whole chunks only).
__device__ __forceinline__ void shifted_words(const ShiftedLoad& l, uint32_t (&words)[4]) {
  const uint32_t w[8] = {l.lo.x, l.lo.y, l.lo.z, l.lo.w, l.hi.x, l.hi.y, l.hi.z, l.hi.w};
  layout::shift_out_chunk(w, l.offset, words);
}

// Bytes from shifted src rows: a thread takes two consecutive staged rows of one 16-byte column
// chunk (their loads in flight together) and stages each column's two bytes with one shared
// store (layout::chunk_byte_pairs): 16 stores for the two chunks where a byte a store took 32
// (H200, same call: u8 aligned_stores draws +1.6 to +3.4 points at the median, 2-D and N-D; the
// same with halves, chunk_columns<2>, cost permute_aligned_stores 52 registers and 1.2 points).
// Chunks at src's ends load their bytes one by one; rows outside the matrix stage zeros.
template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ void stage_shifted_pairs(Elem<E>* tile, const Elem<E>* src, const Problem& p,
                                                    const Rows& rows, int64_t r0, int64_t c0, const SrcSpan& span) {
  using Tile = layout::AlignedDstColumnTile<A>;
  constexpr int chunks = A::cols / A::vec, lanes = A::threads / chunks;
  constexpr int pairs = (A::rows + 1) / 2, steps = (pairs + lanes - 1) / lanes;
  static_assert(E == 1 && Tile::pitch % 2 == 0 && 2 * pairs <= Tile::pitch, "a pair of rows is one aligned store");
  const int u = int(threadIdx.x) % chunks, lane = int(threadIdx.x) / chunks;
  const int64_t c = c0 + int64_t(u) * A::vec;
  const bool column_inside = c < p.cols;
#pragma unroll
  for (int k = 0; k < steps; ++k) {
    const int g = k * lanes + lane;
    if (g >= pairs) break;
    ShiftedLoad l[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) l[i] = load_shifted<A, Edge>(src, p, rows, r0, 2 * g + i, c, column_inside, true, span);
    uint32_t words[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      if (l[i].whole) {
        shifted_words(l[i], words[i]);
      } else {
        Vector<E> v;
        v.bits = make_uint4(0, 0, 0, 0);
        if (l[i].inside) {
          const Elem<E>* row = src + rows(r0 + 2 * g + i);
          for (int e = 0; e < A::vec; ++e)
            if (c + e < p.cols) v.e[e] = row[c + e];
        }
        words[i][0] = v.bits.x, words[i][1] = v.bits.y, words[i][2] = v.bits.z, words[i][3] = v.bits.w;
      }
    }
    uint16_t column[16];
    layout::chunk_byte_pairs(words, column);
#pragma unroll
    for (int t = 0; t < 16; ++t) *reinterpret_cast<uint16_t*>(tile + Tile::at(2 * g, u * A::vec + t)) = column[t];
  }
}

// 4- and 8-byte elements from shifted src rows: each aligned 16-byte vector around a staged row's
// columns is loaded once and its elements stored at their columns in the tile (a row's shift
// is a whole number of elements), two vectors a batch: no two vectors a chunk and no bytes
// shifted in registers (shifted chunks took 45% more instructions than aligned rows: H200,
// fp32 8191x4097 63 -> 69% of a copy, fp64 4095x4097 68 -> 73; four vectors a batch gained
// less). A vector that reaches past its row's bytes in the matrix loads only its elements
// inside (vectors past the row cost fp64 batches 6-7 points); rows outside the matrix stage
// nothing (no store reads them).
template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ void stage_scattered(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                                int64_t r0, int64_t c0) {
  static_assert(E == 4 || E == 8, "a row's shift is a whole number of elements");
  constexpr int vectors = A::cols / A::vec + 1;  // a row's, shifted
  constexpr int count = A::rows * vectors, steps = (count + A::threads - 1) / A::threads;
  constexpr int in_flight = 2;  // vectors a batch
#pragma unroll
  for (int first = 0; first < steps; first += in_flight) {
    Vector<E> in[in_flight];
    int col[in_flight];  // the vector's first element's tile column (its row's elements before 0 are not staged)
    bool inside[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {  // the batch's loads in flight first
      const int q = (first + k) * A::threads + int(threadIdx.x), j = q / vectors, v = q % vectors;
      const int64_t r = r0 + j;
      inside[k] = (first + k < steps) & (q < count) & (!Edge || ((r >= 0) & (r < p.rows)));
      in[k].bits = make_uint4(0, 0, 0, 0);
      col[k] = 0;
      if (!inside[k]) continue;
      const Elem<E>* const row = src + rows(r);
      const uintptr_t start = reinterpret_cast<uintptr_t>(row + c0);
      const int shift = int(start & 15) / E;           // elements before column c0 in its vector
      col[k] = v * A::vec - shift;
      const Elem<E>* const from = row + c0 + col[k];  // aligned
      const int64_t first_col = c0 + col[k];          // its first element's matrix column
      inside[k] = col[k] < A::cols && (!Edge || first_col < p.cols);
      if (!inside[k]) continue;
      if (first_col >= 0 && first_col + A::vec <= p.cols) {
        in[k].bits = *reinterpret_cast<const uint4*>(from);
      } else {
        for (int e = 0; e < A::vec; ++e)
          if (first_col + e >= 0 && first_col + e < p.cols) in[k].e[e] = from[e];
      }
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      if (!inside[k]) continue;
      const int j = ((first + k) * A::threads + int(threadIdx.x)) / vectors;
#pragma unroll
      for (int e = 0; e < A::vec; ++e)
        if (col[k] + e >= 0 && col[k] + e < A::cols) tile[StagedTile<A>::at(j, col[k] + e)] = in[k].e[e];
    }
  }
}

// Src rows that are not 16-byte aligned, still as aligned 16-byte vectors. 1- and 2-byte
// elements: each 16-byte chunk of a staged row takes the one or two aligned vectors around it
// and shifts its bytes out (load_shifted, layout::shift_out_chunk); a chunk whose vectors would
// reach past src's bytes loads its elements one by one; bytes two rows a store
// (stage_shifted_pairs), halves a chunk's worth of rows a batch. Wider elements: stage_scattered.
template <class A, bool Edge, class Rows, int E = A::elem_bytes>
__device__ __forceinline__ void stage_shifted(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                              int64_t r0, int64_t c0, const SrcSpan& span) {
  if constexpr (E == 1) {
    stage_shifted_pairs<A, Edge>(tile, src, p, rows, r0, c0, span);
  } else if constexpr (E >= 4) {
    stage_scattered<A, Edge>(tile, src, p, rows, r0, c0);
  } else {
    constexpr int chunks = A::cols * E / 16, steps = (A::rows * chunks + A::threads - 1) / A::threads;
    constexpr int in_flight = 2;  // chunks a batch: 3 took 60 registers a thread for bytes and fp32 (48 with 2), slower
    static_assert(A::threads % chunks == 0, "a thread's chunk is the same column in every step");
    constexpr int per_step = A::threads / chunks;  // rows a step
    const int u = int(threadIdx.x) % chunks, lane = int(threadIdx.x) / chunks;
    const int64_t c = c0 + int64_t(u) * A::vec;
    const bool column_inside = c < p.cols;
#pragma unroll
    for (int first = 0; first < steps; first += in_flight) {
      ShiftedLoad l[in_flight];
#pragma unroll
      for (int k = 0; k < in_flight; ++k)  // the batch's loads in flight first
        l[k] = load_shifted<A, Edge>(src, p, rows, r0, (first + k) * per_step + lane, c, column_inside, first + k < steps,
                                     span);
#pragma unroll
      for (int k = 0; k < in_flight; ++k) {
        const int j = (first + k) * per_step + lane;
        if (l[k].whole) {
          uint32_t words[4];
          shifted_words(l[k], words);
          stage_chunk<A>(tile, j, u * A::vec, words);
        } else if (l[k].inside) {
          const Elem<E>* row = src + rows(r0 + j);
          for (int e = 0; e < A::vec; ++e)
            if (c + e < p.cols) tile[StagedTile<A>::at(j, u * A::vec + e)] = row[c + e];
        }
      }
    }
  }
}

// The block's tile staged and its dst row pieces stored; Edge: with the tests of the matrix's
// edges (else the block lies inside: AlignedDstTile::interior).
template <int E, Staging How, bool Edge, class Rows, class Cols>
__device__ __forceinline__ void block_body(Elem<E>* tile, const Problem& p, const Rows& rows, const Cols& cols,
                                           const Elem<E>* src, Elem<E>* dst, int64_t r0, int64_t c0,
                                           const SrcSpan& span) {
  using A = TileOf<E, How>;
  using Tile = StagedTile<A>;
  if constexpr (How == vectors)
    stage_vectors<A, Edge>(tile, src, p, rows, r0, c0);
  else
    stage_shifted<A, Edge>(tile, src, p, rows, r0, c0, span);
  __syncthreads();
  // The matrix's rows and columns as the tile's, 32-bit: tile rows [lowest, highest) and
  // columns [0, cols_left).
  const typename A::Held held = A::held(p.rows, r0);
  const int lowest = held.lowest, highest = held.highest;
  const int cols_left = int(min(p.cols - c0, int64_t(A::cols)));
#pragma unroll
  for (int i = threadIdx.x; i < A::cols * A::vecs_per_piece; i += A::threads) {
    const int c = i / A::vecs_per_piece, v = i % A::vecs_per_piece;  // vector v of dst row c0 + c
    if constexpr (E == 1) {  // bytes kept the 64-bit bounds: the 32-bit ones cost u8 1 to 3 points (H200)
      if (Edge && c0 + c >= p.cols) continue;
      Elem<E>* row = dst + cols(c0 + c);
      const int s = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
      const int64_t first = r0 + A::max_shift - s + int64_t(v) * A::vec;  // the vector's first src row
      if (!Edge || (first >= 0 && first + A::vec <= p.rows)) {
        __stwb(reinterpret_cast<uint4*>(row + first), gather_vector<A>(tile, A::tile_row(s, v, 0), c));
      } else if (first < p.rows && first + A::vec > 0) {  // across row 0 or the last row: its bytes alone
        store_part(reinterpret_cast<unsigned char*>(row + first), gather_vector<A>(tile, A::tile_row(s, v, 0), c),
                   int(max(-first, int64_t(0))), int(min(p.rows - first, int64_t(A::vec))));
      }
      continue;
    }
    if (Edge && c >= cols_left) continue;
    Elem<E>* row = dst + cols(c0 + c);
    const int s = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
    const int at = A::tile_row(s, v, 0);  // the vector's first tile row; its src row r0 + at
    if (!Edge || (at >= lowest && at + A::vec <= highest)) {
      __stwb(reinterpret_cast<uint4*>(row + r0 + at), gather_vector<A>(tile, at, c));
    } else if (at < highest && at + A::vec > lowest) {  // across row 0 or the last row
      // (2-byte elements as store_part's aligned parts lost up to 11 points: H200, fp16
      // 669x113x2x217 (2,0,3,1) 66 -> 56% of a copy)
      for (int k = max(lowest - at, 0); k < min(highest - at, A::vec); ++k)
        row[r0 + at + k] = tile[Tile::at(at + k, c)];
    }
  }
}

// One block's work: src rows r0.. (r0 = the piece's first row less max_shift) of columns c0..
// of the matrix at src staged into the tile, then the dst row pieces stored. The caller
// synchronizes before the tile is staged again. one_shift: every dst row starts at the same
// address modulo 32 bytes (dst pitches multiples of 32 bytes), so the block's pieces share one
// shift; a block whose pieces then all start past the last row (the extra block row that
// covers other layouts' shifts: half of the blocks where the rows are one piece) returns
// before it stages anything. Blocks of 1- and 2-byte elements inside the matrix skip the
// edge tests (wider elements kept them: the second body cost fp32 four registers, a block
// an SM, and up to 26 points).
template <int E, Staging How, class Rows, class Cols>
__device__ __forceinline__ void aligned_stores_block(Elem<E>* tile, const Problem& p, const Rows& rows,
                                                     const Cols& cols, const Elem<E>* src, Elem<E>* dst, int64_t r0,
                                                     int64_t c0, bool one_shift, const SrcSpan& span) {
  using A = TileOf<E, How>;
  if (one_shift) {
    const int s = A::shift(reinterpret_cast<uintptr_t>(dst + cols(c0)) + uintptr_t(r0 + A::max_shift) * E);
    if (r0 + A::max_shift - s >= p.rows) return;
  }
  if (E <= 2 && A::interior(p.rows, p.cols, r0, c0, How == shifted))
    block_body<E, How, false>(tile, p, rows, cols, src, dst, r0, c0, span);
  else
    block_body<E, How, true>(tile, p, rows, cols, src, dst, r0, c0, span);
}

}  // namespace xpose::engines::aligned
