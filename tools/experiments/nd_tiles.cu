// Experiment (not part of the library): permute_vec_tiled's vectors per thread, the row
// length under which its slabs go side by side along a, and the threads an SM its register
// budget aims for; permute_vec_regs' lanes along a, vectors a thread and block size. On
// N-D cases (xpose-permute-bench's and shorter ones), each a % of cudaMemcpyAsync of the same
// bytes, median of 30, L2 flushed before each call; every result checked byte for byte
// against permute_tiled's (random src). It links the library's static build (an internal
// user: src/ on its include path); each library build is one setting of the constants in
// layout/permute_nd.hpp (today: 4 vectors, 128-byte rows, 1024 threads an SM, blocks of at
// most 256 threads; register blocks: 8 lanes, 8 vectors, 128 threads), edited for the run:
//   cmake -S . -B build-x -DXPOSE_BUILD_EXPERIMENTS=ON && cmake --build build-x --target nd_tiles
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/engine.hpp"
#include "dispatch/registry.hpp"
#include "layout/permute.hpp"

namespace {

// A named N-D kernel's plan for `shape` (the library's automatic choice aside).
bool plan_named(const xpose::layout::PermuteAxes& shape, const void* src, void* dst, const char* name,
                xpose::detail::Plan* out, std::string* why) {
  using namespace xpose;
  layout::NdForm form;
  const char* reason = "unknown kernel";
  const detail::Engine* engine = detail::find_engine(name, detail::Input::nd_form);
  detail::Device device;
  if (!layout::nd_form(layout::normalize(shape), &form, &reason) || !engine ||
      detail::current_device(&device).failed()) {
    *why = reason;
    return false;
  }
  const detail::Support s = detail::plan_engine(*engine, detail::Task::of(form, src, dst), device, {}, out);
  *why = detail::why(s, device);
  return s.served();
}

cudaError_t launch(const xpose::detail::Plan& plan, cudaStream_t s) { return plan.engine->launch(plan, s); }

void ok(cudaError_t e) {
  if (e != cudaSuccess) {
    std::printf("CUDA: %s\n", cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Case {
  const char* name;
  int64_t elem_bytes;
  std::vector<int64_t> extents;
  std::vector<int> perm;
};

void* flush_buffer() {
  static void* p = nullptr;
  if (!p) ok(cudaMalloc(&p, 256 << 20));
  return p;
}

template <class F>
float median_ms(F&& f, cudaStream_t s) {
  cudaEvent_t a, b;
  ok(cudaEventCreate(&a));
  ok(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < 30; ++i) {
    ok(cudaMemsetAsync(flush_buffer(), i, 256 << 20, s));  // L2 holds none of the problem
    ok(cudaEventRecord(a, s));
    f();
    ok(cudaEventRecord(b, s));
    ok(cudaEventSynchronize(b));
    float t;
    ok(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main() {
  using namespace xpose;
  const Case cases[] = {
      {"fp16 16x8x16x16x8x64 (5,3,1,4,2,0)", 2, {16, 8, 16, 16, 8, 64}, {5, 3, 1, 4, 2, 0}},
      {"u8 64x128x128x128 (3,1,0,2)", 1, {64, 128, 128, 128}, {3, 1, 0, 2}},
      {"fp32 64x64x128x128 (3,1,0,2)", 4, {64, 64, 128, 128}, {3, 1, 0, 2}},
      {"fp32 32x16x64x16x64 (4,2,0,3,1)", 4, {32, 16, 64, 16, 64}, {4, 2, 0, 3, 1}},
      {"fp16 64x256x56x56 (0,2,3,1)", 2, {64, 256, 56, 56}, {0, 2, 3, 1}},
      {"fp64 128x128x64x32 (1,0,3,2)", 8, {128, 128, 64, 32}, {1, 0, 3, 2}},
      // short fastest runs on both sides, where permute_vec_regs may take over
      {"fp32 16x8x16x16x8x32 (5,3,1,4,2,0)", 4, {16, 8, 16, 16, 8, 32}, {5, 3, 1, 4, 2, 0}},
      {"u8 32x8x16x16x8x128 (5,3,1,4,2,0)", 1, {32, 8, 16, 16, 8, 128}, {5, 3, 1, 4, 2, 0}},
      {"fp64 32x16x64x16x16 (4,2,0,3,1)", 8, {32, 16, 64, 16, 16}, {4, 2, 0, 3, 1}},
      {"fp16 64x64x64x32 (3,1,0,2)", 2, {64, 64, 64, 32}, {3, 1, 0, 2}},
      {"fp16 64x64x128x128 (3,1,0,2)", 2, {64, 64, 128, 128}, {3, 1, 0, 2}},
      {"fp32 64x32x64x32x32 (4,2,0,3,1)", 4, {64, 32, 64, 32, 32}, {4, 2, 0, 3, 1}},
      {"u8 64x64x64x64x64 (4,2,0,3,1)", 1, {64, 64, 64, 64, 64}, {4, 2, 0, 3, 1}},
      {"c128 16x8x16x16x8x8 (5,3,1,4,2,0)", 16, {16, 8, 16, 16, 8, 8}, {5, 3, 1, 4, 2, 0}},
  };
  std::printf("vectors a thread %d, slabs along a under %d-byte rows, %d threads an SM, blocks of at most %d; "
              "register blocks: %d lanes along a, %d vectors a thread, %d threads a block\n",
              layout::nd_vectors_per_thread, layout::nd_min_row_bytes, layout::nd_resident_threads, layout::nd_max_threads,
              layout::nd_regs_lanes_a, layout::nd_regs_vectors, layout::nd_regs_threads);
  cudaStream_t s;
  ok(cudaStreamCreate(&s));
  for (const Case& c : cases) {
    const int rank = int(c.extents.size());
    layout::PermuteAxes shape;
    shape.rank = rank;
    shape.elem_bytes = c.elem_bytes;
    int64_t n = 1;
    for (int64_t e : c.extents) n *= e;
    std::vector<int64_t> src_stride(size_t(rank), 1), dst_stride(size_t(rank), 1);
    for (int i = rank - 2; i >= 0; --i) src_stride[size_t(i)] = src_stride[size_t(i) + 1] * c.extents[size_t(i) + 1];
    for (int k = rank - 2; k >= 0; --k)
      dst_stride[size_t(k)] = dst_stride[size_t(k) + 1] * c.extents[size_t(c.perm[size_t(k) + 1])];
    for (int k = 0; k < rank; ++k) {
      const int i = c.perm[size_t(k)];
      shape.axes[i] = {c.extents[size_t(i)], src_stride[size_t(i)], dst_stride[size_t(k)]};
    }
    const size_t bytes = size_t(n * c.elem_bytes);
    void *src, *dst;
    ok(cudaMalloc(&src, bytes));
    ok(cudaMalloc(&dst, bytes));
    {
      std::vector<uint64_t> bits(bytes / 8 + 1);
      uint64_t x = 88172645463325252ull + uint64_t(n);
      for (auto& b : bits) x ^= x << 13, x ^= x >> 7, x ^= x << 17, b = x;
      ok(cudaMemcpy(src, bits.data(), bytes, cudaMemcpyHostToDevice));
    }
    detail::Plan plan;
    std::string why;
    if (!plan_named(shape, src, dst, "permute_vec_tiled", &plan, &why)) {
      std::printf("%-36s not served: %s\n", c.name, why.c_str());
      continue;
    }
    const float copy = median_ms([&] { ok(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s)); }, s);
    const float nd = median_ms([&] { ok(launch(plan, s)); }, s);
    // The same tiles, visited in another order: the outer axes after the first (the one a
    // tile's outer indices run along) by src stride, so that neighbouring blocks read
    // neighbouring src rows instead of writing neighbouring dst columns.
    detail::Plan by_src = plan;
    layout::NdForm& f = by_src.task.form;
    for (int i = 1; i < f.outer_rank; ++i)
      for (int j = i + 1; j < f.outer_rank; ++j)
        if (f.outer_src[j] < f.outer_src[i]) {
          std::swap(f.outer_extent[i], f.outer_extent[j]);
          std::swap(f.outer_src[i], f.outer_src[j]);
          std::swap(f.outer_dst[i], f.outer_dst[j]);
        }
    const float nd_src = median_ms([&] { ok(launch(by_src, s)); }, s);
    detail::Plan regs;
    if (!plan_named(shape, src, dst, "permute_vec_regs", &regs, &why)) {
      std::printf("%-36s permute_vec_regs refused: %s\n", c.name, why.c_str());
      continue;
    }
    const float nd_regs = median_ms([&] { ok(launch(regs, s)); }, s);
    // The register blocks with the outer axes after the first, or all of them, in src's order.
    const auto in_src_order = [](detail::Plan q, int from) {
      layout::NdForm& g = q.task.form;
      for (int i = from; i < g.outer_rank; ++i)
        for (int j = i + 1; j < g.outer_rank; ++j)
          if (g.outer_src[j] < g.outer_src[i]) {
            std::swap(g.outer_extent[i], g.outer_extent[j]);
            std::swap(g.outer_src[i], g.outer_src[j]);
            std::swap(g.outer_dst[i], g.outer_dst[j]);
          }
      return q;
    };
    const detail::Plan regs_src1 = in_src_order(regs, 1), regs_src0 = in_src_order(regs, 0);
    const float nd_regs_src1 = median_ms([&] { ok(launch(regs_src1, s)); }, s);
    const float nd_regs_src0 = median_ms([&] { ok(launch(regs_src0, s)); }, s);
    // The check: this build's permute_vec_tiled (in both block orders) against permute_tiled.
    bool same = true;
    {
      void* want;
      ok(cudaMalloc(&want, bytes));
      detail::Plan tiled;
      if (!plan_named(shape, src, want, "permute_tiled", &tiled, &why)) same = false;
      ok(launch(tiled, s));
      std::vector<unsigned char> a(bytes), b(bytes);
      ok(cudaMemcpy(a.data(), want, bytes, cudaMemcpyDeviceToHost));
      const detail::Plan* const plans[] = {&plan, &by_src, &regs, &regs_src1, &regs_src0};
      for (const detail::Plan* q : plans) {
        ok(cudaMemset(dst, 0xA5, bytes));
        ok(launch(*q, s));
        ok(cudaMemcpy(b.data(), dst, bytes, cudaMemcpyDeviceToHost));
        same = same && a == b;
      }
      ok(cudaFree(want));
    }
    std::printf("%-36s %6.1f%% (blocks in src order %5.1f%%) regs %5.1f%% (src order after axis 0 %5.1f%%, all %5.1f%%) "
                "%s  %s\n", c.name, 100.0 * copy / nd, 100.0 * copy / nd_src, 100.0 * copy / nd_regs,
                100.0 * copy / nd_regs_src1, 100.0 * copy / nd_regs_src0, same ? "checked" : "WRONG",
                detail::describe(plan).c_str());
    ok(cudaFree(src));
    ok(cudaFree(dst));
  }
  return 0;
}
