// xpose-permute-bench: N-D permutations (xpose_permute) on a case list of layout changes
// people make, each as a % of the copy ceiling (the faster of cudaMemcpyAsync and xpose's
// `copy` kernel on the same bytes) measured for the same case in the same run. For each
// case: the automatic choice (and the kernel it ran), each N-D kernel that serves the
// permutation, named, and cuTENSOR's cutensorPermute where the build found cuTENSOR
// (XPOSE_CUTENSOR_ROOT) and it serves the type. Records are xpose-bench's, so bench/table.py
// reads them. --check compares xpose's results with the CPU path bit for bit, and cuTENSOR's
// too (reported, not counted: it scales by alpha = 1 in floating point, where NaN payloads
// need not survive).
//
// Timing: CUDA events around each call, the L2 flushed before it (a memset of four times the
// L2), which also keeps the GPU busy while the host makes the call, so that the events time
// the GPU's work alone; each call's host time is printed beside it (median of runs of 20
// calls enqueued back to back). --rounds N times every row of a case N times in turn, round r
// starting at row r, and reports the median of all its calls: rows timed once each in a fixed
// order can gain or lose
// from their place in it (the automatic choice's row read 1.7-2 points above its own kernel
// named, the same launch, in every run of 2026-11-24).
//
//   xpose-permute-bench [--check] [--reps 20] [--rounds 1] [--json out.jsonl] [--case SUBSTRING]... [--no-host-time] [--list]
//   xpose-permute-bench --dtype fp16 --extents 64,64,127,127 --perm 3,1,0,2 [...]   one permutation
//   ... --kernel auto,permute_packed   only these rows (default: auto and every N-D kernel that serves)
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cases.hpp"
#include "copy.hpp"
#include "fill.hpp"
#include "record.hpp"
#include "timer.hpp"
#include "xpose/xpose.hpp"
#include "xpose_commit.hpp"  // XPOSE_COMMIT, written at build time

#if XPOSE_HAVE_CUTENSOR
#include "cutensor_peer.hpp"
#endif

namespace xpose::bench {
namespace {

// Layout changes of vision models and transformers, volume reorders, and higher-rank
// reorders of tensor contractions, over every element size; each moves 32-512 MiB.
const std::vector<PermuteCase>& cases() {
  static const std::vector<PermuteCase> list = {
      {"NCHW->NHWC", "fp16", 2, {64, 256, 56, 56}, {0, 2, 3, 1}},
      {"NHWC->NCHW", "fp16", 2, {64, 56, 56, 256}, {0, 3, 1, 2}},
      {"NCHW->NHWC, C=3", "u8", 1, {256, 3, 224, 224}, {0, 2, 3, 1}},
      {"BSHD->BHSD, D=128", "bf16", 2, {8, 2048, 32, 128}, {0, 2, 1, 3}},
      {"BSHD->BHSD, D=8", "fp16", 2, {64, 2048, 32, 8}, {0, 2, 1, 3}},
      {"BSHD->BHSD, D=64", "fp32", 4, {8, 1024, 32, 64}, {0, 2, 1, 3}},
      {"volume reversed", "fp32", 4, {512, 512, 256}, {2, 1, 0}},
      {"rank 4", "fp32", 4, {64, 64, 128, 128}, {3, 1, 0, 2}},
      {"rank 4", "u8", 1, {64, 128, 128, 128}, {3, 1, 0, 2}},
      {"rank 4", "fp64", 8, {128, 128, 64, 32}, {1, 0, 3, 2}},
      {"rank 5", "fp32", 4, {32, 16, 64, 16, 64}, {4, 2, 0, 3, 1}},
      {"rank 6", "fp16", 2, {16, 8, 16, 16, 8, 64}, {5, 3, 1, 4, 2, 0}},
      {"rank 4", "c128", 16, {32, 64, 64, 64}, {2, 3, 0, 1}},
  };
  return list;
}

std::string label_of(const PermuteCase& c) {
  std::string shape, perm;
  for (int64_t e : c.extents) shape += (shape.empty() ? "" : "x") + std::to_string(e);
  for (int p : c.perm) perm += (perm.empty() ? "" : ",") + std::to_string(p);
  return c.dtype + " " + shape + " (" + perm + ")" + (c.what.empty() ? "" : " " + c.what);
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "xpose-permute-bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

int run(int argc, char** argv) {
  bool check = false;
  int reps = 20, warmup = 3, rounds = 1;
  std::string json;
  std::vector<std::string> only;
  bool list = false, host_time = true;
  std::string dtype;
  std::vector<int64_t> extents;
  std::vector<int> perm;
  CLI::App app{"xpose-permute-bench: N-D permutations against the copy of the same bytes"};
  app.set_version_flag("--version",
                       std::string("xpose-permute-bench ") + xpose_version() + " (commit " + XPOSE_COMMIT + ")",
                       "print the version and the commit it was built from, and exit");
  app.add_flag("--check", check, "compare every result with the CPU path, bit for bit");
  app.add_option("--reps", reps, "timed calls (the median is reported)")->check(CLI::Range(1, 10000));
  app.add_option("--warmup", warmup, "untimed calls first")->check(CLI::Range(0, 1000));
  app.add_option("--rounds", rounds,
                 "time every row of a case this many times in turn, --reps calls each time, round r starting at row "
                 "r, and report the median of all (so that no row gains from its place in the order)")
      ->check(CLI::Range(1, 100));
  app.add_option("--json", json, "append one record per row to this file");
  app.add_option("--case", only, "only cases whose label contains this (repeatable)");
  app.add_flag("!--no-host-time", host_time, "leave out each row's host time a call (--reps runs of 20 more calls a row, which Nsight Compute would profile too)");
  app.add_option("--dtype", dtype, "with --extents and --perm: one permutation of this element type instead of the list");
  app.add_option("--extents", extents, "src's extents, e.g. 64,64,127,127")->delimiter(',');
  app.add_option("--perm", perm, "the permutation, as numpy.transpose's axes, e.g. 3,1,0,2")->delimiter(',');
  bool explain = false;
  app.add_flag("--explain", explain, "print the automatic choice's plan (rule, kernel, grid, tile) under each case");
  app.add_flag("--list", list, "print the cases as JSON lines and exit (bench/peers.py reads them)");
  int random = 0;
  std::string seed_text;
  auto* random_opt = app.add_option("--random", random,
                                    "N random permutations (rank 2-6, extents 2-4096, every element size, 16-512 "
                                    "MiB; cases.hpp says how), the automatic choice reported as median, 10th "
                                    "percentile and worst % of copy")
                         ->check(CLI::Range(1, 100000));
  app.add_option("--seed", seed_text, "--random's seed (default: a fresh one, printed)")->needs(random_opt);
  std::vector<std::string> kernel_names;
  app.add_option("--kernel", kernel_names,
                 "time only these: 'auto', N-D kernels or transpose kernels (for permutations that are batched "
                 "transposes) by name (default: auto and every N-D kernel that serves the case; with --random auto "
                 "alone); a named kernel that does not serve a case says why")
      ->delimiter(',');
  bool every_kernel = false;
  app.add_flag("--every-kernel", every_kernel,
               "with --random: time every N-D kernel that serves a draw beside the automatic choice (the report "
               "still judges the automatic choice)")
      ->needs(random_opt);
  CLI11_PARSE(app, argc, argv);
  const std::vector<KernelInfo> nd_kernels = permute_kernel_list(), transpose_kernels = kernel_list();
  if (!kernel_names.empty()) {
    std::string known = "auto";
    for (const KernelInfo& k : nd_kernels) known += ", " + k.name;
    for (const KernelInfo& k : transpose_kernels) known += ", " + k.name;
    const auto named = [&](const std::vector<KernelInfo>& list, const std::string& name) {
      return std::any_of(list.begin(), list.end(), [&](const KernelInfo& k) { return k.name == name; });
    };
    for (const std::string& name : kernel_names)
      if (name != "auto" && !named(nd_kernels, name) && !named(transpose_kernels, name)) {
        std::fprintf(stderr, "xpose-permute-bench: unknown --kernel '%s' (known: %s)\n", name.c_str(), known.c_str());
        return 2;
      }
    if (every_kernel) {
      std::fprintf(stderr, "xpose-permute-bench: --kernel names the kernels to time; drop --every-kernel\n");
      return 2;
    }
    if (random_opt->count() && std::find(kernel_names.begin(), kernel_names.end(), "auto") == kernel_names.end()) {
      std::fprintf(stderr, "xpose-permute-bench: --random's report judges the automatic choice; add auto to --kernel\n");
      return 2;
    }
  }
  std::vector<PermuteCase> chosen = cases();
  const std::optional<uint64_t> drawn = seed_or_fresh(seed_text);
  if (!drawn) {
    std::fprintf(stderr, "xpose-permute-bench: --seed: '%s' is not a non-negative decimal integer\n",
                 seed_text.c_str());
    return 2;
  }
  const uint64_t seed = *drawn;
  if (random_opt->count()) {
    if (!dtype.empty() || !extents.empty() || !perm.empty()) {
      std::fprintf(stderr, "xpose-permute-bench: --random draws its own permutations; drop --dtype, --extents and "
                           "--perm\n");
      return 2;
    }
    chosen = random_permutations(random, seed);
  }
  if (!dtype.empty() || !extents.empty() || !perm.empty()) {
    const std::optional<int64_t> e = elem_bytes_of(dtype);
    if (!e || extents.empty() || extents.size() != perm.size()) {
      std::fprintf(stderr, "xpose-permute-bench: --dtype (u8, fp16, bf16, fp32, fp64, c128 or a byte size), --extents "
                           "and --perm go together, with as many extents as axes in the permutation\n");
      return 2;
    }
    chosen = {{"", canonical_dtype(dtype), *e, extents, perm}};
  }
  const auto selected = [&](const std::string& label) {
    return only.empty() ||
           std::any_of(only.begin(), only.end(), [&](const std::string& s) { return label.find(s) != std::string::npos; });
  };
  if (list) {
    for (const PermuteCase& c : chosen)
      if (selected(label_of(c)))
        std::printf("%s\n", nlohmann::json{{"case", label_of(c)}, {"dtype", c.dtype}, {"elem_bytes", c.elem_bytes},
                                           {"extents", c.extents}, {"perm", c.perm}, {"timing", "events"}}
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
  std::printf("xpose-permute-bench %s: %s, median of %d calls (events, L2 flushed before each; %d round(s) of every "
              "row in turn), %% of the same-run copy ceiling\n",
              XPOSE_COMMIT, prop.name, reps * rounds, rounds);
  RecordWriter writer(json, "");
  cudaStream_t stream;
  cuda_ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
  GpuTimer timer(stream, warmup, reps);
  const size_t flush_bytes = 4 * size_t(prop.l2CacheSize);
  void* flush = nullptr;
  cuda_ok(cudaMalloc(&flush, flush_bytes), "cudaMalloc (L2 flush buffer)");
  timer.set_flush(flush, flush_bytes);
  int failures = 0;
  std::vector<std::pair<std::string, double>> auto_pct, behind;  // --random's report
  if (random_opt->count())
    std::printf("xpose-permute-bench: %zu random permutations, seed %llu (--random %zu --seed %llu draws them "
                "again)\n",
                chosen.size(), (unsigned long long)seed, chosen.size(), (unsigned long long)seed);
  for (const PermuteCase& c : chosen) {
    const std::string label = label_of(c);
    if (!selected(label)) continue;
    int64_t elements = 1;
    for (int64_t e : c.extents) elements *= e;
    const int64_t bytes = elements * c.elem_bytes;
    void *src = nullptr, *dst = nullptr;
    cuda_ok(cudaMalloc(&src, size_t(bytes)), "cudaMalloc");
    cuda_ok(cudaMalloc(&dst, size_t(bytes)), "cudaMalloc");
    cuda_ok(fill_random(src, bytes, c.elem_bytes, 2026, stream), "fill_random");
    const PermuteShape shape{c.extents, c.perm, {}, {}};
    struct Row {
      std::string kernel, role;
      Work work;
    };
    std::vector<Row> rows = {
        {"cudaMemcpyAsync", "ceiling",
         [&](cudaStream_t s) {
           const cudaError_t e = cudaMemcpyAsync(dst, src, size_t(bytes), cudaMemcpyDeviceToDevice, s);
           return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
         }},
        {"copy", "ceiling",
         [&](cudaStream_t s) {
           const cudaError_t e = launch_copy(src, dst, bytes, s);
           return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
         }},
    };
    const Explanation auto_choice = explain_permute(src, dst, c.elem_bytes, shape);
    std::vector<std::string> kernels = kernel_names;
    if (kernels.empty()) {
      kernels = {"auto"};
      if (!random_opt->count() || every_kernel)  // the random report judges the automatic choice
        for (const KernelInfo& k : nd_kernels) kernels.push_back(k.name);
    }
    for (const std::string& name : kernels) {
      const char* kernel = name == "auto" ? nullptr : name.c_str();
      if (kernel) {
        try {
          explain_permute(src, dst, c.elem_bytes, shape, kernel);
        } catch (const Error& e) {  // a kernel that does not serve this permutation
          if (!kernel_names.empty()) std::printf("  (%s: %s)\n", kernel, e.what());
          continue;
        }
      }
      rows.push_back({name, "xpose", [&, name](cudaStream_t s) {
                        try {
                          permute(src, dst, c.elem_bytes, shape, s, name == "auto" ? nullptr : name.c_str());
                          return std::string();
                        } catch (const Error& e) {
                          return std::string(e.what());
                        }
                      }});
    }
#if XPOSE_HAVE_CUTENSOR
    std::string no_cutensor;
    const std::shared_ptr<CutensorPermute> cutensor = CutensorPermute::make(c.dtype, c.extents, c.perm, &no_cutensor);
    if (cutensor)
      rows.push_back({"cutensor", "peer", [&, cutensor](cudaStream_t s) { return cutensor->run(src, dst, s); }});
    else
      std::printf("  (cutensor: %s)\n", no_cutensor.c_str());
#endif
    std::vector<std::vector<double>> samples(rows.size());  // every round's calls, per row
    in_rounds(rows.size(), rounds, [&](size_t i) {
      const std::vector<double> ms = timer.event_samples(rows[i].work);
      samples[i].insert(samples[i].end(), ms.begin(), ms.end());
    });
    std::vector<Record> records;
    std::vector<double> host_us;  // per row; negative: not measured
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& row = rows[i];
      const Stats st = summarize(samples[i]);
      host_us.push_back(host_time ? 1e3 * timer.host(row.work, 20).median : -1.0);
      Record r;
      r.case_label = label;
      r.kernel = row.kernel;
      r.role = row.role;
      r.dtype = c.dtype;
      r.elem_bytes = c.elem_bytes;
      r.rows = elements;  // N-D: the element count (the label carries the shape)
      r.cols = 1;
      r.timing = "events";
      r.ms_median = st.median, r.ms_min = st.min, r.ms_max = st.max;
      r.gbps = 2.0 * double(bytes) / (st.median * 1e6);
      r.device = prop.name, r.commit = XPOSE_COMMIT, r.date = date;
      if (row.kernel == "auto") r.chosen = auto_choice.kernel, r.rule = auto_choice.rule;
      if (check && row.role != "ceiling") {
        std::vector<unsigned char> h_src(static_cast<size_t>(bytes)), got(h_src.size()), want(h_src.size());
        cuda_ok(cudaMemsetAsync(dst, 0xA5, size_t(bytes), stream), "cudaMemset");
        const std::string error = row.work(stream);
        cuda_ok(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        cuda_ok(cudaMemcpy(h_src.data(), src, size_t(bytes), cudaMemcpyDeviceToHost), "cudaMemcpy");
        cuda_ok(cudaMemcpy(got.data(), dst, size_t(bytes), cudaMemcpyDeviceToHost), "cudaMemcpy");
        permute_host(h_src.data(), want.data(), c.elem_bytes, shape);
        const bool same = error.empty() && got == want;
        r.check = same ? "passed" : row.role == "xpose" ? "FAILED" : error.empty() ? "differs" : "error: " + error;
        failures += r.check == "FAILED";
      }
      records.push_back(r);
    }
    double ceiling = 0;
    for (const Record& r : records)
      if (r.role == "ceiling") ceiling = std::max(ceiling, r.gbps);
    std::printf("== %s (%.0f MiB)\n", label.c_str(), double(bytes) / (1 << 20));
    if (explain) std::printf("  plan: %s\n", auto_choice.text.c_str());
    double automatic = -1, best_peer = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      Record& r = records[i];
      r.pct_copy = 100.0 * r.gbps / ceiling;
      if (r.kernel == "auto") automatic = r.pct_copy;
      if (r.role == "peer") best_peer = std::max(best_peer, r.pct_copy);
      char host[32] = "host      - us";
      if (host_us[i] >= 0) std::snprintf(host, sizeof host, "host %6.1f us", host_us[i]);
      std::printf("  %-16s %9.3f ms %8.1f GB/s %6.1f%%  %s  %s%s\n", r.kernel.c_str(), r.ms_median, r.gbps, r.pct_copy,
                  host, r.chosen.empty() ? "" : ("(" + r.chosen + ") ").c_str(), r.check.c_str());
      writer.write(r);
    }
    if (automatic >= 0) {
      auto_pct.push_back({label, automatic});
      if (best_peer > automatic) behind.push_back({label, best_peer - automatic});
    }
    std::fflush(stdout);
    cudaFree(src);
    cudaFree(dst);
  }
  if (random_opt->count())
    std::fputs(spread_report(auto_pct, behind, "permutations", seed, "cuTENSOR", false).c_str(), stdout);
  writer.close();
  cudaFree(flush);
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace xpose::bench

int main(int argc, char** argv) {
  try {
    return xpose::bench::run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "xpose-permute-bench: %s\n", e.what());
    return 1;
  }
}
