// How engines plan and launch a walk of tiles, one block per tile.
#pragma once

#include <cuda_runtime.h>

#include "engines/common.cuh"
#include "layout/grid.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::engines {

inline dim3 to_dim3(const layout::Dims& d) { return dim3(d.x, d.y, d.z); }

// A plan of one block per tile of tile_rows x tile_cols over the whole problem.
inline EnginePlan tile_plan(const Problem& p, const Device& d, int tile_rows, int tile_cols, layout::Dims block) {
  EnginePlan plan;
  plan.device = d.id;
  plan.problem = p;
  plan.walk = layout::tile_walk(p.rows, p.cols, p.batch, tile_rows, tile_cols);
  plan.grid = layout::first_grid(plan.walk);
  plan.block = block;
  return plan;
}

// The classic shape: 32x32 tiles, 32x8 threads.
inline EnginePlan classic_plan(const Problem& p, const Device& d, const PlanOptions&) {
  namespace cl = layout::classic;
  return tile_plan(p, d, cl::tile, cl::tile, {uint32_t(cl::block_x), uint32_t(cl::block_y), 1});
}

// Launches a one-tile-per-block kernel over the plan's walk: one launch where it fits
// CUDA's grid limits, else one per chunk, each with its origin. The kernel takes `args...`
// and then the chunk's TileOrigin.
template <class Kernel, class... Args>
cudaError_t launch_tiles(Kernel kernel, const EnginePlan& plan, cudaStream_t s, const Args&... args) {
  const layout::TileWalk& w = plan.walk;
  for (int64_t b = 0; b < w.batch; b += layout::max_grid_yz)
    for (int64_t tr = 0; tr < w.row_tiles; tr += layout::max_grid_yz)
      for (int64_t tc = 0; tc < w.col_tiles; tc += layout::max_grid_x) {
        const layout::Dims grid = layout::first_grid({w.col_tiles - tc, w.row_tiles - tr, w.batch - b});
        kernel<<<to_dim3(grid), to_dim3(plan.block), plan.smem_bytes, s>>>(args...,
                                                                           TileOrigin{tc, tr, b, plan.tiles_by_column});
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
  return cudaSuccess;
}

// Serves every problem on a device this build has code for.
inline Support any_problem(const Problem&, const Device& d) { return detail::needs_built_device(d); }

}  // namespace xpose::engines
