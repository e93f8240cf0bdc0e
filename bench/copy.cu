#include "copy.hpp"

#include <cuda_runtime.h>

#include <algorithm>


namespace xpose::bench {
namespace {

constexpr int threads = 256, vectors_per_thread = 4;
constexpr int64_t max_blocks = 2147483647;  // CUDA's grid x limit

// Bytes before the first 16-byte boundary and after the last one are copied singly.
__global__ void __launch_bounds__(threads)
    copy_vectors(const uint8_t* src, uint8_t* dst, int64_t head, int64_t vectors, int64_t bytes) {
  const auto* s = reinterpret_cast<const uint4*>(src + head);
  auto* d = reinterpret_cast<uint4*>(dst + head);
  for (int64_t first = int64_t(blockIdx.x) * threads * vectors_per_thread; first < vectors;
       first += int64_t(gridDim.x) * threads * vectors_per_thread) {
    uint4 v[vectors_per_thread];
#pragma unroll
    for (int k = 0; k < vectors_per_thread; ++k) {
      const int64_t i = first + k * threads + threadIdx.x;
      if (i < vectors) v[k] = s[i];
    }
#pragma unroll
    for (int k = 0; k < vectors_per_thread; ++k) {
      const int64_t i = first + k * threads + threadIdx.x;
      if (i < vectors) d[i] = v[k];
    }
  }
  if (blockIdx.x == 0) {
    const int64_t tail = head + vectors * 16;
    for (int64_t i = threadIdx.x; i < head; i += threads) dst[i] = src[i];
    for (int64_t i = tail + threadIdx.x; i < bytes; i += threads) dst[i] = src[i];
  }
}

}  // namespace

cudaError_t launch_copy(const void* src, void* dst, int64_t bytes, cudaStream_t stream) {
  if (bytes <= 0) return cudaSuccess;
  const auto s = reinterpret_cast<uintptr_t>(src), d = reinterpret_cast<uintptr_t>(dst);
  int64_t head = bytes, vectors = 0;  // mismatched offsets: every byte singly
  if (s % 16 == d % 16) {
    head = std::min<int64_t>(bytes, (16 - int64_t(s % 16)) % 16);
    vectors = (bytes - head) / 16;
  }
  const int64_t blocks = std::max<int64_t>(1, (vectors + threads * vectors_per_thread - 1) / (threads * vectors_per_thread));
  copy_vectors<<<unsigned(std::min(blocks, max_blocks)), threads, 0, stream>>>(
      static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), head, vectors, bytes);
  return cudaGetLastError();
}

}  // namespace xpose::bench
