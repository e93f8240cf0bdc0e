// Launch helpers shared by the kernel files.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kernels/common.cuh"
#include "layout/smem_layout.hpp"
#include "registry.hpp"

namespace xpose::kernels {

inline dim3 to_dim3(const layout::Dims& d) { return dim3(d.x, d.y, d.z); }

// Launches a one-tile-per-block kernel over the whole problem: one launch where the
// tile grid fits CUDA's limits, else one per chunk, each with its origin. The kernel
// takes `args...` and then the chunk's TileOrigin.
template <class Kernel, class... Args>
cudaError_t launch_tiles(Kernel kernel, const detail::Problem& p, const detail::Launch& l, size_t smem,
                         cudaStream_t s, const Args&... args) {
  const int64_t tiles_c = layout::ceil_div(p.cols, l.tile_cols), tiles_r = layout::ceil_div(p.rows, l.tile_rows);
  for (int64_t b = 0; b < p.batch; b += layout::max_grid_yz)
    for (int64_t tr = 0; tr < tiles_r; tr += layout::max_grid_yz)
      for (int64_t tc = 0; tc < tiles_c; tc += layout::max_grid_x) {
        const layout::Dims grid = layout::grid_of_tiles(tiles_c - tc, tiles_r - tr, p.batch - b);
        kernel<<<to_dim3(grid), to_dim3(l.block), smem, s>>>(args..., TileOrigin{tc, tr, b});
        if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
      }
  return cudaSuccess;
}

// The dynamic shared memory to launch `kernel` with: `needed` bytes, or more where at most
// `blocks` of its blocks should share an SM of the current device (0: as many as fit), the
// excess unused. Each block then takes a 1 KiB-aligned share of the SM's shared memory:
// `blocks` shares fit, one more does not. Allows the kernel that much.
template <class Kernel>
cudaError_t dynamic_smem(Kernel kernel, size_t needed, int blocks, size_t* bytes) {
  *bytes = needed;
  if (blocks > 0) {
    int device = 0, per_sm = 0, reserved = 0;
    cudaFuncAttributes a{};
    if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
        e != cudaSuccess)
      return e;
    if (cudaError_t e = cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, device);
        e != cudaSuccess)
      return e;
    if (cudaError_t e = cudaFuncGetAttributes(&a, kernel); e != cudaSuccess) return e;
    const size_t share = size_t(per_sm) / blocks / 1024 * 1024, used = a.sharedSizeBytes + size_t(reserved);
    if (share > used + needed) *bytes = share - used;
  }
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(*bytes));
}

inline std::string always_supported(const detail::Problem&, const detail::Device& d) {
  return detail::unsupported_device(d);
}

// One block per tile of tile_rows x tile_cols, over the whole problem (launch_tiles walks it).
inline detail::Launch tile_launch(const detail::Problem& p, int tile_rows, int tile_cols, layout::Dims block) {
  detail::Launch l;
  l.tile_rows = tile_rows;
  l.tile_cols = tile_cols;
  l.grid = layout::tile_grid(p.rows, p.cols, p.batch, tile_rows, tile_cols);
  l.block = block;
  return l;
}

// The classic shape: 32x32 tiles, 32x8 threads.
inline detail::Launch classic_shape(const detail::Problem& p, const detail::Device&) {
  namespace cl = layout::classic;
  return tile_launch(p, cl::tile, cl::tile, {uint32_t(cl::block_x), uint32_t(cl::block_y), 1});
}

}  // namespace xpose::kernels
