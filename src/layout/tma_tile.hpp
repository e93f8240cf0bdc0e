// The shared-memory tiles of the TMA kernels (kernels/tma/). The copy engine fills and
// drains shared memory itself, in rows of exactly 128 bytes on both sides (the span of
// its 128-byte swizzle), so every tile is cut into square boxes of 128/E elements a side.
//
// CU_TENSOR_MAP_SWIZZLE_128B stores the 16-byte chunk k of 128-byte row r at chunk
// k ^ (r % 8) (PTX ISA, "tensor swizzling modes"; the buffer 1024-byte aligned): on an
// element offset that is bits [4 - log2 E, 7 - log2 E) XOR the three bits 3 above them.
#pragma once

#include <cstdint>

#include "layout/smem_layout.hpp"
#include "layout/tma_map.hpp"

namespace xpose::layout {

constexpr int log2_of(int v) { return v <= 1 ? 0 : 1 + log2_of(v / 2); }

template <int E>
using Swizzle128 = Swizzle<3, 4 - log2_of(E), 3>;

// Whether cute_tma can move an E-byte rows x cols problem in whole-row boxes
// (layout/cute_tiles.hpp): both sides' rows (src: cols elements, dst: rows) must be whole
// 128-byte segments.
constexpr bool cute_tma_whole_rows(int64_t E, int64_t rows, int64_t cols) {
  return E >= 1 && E <= 8 && cols % (128 / E) == 0 && rows % (128 / E) == 0;
}

// The edge of the vectorized CuTe tiles' square (cute_vectorized, cute_vectorized_swizzled;
// layout/cute_tiles.hpp, which holds the reason) per element size, here without CuTe for the
// rules.
constexpr int cute_vec_edge(int64_t E) { return E == 1 ? 64 : E == 8 ? 16 : 32; }

// Whether an E-byte rows x cols matrix is whole vectorized CuTe tiles.
constexpr bool cute_vec_whole_tiles(int64_t E, int64_t rows, int64_t cols) {
  return rows % cute_vec_edge(E) == 0 && cols % cute_vec_edge(E) == 0;
}

// The ladder's tile (tma, tma_swizzle128, tma_batched): one box each way.
template <int E>
struct TmaTile {
  static constexpr int edge = 128 / E;  // elements per 128-byte row; rows per tile
  using Plain = PlainTile<edge, edge>;
  using Swizzled128 = SwizzledTile<edge, edge, Swizzle128<E>>;
};

// The pipelined kernel's tile: Rows src rows of one 128-byte box column (n = 128/E src
// columns), loaded as one box; turned around it is n dst rows of Rows elements, stored as
// Rows/n boxes of n x n. Threads turn it in micro-blocks of m x m elements: m rows of one
// W = m*E byte word each are read, transposed in registers, and written as m words, so
// every shared-memory access is at least 4 bytes wide. Micro-block k goes to
//   I = p + P*z, J = (p + h) % B   (p = k % P, h = k / P % B, z = k / (P*B)),
// a diagonal walk that gives the P threads of a phase P distinct row blocks and P
// distinct chunk columns, so both the word loads (chunk J ^ row % 8) and the word stores
// (chunk I ^ row % 8) are conflict-free; tests/cpu/test_tma.cpp replays every warp
// through the bank model to prove it for each element size.
template <int E> struct MicroTraits;
template <> struct MicroTraits<1>  { static constexpr int m = 4, P = 32; };
template <> struct MicroTraits<2>  { static constexpr int m = 4, P = 16; };
template <> struct MicroTraits<4>  { static constexpr int m = 4, P = 8; };
template <> struct MicroTraits<8>  { static constexpr int m = 2, P = 8; };
template <> struct MicroTraits<16> { static constexpr int m = 1, P = 1; };

template <int E, int Rows>
struct TmaPipeTile {
  static constexpr int n = 128 / E;              // src columns = dst rows per tile; box edge
  static constexpr int rows = Rows;              // src rows = dst columns per tile
  static constexpr int size = rows * n;          // elements, each side
  static constexpr int boxes_out = rows / n;     // dst boxes per tile
  static constexpr int m = MicroTraits<E>::m, P = MicroTraits<E>::P;
  static constexpr int word_bytes = m * E;
  static constexpr int B = n / m;                // micro-block columns
  static constexpr int micro_blocks = (rows / m) * B;
  static_assert(rows % n == 0 && (rows / m) % P == 0, "tile rows must be whole boxes and phases");

  using In = SwizzledTile<rows, n, Swizzle128<E>>;  // src row r, src column c
  using OutBox = SwizzledTile<n, n, Swizzle128<E>>;
  // dst row cc (src column), dst column r (src row): box r / n, then the swizzled box.
  XPOSE_HD static constexpr int out_at(int cc, int r) { return (r / n) * n * n + OutBox::at(cc, r % n); }

  struct Micro { int I, J; };  // micro-block row and column
  XPOSE_HD static constexpr Micro micro(int k) {
    const int p = k % P, h = k / P % B, z = k / (P * B);
    return {p + P * z, (p + h) % B};
  }
};

}  // namespace xpose::layout
