// Programmatic dependent launch (sm_90): a kernel launched "early" may start while the stream's
// kernel before it still runs, so its first loads overlap that kernel's last blocks and the gap
// between the two. What it reads of the earlier kernel's writes it reads after
// wait_for_prior_grid(), which returns once that kernel has finished and its writes are visible
// (at once where the launch was not early). let_dependents_start() in the earlier kernel lets the
// early one start before its own blocks have all finished.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace xpose::engines {

__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void let_dependents_start() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), early where `early` is true.
template <class... Params, class... Args>
cudaError_t launch_maybe_early(bool early, void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                               cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid, config.blockDim = block, config.dynamicSmemBytes = smem, config.stream = stream;
  config.attrs = &attribute, config.numAttrs = early ? 1 : 0;
  return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace xpose::engines
