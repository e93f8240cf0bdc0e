// Experiment (not part of the library): which configuration of the pipelined TMA
// transpose (src/engines/tma/pipeline.cuh) comes closest to the copy ceiling on this GPU?
// Times each configuration on the same buffers beside cudaMemcpyAsync, checks each result
// against a naive transpose, and prints % of copy. Built with -DXPOSE_BUILD_EXPERIMENTS=ON
// (target tma_pipeline_exp; tools/experiments/CMakeLists.txt); run it on the GPU machine.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "engines/tma/pipeline.cuh"
#include "engines/tma/tensor_map.hpp"

using namespace xpose;
using namespace xpose::engines;

#define CHECK(x)                                                                              \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));           \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

template <class T>
__global__ void naive(const T* src, T* dst, int64_t rows, int64_t cols) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) dst[(i % cols) * rows + i / cols] = src[i];
}

__global__ void fill(uint32_t* p, int64_t words, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < words; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = uint32_t(i * 2654435761u) ^ seed ^ uint32_t(i >> 20);
}

template <class F>
float median_ms(F&& f, int reps = 20) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Bufs {
  void *src, *dst, *ref;
  int64_t rows, cols;
};

template <int E, class C>
void run(const char* name, const Bufs& b, int promotion, float copy_ms) {
  detail::Problem p;
  p.src = b.src, p.dst = b.dst, p.rows = b.rows, p.cols = b.cols, p.elem_bytes = E;
  p.ld_src = b.cols, p.ld_dst = b.rows, p.batch = 1, p.stride_src = b.rows * b.cols, p.stride_dst = b.rows * b.cols;
  constexpr int n = 128 / E;
  const auto sm = tma::src_map(p, n, true, C::rows, promotion);
  const auto dm = tma::dst_map(p, n, true, promotion);
  CUtensorMap s, d;
  CHECK(tma::encode(sm, p.src, &s));
  CHECK(tma::encode(dm, p.dst, &d));
  const auto kernel = tma::transpose_tma_pipeline<E, C>;
  const size_t smem = tma::pipe_smem_bytes<E, C>();
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, C::threads, smem));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const tma::PipeWork w = tma::pipe_work(layout::tile_walk(p.rows, p.cols, 1, C::rows, n), p.rows);
  const int grid = int(std::min<int64_t>(w.tiles, int64_t(per_sm) * sms));
  CHECK(cudaMemset(b.dst, 0xA5, size_t(p.rows * p.cols * E)));
  kernel<<<grid, C::threads, smem>>>(s, d, w);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<uint8_t> got(size_t(p.rows * p.cols * E)), want(got.size());
  CHECK(cudaMemcpy(got.data(), b.dst, got.size(), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), b.ref, want.size(), cudaMemcpyDeviceToHost));
  const float ms = median_ms([&] { kernel<<<grid, C::threads, smem>>>(s, d, w); });
  std::printf("%-44s E=%-2d rows %3d stages %d out %d threads %3d order %d promo %3d: %d blocks/SM, %.4f ms, %5.1f%% of copy %s\n",
              name, E, C::rows, C::stages, C::out, C::threads, C::order, promotion, per_sm, ms, 100.0 * copy_ms / ms,
              got == want ? "ok" : "WRONG");
}

template <int E>
Bufs setup(int64_t rows, int64_t cols, float* copy_ms) {
  Bufs b{nullptr, nullptr, nullptr, rows, cols};
  const size_t bytes = size_t(rows * cols * E);
  CHECK(cudaMalloc(&b.src, bytes));
  CHECK(cudaMalloc(&b.dst, bytes));
  CHECK(cudaMalloc(&b.ref, bytes));
  fill<<<1024, 256>>>(static_cast<uint32_t*>(b.src), int64_t(bytes / 4), 12345u);
  using T = Elem<E>;
  naive<T><<<unsigned((rows * cols + 255) / 256), 256>>>(static_cast<const T*>(b.src), static_cast<T*>(b.ref), rows, cols);
  CHECK(cudaDeviceSynchronize());
  *copy_ms = median_ms([&] { CHECK(cudaMemcpyAsync(b.dst, b.src, bytes, cudaMemcpyDeviceToDevice)); });
  std::printf("== E=%d %lldx%lld: cudaMemcpyAsync %.4f ms = %.1f GB/s\n", E, (long long)rows, (long long)cols,
              *copy_ms, 2.0 * bytes / (*copy_ms * 1e6));
  return b;
}

void release(Bufs& b) {
  cudaFree(b.src);
  cudaFree(b.dst);
  cudaFree(b.ref);
}

int main() {
  using tma::PipeConfig;
  float copy_ms = 0;
  {
    Bufs b = setup<4>(32768, 32768, &copy_ms);
    for (int promo : {256, 128, 0}) {
      run<4, PipeConfig<128, 4, 2, 256>>("128 rows, 4 stages", b, promo, copy_ms);
      run<4, PipeConfig<256, 3, 2, 256>>("256 rows, 3 stages", b, promo, copy_ms);
      run<4, PipeConfig<128, 4, 2, 256, 2, 8>>("128 rows, groups of 8 column tiles", b, promo, copy_ms);
      run<4, PipeConfig<32, 1, 1, 64>>("32 rows, 1 stage, 64 threads", b, promo, copy_ms);
      run<4, PipeConfig<32, 2, 1, 64>>("32 rows, 2 stages, 64 threads", b, promo, copy_ms);
      run<4, PipeConfig<64, 2, 2, 128>>("64 rows, 2 stages, 128 threads", b, promo, copy_ms);
    }
    release(b);
  }
  {
    Bufs b = setup<2>(32768, 32768, &copy_ms);
    for (int promo : {256, 128, 0}) run<2, PipeConfig<128, 4, 2, 256>>("128 rows, 4 stages", b, promo, copy_ms);
    release(b);
  }
  {
    Bufs b = setup<1>(32768, 32768, &copy_ms);
    for (int promo : {256, 128, 0}) run<1, PipeConfig<128, 4, 2, 256>>("128 rows, 4 stages", b, promo, copy_ms);
    release(b);
  }
  {
    Bufs b = setup<8>(16384, 16384, &copy_ms);
    for (int promo : {256, 128, 0}) run<8, PipeConfig<128, 4, 2, 256>>("128 rows, 4 stages", b, promo, copy_ms);
    release(b);
  }
  {
    Bufs b = setup<16>(8192, 8192, &copy_ms);
    for (int promo : {256, 128, 0}) {
      run<16, PipeConfig<128, 4, 2, 256>>("128 rows, 4 stages", b, promo, copy_ms);
      run<16, PipeConfig<64, 4, 2, 128>>("64 rows, 128 threads", b, promo, copy_ms);
    }
    release(b);
  }
  return 0;
}
