// xpose-bench: the seed ladder and the automatic choice, timed with CUDA events beside
// the copy ceiling (the faster of cudaMemcpyAsync and the `copy` kernel on the same
// bytes) measured in the same run. Without a GPU it says so and times the CPU path.
#include <cuda_runtime_api.h>
#include <curand.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cpu/reference.hpp"
#include "kernels/copy.hpp"
#include "options.hpp"
#include "problem.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::bench {
namespace {

struct Stats {
  double median = 0, min = 0, max = 0;  // milliseconds
};

Stats summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  const size_t n = ms.size();
  return {n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]), ms.front(), ms.back()};
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "xpose-bench: %s\n", message.c_str());
  std::exit(1);
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Row {
  std::string kernel;
  Stats ms;
  double gbps = 0;
  bool ceiling_row = false;
};

std::string today() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

void print_table(const std::vector<Row>& rows, double ceiling, double peak) {
  std::printf("%-22s %10s %10s %10s %10s %8s %8s\n", "kernel", "ms(median)", "ms(min)", "ms(max)", "GB/s", "%copy",
              "%peak");
  for (const Row& r : rows)
    std::printf("%-22s %10.4f %10.4f %10.4f %10.1f %7.1f%% %7.1f%%\n", r.kernel.c_str(), r.ms.median, r.ms.min,
                r.ms.max, r.gbps, 100.0 * r.gbps / ceiling, peak > 0 ? 100.0 * r.gbps / peak : 0.0);
}

struct Context {
  Options o;
  detail::Problem p;
  std::string device_name;
  double peak_gbps = 0;
};

void write_json(const Context& c, const std::vector<Row>& rows, double ceiling) {
  if (c.o.json.empty()) return;
  std::ofstream out(c.o.json, std::ios::app);
  if (!out) die("cannot open --json file '" + c.o.json + "'");
  for (const Row& r : rows) {
    nlohmann::json j = {{"kernel", r.kernel},     {"dtype", c.o.dtype},        {"elem_bytes", c.p.elem_bytes},
                        {"rows", c.p.rows},       {"cols", c.p.cols},          {"batch", c.p.batch},
                        {"ld_src", c.p.ld_src},   {"ld_dst", c.p.ld_dst},      {"ms_median", r.ms.median},
                        {"ms_min", r.ms.min},     {"ms_max", r.ms.max},        {"gbps", r.gbps},
                        {"pct_copy", 100.0 * r.gbps / ceiling},
                        {"pct_peak", c.peak_gbps > 0 ? 100.0 * r.gbps / c.peak_gbps : 0.0},
                        {"device", c.device_name}, {"commit", XPOSE_COMMIT}, {"date", today()},
                        {"ceiling", r.ceiling_row}};
    out << j.dump() << "\n";
  }
}

// ---------------------------------------------------------------------------------
// GPU

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(size_t bytes) { cuda_ok(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
};

// Times `run` with events: warm-up, then reps; L2 flushed before each rep when the
// problem would otherwise sit in it.
Stats time_gpu(const Options& o, const std::function<void()>& run, void* flush, size_t flush_bytes) {
  cudaEvent_t start, stop;
  cuda_ok(cudaEventCreate(&start), "cudaEventCreate");
  cuda_ok(cudaEventCreate(&stop), "cudaEventCreate");
  for (int i = 0; i < o.warmup; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < o.reps; ++i) {
    if (flush) cuda_ok(cudaMemsetAsync(flush, i & 0xff, flush_bytes), "L2 flush");
    cuda_ok(cudaEventRecord(start), "cudaEventRecord");
    run();
    cuda_ok(cudaEventRecord(stop), "cudaEventRecord");
    cuda_ok(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float t = 0;
    cuda_ok(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return summarize(ms);
}

void fill_random(void* ptr, size_t bytes) {
  curandGenerator_t gen;
  if (curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) != CURAND_STATUS_SUCCESS) die("curand init failed");
  curandSetPseudoRandomGeneratorSeed(gen, uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  if (curandGenerate(gen, static_cast<unsigned*>(ptr), bytes / 4) != CURAND_STATUS_SUCCESS) die("curand failed");
  curandDestroyGenerator(gen);
  if (bytes % 4) cuda_ok(cudaMemset(static_cast<char*>(ptr) + bytes / 4 * 4, 0x5a, bytes % 4), "cudaMemset");
}

int64_t span_bytes(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t stride, int64_t e) {
  return ((outer - 1) * ld + (batch - 1) * stride + inner) * e;
}

bool results_match(const Context& c, const void* d_src, int64_t src_bytes, const void* d_dst, int64_t dst_bytes) {
  std::vector<uint8_t> src(static_cast<size_t>(src_bytes)), got(static_cast<size_t>(dst_bytes)), want;
  cuda_ok(cudaMemcpy(src.data(), d_src, src.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cuda_ok(cudaMemcpy(got.data(), d_dst, got.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
  want = got;  // gaps between rows keep whatever the kernel left there: it must not write them
  detail::Problem p = c.p;
  p.src = src.data();
  p.dst = want.data();
  cpu::transpose(p);
  return want == got;
}

int run_gpu(Context& c) {
  Options& o = c.o;
  cudaDeviceProp prop{};
  int dev = 0;
  cuda_ok(cudaGetDevice(&dev), "cudaGetDevice");
  cuda_ok(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  int mem_khz = 0, bus_bits = 0;
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
  cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev);
  c.device_name = prop.name;
  c.peak_gbps = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;

  size_t free_bytes = 0, total_bytes = 0;
  cuda_ok(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  detail::Problem& p = c.p;
  for (;;) {
    const detail::Args args{reinterpret_cast<void*>(uintptr_t(1) << 20), reinterpret_cast<void*>(uintptr_t(1) << 46),
                            o.rows, o.cols, o.elem_bytes, o.ld_src, o.ld_dst, o.batch, 0, 0};
    if (detail::Error e = detail::resolve(args, &p); e.failed()) die(e.message);
    const int64_t need = span_bytes(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes) +
                         span_bytes(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, p.elem_bytes);
    if (double(need) < 0.9 * double(free_bytes)) break;
    if (o.shape_given)
      die("the problem needs " + std::to_string(need >> 20) + " MiB of GPU memory; " +
          std::to_string(free_bytes >> 20) + " MiB are free");
    o.rows /= 2;
    o.cols /= 2;
    std::fprintf(stderr, "xpose-bench: not enough GPU memory for the default shape; using %lldx%lld\n",
                 (long long)o.rows, (long long)o.cols);
  }
  const int64_t src_bytes = span_bytes(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes);
  const int64_t dst_bytes = span_bytes(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, p.elem_bytes);
  DeviceBuffer src(static_cast<size_t>(src_bytes)), dst(static_cast<size_t>(dst_bytes));
  fill_random(src.ptr, size_t(src_bytes));
  cuda_ok(cudaMemset(dst.ptr, 0xA5, size_t(dst_bytes)), "cudaMemset");
  p.src = src.ptr;
  p.dst = dst.ptr;

  // Flush L2 between reps when both matrices could stay resident in it.
  const size_t flush_bytes = size_t(prop.l2CacheSize) * 4;
  std::unique_ptr<DeviceBuffer> flush;
  if (src_bytes + dst_bytes < int64_t(flush_bytes)) flush = std::make_unique<DeviceBuffer>(flush_bytes);
  void* flush_ptr = flush ? flush->ptr : nullptr;

  const double moved = 2.0 * double(p.bytes());
  std::printf("xpose-bench %s: %s (sm_%d%d, %d SMs), theoretical peak %.0f GB/s, %s\n", XPOSE_COMMIT, prop.name,
              prop.major, prop.minor, prop.multiProcessorCount, c.peak_gbps, today().c_str());
  std::printf("problem: %s (%lld-byte elements) %lldx%lld batch %lld, ld_src %lld, ld_dst %lld; %.3f GB per matrix; "
              "median of %d runs\n",
              o.dtype.c_str(), (long long)p.elem_bytes, (long long)p.rows, (long long)p.cols, (long long)p.batch,
              (long long)p.ld_src, (long long)p.ld_dst, double(p.bytes()) / 1e9, o.reps);
  const Shape shape{p.rows, p.cols, p.ld_src, p.ld_dst, p.batch, p.stride_src, p.stride_dst};
  if (o.explain) std::printf("auto: %s\n", explain(p.src, p.dst, p.elem_bytes, shape).c_str());

  std::vector<Row> rows;
  const auto add = [&](const std::string& name, const Stats& s, bool ceiling_row) {
    rows.push_back({name, s, moved / (s.median * 1e6), ceiling_row});
  };
  add("cudaMemcpyAsync", time_gpu(o, [&] {
        cuda_ok(cudaMemcpyAsync(dst.ptr, src.ptr, size_t(p.bytes()), cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
      }, flush_ptr, flush_bytes), true);
  add("copy", time_gpu(o, [&] { cuda_ok(kernels::launch_copy(src.ptr, dst.ptr, p.bytes(), nullptr), "copy"); },
                       flush_ptr, flush_bytes), true);
  const double ceiling = std::max(rows[0].gbps, rows[1].gbps);

  std::vector<std::string> names = o.kernels;
  if (names.empty()) {
    for (const KernelInfo& k : kernel_list())
      if (k.transposes) names.push_back(k.name);
    names.push_back("auto");
  }
  int failures = 0;
  for (const std::string& name : names) {
    const bool automatic = name == "auto";
    const auto call = [&] {
      return automatic ? xpose_transpose(p.src, p.dst, p.rows, p.cols, p.elem_bytes, p.ld_src, p.ld_dst, p.batch,
                                         p.stride_src, p.stride_dst, nullptr)
                       : xpose_transpose_with(name.c_str(), p.src, p.dst, p.rows, p.cols, p.elem_bytes, p.ld_src,
                                              p.ld_dst, p.batch, p.stride_src, p.stride_dst, nullptr);
    };
    if (call() != XPOSE_SUCCESS) {
      std::printf("%-22s skipped: %s\n", name.c_str(), xpose_last_error());
      continue;
    }
    cuda_ok(cudaDeviceSynchronize(), name.c_str());
    if (o.check && !results_match(c, src.ptr, src_bytes, dst.ptr, dst_bytes)) {
      std::printf("%-22s WRONG RESULT\n", name.c_str());
      ++failures;
    }
    const Stats s = time_gpu(o, [&] { call(); }, flush_ptr, flush_bytes);
    add(automatic ? "auto" : name, s, false);
  }
  print_table(rows, ceiling, c.peak_gbps);
  std::printf("copy ceiling: %.1f GB/s (the faster of cudaMemcpyAsync and copy, this run)%s\n", ceiling,
              o.check ? (failures ? "; CHECK FAILED" : "; every result checked against the CPU reference") : "");
  write_json(c, rows, ceiling);
  return failures ? 1 : 0;
}

// ---------------------------------------------------------------------------------
// CPU

int run_cpu(Context& c) {
  Options& o = c.o;
  if (!o.shape_given) o.rows = o.cols = 8192;
  detail::Problem& p = c.p;
  const detail::Args placeholder{reinterpret_cast<void*>(uintptr_t(1) << 20),
                                 reinterpret_cast<void*>(uintptr_t(1) << 46), o.rows, o.cols, o.elem_bytes,
                                 o.ld_src, o.ld_dst, o.batch, 0, 0};
  if (detail::Error e = detail::resolve(placeholder, &p); e.failed()) die(e.message);
  std::vector<uint8_t> src(size_t(span_bytes(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes)), 7);
  std::vector<uint8_t> dst(size_t(span_bytes(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, p.elem_bytes)));
  for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 2654435761u >> 13);
  p.src = src.data();
  p.dst = dst.data();
  c.device_name = "cpu";
  const auto time_cpu = [&](const std::function<void()>& run) {
    for (int i = 0; i < std::min(o.warmup, 1); ++i) run();
    std::vector<double> ms;
    for (int i = 0; i < std::max(1, std::min(o.reps, 5)); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      run();
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    return summarize(ms);
  };
  const double moved = 2.0 * double(p.bytes());
  std::printf("xpose-bench %s: CPU path, %s %lldx%lld batch %lld, %s\n", XPOSE_COMMIT, o.dtype.c_str(),
              (long long)p.rows, (long long)p.cols, (long long)p.batch, today().c_str());
  std::vector<Row> rows;
  const Stats copy = time_cpu([&] { std::copy(src.begin(), src.begin() + p.bytes(), dst.begin()); });
  rows.push_back({"memcpy", copy, moved / (copy.median * 1e6), true});
  const Stats ref = time_cpu([&] { cpu::transpose(p); });
  rows.push_back({"cpu_reference", ref, moved / (ref.median * 1e6), false});
  print_table(rows, rows[0].gbps, 0);
  write_json(c, rows, rows[0].gbps);
  return 0;
}

}  // namespace
}  // namespace xpose::bench

int main(int argc, char** argv) {
  using namespace xpose::bench;
  int exit_code = 0;
  auto options = parse_options(argc, argv, &exit_code);
  if (!options) return exit_code;
  Context c{*options, {}, {}, 0};
  if (c.o.device == "cpu") return run_cpu(c);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("xpose-bench: no CUDA device (%s); timing the CPU path instead\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return run_cpu(c);
  }
  return run_gpu(c);
}
