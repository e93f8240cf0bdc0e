// A consumer of xpose: transposes a small matrix on the CPU path, and on the GPU where there
// is one, and checks both. Exits 0 when every check that could run passed.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <vector>

#include "xpose/xpose.hpp"

int main() {
  const int64_t rows = 3, cols = 5;
  std::vector<float> src(rows * cols), dst(rows * cols, -1.0f);
  for (int64_t i = 0; i < rows * cols; ++i) src[i] = float(i);
  const auto transposed = [&](const std::vector<float>& out) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j)
        if (out[j * rows + i] != src[i * cols + j]) return false;
    return true;
  };

  xpose::transpose_host(src.data(), dst.data(), sizeof(float), xpose::Shape{rows, cols});
  if (!transposed(dst)) {
    std::fprintf(stderr, "consumer: the host path gave a wrong transpose\n");
    return 1;
  }
  std::printf("consumer: host path ok (%zu kernels in this xpose)\n", xpose::kernel_list().size());

  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("consumer: no CUDA device; the GPU path was not run\n");
    return 0;
  }
  float *d_src = nullptr, *d_dst = nullptr;
  const size_t bytes = sizeof(float) * size_t(rows * cols);
  std::vector<float> back(rows * cols, -1.0f);
  try {
    if (cudaMalloc(reinterpret_cast<void**>(&d_src), bytes) != cudaSuccess ||
        cudaMalloc(reinterpret_cast<void**>(&d_dst), bytes) != cudaSuccess ||
        cudaMemcpy(d_src, src.data(), bytes, cudaMemcpyHostToDevice) != cudaSuccess)
      throw xpose::Error(XPOSE_ERROR_CUDA, "allocation or copy failed");
    std::printf("consumer: %s\n", xpose::explain(d_src, d_dst, sizeof(float), xpose::Shape{rows, cols}).c_str());
    xpose::transpose(d_src, d_dst, rows, cols);
    if (cudaMemcpy(back.data(), d_dst, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
      throw xpose::Error(XPOSE_ERROR_CUDA, "copy back failed");
  } catch (const xpose::Error& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  cudaFree(d_src);
  cudaFree(d_dst);
  if (!transposed(back)) {
    std::fprintf(stderr, "consumer: the GPU path gave a wrong transpose\n");
    return 1;
  }
  std::printf("consumer: GPU path ok\n");
  return 0;
}
