// The CuTe family's shared-memory tiles, as CuTe layouts: one place for the
// kernels and for the host test that replays them through the bank model. A tile is 32
// rows by `cols` elements, row-major; `cols` is 64 (128 for bytes, so that a row covers
// all 32 banks). The swizzle is CuTe's Swizzle<B, M, S>, generalised below 4 bytes:
// M = log2 of the elements sharing one 4-byte bank (M = 0 from 4 bytes up, float and
// double), B = log2 of the banks' worth of elements (32 x 4 / E) less M, S = log2(cols) - M.
// Element (r, c) then lands in word (c >> M) ^ (r mod 2^B) of its row, so a warp reading
// a column meets each bank once per wavefront (two tile rows sharing a bank word would
// not be enough: with M = 0, 2-byte elements of rows r and r^1 meet in one bank).
#pragma once

#include <type_traits>

#include <cute/layout.hpp>
#include <cute/swizzle.hpp>
#include <cute/swizzle_layout.hpp>
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>  // (after tensor.hpp, which it assumes)

#include "layout/hd.hpp"
#include "layout/micro_block.hpp"
#include "layout/smem_layout.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::layout {

template <int E>
struct CuteTile {
  static constexpr int rows = 32;
  static constexpr int cols = E == 1 ? 128 : 64;
  static constexpr int per_bank = E < 4 ? 4 / E : 1;  // elements sharing a 4-byte bank
  static constexpr int M = log2_of(per_bank);
  static constexpr int B = log2_of(32 * 4 / E) - M;
  static constexpr int S = log2_of(cols) - M;
  using Shape = cute::Shape<cute::Int<rows>, cute::Int<cols>>;

  static constexpr auto plain() { return cute::make_layout(Shape{}, cute::GenRowMajor{}); }
  // Rows padded by one 4-byte bank, as the hand-written smem_padded tile.
  static constexpr auto padded() {
    return cute::make_layout(Shape{}, cute::make_stride(cute::Int<cols + pad_for(E)>{}, cute::Int<1>{}));
  }
  static constexpr auto swizzled() {
    return cute::composition(cute::Swizzle<B, M, S>{}, plain());
  }
};

// The vectorized CuTe tiles (cute_vectorized, cute_vectorized_swizzled): square, moved as
// 16-byte vectors of V = 16/E elements on both sides (a src row piece in, a dst row piece
// out), each element stored to and loaded from shared memory on its own. The edge and
// swizzle per element size are the tiles whose both walks a single CuTe Swizzle makes
// conflict-free (found by search in the bank model; tests/cpu/test_cute_layout.cu proves
// it): 64 for bytes, 32 for 2-, 4- and 16-byte elements, 16 for 8-byte ones. A larger
// edge (256-byte rows) would need two swizzles composed, as vec_swizzled's fp32 tile does.
template <int E> struct CuteVecTraits;
template <> struct CuteVecTraits<1>  { static constexpr int tile = 64; using Sw = cute::Swizzle<5, 2, 5>; };
template <> struct CuteVecTraits<2>  { static constexpr int tile = 32; using Sw = cute::Swizzle<4, 1, 5>; };
template <> struct CuteVecTraits<4>  { static constexpr int tile = 32; using Sw = cute::Swizzle<5, 0, 5>; };
template <> struct CuteVecTraits<8>  { static constexpr int tile = 16; using Sw = cute::Swizzle<4, 0, 4>; };
template <> struct CuteVecTraits<16> { static constexpr int tile = 32; using Sw = cute::Swizzle<3, 0, 5>; };

template <int E>
struct CuteVecTile {
  static constexpr int tile = CuteVecTraits<E>::tile;
  static_assert(tile == cute_vec_edge(E), "the rules' copy of the edge (layout/tma_tile.hpp)");
  static constexpr int vec = 16 / E;
  static constexpr int vecs_per_row = tile / vec;
  static constexpr int threads = tile * vecs_per_row < 256 ? tile * vecs_per_row : 256;
  using Shape = cute::Shape<cute::Int<tile>, cute::Int<tile>>;

  static constexpr auto plain() { return cute::make_layout(Shape{}, cute::GenRowMajor{}); }
  static constexpr auto swizzled() { return cute::composition(typename CuteVecTraits<E>::Sw{}, plain()); }

  // Load side: consecutive threads take consecutive vectors of a src row (tile row).
  using LoadThreads = cute::Layout<cute::Shape<cute::Int<threads / vecs_per_row>, cute::Int<vecs_per_row>>,
                                   cute::Stride<cute::Int<vecs_per_row>, cute::_1>>;
  using LoadVector = cute::Layout<cute::Shape<cute::_1, cute::Int<vec>>>;
  // Store side: consecutive threads take consecutive vectors down a tile column (a dst row).
  using StoreThreads = cute::Layout<cute::Shape<cute::Int<vecs_per_row>, cute::Int<threads / vecs_per_row>>,
                                    cute::Stride<cute::_1, cute::Int<vecs_per_row>>>;
  using StoreVector = cute::Layout<cute::Shape<cute::Int<vec>, cute::_1>>;

  // The two sides' TiledCopy over a 16-byte copy atom (the kernel's own, or any other of the
  // same width for a host replay of the partitions).
  template <class Atom> static constexpr auto load_copy() { return cute::make_tiled_copy(Atom{}, LoadThreads{}, LoadVector{}); }
  template <class Atom> static constexpr auto store_copy() { return cute::make_tiled_copy(Atom{}, StoreThreads{}, StoreVector{}); }
};

// cute_tma's square tile per element size, under the 128-byte swizzle, turned in place
// (one buffer, in dynamic shared memory), in one of two layouts:
//  - slabs (WholeRows = false): CuTe's GMMA K-major SW128 atom (8 rows of 128 bytes)
//    tiled, so a tile wider than 128 bytes is a row of 128-byte-wide slabs, and
//    make_tma_copy issues one 2-D box per slab: a 256-byte row piece moves as two halves,
//    far apart in time. Rows of 256 bytes (fp16 128x128, fp32 64x64, fp64 32x32), 128 for
//    bytes (128x128). Serves any shape.
//  - whole rows (WholeRows = true): rows of 256 bytes for every size (bytes 256x256, 64
//    KiB), the tile row-major, each row's columns a (128-byte segment, segments) mode under
//    the same swizzle (a TMA box row may not exceed the swizzle's 128 bytes). The global
//    matrix is viewed the same way, with the segment stride a runtime value so that
//    make_tma_copy cannot merge the two modes back into one: it issues one 3-D box
//    (segment, 2 segments, rows), and each row's 256 bytes come and go together. Ahead of
//    slabs on fp32 32768^2 at 3 tiles per SM, and further ahead on bytes
//    (tools/experiments/cute_tma.cu; docs/experiments.md, 4;
//    rows of 512 bytes were slower for every size). The view needs whole segments: cols
//    (src) and rows (dst) multiples of 128 / E (cute_tma_whole_rows, layout/tma_tile.hpp).
// blocks_per_sm: how many tiles an SM should hold at once, measured (same experiment):
// more tiles in flight than 48-128 KiB per SM only lost; 0 leaves the limit to the
// registers (fp64: 6, bytes in slabs: 8, both best so).
template <int E, bool WholeRows>
struct CuteTmaTile {
  using T = cute::uint_byte_t<E>;
  static constexpr int edge = E == 1 && !WholeRows ? 128 : 256 / E;
  static constexpr int seg = 128 / E;  // elements per 128-byte swizzle row
  static constexpr int threads = 256;
  static constexpr int bytes = edge * edge * E;
  static constexpr int blocks_per_sm = E == 1 ? (WholeRows ? 2 : 0) : E == 2 ? 2 : E == 4 ? 3 : 0;
  using Square = cute::Shape<cute::Int<edge>, cute::Int<edge>>;
  using Split = cute::Shape<cute::Int<edge>, cute::Shape<cute::Int<seg>, cute::Int<edge / seg>>>;
  // The tile's shape as the global view is tiled: (rows, cols) or (rows, (segment, segments)).
  using Shape = std::conditional_t<WholeRows, Split, Square>;
  using Smem = std::conditional_t<
      WholeRows,
      cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<8 * E>,
                           cute::Layout<Split, cute::Stride<cute::Int<edge>, cute::Stride<cute::_1, cute::Int<seg>>>>>,
      decltype(cute::tile_to_shape(cute::SM90::GMMA::Layout_K_SW128_Atom<T>{}, Square{}))>;

  // A stack of `batch` row-major (rows, cols) matrices, pitch ld, `stride` apart, as the
  // TMA copies see it: (rows, cols, batch) or (rows, (segment, cols / segment), batch).
  XPOSE_HD static auto shape(int64_t rows, int64_t cols, int64_t batch) {
    if constexpr (WholeRows)
      return cute::make_shape(rows, cute::make_shape(cute::Int<seg>{}, cols / seg), batch);
    else
      return cute::make_shape(rows, cols, batch);
  }
  template <class P>
  static auto matrices(P* p, int64_t rows, int64_t cols, int64_t ld, int64_t stride, int64_t batch) {
    if constexpr (WholeRows)
      return cute::make_tensor(cute::make_gmem_ptr(p), shape(rows, cols, batch),
                               cute::make_stride(ld, cute::make_stride(cute::_1{}, int64_t(seg)), stride));
    else
      return cute::make_tensor(cute::make_gmem_ptr(p), shape(rows, cols, batch), cute::make_stride(ld, cute::_1{}, stride));
  }
};

// cute_tma's turn: the tile (edge x edge elements, edge/m micro-blocks a side, m =
// MicroTraits<E>::m, words of m x E bytes) is handed out in W x W super-blocks of
// micro-blocks, each walked in W diagonals: step t takes micro-block (W SR + (j + d) % W,
// W SC + j) with j = t % W and d = t / W % W. W is the number of lanes shared memory
// serves at once for that word (walk_width: 8 for 16-byte words, 16 for 8-byte ones, 32 for
// 4-byte ones), so those lanes meet W distinct columns of micro-blocks both reading src-
// tile rows and writing dst-tile rows; under the 128-byte swizzle, in either of CuteTmaTile's
// layouts, that is W distinct bank slots (the bank model in tests/cpu/test_cute_layout.cu
// proves it for every element size: conflict-free).
struct MicroBlock { int row, col; };  // in micro-blocks
XPOSE_HD constexpr int walk_width(int word_bytes) { return word_bytes <= 4 ? 32 : 128 / word_bytes; }
template <int W>
XPOSE_HD constexpr MicroBlock diagonal_micro_block(int t, int blocks_per_side) {
  const int j = t % W, d = t / W % W, super = t / (W * W), per_row = blocks_per_side / W;
  return {W * (super / per_row) + (j + d) % W, W * (super % per_row) + j};
}

// cute_tma's turn, in place, micro-block by micro-block (m x m elements, m words of m x E
// bytes, which the swizzle keeps whole). The tile is square and the dst tile has the src
// tile's layout, so micro-block (I, J) of the result is micro-block (J, I) of the source
// turned around: the owner of a pair above the diagonal reads both blocks' words, turns them
// in registers (transpose_micro) and writes each to the other's place; one on the diagonal
// turns in its own place; one below the diagonal has nothing to do. Owners follow the
// diagonal walk. `word(r, c)` is the m x E-byte word at tile element (r, c); thread
// `thread` of `threads` (the kernel's threadIdx.x; the host test walks them all).
template <int E, int Edge, class WordAt>
XPOSE_HD void turn_in_place(const WordAt& word, int thread, int threads) {
  constexpr int m = MicroTraits<E>::m, side = Edge / m, W = walk_width(m * E);
  static_assert(side % W == 0, "the walk's super-blocks tile the tile");
  using Word = typename WordOf<m * E>::type;
  XPOSE_UNROLL
  for (int t = thread; t < side * side; t += threads) {
    const auto b = diagonal_micro_block<W>(t, side);
    if (b.row > b.col) continue;  // the mirror's owner moves this block
    const int r = b.row * m, c = b.col * m;
    Word upper[m], lower[m], upper_t[m], lower_t[m];
    XPOSE_UNROLL
    for (int k = 0; k < m; ++k) upper[k] = word(r + k, c);
    XPOSE_UNROLL
    for (int k = 0; k < m; ++k) lower[k] = word(c + k, r);
    transpose_micro(upper, upper_t);
    transpose_micro(lower, lower_t);
    XPOSE_UNROLL
    for (int k = 0; k < m; ++k) word(c + k, r) = upper_t[k];
    if (b.row != b.col) {
      XPOSE_UNROLL
      for (int k = 0; k < m; ++k) word(r + k, c) = lower_t[k];
    }
  }
}

// The CuTe kernels' 256 threads: 8 x 32 walking src rows (the coalesced read side), and
// 32 x 8 walking down the columns, which are the rows of dst (the coalesced write side).
constexpr int cute_threads = 256;
using AlongRows = cute::Layout<cute::Shape<cute::_8, cute::_32>, cute::Stride<cute::_32, cute::_1>>;
using DownColumns = cute::Layout<cute::Shape<cute::_32, cute::_8>, cute::Stride<cute::_1, cute::_32>>;

}  // namespace xpose::layout
