// Fresh random test data on the device, finite for every float type the peers compute with.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace xpose::bench {

// Fills `bytes` bytes with random bits from `seed`; for 2-, 4-, 8- and 16-byte elements the
// second-highest bit of each fp16/bf16, fp32 or fp64 lane is cleared, so no value is NaN or
// infinite: cuBLAS computes alpha*A + beta*B and would be free to alter NaN payloads, which
// a bit-exact check would then flag. One-byte data stays fully random (cuBLASLt moves it as int8).
cudaError_t fill_random(void* ptr, int64_t bytes, int64_t elem_bytes, uint64_t seed, cudaStream_t stream);

}  // namespace xpose::bench
