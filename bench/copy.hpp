// The `copy` kernel: a plain 16-byte-vector device copy, not a transpose. The benchmark
// measures it beside cudaMemcpyAsync as the ceiling a transpose is held to.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace xpose::bench {

// Copies `bytes` bytes; vectorized where src and dst share their offset modulo 16.
cudaError_t launch_copy(const void* src, void* dst, int64_t bytes, cudaStream_t stream);

}  // namespace xpose::bench
