// Launch helpers shared by the kernel files.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "layout/smem_layout.hpp"
#include "registry.hpp"

namespace xpose::kernels {

inline dim3 to_dim3(const layout::Dims& d) { return dim3(d.x, d.y, d.z); }

// Launches `kernel` with the planned grid and block and returns the launch's error.
template <class... KernelArgs, class... Args>
cudaError_t launch_kernel(void (*kernel)(KernelArgs...), const detail::Launch& l, size_t smem, cudaStream_t s,
                          Args&&... args) {
  kernel<<<to_dim3(l.grid), to_dim3(l.block), smem, s>>>(std::forward<Args>(args)...);
  return cudaGetLastError();
}

inline std::string always_supported(const detail::Problem&, const detail::Device& d) {
  return detail::unsupported_device(d);
}

// The classic shape: 32x32 tiles, 32x8 threads.
inline detail::Launch classic_shape(const detail::Problem& p, const detail::Device&) {
  namespace cl = layout::classic;
  detail::Launch l;
  l.tile_rows = l.tile_cols = cl::tile;
  l.grid = layout::tile_grid(p.rows, p.cols, p.batch, cl::tile, cl::tile);
  l.block = {uint32_t(cl::block_x), uint32_t(cl::block_y), 1};
  return l;
}

}  // namespace xpose::kernels
