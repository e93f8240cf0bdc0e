// Shared-memory tile layouts and the thread -> element maps of the tiled kernels.
//
// Everything here is __host__ __device__ constexpr: the kernels index shared memory
// through these functions, and the CPU bank-conflict model (bank_model.hpp) replays
// the same functions, so what the tests prove about banks holds for the kernels.
#pragma once

#include "layout/hd.hpp"

namespace xpose::layout {

// CuTe-style swizzle on an element offset: XOR `bits` bits taken from `shift` bits up
// into the bits starting at `base`. It is its own inverse, so it is a bijection.
template <int Bits, int Base, int Shift>
struct Swizzle {
  static constexpr int bits = Bits, base = Base, shift = Shift;
  XPOSE_HD static constexpr int apply(int offset) {
    return offset ^ ((offset >> Shift) & (((1 << Bits) - 1) << Base));
  }
};

// A Rows x Cols tile stored row by row, no padding: a column walk lands on one bank.
template <int Rows, int Cols>
struct PlainTile {
  static constexpr int rows = Rows, cols = Cols, size = Rows * Cols;
  XPOSE_HD static constexpr int at(int r, int c) { return r * Cols + c; }
};

// Rows padded by one 4-byte bank (one element for elements of 4 bytes or more, 4/E
// elements below that): consecutive rows start one bank apart.
template <int Rows, int Cols, int Pad>
struct PaddedTile {
  static constexpr int rows = Rows, cols = Cols, pitch = Cols + Pad, size = Rows * pitch;
  XPOSE_HD static constexpr int at(int r, int c) { return r * pitch + c; }
};

// Two swizzles applied in turn (each a bijection, so the pair is one too).
template <class First, class Second>
struct Compose {
  XPOSE_HD static constexpr int apply(int offset) { return Second::apply(First::apply(offset)); }
};

// A plain tile whose element offsets pass through a swizzle: no space lost, and rows
// stay whole multiples of 16 bytes for vector access.
template <int Rows, int Cols, class Sw>
struct SwizzledTile {
  static constexpr int rows = Rows, cols = Cols, size = Rows * Cols;
  XPOSE_HD static constexpr int at(int r, int c) { return Sw::apply(r * Cols + c); }
};

constexpr int pad_for(int elem_bytes) { return elem_bytes >= 4 ? 1 : 4 / elem_bytes; }

// ---------------------------------------------------------------------------------
// The classic 32x32 tile, 32x8 threads, each thread four elements (the textbook
// shared-memory transpose).
namespace classic {
constexpr int tile = 32;
constexpr int block_x = 32, block_y = 8;
constexpr int per_thread = tile / block_y;

template <int E> using Plain = PlainTile<tile, tile>;
template <int E> using Padded = PaddedTile<tile, tile, pad_for(E)>;
// The textbook XOR swizzle: column c of row r is stored at column c ^ r.
template <int E> using Swizzled = SwizzledTile<tile, tile, Swizzle<5, 0, 5>>;

struct Coord { int r, c; };
// Step j of thread (tx, ty) writes tile row ty + 8j from a coalesced src row ...
XPOSE_HD constexpr Coord load_coord(int tx, int ty, int j) { return {ty + j * block_y, tx}; }
// ... and reads tile column ty + 8j, which becomes a coalesced dst row.
XPOSE_HD constexpr Coord store_coord(int tx, int ty, int j) { return {tx, ty + j * block_y}; }
}  // namespace classic

// ---------------------------------------------------------------------------------
// vec_swizzled: each thread moves 16-byte vectors of V = 16/E elements on both sides.
// A vector loaded from a src row is scattered into the tile as V elements; a vector
// stored to a dst row is gathered from V consecutive tile rows of one column. Tile edge
// and swizzle per element size were found by search so that both walks are
// conflict-free in the bank model (tests/cpu/test_layout.cpp proves it). The fp32 tile
// is 64x64: 256-byte rows on both sides measured best (tools/experiments/tile_shapes.cu);
// the other sizes keep the first conflict-free tiles found, untuned.
template <int E> struct VecTraits;
template <> struct VecTraits<1>  { static constexpr int tile = 64; using Sw = Swizzle<5, 2, 5>; };
template <> struct VecTraits<2>  { static constexpr int tile = 32; using Sw = Swizzle<5, 0, 5>; };
template <> struct VecTraits<4>  { static constexpr int tile = 64; using Sw = Compose<Swizzle<2, 0, 5>, Swizzle<4, 1, 7>>; };
template <> struct VecTraits<8>  { static constexpr int tile = 32; using Sw = Compose<Swizzle<1, 0, 4>, Swizzle<4, 0, 6>>; };
template <> struct VecTraits<16> { static constexpr int tile = 32; using Sw = Swizzle<5, 0, 5>; };

template <int E>
struct VecTile {
  static constexpr int tile = VecTraits<E>::tile;        // rows and cols of the tile
  static constexpr int vec = 16 / E;                     // elements per 16-byte vector
  static constexpr int vecs_per_row = tile / vec;
  static constexpr int vecs = tile * vecs_per_row;       // vectors per tile, each side
  static constexpr int threads = vecs < 256 ? vecs : 256;
  static constexpr int per_thread = vecs / threads;
  using Layout = SwizzledTile<tile, tile, typename VecTraits<E>::Sw>;

  struct Coord { int r, c; };
  // Load side: tile row r, columns c..c+vec-1, read as one vector from a src row.
  XPOSE_HD static constexpr Coord load_coord(int v, int k) {
    return {v / vecs_per_row, (v % vecs_per_row) * vec + k};
  }
  // Store side: tile column c, rows r..r+vec-1, written as one vector to a dst row.
  XPOSE_HD static constexpr Coord store_coord(int v, int k) {
    return {(v % vecs_per_row) * vec + k, v / vecs_per_row};
  }
};

// The in-place square transpose's tiles for 1- and 2-byte elements on 16 bytes (128-byte rows):
// a thread loads K = 4 / E rows of one 16-byte chunk, turns each K x K block in registers (byte
// permutes), and stages words that each hold K rows of one column; a turned row's 16 bytes are
// then 4 consecutive staged words, one 16-byte shared load (vec_swizzled's tiles take 16 / E
// element loads and stores a vector: u8 8192^2 at 71% of a copy on the H200). A column's 32 words
// are XORed, in steps of 4, by the chunk its column is in, so that a warp's word stores (8 chunks
// x 4 groups) meet 32 banks and the loads stay whole.
template <int E>
struct PackedPairTile {
  static_assert(E == 1 || E == 2, "1- and 2-byte elements");
  static constexpr int K = 4 / E, side = 128 / E, vec = 16 / E;  // rows a group, a tile's side, a chunk
  static constexpr int groups = side / K;                          // 32: words a column
  static constexpr int threads = 256, chunks_a_row = 8;
  static constexpr int stores = side * chunks_a_row / threads;     // turned 16-byte chunks a thread
  static constexpr int size = side * groups;                       // words
  static_assert(groups * chunks_a_row == threads, "a K-row chunk a thread");

  struct Coord { int r, c; };
  // Word slot of column c, rows K g .. K g + K - 1.
  XPOSE_HD static constexpr int at(int c, int g) { return c * groups + (g ^ (((c / vec) & 7) << 2)); }
  // Thread t's loads: rows K q .. K q + K - 1 of columns c .. c + vec - 1.
  XPOSE_HD static constexpr Coord load_coord(int t) { return {t / chunks_a_row * K, t % chunks_a_row * vec}; }
  // Turned chunk i: tile column c, rows r .. r + vec - 1 (words at(c, r / K) .. + 3).
  XPOSE_HD static constexpr Coord store_coord(int i) { return {i % chunks_a_row * vec, i / chunks_a_row}; }
};

}  // namespace xpose::layout
