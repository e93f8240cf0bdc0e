// vec_swizzled: 16-byte global loads and stores on both sides,
// the tile in a swizzled shared-memory layout that keeps both walks conflict-free.
// Tiles the matrix edge cuts move the same way, their vectors predicated.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vec_tile.cuh"

namespace xpose::engines {
namespace {

// Tiles move as 16-byte vectors (engines/vec_tile.cuh), every load in flight before the first
// shared-memory store; tiles the matrix edge cuts predicate the vectors the edge cuts (a rolled
// element loop there held small problems to its latency: docs/performance.md, "Known gaps",
// matrices cut by a tile edge).
template <int E, bool Edge>
__device__ __forceinline__ void vectors_through_smem(const Problem& p, const TileRef<Elem<E>>& t, Elem<E>* smem) {
  VecTileLoads<E> in;
  load_vec_tile<E, Edge>(t.src, p.ld_src, t.rows, t.cols, in);
  stage_vec_tile<E>(in, smem);
  __syncthreads();
  store_vec_tile<E, Edge>(smem, t.dst, p.ld_dst, t.rows, t.cols);
}

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads) transpose_vec_swizzled(Problem p, TileOrigin o) {
  using V = layout::VecTile<E>;
  __shared__ Elem<E> smem[V::Layout::size];
  const TileRef<Elem<E>> t = block_tile<Elem<E>>(p, o, V::tile, V::tile);
  if (t.rows == V::tile && t.cols == V::tile)
    vectors_through_smem<E, false>(p, t, smem);
  else
    vectors_through_smem<E, true>(p, t, smem);
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  return detail::needs_16_byte_rows(t.problem, "vec_swizzled");
}

Support plan(Plan* plan, const Device&, const PlanOptions& o) {
  return with_elem_bytes(plan->task.problem.elem_bytes, [&](auto e) {
    using V = layout::VecTile<decltype(e)::value>;
    tile_plan(plan, V::tile, V::tile, {uint32_t(V::threads), 1, 1}).by_column = o.tiles_by_column;
    return detail::served();
  });
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes(p.elem_bytes,
                         [&](auto e) { return launch_tiles(transpose_vec_swizzled<decltype(e)::value>, plan, s, p); });
}

}  // namespace

const Engine vec_swizzled = {"vec_swizzled",
                             "16-byte vector loads and stores, swizzled shared-memory tile",
                             "64x64 tile for 1- and 4-byte elements, else 32x32; 256 threads (128 for 2-byte)",
                             Input::transpose,
                             supports,
                             plan,
                             launch,
                             tiles_text,
                             /*takes_tile_order=*/true};

}  // namespace xpose::engines
