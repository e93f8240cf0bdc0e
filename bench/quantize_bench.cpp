// xpose-quantize-bench: FP8 quantization (xpose_quantize) on LLM shapes, every recipe and set of
// outputs, each as a % of the same-run copy of the same bytes: the bytes it must move (x read
// once, every output written once, scales included), copied by the faster of cudaMemcpyAsync and
// xpose's `copy` kernel (half of them read, half written). Current scaling reads x twice, its
// amax first (the issue allows that second pass over nothing but the amax), and its bytes count
// x twice. --check compares every output with the CPU path (xpose::quantize_host) bit for bit.
// --random N draws N problems instead (cases.hpp: random_quantizations), from --seed or a fresh
// seed, printed.
//
//   xpose-quantize-bench [--check] [--reps 20] [--json out.jsonl] [--case SUBSTRING]... [--list]
//   xpose-quantize-bench --shape 8192x4096 --input bf16 --recipe mxfp8 --outputs both
//   xpose-quantize-bench --random 200 [--seed S] [--check]
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "cases.hpp"
#include "copy.hpp"
#include "fill.hpp"
#include "record.hpp"
#include "timer.hpp"
#include "xpose/xpose.hpp"
#include "xpose_commit.hpp"  // XPOSE_COMMIT, written at build time

namespace xpose::bench {
namespace {

// The recipes people train with, by name.
struct Recipe {
  const char* name;
  xpose_scaling_t scaling;
  xpose_scale_layout_t layout;
  int block_rows, block_cols;
};
constexpr Recipe kRecipes[] = {
    {"delayed", XPOSE_SCALING_TENSOR_GIVEN, XPOSE_SCALES_ROW_MAJOR, 1, 128},  // per-tensor, a given scale
    {"current", XPOSE_SCALING_TENSOR_AMAX, XPOSE_SCALES_ROW_MAJOR, 1, 128},   // per-tensor, from this amax
    {"1x128", XPOSE_SCALING_BLOCKS, XPOSE_SCALES_COLUMN_MAJOR, 1, 128},       // DeepSeek-V3 activations
    {"128x128", XPOSE_SCALING_BLOCKS, XPOSE_SCALES_ROW_MAJOR, 128, 128},      // DeepSeek-V3 weights
    {"mxfp8", XPOSE_SCALING_MX, XPOSE_SCALES_TILED_128X4, 1, 32},             // cuBLASLt's MXFP8 layout
};

// Which outputs a call writes: the data as it is and its transpose with their scales, or one
// of them; the amax always.
constexpr const char* kOutputs[] = {"both", "rows", "columns"};

// Tokens x model width (LLM activations; weights are the same shapes), 32 MiB or more of bf16.
struct Shape {
  int64_t rows, cols;
};
constexpr Shape kShapes[] = {{4096, 4096}, {8192, 4096}, {4096, 14336}, {8192, 8192},
                             {16384, 8192}, {32768, 4096}, {2048, 16384}, {8192, 16384}};

struct Case {
  std::string label, input;
  int64_t rows, cols;
  Recipe recipe;
  std::string outputs;
};

xpose_quantize_desc_t desc_of(const Case& c) {
  xpose_quantize_desc_t d;
  xpose_quantize_desc_init(&d);
  d.input = c.input == "fp32" ? XPOSE_QUANTIZE_FP32 : c.input == "bf16" ? XPOSE_QUANTIZE_BF16 : XPOSE_QUANTIZE_FP16;
  d.rows = c.rows, d.cols = c.cols;
  d.scaling = c.recipe.scaling, d.scale_layout = c.recipe.layout;
  d.block_rows = c.recipe.block_rows, d.block_cols = c.recipe.block_cols;
  d.scale = 2.0f;
  return d;
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "xpose-quantize-bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(size_t bytes) { cuda_ok(cudaMalloc(&ptr, std::max<size_t>(bytes, 16)), "cudaMalloc"); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

std::vector<uint8_t> read(const void* p, size_t bytes) {
  std::vector<uint8_t> v(bytes);
  if (bytes) cuda_ok(cudaMemcpy(v.data(), p, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  return v;
}

int run(int argc, char** argv) {
  bool check = false, list = false;
  int reps = 20, warmup = 3;
  std::string json, shape_text;
  std::vector<std::string> only, inputs = {"bf16", "fp32"}, recipes, outputs(std::begin(kOutputs), std::end(kOutputs));
  for (const Recipe& r : kRecipes) recipes.push_back(r.name);
  CLI::App app{"xpose-quantize-bench: FP8 quantize-and-transpose against the copy of the same bytes"};
  app.set_version_flag("--version",
                       std::string("xpose-quantize-bench ") + xpose_version() + " (commit " + XPOSE_COMMIT + ")",
                       "print the version and the commit it was built from, and exit");
  app.add_flag("--check", check, "compare every output with the CPU path (xpose::quantize_host), bit for bit");
  app.add_option("--reps", reps, "timed calls (the median is reported)")->check(CLI::Range(1, 10000));
  app.add_option("--warmup", warmup, "untimed calls first")->check(CLI::Range(0, 1000));
  app.add_option("--json", json, "append one record per row to this file");
  app.add_option("--case", only, "only cases whose label contains this (repeatable)");
  app.add_option("--shape", shape_text, "one RxC (tokens x width) instead of the LLM shapes");
  app.add_option("--input", inputs, "fp32, bf16, fp16 (default bf16,fp32)")
      ->delimiter(',')
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  app.add_option("--recipe", recipes, "delayed, current, 1x128, 128x128, mxfp8 (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"delayed", "current", "1x128", "128x128", "mxfp8"}));
  app.add_option("--outputs", outputs, "both, rows, columns (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"both", "rows", "columns"}));
  app.add_flag("--list", list, "print the cases as JSON lines and exit");
  int random = 0;
  std::string seed_text;
  auto* random_opt = app.add_option("--random", random,
                                    "N random problems (fp32, bf16, fp16; every recipe and output set; tokens "
                                    "1-65536, width 256-65536, half of each side a multiple of 128, else odd; x of "
                                    "32 MiB-1 GiB; cases.hpp says how) instead of the LLM shapes; --input, --recipe "
                                    "and --outputs, where given, keep those draws alone")
                         ->check(CLI::Range(1, 100000));
  app.add_option("--seed", seed_text, "--random's seed (default: a fresh one, printed)")->needs(random_opt);
  CLI11_PARSE(app, argc, argv);
  const std::optional<uint64_t> drawn = seed_or_fresh(seed_text);
  if (!drawn) {
    std::fprintf(stderr, "xpose-quantize-bench: --seed: '%s' is not a non-negative decimal integer\n",
                 seed_text.c_str());
    return 2;
  }
  const uint64_t seed = *drawn;
  if (random_opt->count() && !shape_text.empty()) {
    std::fprintf(stderr, "xpose-quantize-bench: --random draws its own shapes; drop --shape\n");
    return 2;
  }
  std::vector<Shape> shapes(std::begin(kShapes), std::end(kShapes));
  if (!shape_text.empty()) {
    const auto s = parse_shape(shape_text);
    if (!s || s->batch != 1) {
      std::fprintf(stderr, "xpose-quantize-bench: --shape '%s' is not RxC with positive counts\n", shape_text.c_str());
      return 2;
    }
    shapes = {{s->rows, s->cols}};
  }
  std::vector<Case> cases;
  const auto wanted = [&](const Case& c) {
    return only.empty() || std::any_of(only.begin(), only.end(), [&](const std::string& t) {
             return c.label.find(t) != std::string::npos;
           });
  };
  if (random_opt->count()) {
    shapes.clear();  // the draws instead; --input, --recipe and --outputs, where given, keep those draws alone
    const auto given = [&](const char* option, const std::vector<std::string>& names, const std::string& name) {
      return app.count(option) == 0 || std::find(names.begin(), names.end(), name) != names.end();
    };
    const int n_recipes = int(std::size(kRecipes)), n_outputs = int(std::size(kOutputs));
    for (const QuantizeDraw& q : random_quantizations(random, seed, n_recipes, n_outputs)) {
      const Recipe& r = kRecipes[q.recipe];
      if (!given("--input", inputs, q.input) || !given("--recipe", recipes, r.name) ||
          !given("--outputs", outputs, kOutputs[q.outputs]))
        continue;
      const std::string shape = std::to_string(q.rows) + "x" + std::to_string(q.cols);
      Case c{q.what + ": " + q.input + " " + shape + " " + r.name + " " + kOutputs[q.outputs], q.input, q.rows, q.cols,
             r, kOutputs[q.outputs]};
      if (wanted(c)) cases.push_back(c);
    }
  }
  for (const Shape& s : shapes)
    for (const std::string& in : inputs)
      for (const Recipe& r : kRecipes)
        if (std::find(recipes.begin(), recipes.end(), r.name) != recipes.end())
          for (const std::string& o : outputs) {
            Case c{in + " " + std::to_string(s.rows) + "x" + std::to_string(s.cols) + " " + r.name + " " + o, in,
                   s.rows, s.cols, r, o};
            if (wanted(c)) cases.push_back(c);
          }
  if (list) {
    for (const Case& c : cases)
      std::printf("%s\n", nlohmann::json{{"case", c.label}, {"input", c.input}, {"rows", c.rows}, {"cols", c.cols},
                                         {"recipe", c.recipe.name}, {"outputs", c.outputs}}
                              .dump()
                              .c_str());
    return 0;
  }

  cudaDeviceProp prop{};
  int device = 0;
  cuda_ok(cudaGetDevice(&device), "cudaGetDevice");
  cuda_ok(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("xpose-quantize-bench %s: %s, %s, median of %d calls (CUDA events, L2 flushed before each), %% of the same-run copy of the "
              "same bytes\n",
              XPOSE_COMMIT, prop.name, date, reps);
  if (random_opt->count())
    std::printf("xpose-quantize-bench: %zu random problems, seed %llu (--random %d --seed %llu draws them again)\n",
                cases.size(), (unsigned long long)seed, random, (unsigned long long)seed);
  std::printf("  %-44s %9s %9s %7s %7s %s\n", "case", "ms", "GB/s", "%copy", "MiB", "check");
  RecordWriter writer(json, "");
  cudaStream_t stream;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  GpuTimer timer(stream, warmup, reps);
  const Buffer flush(4 * size_t(prop.l2CacheSize));  // overwritten before each timed call
  timer.set_flush(flush.ptr, 4 * size_t(prop.l2CacheSize));
  int failures = 0;
  std::vector<std::pair<std::string, double>> pct;
  for (const Case& c : cases) {
    const xpose_quantize_desc_t d = desc_of(c);
    const size_t in_bytes = size_t(c.rows * c.cols) * (c.input == "fp32" ? 4 : 2), codes = size_t(c.rows * c.cols);
    const bool rows = c.outputs != "columns", cols = c.outputs != "rows";
    const size_t scale_bytes = rows ? quantize_scales_bytes(d, false) : 0, scale_t_bytes = cols ? quantize_scales_bytes(d, true) : 0;
    const size_t reads = c.recipe.scaling == XPOSE_SCALING_TENSOR_AMAX ? 2 : 1;  // current scaling: the amax pass
    const size_t moved = reads * in_bytes + (rows ? codes + scale_bytes : 0) + (cols ? codes + scale_t_bytes : 0) + 4;
    Buffer x(in_bytes), data(rows ? codes : 0), data_t(cols ? codes : 0), scales(scale_bytes), scales_t(scale_t_bytes),
        amax(4), copy_src(moved / 2), copy_dst(moved / 2);
    cuda_ok(fill_random(x.ptr, int64_t(in_bytes), c.input == "fp32" ? 4 : 2,
                        uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()), stream),
            "fill_random");
    const QuantizeOutputs out{rows ? data.ptr : nullptr, cols ? data_t.ptr : nullptr, rows ? scales.ptr : nullptr,
                              cols ? scales_t.ptr : nullptr, static_cast<float*>(amax.ptr)};
    std::string verdict;
    if (check) {
      quantize(d, x.ptr, out, stream);
      cuda_ok(cudaStreamSynchronize(stream), "xpose_quantize");
      const std::vector<uint8_t> host_x = read(x.ptr, in_bytes);
      std::vector<uint8_t> w_data(rows ? codes : 0), w_data_t(cols ? codes : 0), w_scales(scale_bytes),
          w_scales_t(scale_t_bytes);
      float w_amax = 0;
      quantize_host(d, host_x.data(),
                    {rows ? w_data.data() : nullptr, cols ? w_data_t.data() : nullptr, rows ? w_scales.data() : nullptr,
                     cols ? w_scales_t.data() : nullptr, &w_amax});
      const std::vector<uint8_t> got_amax = read(amax.ptr, 4);
      const bool same = read(data.ptr, w_data.size()) == w_data && read(data_t.ptr, w_data_t.size()) == w_data_t &&
                        read(scales.ptr, scale_bytes) == w_scales && read(scales_t.ptr, scale_t_bytes) == w_scales_t &&
                        std::memcmp(got_amax.data(), &w_amax, 4) == 0;
      verdict = same ? "passed" : "FAILED";
      failures += !same;
    }
    const auto timed = [&](const Work& w) { return timer.events(w); };
    const Stats q = timed([&](cudaStream_t s) {
      return xpose_quantize(&d, x.ptr, out.data, out.data_t, out.scales, out.scales_t, out.amax, s) == XPOSE_SUCCESS
                 ? std::string()
                 : std::string(xpose_last_error());
    });
    const Stats memcpy_s = timed([&](cudaStream_t s) {
      const cudaError_t e = cudaMemcpyAsync(copy_dst.ptr, copy_src.ptr, moved / 2, cudaMemcpyDeviceToDevice, s);
      return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
    });
    const Stats copy_s = timed([&](cudaStream_t s) {
      const cudaError_t e = launch_copy(copy_src.ptr, copy_dst.ptr, int64_t(moved / 2), s);
      return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
    });
    const double ceiling_ms = std::min(memcpy_s.median, copy_s.median);
    const double gbps = double(moved) / (q.median * 1e6), pct_copy = 100.0 * ceiling_ms / q.median;
    pct.push_back({c.label, pct_copy});
    std::printf("  %-44s %9.4f %9.1f %6.1f%% %7.1f %s\n", c.label.c_str(), q.median, gbps, pct_copy,
                double(moved) / (1 << 20), verdict.c_str());
    std::fflush(stdout);
    const auto record = [&](const std::string& kernel, const std::string& role, const Stats& s) {
      Record r;
      r.case_label = c.label, r.kernel = kernel, r.role = role, r.dtype = c.input;
      r.elem_bytes = c.input == "fp32" ? 4 : 2, r.rows = c.rows, r.cols = c.cols;
      r.timing = "events", r.ms_median = s.median, r.ms_min = s.min, r.ms_max = s.max;
      r.gbps = double(moved) / (s.median * 1e6);
      r.pct_copy = 100.0 * ceiling_ms / s.median;
      r.check = role == "xpose" ? verdict : "";
      r.device = prop.name, r.commit = XPOSE_COMMIT, r.date = date, r.placement = "exact";
      writer.write(r);
    };
    record("xpose_quantize", "xpose", q);
    record("cudaMemcpyAsync", "ceiling", memcpy_s);
    record("copy", "ceiling", copy_s);
  }
  const Spread s = spread_of(pct, 5);
  const std::string what = random_opt->count() ? "random problems, seed " + std::to_string(seed) : "cases";
  std::printf("\n== %d %s: median %.1f%%, 10th percentile %.1f%%, worst %.1f%% of the same-run copy of the same "
              "bytes\n",
              s.count, what.c_str(), s.median, s.p10, s.worst);
  for (const auto& [label, p] : s.lowest) std::printf("  %6.1f%%  %s\n", p, label.c_str());
  writer.close();
  if (failures) std::printf("CHECK FAILED for %d case(s)\n", failures);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace xpose::bench

int main(int argc, char** argv) { return xpose::bench::run(argc, argv); }
