// A normalized permutation (layout/permute.hpp) as the N-D kernels walk it, on the host and
// the device alike:
//   a       the axis read fastest: src's smallest stride (coalesced loads)
//   b       the axis written fastest: dst's smallest stride (coalesced stores)
//   outer   every other axis, one linear index split by fast divisors (innermost first,
//           dst's order: neighbouring indices write near each other)
// Where a and b differ, tiles of (a, b) turn through shared memory as in the 2-D transpose:
// 16-byte vectors on both sides where a and b are contiguous and everything is aligned
// (NdVecTiles), else 32x32 tiles element by element. Where a and b are one axis, rows along
// it are copied as they are (NdRows).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "layout/aligned_dst.hpp"
#include "layout/elem_size.hpp"
#include "layout/fast_divmod.hpp"
#include "layout/grid.hpp"
#include "layout/hd.hpp"
#include "layout/permute.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::layout {

constexpr int nd_tile = 32;        // a tile of nd_tile x nd_tile elements (tiled kernel)
constexpr int nd_block_rows = 8;   // a block of nd_tile x nd_block_rows threads
constexpr int nd_max_outer = 14;   // 16 axes less a and b

struct NdForm {
  int64_t elem_bytes = 1;
  bool tiled = false;  // a != b
  int64_t extent_a = 1, extent_b = 1;
  int64_t src_a = 0, src_b = 0, dst_a = 0, dst_b = 0;
  int outer_rank = 0;
  FastDivmod outer_extent[nd_max_outer];  // innermost (smallest dst stride) first
  int64_t outer_src[nd_max_outer] = {}, outer_dst[nd_max_outer] = {};
  uint32_t outer_count = 1;
  uint32_t tiles_a = 1, tiles_b = 1;  // permute_tiled's 32x32 tiles along a and b (tiled forms)
  // Every element the permutation moves. A planner that takes outer axes into its tiles or rows
  // (permute_packed, permute_aligned_stores) drops them from the outer ones and leaves this.
  int64_t elements = 1;

  // src and dst element offsets of outer index `linear` (< outer_count).
  XPOSE_HD void outer_offsets(uint32_t linear, int64_t* src, int64_t* dst) const {
    int64_t s = 0, d = 0;
    for (int i = 0; i < outer_rank; ++i) {
      uint32_t index;
      linear = outer_extent[i].divmod(linear, &index);
      s += int64_t(index) * outer_src[i];
      d += int64_t(index) * outer_dst[i];
    }
    *src = s;
    *dst = d;
  }
};

// The form as one line, as --explain and the tests print it: "4-byte elements, a 64 (src 1, dst
// 4096), b 4096 (src 64, dst 1), 8 outer indices: 8 (src 262144, dst 262144)".
inline std::string text(const NdForm& f) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  std::string t = s(f.elem_bytes) + "-byte elements, a " + s(f.extent_a) + " (src " + s(f.src_a) + ", dst " +
                  s(f.dst_a) + ")";
  if (f.tiled) t += ", b " + s(f.extent_b) + " (src " + s(f.src_b) + ", dst " + s(f.dst_b) + ")";
  t += ", " + s(f.outer_count) + " outer indices";
  for (int i = 0; i < f.outer_rank; ++i)
    t += std::string(i ? "," : ":") + " " + s(f.outer_extent[i].divisor) + " (src " + s(f.outer_src[i]) + ", dst " +
         s(f.outer_dst[i]) + ")";
  return t;
}

// Bytes from src's first element to one past its last (strides are not negative): the kernels
// that read aligned 16-byte vectors around src's bytes read none past it.
inline int64_t src_span_bytes(const NdForm& f) {
  int64_t last = (f.extent_a - 1) * f.src_a + (f.tiled ? (f.extent_b - 1) * f.src_b : 0);
  for (int i = 0; i < f.outer_rank; ++i) last += int64_t(f.outer_extent[i].divisor - 1) * f.outer_src[i];
  return (last + 1) * f.elem_bytes;
}

// The N-D form of a normalized permutation, or false (with *why) where its counts do not fit
// the kernels' 32-bit indices.
inline bool nd_form(const PermuteAxes& s, NdForm* out, const char** why) {
  NdForm f;
  f.elem_bytes = s.elem_bytes;
  if (s.rank == 0) {  // one element: a row of one
    *out = f;
    return true;
  }
  int a = 0, b = 0;
  for (int i = 1; i < s.rank; ++i) {
    if (s.axes[i].src_stride < s.axes[a].src_stride) a = i;
    if (s.axes[i].dst_stride < s.axes[b].dst_stride) b = i;
  }
  // Where dst's fastest axis is also src's (ties on src's stride), take it for both.
  if (s.axes[b].src_stride == s.axes[a].src_stride) a = b;
  f.tiled = a != b;
  f.extent_a = s.axes[a].extent, f.src_a = s.axes[a].src_stride, f.dst_a = s.axes[a].dst_stride;
  if (f.tiled) f.extent_b = s.axes[b].extent, f.src_b = s.axes[b].src_stride, f.dst_b = s.axes[b].dst_stride;
  int order[16], n = 0;
  for (int i = 0; i < s.rank; ++i)
    if (i != a && i != b) order[n++] = i;
  std::sort(order, order + n, [&](int x, int y) { return s.axes[x].dst_stride < s.axes[y].dst_stride; });
  uint64_t count = 1;
  for (int k = 0; k < n; ++k) {
    const PermuteAxis& axis = s.axes[order[k]];
    count *= uint64_t(axis.extent);
    if (uint64_t(axis.extent) > UINT32_MAX || count > UINT32_MAX) {
      *why = "its axes other than the two fastest hold 2^32 or more indices";
      return false;
    }
    f.outer_extent[k] = FastDivmod(uint32_t(axis.extent));
    f.outer_src[k] = axis.src_stride;
    f.outer_dst[k] = axis.dst_stride;
  }
  f.outer_rank = n;
  f.outer_count = uint32_t(count);
  f.elements = f.extent_a * f.extent_b * int64_t(count);
  if (f.tiled) {
    const int64_t tiles_a = (f.extent_a + nd_tile - 1) / nd_tile, tiles_b = (f.extent_b + nd_tile - 1) / nd_tile;
    if (tiles_a * tiles_b > int64_t(INT32_MAX)) {
      *why = "its two fastest axes hold more than 2^31 tiles";
      return false;
    }
    f.tiles_a = uint32_t(tiles_a);
    f.tiles_b = uint32_t(tiles_b);
  }
  *out = f;
  return true;
}

// ---------------------------------------------------------------------------------
// permute_vec_tiled: the T x T tiles of vec_swizzled (VecTile<E>: T = 32 or 64, 16-byte
// vectors of 16 / E elements), `slabs` of them (so that every thread has
// nd_vectors_per_thread vectors in flight) set side by side into one tile of rows x cols that
// a block turns per step: col_slabs along a, where a tile's src row pieces would be shorter
// than nd_min_row_bytes, the rest stacked along the rows. The rows are (outer index, b)
// pairs: `sub_rows` rows of b for each of `subs` consecutive outer indices (sub_rows a power
// of two from a vector to the tile's rows). A short b axis thus packs several outer indices
// into a tile instead of leaving it mostly empty; a long one takes ceil(extent_b / sub_rows)
// tiles along it. Slab j covers rows (j >> col_shift) * T.. and columns
// (j & (col_slabs - 1)) * T..; tile row r is sub r >> sub_shift, b b0 + (r & (sub_rows - 1)).
// A vector stays in one slab and one sub.
//
// The settings (tools/experiments/nd_tiles.cu measures other values of them, each a build
// of the library with the constant edited):
constexpr int nd_vectors_per_thread = 4;  // 16-byte vectors a thread of a slab
constexpr int nd_min_row_bytes = 128;     // rows shorter than this put slabs side by side along a
constexpr int nd_resident_threads = 1024;  // threads an SM keeps resident: the registers a thread may use
constexpr int nd_max_threads = 256;        // threads a block at most (vec_swizzled's)

template <int E>
struct NdVecTile {
  using V = VecTile<E>;
  // A block's threads and each one's vectors of a slab: V's walk (v = i * threads + thread),
  // so a warp still takes 32 consecutive vectors, as the bank model proves conflict-free.
  static constexpr int threads = V::vecs < nd_max_threads ? V::vecs : nd_max_threads;
  static constexpr int per_thread = V::vecs / threads;
  static constexpr int slabs = per_thread >= nd_vectors_per_thread ? 1 : nd_vectors_per_thread / per_thread;
  static constexpr int min_blocks = nd_resident_threads / threads;  // __launch_bounds__' blocks an SM
};

struct NdVecTiles {
  int tile = 1, vec = 1;  // VecTile<E>'s edge and vector width, in elements
  int col_shift = 0;      // log2 of col_slabs
  int rows = 1;           // (slabs / col_slabs) * tile
  int sub_shift = 0;      // log2 of sub_rows
  uint32_t subs = 1;      // outer indices per tile
  uint32_t tiles_a = 1, tiles_b = 1;
  uint32_t groups = 1;    // ceil(outer_count / subs): tiles along the outer indices

  XPOSE_HD int cols() const { return tile << col_shift; }
  XPOSE_HD int sub_rows() const { return 1 << sub_shift; }
  XPOSE_HD uint32_t sub_of(int r) const { return uint32_t(r) >> sub_shift; }
  XPOSE_HD int b_of(int r) const { return r & ((1 << sub_shift) - 1); }
  // Slab j's first tile row and column.
  XPOSE_HD int slab_row(int j) const { return (j >> col_shift) * tile; }
  XPOSE_HD int slab_col(int j) const { return (j & ((1 << col_shift) - 1)) * tile; }
};

// Whether a tiled form whose bases are `src` and `dst` is whole 16-byte vectors along a in
// src and along b in dst, every one 16-byte aligned (the vector kernels' need); else *why.
inline bool nd_whole_vectors(const NdForm& f, uintptr_t src, uintptr_t dst, const char** why) {
  const int64_t v = 16 / f.elem_bytes;
  bool strides_aligned = f.src_b % v == 0 && f.dst_a % v == 0;
  for (int i = 0; i < f.outer_rank; ++i)
    strides_aligned = strides_aligned && f.outer_src[i] % v == 0 && f.outer_dst[i] % v == 0;
  if (!f.tiled)
    *why = "its fastest axis is one on both sides (permute_rows serves that)";
  else if (f.src_a != 1 || f.dst_b != 1)
    *why = "src's fastest axis or dst's is strided; 16-byte vectors need both contiguous";
  else if (src % 16 || dst % 16 || !strides_aligned)
    *why = "src's or dst's rows do not all start on 16-byte boundaries";
  else if (f.extent_a % v || f.extent_b % v)
    *why = "src's or dst's fastest extent is not a whole number of 16-byte vectors";
  else
    *why = nullptr;
  return !*why;
}

// The vector tiles of a tiled form whose bases are `src` and `dst`, or false with *why: every
// vector must be whole and 16-byte aligned on both sides.
inline bool nd_vec_tiles(const NdForm& f, uintptr_t src, uintptr_t dst, NdVecTiles* out, const char** why) {
  NdVecTiles t;
  t.vec = int(16 / f.elem_bytes);
  int slabs = 1;
  with_elem_bytes(f.elem_bytes, [&](auto e) {
    t.tile = NdVecTile<decltype(e)::value>::V::tile;
    slabs = NdVecTile<decltype(e)::value>::slabs;
    return 0;
  });
  while ((1 << t.col_shift) < slabs && t.cols() * f.elem_bytes < nd_min_row_bytes && t.cols() < f.extent_a)
    ++t.col_shift;
  t.rows = (slabs >> t.col_shift) * t.tile;
  const int64_t v = t.vec;
  if (!nd_whole_vectors(f, src, dst, why)) return false;
  int64_t sub_rows = v;
  while (sub_rows < f.extent_b && sub_rows < t.rows) sub_rows *= 2;
  while ((int64_t(1) << t.sub_shift) < sub_rows) ++t.sub_shift;
  t.subs = uint32_t(t.rows >> t.sub_shift);
  const int64_t tiles_a = (f.extent_a + t.cols() - 1) / t.cols(), tiles_b = (f.extent_b + sub_rows - 1) / sub_rows;
  if (tiles_a * tiles_b > int64_t(INT32_MAX)) {
    *why = "its two fastest axes hold more than 2^31 tiles";
    return false;
  }
  t.tiles_a = uint32_t(tiles_a);
  t.tiles_b = uint32_t(tiles_b);
  t.groups = uint32_t((uint64_t(f.outer_count) + t.subs - 1) / t.subs);
  *out = t;
  return true;
}

// The order in which permute_vec_tiled's blocks visit the outer indices: a tile's own run
// along outer axis 0 (its subs), then, from block to block, along the other outer axes in
// dst's order (nd_form's), which continues the dst runs one tile writes, or in src's, which
// continues the src runs it reads. Where a tile reads longer contiguous runs than it writes,
// src's order measured better on the H100 (fp32 32x16x64x16x64 (4,2,0,3,1)); where they tie
// or it writes longer, dst's (fp16 16x8x16x16x8x64 (5,3,1,4,2,0)) (tools/experiments/nd_tiles.cu).
// Reorders f's outer axes 1.. by src stride where src's order wins; the walk is the same set
// of tiles either way.
inline void order_outer_for_tiles(const NdVecTiles& t, NdForm* f) {
  if (f->outer_rank < 3) return;  // axes 1.. hold at most one axis: one order
  const int64_t subs_used = std::min<int64_t>(t.subs, f->outer_extent[0].divisor);
  const int64_t cols = std::min<int64_t>(t.cols(), f->extent_a), rows = std::min<int64_t>(t.sub_rows(), f->extent_b);
  // Contiguous elements a tile reads along a src row piece (with its subs' where they follow
  // one another in src) and writes along a dst column piece (likewise).
  const int64_t src_run = cols * (f->outer_src[0] == f->extent_a && cols == f->extent_a ? subs_used : 1);
  const int64_t dst_run = rows * (f->outer_dst[0] == f->extent_b && rows == f->extent_b ? subs_used : 1);
  if (src_run <= dst_run) return;
  for (int i = 1; i < f->outer_rank; ++i)
    for (int j = i + 1; j < f->outer_rank; ++j)
      if (f->outer_src[j] < f->outer_src[i]) {
        std::swap(f->outer_extent[i], f->outer_extent[j]);
        std::swap(f->outer_src[i], f->outer_src[j]);
        std::swap(f->outer_dst[i], f->outer_dst[j]);
      }
}

// ---------------------------------------------------------------------------------
// permute_vec_regs: blocks of V x V elements (V = 16 / E, one 16-byte vector's elements)
// turned in registers, without shared memory: a thread loads the V vectors along a at V
// consecutive b, and stores the V vectors along b at V consecutive a. The walk's unit u is
// one block:
//   ia_lo = u % lanes_a, q = u / lanes_a, r = q % rows, ia_hi = q / rows
//   vector along a: ia = ia_hi * lanes_a + ia_lo (none where ia >= na)
//   r = outer * nb + ib: outer index and vector along b
// so a warp's 32 consecutive units read lanes_a neighbouring vectors of each src row piece
// and write 32 / lanes_a consecutive (outer, b) vectors of each dst row piece (one run where b
// and outer axis 0 follow each other in dst). A block's threads take consecutive units, each
// thread `per_thread` of them, one block's threads apart.
//
// The settings (tools/experiments/nd_tiles.cu measures other values of them):
constexpr int nd_regs_lanes_a = 8;   // threads along a in a warp at most
constexpr int nd_regs_vectors = 8;   // 16-byte vectors a thread loads before it stores
constexpr int nd_regs_threads = 128;

template <int E>
struct NdVecRegsOf {
  static constexpr int vec = 16 / E;
  static constexpr int per_thread = vec >= nd_regs_vectors ? 1 : nd_regs_vectors / vec;
};

struct NdVecRegs {
  int vec = 1, per_thread = 1;
  FastDivmod lanes_a, rows, nb;
  uint32_t na = 1;     // vectors along a
  uint32_t units = 0;  // lanes_a * rows * ceil(na / lanes_a)

  struct Block {
    uint32_t ia, ib, outer;
    bool live;  // ia < na
  };
  XPOSE_HD Block block(uint32_t u) const {
    uint32_t ia_lo, r, ib;
    const uint32_t q = lanes_a.divmod(u, &ia_lo);
    const uint32_t ia_hi = rows.divmod(q, &r);
    const uint32_t outer = nb.divmod(r, &ib);
    const uint32_t ia = ia_hi * lanes_a.divisor + ia_lo;
    return {ia, ib, outer, ia < na};
  }
  // Blocks of nd_regs_threads threads the walk takes.
  int64_t blocks() const { return ceil_div(int64_t(units), int64_t(nd_regs_threads) * per_thread); }
};

// The register blocks of a tiled form whose bases are `src` and `dst`, or false with *why.
inline bool nd_vec_regs(const NdForm& f, uintptr_t src, uintptr_t dst, NdVecRegs* out, const char** why) {
  if (!nd_whole_vectors(f, src, dst, why)) return false;
  NdVecRegs t;
  t.vec = int(16 / f.elem_bytes);
  t.per_thread = with_elem_bytes(f.elem_bytes, [](auto e) { return NdVecRegsOf<decltype(e)::value>::per_thread; });
  const uint64_t na = uint64_t(f.extent_a) / uint64_t(t.vec), nb = uint64_t(f.extent_b) / uint64_t(t.vec);
  const uint64_t lanes_a = std::min<uint64_t>(na, nd_regs_lanes_a);
  const uint64_t rows = nb * f.outer_count, units = lanes_a * rows * ((na + lanes_a - 1) / lanes_a);
  // The kernel's unit indices, up to the end of the last block's walk, are 32-bit.
  if (units + uint64_t(nd_regs_threads) * uint64_t(t.per_thread) > (uint64_t(1) << 32)) {
    *why = "it holds about 2^32 or more 16-byte-vector blocks (permute_vec_tiled serves that)";
    return false;
  }
  t.na = uint32_t(na);
  t.lanes_a = FastDivmod(uint32_t(lanes_a));
  t.rows = FastDivmod(uint32_t(rows));
  t.nb = FastDivmod(uint32_t(nb));
  t.units = uint32_t(units);
  *out = t;
  return true;
}


// ---------------------------------------------------------------------------------
// permute_aligned_stores: aligned_stores' blocks (layout/aligned_dst.hpp) for tiled forms
// whose a is contiguous in src and b in dst, at any alignment: for each outer index, the 2-D
// transpose of `rows` rows (along b) by `cols` columns (along a). A short b or a would leave
// the blocks (256 bytes of rows by 64 columns) mostly empty, so an outer axis that continues
// b in dst (dst stride extent_b) may join the rows, as (that axis, b) pairs, and one that
// continues a in src (src stride extent_a) the columns: then dst is contiguous along a row's
// pieces and src along a column range, as the 2-D kernel needs, and only src's row starts
// (rows on the src side) and dst's (columns) split the index in two (NdSplitIndex). The
// fusions taken are those that fill the blocks best (nd_stores_fill), an edge block counted as
// taking twice an interior one's time (nd_stores_interior: H200, the fill alone against this on
// 160 draws whose fusions differ, results/2026-12-02-gather s117: +0.5 to +1.8 points at the
// median for each element size, 70 ahead by more than 2 points, 17 behind). Block x is the (row
// block, column tile) pair x / col_tiles, x % col_tiles, or x % row_blocks, x / row_blocks
// (rows_first) where the row blocks are fewer and the column tiles at least
// nd_stores_rows_first_tiles, about as many as an H200's blocks in flight: the blocks in flight
// then write whole dst rows rather than one piece of each across dst. Block (y, z) is the
// remaining outer index y + z * outer_y.
struct NdSplitIndex {  // index i's offset: (i / inner) * outer_stride + (i % inner) * inner_stride
  FastDivmod inner;
  int64_t inner_stride = 0, outer_stride = 0;
  XPOSE_HD int64_t operator()(int64_t i) const {
    uint32_t rem;
    const uint32_t q = inner.divmod(uint32_t(i), &rem);
    return int64_t(q) * outer_stride + int64_t(rem) * inner_stride;
  }
};

// H200, 150 draws that rows_first moves (results/2026-12-02-gather s115): 512 column tiles or more
// +9.0 points at the median, 36 of 41 ahead by more than 2 points, 1 behind; 128-511 +1.1; fewer
// -0.9 (12 of 53 behind by more than 2 points, none by more than 9).
inline constexpr uint32_t nd_stores_rows_first_tiles = 512;

struct NdAlignedStores {
  int64_t rows = 0, cols = 0;              // extent_b and extent_a, times the extents of the axes fused into them
  uint32_t row_fused = 1, col_fused = 1;   // the extents of those axes (1: none)
  NdSplitIndex src_rows, dst_cols;         // where row r starts in src, column c in dst (where fused)
  uint32_t row_blocks = 1, col_tiles = 1;  // shifted pieces along the rows; 64-element column tiles
  uint32_t outer_y = 1, outer_z = 1;       // the grid's y and z: outer_y * outer_z >= the outer count
  bool src_rows_aligned = false;           // every src row starts on 16 bytes
  bool dst_cols_one_shift = false;         // an outer index's dst rows all start at one address mod 32 bytes
  bool rows_first = false;                 // block x walks the row blocks first (see above)
  int64_t src_bytes = 0;                   // src's span from its base (src_span_bytes)

  XPOSE_HD uint32_t blocks() const { return row_blocks * col_tiles; }
  // Block x's row block and column tile: the quotient and remainder of one division.
  XPOSE_HD uint32_t row_block(uint32_t x) const {
    const uint32_t n = rows_first ? row_blocks : col_tiles, q = x / n;
    return rows_first ? x - q * n : q;
  }
  XPOSE_HD uint32_t col_tile(uint32_t x) const {
    const uint32_t n = rows_first ? row_blocks : col_tiles, q = x / n;
    return rows_first ? q : x - q * n;
  }
  XPOSE_HD int64_t first_row(uint32_t x, int piece, int max_shift) const {  // staged: max_shift before the piece
    return int64_t(row_block(x)) * piece - max_shift;
  }
  XPOSE_HD int64_t first_col(uint32_t x, int cols) const { return int64_t(col_tile(x)) * cols; }
};

// The share of its blocks' elements a 2-D transpose of rows x cols fills (aligned_stores' blocks
// of elem_bytes-byte elements, src rows 16-byte aligned or not: bytes from aligned rows take
// the wide tile, twice as many columns). Before, the shifted tile's fill stood for both; the
// wide tile's moves 1 in 200 byte draws between permute_packed and permute_aligned_stores,
// both ways, +10.7 points at the median on 48 (36 ahead, 10 behind; results/2026-12-02-gather
// s113), and changes the fusions of as many.
inline double nd_stores_fill(int64_t rows, int64_t cols, int64_t elem_bytes, bool aligned_rows) {
  return with_aligned_dst_tile(elem_bytes, aligned_rows, [&](auto a) {
    using A = decltype(a);
    return double(rows) / double(A::row_blocks(rows) * A::piece) * double(cols) /
           double(ceil_div(cols, int64_t(A::cols)) * A::cols);
  });
}

// The share of permute_aligned_stores' blocks that run without edge tests (AlignedDstTile::
// interior) for a 2-D transpose of rows x cols.
inline double nd_stores_interior(int64_t rows, int64_t cols, int64_t elem_bytes, bool aligned_rows) {
  return with_aligned_dst_tile(elem_bytes, aligned_rows, [&](auto a) {
    using A = decltype(a);
    const int64_t e = A::elem_bytes;
    const int64_t in_rows = std::max<int64_t>(0, rows / A::piece - 1);
    const int64_t in_cols = aligned_rows ? cols / A::cols : std::max<int64_t>(0, (cols * e - 16) / (A::cols * e) - 1);
    return double(in_rows) / double(A::row_blocks(rows)) * double(in_cols) / double(ceil_div(cols, int64_t(A::cols)));
  });
}

// Plans permute_aligned_stores for *f, or false with *why; the outer axes fused into its rows
// or columns leave f's outer axes.
inline bool nd_aligned_stores(NdForm* f, uintptr_t src, NdAlignedStores* out, const char** why) {
  if (!f->tiled || f->src_a != 1 || f->dst_b != 1 || f->elem_bytes > 8) {
    *why = "permute_aligned_stores needs src's fastest axis contiguous in src and dst's in dst, two different "
           "axes, and elements of at most 8 bytes";
    return false;
  }
  constexpr int64_t most = int64_t(1) << 31;  // the split indices are 32-bit
  int row_axis = -1, col_axis = -1;            // outer axes that may join the rows, the columns
  for (int i = 0; i < f->outer_rank; ++i) {
    const int64_t n = f->outer_extent[i].divisor;
    if (row_axis < 0 && f->outer_dst[i] == f->extent_b && f->extent_b < most / n) row_axis = i;
    if (col_axis < 0 && f->outer_src[i] == f->extent_a && f->extent_a < most / n) col_axis = i;
  }
  NdAlignedStores t;
  t.src_bytes = src_span_bytes(*f);
  double best = -1;
  for (int take_row = 0; take_row <= (row_axis >= 0); ++take_row)
    for (int take_col = 0; take_col <= (col_axis >= 0); ++take_col) {
      if (take_row && take_col && row_axis == col_axis) continue;
      const int64_t rows = f->extent_b * (take_row ? f->outer_extent[row_axis].divisor : 1);
      const int64_t cols = f->extent_a * (take_col ? f->outer_extent[col_axis].divisor : 1);
      // Every src row on 16 bytes: the base, b's stride and each outer axis's but a column-fused
      // one (it moves along a row, not between rows).
      uint64_t bytes = uint64_t(src) | uint64_t(f->src_b * f->elem_bytes);
      for (int i = 0; i < f->outer_rank; ++i)
        if (!(take_col && i == col_axis)) bytes |= uint64_t(f->outer_src[i] * f->elem_bytes);
      const bool aligned = bytes % 16 == 0;
      const double score = nd_stores_fill(rows, cols, f->elem_bytes, aligned) /
                           (2 - nd_stores_interior(rows, cols, f->elem_bytes, aligned));
      if (score > best + 1e-9) {  // ties keep the fewer fusions
        best = score;
        t.rows = rows, t.cols = cols;
        t.row_fused = uint32_t(rows / f->extent_b), t.col_fused = uint32_t(cols / f->extent_a);
        t.src_rows_aligned = aligned;
      }
    }
  const int drop_row = t.row_fused > 1 ? row_axis : -1, drop_col = t.col_fused > 1 ? col_axis : -1;
  if (drop_row >= 0) t.src_rows = {FastDivmod(uint32_t(f->extent_b)), f->src_b, f->outer_src[drop_row]};
  if (drop_col >= 0) t.dst_cols = {FastDivmod(uint32_t(f->extent_a)), f->dst_a, f->outer_dst[drop_col]};
  uint64_t dst_bytes = uint64_t(f->dst_a * f->elem_bytes);  // between dst rows: a column apart, or a fused axis
  if (drop_col >= 0) dst_bytes |= uint64_t(f->outer_dst[drop_col] * f->elem_bytes);
  t.dst_cols_one_shift = dst_bytes % 32 == 0;
  const uint32_t outer_count = f->outer_count / t.row_fused / t.col_fused;
  const bool fits = with_aligned_dst_tile(f->elem_bytes, t.src_rows_aligned, [&](auto a) {
    using A = decltype(a);
    const int64_t row_blocks = A::row_blocks(t.rows), col_tiles = ceil_div(t.cols, int64_t(A::cols));
    if (row_blocks * col_tiles > max_grid_x) {
      *why = "its two fastest axes hold more than 2^31 of permute_aligned_stores' blocks";
      return false;
    }
    t.row_blocks = uint32_t(row_blocks);
    t.col_tiles = uint32_t(col_tiles);
    t.rows_first = row_blocks < col_tiles && col_tiles >= nd_stores_rows_first_tiles;
    return true;
  });
  if (!fits) return false;
  const int64_t outer_y = std::min<int64_t>(outer_count, max_grid_yz), outer_z = ceil_div(outer_count, outer_y);
  if (outer_z > max_grid_yz) {
    *why = "its outer axes hold more than 65535^2 indices (permute_tiled walks them)";
    return false;
  }
  t.outer_y = uint32_t(outer_y);
  t.outer_z = uint32_t(outer_z);
  int kept = 0;  // the fused axes leave the outer axes
  for (int i = 0; i < f->outer_rank; ++i) {
    if (i == drop_row || i == drop_col) continue;
    f->outer_extent[kept] = f->outer_extent[i];
    f->outer_src[kept] = f->outer_src[i];
    f->outer_dst[kept] = f->outer_dst[i];
    ++kept;
  }
  f->outer_rank = kept;
  f->outer_count = outer_count;
  *out = t;
  return true;
}



// ---------------------------------------------------------------------------------
// permute_rows: (outer index, position along a) as one linear index split by a fast divisor,
// each thread a few elements, so that short rows fill warps as long ones do. A launch covers
// `outers` outer indices from `outer_base` and `length` items of each row from `a_base`, at
// most nd_rows_max_count indices in all; for_each_rows_chunk lists the launches. (The items of
// a row: permute_rows' elements of a, permute_row_vectors' 16-byte granules.)
struct NdRowsChunk {
  uint32_t outer_base = 0, outers = 0;
  int64_t a_base = 0;
  FastDivmod length;

  XPOSE_HD uint64_t count() const { return uint64_t(outers) * length.divisor; }
};

constexpr int nd_rows_threads = 256, nd_rows_per_thread = 4;
constexpr int64_t nd_rows_max_count = int64_t(1) << 30;

// permute_gather: a tiled form's elements moved as permute_rows moves a rows form's, one at a
// time in dst's order (PyTorch's copy of a permuted tensor moves them so): the items of an outer
// index are its a x b elements, b (dst's fastest axis) fastest, so that consecutive threads store
// consecutive dst elements and each gathers its src element from its own address. Item p's
// offsets from its outer index's; an outer index holds fewer than nd_gather_max_items
// (32-bit divisions).
constexpr int64_t nd_gather_max_items = int64_t(1) << 31;

XPOSE_HD inline void nd_gather_offsets(const NdForm& f, const FastDivmod& by_b, uint32_t p, int64_t* src, int64_t* dst) {
  uint32_t b;
  const uint32_t a = by_b.divmod(p, &b);
  *src += int64_t(a) * f.src_a + int64_t(b) * f.src_b;
  *dst += int64_t(a) * f.dst_a + int64_t(b) * f.dst_b;
}

// Calls each(chunk) for each launch over `per_row` items of each of a rows form's outer indices,
// in order; `max_count` (a test's) bounds a chunk.
template <class F>
void for_each_rows_chunk(const NdForm& f, int64_t per_row, F&& each, int64_t max_count = nd_rows_max_count) {
  const int64_t length = std::min<int64_t>(per_row, max_count);
  const int64_t outers_per = std::max<int64_t>(1, max_count / length);
  for (int64_t a = 0; a < per_row; a += length)
    for (int64_t o = 0; o < int64_t(f.outer_count); o += outers_per) {
      NdRowsChunk c;
      c.outer_base = uint32_t(o);
      c.outers = uint32_t(std::min<int64_t>(outers_per, int64_t(f.outer_count) - o));
      c.a_base = a;
      c.length = FastDivmod(uint32_t(std::min(length, per_row - a)));
      each(c);
    }
}

}  // namespace xpose::layout
