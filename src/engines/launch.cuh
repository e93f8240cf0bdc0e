// How transpose engines plan and launch a walk of tiles, one block per tile.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "engines/common.cuh"
#include "layout/grid.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::engines {

inline dim3 to_dim3(const layout::Dims& d) { return dim3(d.x, d.y, d.z); }

// The transpose engines' parameters of a plan.
inline const Tiles& tiles(const Plan& plan) { return plan.params<Tiles>(); }

// Plans one block per tile of tile_rows x tile_cols over the whole problem; the engine's
// parameters, for it to complete.
inline Tiles& tile_plan(Plan* plan, int tile_rows, int tile_cols, layout::Dims block) {
  const Problem& p = plan->task.problem;
  Tiles& t = plan->make<Tiles>();
  t.walk = layout::tile_walk(p.rows, p.cols, p.batch, tile_rows, tile_cols);
  plan->grid = layout::first_grid(t.walk);
  plan->block = block;
  return t;
}

// The classic shape: 32x32 tiles, 32x8 threads.
inline Support classic_plan(Plan* plan, const Device&, const PlanOptions&) {
  namespace cl = layout::classic;
  tile_plan(plan, cl::tile, cl::tile, {uint32_t(cl::block_x), uint32_t(cl::block_y), 1});
  return detail::served();
}

// Launches a one-tile-per-block kernel over the plan's walk: one launch where it fits
// CUDA's grid limits, else one per chunk, each with its origin. The kernel takes `args...`
// and then the chunk's TileOrigin.
template <class Kernel, class... Args>
cudaError_t launch_tiles(Kernel kernel, const Plan& plan, cudaStream_t s, const Args&... args) {
  const Tiles& t = tiles(plan);
  const layout::TileWalk& w = t.walk;
  for (int64_t b = 0; b < w.batch; b += layout::max_grid_yz)
    for (int64_t tr = 0; tr < w.row_tiles; tr += layout::max_grid_yz)
      for (int64_t tc = 0; tc < w.col_tiles; tc += layout::max_grid_x) {
        const layout::Dims grid = layout::first_grid({w.col_tiles - tc, w.row_tiles - tr, w.batch - b});
        kernel<<<to_dim3(grid), to_dim3(plan.block), plan.smem_bytes, s>>>(args..., TileOrigin{tc, tr, b, t.by_column});
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
  return cudaSuccess;
}

// A transpose plan's tiles in words: "tile 32x32[, N bytes of dynamic shared memory][, tiles
// column by column]".
inline std::string tiles_text(const Plan& plan) {
  const Tiles& t = tiles(plan);
  std::string s = "tile " + std::to_string(t.walk.tile_rows) + "x" + std::to_string(t.walk.tile_cols);
  if (plan.smem_bytes) s += ", " + std::to_string(plan.smem_bytes) + " bytes of dynamic shared memory";
  if (t.by_column) s += ", tiles column by column";
  return s;
}

// Serves every task on a device this build has code for (the N-D engines: planning refuses
// the forms they do not serve).
inline Support any_task(const Task&, const Device& d) { return detail::needs_built_device(d); }

}  // namespace xpose::engines
