// aligned_stores: for rows that are not 16-byte aligned, or dst pitches that put every
// other dst row in the middle of a 32-byte sector (each costs vec_swizzled and the TMA
// kernels much of their speed: docs/performance.md, "What the experiments concluded", 5).
// Src rows come in along their length (coalesced) into a shared tile as 16-byte vectors:
// where src rows are not 16-byte aligned, the aligned vectors around each 16-byte chunk,
// its bytes shifted out in registers. Each dst row's piece goes out as 16-byte vectors
// shifted to start on a 32-byte sector (layout::AlignedDstTile), so the L2 sees whole
// sectors. Vectors that reach past the matrix load or store their elements one by one.
#include <string>
#include <type_traits>

#include "core/nd_engine.hpp"
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/permute_nd.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::engines {
namespace {

// 1- and 2-byte elements stage into a tile stored column by column (a dst vector is 16
// consecutive bytes there: layout::AlignedDstColumnTile; row by row it took 16 or 8 shared
// loads a vector, and bytes ran well behind: docs/performance.md, "Known gaps"), wider
// elements into a row-major tile padded by one word.
template <int E>
using StagedTile =
    std::conditional_t<E <= 2, layout::AlignedDstColumnTile<E <= 2 ? E : 1>,
                       layout::PaddedTile<layout::AlignedDstTile<E>::rows, layout::AlignedDstTile<E>::cols, layout::pad_for(E)>>;

// Sixteen bytes of staged row j from element column col (a multiple of 16 / E) on, into the
// tile element by element (a column apart in the column tile).
template <int E>
__device__ __forceinline__ void stage_chunk(Elem<E>* tile, int j, int col, const uint32_t (&words)[4]) {
  Vector<E> v;
  v.bits = make_uint4(words[0], words[1], words[2], words[3]);
#pragma unroll
  for (int e = 0; e < 16 / E; ++e) tile[StagedTile<E>::at(j, col + e)] = v.e[e];
}

// Staged rows first .. first + 16 / E - 1 of column c as one 16-byte vector: 1- and 2-byte
// elements read as the aligned words around them, wider ones one by one.
template <int E>
__device__ __forceinline__ uint4 gather_vector(const Elem<E>* tile, int first, int c) {
  if constexpr (E <= 2) {
    const int at = StagedTile<E>::at(first, c) * E;  // bytes
    const uint32_t* words = reinterpret_cast<const uint32_t*>(tile) + at / 4;
    uint32_t w[5], out[4];
#pragma unroll
    for (int i = 0; i < 5; ++i) w[i] = words[i];
    layout::shift_out_words(w, at % 4, out);
    return make_uint4(out[0], out[1], out[2], out[3]);
  } else {
    Vector<E> out;
#pragma unroll
    for (int k = 0; k < 16 / E; ++k) out.e[k] = tile[StagedTile<E>::at(first + k, c)];
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
    for (int i = threadIdx.x; i < count; i += blockDim.x) table[i] = map(max(first + i, int64_t(0)));  // staged rows start before 0
    return Tabled{table, first};
  }
}

// Src rows r0.. of columns c0.. into the tile from 16-byte aligned src rows, a 16-byte vector
// per load (measured well ahead of element by element on fp16 with a padded src). Each
// staging is its own kernel, not a branch: with two paths in one kernel the slower one lost
// ground (docs/performance.md, "What the experiments concluded", 6).
template <int E, class Rows>
__device__ __forceinline__ void stage_vectors(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                              int64_t r0, int64_t c0) {
  using A = layout::AlignedDstTile<E>;
  constexpr int vecs = A::cols / A::vec, lanes = A::threads / vecs, steps = (A::rows + lanes - 1) / lanes;
  const int v = threadIdx.x % vecs, lane = threadIdx.x / vecs;
  const int64_t c = c0 + v * A::vec;
  const bool full = c + A::vec <= p.cols;  // else the matrix's last columns: element by element
  const Elem<E>* col = src + c;
  Vector<E> in[steps];
  bool inside[steps];
#pragma unroll
  for (int k = 0; k < steps; ++k) {
    const int j = k * lanes + lane;
    const int64_t r = r0 + j;
    inside[k] = (j < A::rows) & (r >= 0) & (r < p.rows);
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
      if (inside[k] & (c + e < p.cols)) tile[StagedTile<E>::at(k * lanes + lane, v * A::vec + e)] = in[k].e[e];
}

// Src rows that are not 16-byte aligned, still as aligned 16-byte vectors: each 16-byte chunk
// of a staged row takes the one or two aligned vectors around it and shifts its bytes out
// (layout::shifted_chunk, layout::shift_out_chunk); a chunk whose vectors would reach past
// its row's bytes in the matrix (the first and last of a row) loads its elements one by one.
template <int E, class Rows>
__device__ __forceinline__ void stage_shifted(Elem<E>* tile, const Elem<E>* src, const Problem& p, const Rows& rows,
                                              int64_t r0, int64_t c0) {
  using A = layout::AlignedDstTile<E>;
  constexpr int chunks = A::cols * E / 16, tasks = A::rows * chunks, steps = (tasks + A::threads - 1) / A::threads;
  constexpr int in_flight = 2;  // chunks a batch: 3 took 60 registers a thread for bytes and fp32 (48 with 2), slower
  const auto address = [](const Elem<E>* e) { return reinterpret_cast<uintptr_t>(e); };
#pragma unroll
  for (int first = 0; first < steps; first += in_flight) {
    uint4 lo[in_flight], hi[in_flight];
    int offset[in_flight];
    bool inside[in_flight], whole[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {  // the batch's loads in flight first
      const int t = (first + k) * A::threads + int(threadIdx.x), j = t / chunks, u = t % chunks;
      const int64_t r = r0 + j, c = c0 + int64_t(u) * A::vec;
      inside[k] = (first + k < steps) & (t < tasks) & (r >= 0) & (r < p.rows) & (c < p.cols);
      const Elem<E>* row = src;  // a table (Tabled) has no row past the tile: looked up only inside it
      if constexpr (std::is_same_v<Rows, Pitched>) row += rows(r);
      else if (inside[k]) row += rows(r);
      const layout::ShiftedChunk s = layout::shifted_chunk(address(row + c), address(row), address(row + p.cols));
      whole[k] = inside[k] & s.whole;
      offset[k] = s.offset;
      const uint4* from = reinterpret_cast<const uint4*>(s.first);
      lo[k] = hi[k] = make_uint4(0, 0, 0, 0);
      if (whole[k]) lo[k] = from[0];
      if (whole[k] & (s.offset != 0)) hi[k] = from[1];
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const int t = (first + k) * A::threads + int(threadIdx.x), j = t / chunks, u = t % chunks;
      if (whole[k]) {
        const uint32_t w[8] = {lo[k].x, lo[k].y, lo[k].z, lo[k].w, hi[k].x, hi[k].y, hi[k].z, hi[k].w};
        uint32_t words[4];
        layout::shift_out_chunk(w, offset[k], words);
        stage_chunk<E>(tile, j, u * A::vec, words);
      } else if (inside[k]) {
        const int64_t c = c0 + int64_t(u) * A::vec;
        const Elem<E>* row = src + rows(r0 + j);
        for (int e = 0; e < A::vec; ++e)
          if (c + e < p.cols) tile[StagedTile<E>::at(j, u * A::vec + e)] = row[c + e];
      }
    }
  }
}

// How src rows come into the tile (the plan's variant).
enum Staging { shifted = 0, vectors = 1 };

// One block's work: src rows r0.. (r0 = the piece's first row less max_shift) of columns c0..
// of the matrix at src staged into the tile, then the dst row pieces stored. The caller
// synchronizes before the tile is staged again.
template <int E, Staging How, class Rows, class Cols>
__device__ __forceinline__ void aligned_stores_block(Elem<E>* tile, const Problem& p, const Rows& rows,
                                                     const Cols& cols, const Elem<E>* src, Elem<E>* dst, int64_t r0,
                                                     int64_t c0) {
  using A = layout::AlignedDstTile<E>;
  using Tile = StagedTile<E>;
  if constexpr (How == vectors) stage_vectors<E>(tile, src, p, rows, r0, c0);
  else stage_shifted<E>(tile, src, p, rows, r0, c0);
  __syncthreads();
#pragma unroll
  for (int i = threadIdx.x; i < A::cols * A::vecs_per_piece; i += A::threads) {
    const int c = i / A::vecs_per_piece, v = i % A::vecs_per_piece;  // vector v of dst row c0 + c
    if (c0 + c >= p.cols) continue;
    Elem<E>* row = dst + cols(c0 + c);
    const int s = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
    const int64_t first = r0 + A::max_shift - s + int64_t(v) * A::vec;  // the vector's first src row
    if (first >= 0 && first + A::vec <= p.rows) {
      __stwb(reinterpret_cast<uint4*>(row + first), gather_vector<E>(tile, A::tile_row(s, v, 0), c));
    } else {
      for (int k = 0; k < A::vec; ++k)
        if (first + k >= 0 && first + k < p.rows) row[first + k] = tile[Tile::at(A::tile_row(s, v, k), c)];
    }
  }
}

template <int E, Staging How>
__global__ void __launch_bounds__(layout::AlignedDstTile<E>::threads) transpose_aligned_stores(Problem p, TileOrigin o) {
  using A = layout::AlignedDstTile<E>;
  __shared__ alignas(16) Elem<E> tile[StagedTile<E>::size];
  const int64_t b = o.batch + blockIdx.z;
  const layout::TilePos pos = block_pos(o);
  const int64_t r0 = (o.row_tile + pos.y) * A::piece - A::max_shift;  // first staged src row
  const int64_t c0 = (o.col_tile + pos.x) * A::cols;
  aligned_stores_block<E, How>(tile, p, Pitched{p.ld_src}, Pitched{p.ld_dst},
                               static_cast<const Elem<E>*>(p.src) + b * p.stride_src,
                               static_cast<Elem<E>*>(p.dst) + b * p.stride_dst, r0, c0);
}

// The N-D form's blocks (layout::NdAlignedStores): p holds the 2-D transpose of one outer
// index (t.rows by t.cols), its src rows starting at rows(r) and dst rows at cols(c) (pitched,
// or split where an outer axis joined them); block (y, z) takes outer index y + z * gridDim.y
// (no loop over outer indices: one took up to 94 registers a thread).
template <int E, Staging How, class Rows, class Cols>
__global__ void __launch_bounds__(layout::AlignedDstTile<E>::threads)
    permute_aligned_stores(Problem p, const layout::NdForm f, const layout::NdAlignedStores t, const Rows rows,
                           const Cols cols) {
  using A = layout::AlignedDstTile<E>;
  __shared__ alignas(16) Elem<E> tile[StagedTile<E>::size];
  __shared__ int64_t row_start[std::is_same_v<Rows, Pitched> ? 1 : A::rows];
  __shared__ int64_t col_start[std::is_same_v<Cols, Pitched> ? 1 : A::cols];
  const uint64_t o = blockIdx.y + uint64_t(blockIdx.z) * t.outer_y;
  if (o >= f.outer_count) return;
  int64_t s, d;
  f.outer_offsets(uint32_t(o), &s, &d);
  const int64_t r0 = t.first_row(blockIdx.x, A::piece, A::max_shift), c0 = t.first_col(blockIdx.x, A::cols);
  const auto row_map = tabled(rows, row_start, r0, A::rows);
  const auto col_map = tabled(cols, col_start, c0, A::cols);
  if constexpr (!std::is_same_v<Rows, Pitched> || !std::is_same_v<Cols, Pitched>) __syncthreads();
  aligned_stores_block<E, How>(tile, p, row_map, col_map, static_cast<const Elem<E>*>(p.src) + s,
                               static_cast<Elem<E>*>(p.dst) + d, r0, c0);
}

Support supports(const Problem& p, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (p.elem_bytes == 16)
    return detail::refused(detail::Refusal::other, "aligned_stores moves elements of 1, 2, 4 or 8 bytes (16-byte "
                                                   "elements are always whole vectors)");
  return detail::served();
}

// Row tiles are the shifted pieces (one more block row than rows / piece where the last
// pieces start early). The variant: 1 where every src row starts on 16 bytes (16-byte
// loads), else 0 (shifted 16-byte loads).
EnginePlan plan(const Problem& p, const Device& d, const PlanOptions& o) {
  return with_elem_bytes_up_to_8(p.elem_bytes, EnginePlan{}, [&](auto e) {
    using A = layout::AlignedDstTile<decltype(e)::value>;
    EnginePlan plan = tile_plan(p, d, A::piece, A::cols, {uint32_t(A::threads), 1, 1});
    plan.walk.row_tiles = A::row_blocks(p.rows);
    plan.grid = layout::first_grid(plan.walk);
    plan.variant = p.src_rows_aligned_16() ? vectors : shifted;
    plan.variant_name = plan.variant == vectors ? "16-byte loads" : "shifted 16-byte loads";
    plan.tiles_by_column = o.tiles_by_column;
    return plan;
  });
}

cudaError_t launch(const EnginePlan& plan, cudaStream_t s) {
  return with_elem_bytes_up_to_8(plan.problem.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return plan.variant == vectors ? launch_tiles(transpose_aligned_stores<E, vectors>, plan, s, plan.problem)
                                   : launch_tiles(transpose_aligned_stores<E, shifted>, plan, s, plan.problem);
  });
}

// permute_aligned_stores: the same blocks for each outer index of a permutation whose src
// fastest axis is contiguous in src and dst's in dst (layout::NdAlignedStores).
bool plan_nd(detail::NdPlan* p, const char** why) {
  layout::NdAlignedStores& t = p->make<layout::NdAlignedStores>();
  if (!layout::nd_aligned_stores(&p->form, reinterpret_cast<uintptr_t>(p->src), &t, why)) return false;
  const int threads = layout::with_aligned_dst_tile(p->form.elem_bytes, [](auto a) { return decltype(a)::threads; });
  p->block = {uint32_t(threads), 1, 1};
  p->grid = {t.blocks(), t.outer_y, t.outer_z};
  return true;
}

cudaError_t launch_nd(const detail::NdPlan& plan, cudaStream_t s) {
  const layout::NdForm& f = plan.form;
  const layout::NdAlignedStores& t = plan.params<layout::NdAlignedStores>();
  Problem p;
  p.src = plan.src;
  p.dst = plan.dst;
  p.rows = t.rows, p.cols = t.cols, p.elem_bytes = f.elem_bytes;
  p.ld_src = f.src_b, p.ld_dst = f.dst_a;
  p.batch = 1;
  return with_elem_bytes_up_to_8(f.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const dim3 grid = to_dim3(plan.grid), block = to_dim3(plan.block);
    const auto run = [&](auto rows, auto cols) {
      if (t.src_rows_aligned)
        permute_aligned_stores<E, vectors><<<grid, block, 0, s>>>(p, f, t, rows, cols);
      else
        permute_aligned_stores<E, shifted><<<grid, block, 0, s>>>(p, f, t, rows, cols);
    };
    const Pitched rows{f.src_b}, cols{f.dst_a};
    if (t.row_fused > 1 && t.col_fused > 1) run(t.src_rows, t.dst_cols);
    else if (t.row_fused > 1) run(t.src_rows, cols);
    else if (t.col_fused > 1) run(rows, t.dst_cols);
    else run(rows, cols);
    return cudaGetLastError();
  });
}

std::string blocks_nd(const detail::NdPlan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  const layout::NdForm& f = p.form;
  const layout::NdAlignedStores& t = p.params<layout::NdAlignedStores>();
  return s(layout::with_aligned_dst_tile(f.elem_bytes, [](auto a) { return decltype(a)::piece; })) +
         "x64 blocks of dst's fastest axis (" + s(f.extent_b) +
         (t.row_fused > 1 ? " x " + s(t.row_fused) + " of the axis dst continues it with" : "") +
         ") by src's (" + s(f.extent_a) +
         (t.col_fused > 1 ? " x " + s(t.col_fused) + " of the axis src continues it with" : "") +
         "), 16-byte " + (t.src_rows_aligned ? "loads" : "loads shifted from the aligned vectors around them") +
         ", 16-byte stores on 32-byte sectors";
}

}  // namespace

const detail::NdEngine permute_aligned_stores = {
    "permute_aligned_stores",
    "aligned_stores' tiles of src's and dst's fastest axes, each contiguous on its side, at any alignment: 16-byte "
    "loads (shifted where rows are not aligned) and 16-byte stores on 32-byte sectors",
    plan_nd, launch_nd, blocks_nd};

const Engine aligned_stores = {
    "aligned_stores",
    "16-byte loads (where src rows are not 16-byte aligned, the aligned vectors around each chunk, shifted); 16-byte "
    "dst stores shifted to start on 32-byte sectors",
    "256/E src rows (+ up to 32/E - 1) x 64 src cols staged, 256 threads", supports, plan, launch,
    /*takes_tile_order=*/true};

}  // namespace xpose::engines
