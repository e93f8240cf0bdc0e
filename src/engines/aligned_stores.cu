// aligned_stores: for rows that are not 16-byte aligned, or dst pitches that put every
// other dst row in the middle of a 32-byte sector (each costs vec_swizzled and the TMA
// kernels 20-40% of their speed: docs/performance.md). Src rows come in along their length
// (coalesced) into a padded shared tile: as 16-byte vectors where src rows are 16-byte
// aligned (a padded src), else element by element, 8 loads in flight per thread. Each dst
// row's piece goes out as 16-byte vectors shifted to start on a 32-byte sector
// (layout::AlignedDstTile), so the L2 sees whole sectors. Vectors that reach past the
// matrix load or store their elements one by one.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::engines {
namespace {

template <int E>
using StagedTile = layout::PaddedTile<layout::AlignedDstTile<E>::rows, layout::AlignedDstTile<E>::cols, layout::pad_for(E)>;

// Src rows r0.. of columns c0.. into the tile, element by element: a thread walks one
// column (threads/cols lanes a row, so a warp reads along src rows) with `in_flight` loads
// issued before their results are stored (a loop of loads and stores, unrolled 4, stalled
// on load latency 66% of its cycles in Nsight; 8 measured best: 16 and 32 cost occupancy). The
// bounds are combined with & so that the loads stay predicated: written with && and a
// helper the compiler branched around each load (fp16 8191x12289: 55% of copy, not 72%).
template <int E>
__device__ __forceinline__ void stage_elements(Elem<E>* tile, const Elem<E>* src, const Problem& p, int64_t r0,
                                               int64_t c0) {
  using A = layout::AlignedDstTile<E>;
  static_assert(A::threads % A::cols == 0);
  constexpr int lanes = A::threads / A::cols, steps = (A::rows + lanes - 1) / lanes, in_flight = 8;
  const int c = threadIdx.x % A::cols, lane = threadIdx.x / A::cols;
  const bool col_inside = c0 + c < p.cols;
  const Elem<E>* col = src + c0 + c;
#pragma unroll
  for (int first = 0; first < steps; first += in_flight) {
    Elem<E> v[in_flight];
    bool in[in_flight];
#pragma unroll
    for (int k = 0; k < in_flight; ++k) {
      const int j = (first + k) * lanes + lane;
      const int64_t r = r0 + j;
      in[k] = (first + k < steps) & (j < A::rows) & (r >= 0) & (r < p.rows) & col_inside;
      if (in[k]) v[k] = col[r * p.ld_src];
    }
#pragma unroll
    for (int k = 0; k < in_flight; ++k)
      if (in[k]) tile[StagedTile<E>::at((first + k) * lanes + lane, c)] = v[k];
  }
}

// The same from 16-byte aligned src rows, a 16-byte vector per load (fp16 with a padded
// src: 92% of copy against 71% element by element). A separate kernel, not a branch: with
// both paths in one kernel the element path lost 10 points on fp32 30011x29989.
template <int E>
__device__ __forceinline__ void stage_vectors(Elem<E>* tile, const Elem<E>* src, const Problem& p, int64_t r0,
                                              int64_t c0) {
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
    if (inside[k] & full) in[k].bits = *reinterpret_cast<const uint4*>(col + r * p.ld_src);
  }
  if (!full)
    for (int k = 0; k < steps; ++k)
      for (int e = 0; e < A::vec; ++e)
        if (inside[k] & (c + e < p.cols)) in[k].e[e] = col[(r0 + k * lanes + lane) * p.ld_src + e];
#pragma unroll
  for (int k = 0; k < steps; ++k)
#pragma unroll
    for (int e = 0; e < A::vec; ++e)
      if (inside[k] & (c + e < p.cols)) tile[StagedTile<E>::at(k * lanes + lane, v * A::vec + e)] = in[k].e[e];
}

template <int E, bool SrcVectors>
__global__ void __launch_bounds__(layout::AlignedDstTile<E>::threads) transpose_aligned_stores(Problem p, TileOrigin o) {
  using A = layout::AlignedDstTile<E>;
  using Tile = StagedTile<E>;
  __shared__ Elem<E> tile[Tile::size];
  const int64_t b = o.batch + blockIdx.z;
  const layout::TilePos pos = block_pos(o);
  const int64_t r0 = (o.row_tile + pos.y) * A::piece - A::max_shift;  // first staged src row
  const int64_t c0 = (o.col_tile + pos.x) * A::cols;
  const Elem<E>* src = static_cast<const Elem<E>*>(p.src) + b * p.stride_src;
  Elem<E>* dst = static_cast<Elem<E>*>(p.dst) + b * p.stride_dst;

  if constexpr (SrcVectors) stage_vectors<E>(tile, src, p, r0, c0);
  else stage_elements<E>(tile, src, p, r0, c0);
  __syncthreads();
#pragma unroll
  for (int i = threadIdx.x; i < A::cols * A::vecs_per_piece; i += A::threads) {
    const int c = i / A::vecs_per_piece, v = i % A::vecs_per_piece;  // vector v of dst row c0 + c
    if (c0 + c >= p.cols) continue;
    Elem<E>* row = dst + (c0 + c) * p.ld_dst;
    const int s = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
    const int64_t first = r0 + A::max_shift - s + int64_t(v) * A::vec;  // the vector's first src row
    if (first >= 0 && first + A::vec <= p.rows) {
      Vector<E> out;
#pragma unroll
      for (int k = 0; k < A::vec; ++k) out.e[k] = tile[Tile::at(A::tile_row(s, v, k), c)];
      __stwb(reinterpret_cast<uint4*>(row + first), whole(out));
    } else {
      for (int k = 0; k < A::vec; ++k)
        if (first + k >= 0 && first + k < p.rows) row[first + k] = tile[Tile::at(A::tile_row(s, v, k), c)];
    }
  }
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
// loads), else 0 (element loads).
Plan plan(const Problem& p, const Device& d) {
  return with_elem_bytes_up_to_8(p.elem_bytes, Plan{}, [&](auto e) {
    using A = layout::AlignedDstTile<decltype(e)::value>;
    Plan plan = tile_plan(p, d, A::piece, A::cols, {uint32_t(A::threads), 1, 1});
    plan.walk.row_tiles = A::row_blocks(p.rows);
    plan.grid = layout::first_grid(plan.walk);
    plan.variant = p.src_rows_aligned_16() ? 1 : 0;
    plan.variant_name = plan.variant ? "16-byte loads" : "element loads";
    return plan;
  });
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes_up_to_8(plan.problem.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return plan.variant ? launch_tiles(transpose_aligned_stores<E, true>, plan, s, plan.problem)
                        : launch_tiles(transpose_aligned_stores<E, false>, plan, s, plan.problem);
  });
}

}  // namespace

const Engine aligned_stores = {
    "aligned_stores",
    "16-byte loads where src rows allow, else 8 element loads in flight; 16-byte dst stores shifted to start on "
    "32-byte sectors",
    "256/E src rows (+ up to 32/E - 1) x 64 src cols staged, 256 threads", supports, plan, launch,
    /*takes_tile_order=*/true};

}  // namespace xpose::engines
