// xpose-host-cost: host microseconds per call of the C ABI on small problems, where the host
// cost is all there is: a bare launch of an empty kernel (the floor), xpose_transpose /
// xpose_permute (checks, device queries, the choice, the launch on every call) and
// xpose_plan_execute (the bases' checks and the launch). Calls back to back on one stream,
// one synchronization at the end; the median of 7 repeats of --calls calls.
//   xpose-host-cost [--calls N]
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "xpose/xpose.hpp"

namespace {

__global__ void empty_kernel(const void*, void*) {}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "xpose-host-cost: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

double per_call_us(int calls, const std::function<void()>& call) {
  call();
  check(cudaDeviceSynchronize(), "warm-up");
  std::vector<double> runs;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    check(cudaDeviceSynchronize(), "synchronize");
    runs.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  std::sort(runs.begin(), runs.end());
  return runs[runs.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int calls = 20000;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--calls") == 0 && i + 1 < argc) {
      calls = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--version") == 0) {
      std::printf("xpose-host-cost %s\n", xpose_version());
      return 0;
    } else {
      std::fprintf(stderr, "usage: xpose-host-cost [--calls N]\n");
      return 2;
    }
  }
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, 1 << 20), "cudaMalloc");
  check(cudaMalloc(&dst, 1 << 20), "cudaMalloc");
  cudaStream_t s = nullptr;
  check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  std::printf("%s, %d calls a repeat, median of 7\n\n", prop.name, calls);

  const double bare = per_call_us(calls, [&] { empty_kernel<<<1, 32, 0, s>>>(src, dst); });
  std::printf("| call | host us/call | x bare launch |\n|---|---:|---:|\n");
  std::printf("| bare launch of an empty kernel | %.2f | 1.00 |\n", bare);
  const auto row = [&](const char* what, const std::function<void()>& call) {
    const double us = per_call_us(calls, call);
    std::printf("| %s | %.2f | %.2f |\n", what, us, us / bare);
  };
  const auto ok = [](xpose_status_t st) {
    if (st != XPOSE_SUCCESS) {
      std::fprintf(stderr, "xpose-host-cost: %s\n", xpose_last_error());
      std::exit(1);
    }
  };
  row("xpose_transpose fp32 64x64", [&] { ok(xpose_transpose(src, dst, 64, 64, 4, 0, 0, 1, 0, 0, s)); });
  const xpose::Plan t = xpose::Plan::transpose(4, xpose::Shape{64, 64});
  row("xpose_plan_execute, the same", [&] { ok(xpose_plan_execute(t.get(), src, dst, s)); });
  const int64_t extents[] = {4, 8, 16, 32};
  const int perm[] = {3, 0, 1, 2};
  row("xpose_permute fp32 (4,8,16,32) -> (3,0,1,2)",
      [&] { ok(xpose_permute(src, dst, 4, extents, perm, 4, nullptr, nullptr, s)); });
  const xpose::Plan p = xpose::Plan::permute(4, {{4, 8, 16, 32}, {3, 0, 1, 2}});
  row("xpose_plan_execute, the same", [&] { ok(xpose_plan_execute(p.get(), src, dst, s)); });
  std::printf("\nthe permutation's plan: %s\n", p.explain().c_str());
  check(cudaStreamDestroy(s), "cudaStreamDestroy");
  check(cudaFree(src), "cudaFree");
  check(cudaFree(dst), "cudaFree");
  return 0;
}
