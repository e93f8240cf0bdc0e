#include "fill.hpp"

namespace xpose::bench {
namespace {

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

__global__ void fill_words(uint64_t* words, int64_t count, uint64_t seed, uint64_t keep) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x)
    words[i] = splitmix64(seed ^ (uint64_t(i) * 0xD1B54A32D192ED03ull)) & keep;
}

// Bits to keep in each 64-bit word: the second-highest bit of every float lane cleared.
uint64_t finite_mask(int64_t elem_bytes) {
  switch (elem_bytes) {
    case 2: return 0xBFFFBFFFBFFFBFFFull;
    case 4: return 0xBFFFFFFFBFFFFFFFull;
    case 8:
    case 16: return 0xBFFFFFFFFFFFFFFFull;
    default: return ~0ull;
  }
}

}  // namespace

cudaError_t fill_random(void* ptr, int64_t bytes, int64_t elem_bytes, uint64_t seed, cudaStream_t stream) {
  // cudaMalloc'd buffers are 256-byte aligned; a tail of fewer than 8 bytes gets a fixed pattern.
  const int64_t words = bytes / 8;
  if (words > 0) {
    fill_words<<<1024, 256, 0, stream>>>(static_cast<uint64_t*>(ptr), words, seed, finite_mask(elem_bytes));
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  if (bytes % 8) return cudaMemsetAsync(static_cast<char*>(ptr) + words * 8, 0x3c, size_t(bytes % 8), stream);
  return cudaSuccess;
}

}  // namespace xpose::bench
