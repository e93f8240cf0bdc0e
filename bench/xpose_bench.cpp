// xpose-bench: xpose's kernels and the peers, timed in one process on the same buffers,
// each as a percentage of the copy ceiling (the faster of cudaMemcpyAsync and xpose's
// `copy` kernel on the same bytes) measured for the same case in the same run.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "copy.hpp"
#include "fill.hpp"
#include "options.hpp"
#include "peers.hpp"
#include "problem.hpp"
#include "record.hpp"
#include "rules_table.hpp"
#include "timer.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"
#include "xpose_commit.hpp"  // XPOSE_COMMIT, written at build time

namespace xpose::bench {
namespace {

[[noreturn]] void die(const std::string& message, int code = 1) {
  print_error(message);
  std::exit(code);
}

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

std::string today() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

// The problem a case describes, as xpose resolves it (pointers are set once allocated).
Problem problem_of(const Case& c) {
  try {
    return Problem(resolve(c.elem_bytes, Shape{c.rows, c.cols, c.ld_src, c.ld_dst, c.batch, 0, 0}));
  } catch (const Error& e) {
    die(c.label + ": " + e.what(), 2);
  }
}

void print_rows(const std::vector<Record>& rows) {
  std::printf("  %-20s %11s %11s %11s %9s %7s %7s %s\n", "kernel", "ms(median)", "ms(min)", "ms(max)", "GB/s",
              "%copy", "%peak", "check");
  for (const Record& r : rows)
    std::printf("  %-20s %11.5f %11.5f %11.5f %9.1f %6.1f%% %6.1f%% %s\n", r.kernel.c_str(), r.ms_median, r.ms_min,
                r.ms_max, r.gbps, r.pct_copy, r.pct_peak, r.check.c_str());
}

// Progress on stderr: one rewritten line on a terminal, one line per case otherwise.
class Progress {
 public:
  Progress(bool on, size_t total) : on_(on), tty_(isatty(2)), total_(total) {}
  void at(size_t index, const std::string& label, const std::string& what) {
    if (!on_) return;
    if (tty_)
      std::fprintf(stderr, "\r\033[K[%zu/%zu] %s: %s", index + 1, total_, label.c_str(), what.c_str());
    else if (what.empty())
      std::fprintf(stderr, "xpose-bench: [%zu/%zu] %s\n", index + 1, total_, label.c_str());
  }
  void done() {
    if (on_ && tty_) std::fprintf(stderr, "\r\033[K");
  }

 private:
  bool on_, tty_;
  size_t total_;
};

// ---------------------------------------------------------------------------------
// GPU

struct DeviceBuffer {
  void* ptr = nullptr;   // the buffer
  void* base = nullptr;  // its allocation
  explicit DeviceBuffer(int64_t bytes, const std::string& placement = "exact") {
    const int64_t offset = placement == "offset" ? 4096 : 0;
    cuda_ok(cudaMalloc(&base, size_t(placement == "inside" ? 2 * bytes : bytes + offset)), "cudaMalloc");
    ptr = static_cast<char*>(base) + offset;
  }
  ~DeviceBuffer() { cudaFree(base); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

struct Gpu {
  std::string name;
  int sm_count = 0;
  int64_t l2_bytes = 0;
  double peak_gbps = 0;  // 2 x memory clock x bus width
};

Gpu describe_gpu() {
  int dev = 0;
  cuda_ok(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
  int mem_khz = 0, bus_bits = 0;
  cuda_ok(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev), "cudaDeviceGetAttribute");
  cuda_ok(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev), "cudaDeviceGetAttribute");
  std::printf("xpose-bench %s: %s (sm_%d%d, %d SMs, %d MiB L2), theoretical peak %.0f GB/s, %s\n", XPOSE_COMMIT,
              prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize >> 20,
              2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9, today().c_str());
  return {prop.name, prop.multiProcessorCount, prop.l2CacheSize, 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9};
}

// One thing to time on a case: an xpose kernel, a peer, or a ceiling row.
struct Candidate {
  std::string name, role;
  Work run;
};

class GpuBench {
 public:
  GpuBench(const Options& o, const Gpu& gpu, RecordWriter& writer)
      : o_(o), gpu_(gpu), writer_(writer), progress_(o.progress, o.cases.size()) {
    cuda_ok(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    if (o.peers) peers_ = std::make_unique<PeerLibraries>();
  }
  ~GpuBench() { cudaStreamDestroy(stream_); }

  // Returns the process exit code: 1 if any check failed, 3 if a case did not fit in memory.
  int run_all() {
    for (size_t i = 0; i < o_.cases.size(); ++i) {
      progress_.at(i, o_.cases[i].label, "");
      if (o_.inplace)
        inplace_case(i, o_.cases[i]);
      else if (o_.mode == Mode::host_cost)
        host_cost_case(o_.cases[i]);
      else
        run_case(i, o_.cases[i]);
    }
    progress_.done();
    if (o_.mode == Mode::random || o_.inplace) report_spread();
    if (failures_) std::printf("CHECK FAILED for %d result(s)\n", failures_);
    if (skipped_for_memory_) std::printf("%d case(s) skipped: not enough GPU memory\n", skipped_for_memory_);
    return failures_ ? 1 : skipped_for_memory_ ? 3 : 0;
  }

 private:
  // Whether the case fits in free device memory; the default ladder shrinks until it does.
  bool fits(Case& c, Problem& p) {
    size_t free_bytes = 0, total = 0;
    cuda_ok(cudaMemGetInfo(&free_bytes, &total), "cudaMemGetInfo");
    for (;;) {
      const int64_t need = (p.src_span_bytes() + p.dst_span_bytes()) * (o_.placement == "inside" ? 2 : 1);
      if (double(need) < 0.9 * double(free_bytes)) return true;
      const std::string why = c.label + " needs " + std::to_string(need >> 20) + " MiB of GPU memory; " +
                              std::to_string(free_bytes >> 20) + " MiB are free";
      if (o_.mode == Mode::single) die(why);
      if (o_.mode != Mode::ladder) {
        std::printf("\n== %s: skipped: %s\n", c.label.c_str(), why.c_str());
        ++skipped_for_memory_;
        return false;
      }
      c = make_case(c.dtype, c.rows / 2, c.cols / 2, c.batch, 0, 0, c.timing);
      std::printf("xpose-bench: %s; using %s\n", why.c_str(), c.label.c_str());
      p = problem_of(c);
    }
  }

  // The copy ceiling's rows: cudaMemcpyAsync and the copy kernel on p's bytes, src to dst.
  static std::vector<Candidate> ceilings(const Problem& p) {
    const auto status = [](cudaError_t e) { return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e)); };
    return {{"cudaMemcpyAsync", "ceiling",
             [p, status](cudaStream_t s) {
               return status(cudaMemcpyAsync(p.dst, p.src, size_t(p.bytes()), cudaMemcpyDeviceToDevice, s));
             }},
            {"copy", "ceiling", [p, status](cudaStream_t s) { return status(launch_copy(p.src, p.dst, p.bytes(), s)); }}};
  }

  std::vector<Candidate> xpose_candidates(const Problem& p, std::vector<std::string> names) {
    if (names.empty()) {
      for (const KernelInfo& k : kernel_list()) names.push_back(k.name);
      names.push_back("auto");
    }
    std::vector<Candidate> out;
    for (const std::string& name : names) {
      const bool automatic = name == "auto";
      out.push_back({name, "xpose", [p, name, automatic](cudaStream_t s) -> std::string {
                       const xpose_status_t status =
                           automatic ? xpose_transpose(p.src, p.dst, p.rows, p.cols, p.elem_bytes, p.ld_src,
                                                       p.ld_dst, p.batch, p.stride_src, p.stride_dst, s)
                                     : xpose_transpose_with(name.c_str(), p.src, p.dst, p.rows, p.cols, p.elem_bytes,
                                                            p.ld_src, p.ld_dst, p.batch, p.stride_src, p.stride_dst,
                                                            s);
                       return status == XPOSE_SUCCESS ? std::string() : std::string(xpose_last_error());
                     }});
    }
    return out;
  }

  // Poisons dst, runs once, and compares every byte of dst's span (rows and the gaps
  // between them, which must keep the poison) with the CPU reference.
  std::string check(const Candidate& k, const Problem& p, const std::vector<uint8_t>& want) {
    cuda_ok(cudaMemsetAsync(p.dst, 0xA5, want.size(), stream_), "cudaMemsetAsync");
    if (std::string failure = k.run(stream_); !failure.empty()) return "skipped: " + failure;
    cuda_ok(cudaStreamSynchronize(stream_), k.name.c_str());
    std::vector<uint8_t> got(want.size());
    cuda_ok(cudaMemcpy(got.data(), p.dst, got.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    if (got == want) return "passed";
    ++failures_;
    return "FAILED";
  }

  std::vector<uint8_t> expected(const Problem& p) {
    std::vector<uint8_t> src(size_t(p.src_span_bytes())), want(size_t(p.dst_span_bytes()), 0xA5);
    cuda_ok(cudaMemcpy(src.data(), p.src, src.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
    transpose_host(src.data(), want.data(), p.elem_bytes, p.shape());
    return want;
  }

  void run_case(size_t index, Case c) {
    Problem p = problem_of(c);
    if (!fits(c, p)) return;
    DeviceBuffer src(p.src_span_bytes(), o_.placement), dst(p.dst_span_bytes(), o_.placement);
    cuda_ok(fill_random(src.ptr, p.src_span_bytes(), p.elem_bytes, uint64_t(std::chrono::steady_clock::now()
                                                                           .time_since_epoch()
                                                                           .count()),
                        stream_),
            "fill_random");
    cuda_ok(cudaMemsetAsync(dst.ptr, 0xA5, size_t(p.dst_span_bytes()), stream_), "cudaMemsetAsync");
    cuda_ok(cudaStreamSynchronize(stream_), "fill");
    p.src = src.ptr;
    p.dst = dst.ptr;

    const int64_t working_set = p.src_span_bytes() + p.dst_span_bytes();
    const bool graph = graph_timed(c, working_set, gpu_.l2_bytes);
    GpuTimer timer(stream_, o_.warmup, o_.reps);
    std::unique_ptr<DeviceBuffer> flush;
    if (!graph && working_set < 4 * gpu_.l2_bytes) {
      flush = std::make_unique<DeviceBuffer>(4 * gpu_.l2_bytes);
      timer.set_flush(flush->ptr, size_t(4 * gpu_.l2_bytes));
    }

    std::printf("\n== %s (%lld-byte elements, batch %lld, ld %lld/%lld; %.3f GB per matrix; %s, median of %d%s)\n",
                c.label.c_str(), (long long)p.elem_bytes, (long long)p.batch, (long long)p.ld_src,
                (long long)p.ld_dst, double(p.bytes()) / 1e9,
                graph ? "time per call in a replayed CUDA graph" : "CUDA events per call", o_.reps, rounds_text().c_str());
    if (o_.explain) std::printf("  auto: %s\n", explain(p.src, p.dst, p.elem_bytes, p.shape()).c_str());

    std::vector<Candidate> all = ceilings(p);
    for (Candidate& k : xpose_candidates(p, o_.kernels)) all.push_back(std::move(k));
    std::vector<std::string> skipped;
    if (peers_)
      for (Peer& peer : peers_->for_problem(p, stream_, &skipped)) all.push_back({peer.name, "peer", peer.run});

    std::vector<uint8_t> want;
    if (o_.check) want = expected(p);
    std::vector<Record> rows;
    for (const Candidate& k : all) {
      progress_.at(index, c.label, k.name);
      Record r;
      if (o_.check && k.role != "ceiling") {
        r.check = check(k, p, want);
        if (r.check.rfind("skipped", 0) == 0) {
          skipped.push_back(k.name + ": " + r.check.substr(9));
          continue;
        }
      }
      Stats s;
      try {
        s = graph ? timer.graph(k.run) : timer.events(k.run);
      } catch (const std::exception& e) {
        skipped.push_back(k.name + ": " + e.what());
        cudaGetLastError();
        continue;
      }
      r.case_label = c.label, r.kernel = k.name, r.role = k.role, r.dtype = c.dtype;
      r.elem_bytes = p.elem_bytes, r.rows = p.rows, r.cols = p.cols, r.batch = p.batch;
      r.ld_src = p.ld_src, r.ld_dst = p.ld_dst;
      r.timing = graph ? "graph" : "events";
      r.ms_median = s.median, r.ms_min = s.min, r.ms_max = s.max;
      r.gbps = 2.0 * double(p.bytes()) / (s.median * 1e6);
      r.pct_peak = gpu_.peak_gbps > 0 ? 100.0 * r.gbps / gpu_.peak_gbps : 0.0;
      r.device = gpu_.name, r.commit = XPOSE_COMMIT, r.date = today(), r.placement = o_.placement;
      if (k.name == "auto") {
        const Explanation x = explain_choice(p.src, p.dst, p.elem_bytes, p.shape());
        r.chosen = x.kernel, r.rule = x.rule;
      }
      rows.push_back(r);
    }
    double ceiling = 0;
    for (const Record& r : rows)
      if (r.role == "ceiling") ceiling = std::max(ceiling, r.gbps);
    for (Record& r : rows) {
      r.pct_copy = ceiling > 0 ? 100.0 * r.gbps / ceiling : 0.0;
      writer_.write(r);
    }
    double best_peer = 0, automatic = -1;
    for (const Record& r : rows) {
      if (r.kernel == "auto") automatic = r.pct_copy;
      if (r.role == "peer") best_peer = std::max(best_peer, r.pct_copy);
    }
    if (automatic >= 0) {
      auto_pct_.push_back({c.label, automatic});
      if (best_peer > automatic) behind_peers_.push_back({c.label, best_peer - automatic});
    }
    print_rows(rows);
    for (const std::string& s : skipped) std::printf("  skipped %s\n", s.c_str());
    std::printf("  copy ceiling %.1f GB/s (the faster of cudaMemcpyAsync and copy, this run)\n", ceiling);
    std::fflush(stdout);
  }

  // ", in each of N rounds" where --rounds asks for more than one.
  std::string rounds_text() const {
    return o_.rounds > 1 ? ", in each of " + std::to_string(o_.rounds) + " rounds" : std::string();
  }

  // Times candidates on one case and writes each as a record of the case, as a % of the faster
  // ceiling row; the rows, with what was skipped and why.
  std::vector<Record> time_rows(size_t index, const Case& c, const Problem& p, const std::vector<Candidate>& all,
                                GpuTimer& timer, bool graph, std::vector<std::string>* skipped) {
    // --rounds: every row timed o_.rounds times in turn, round r starting at row r, so that no row
    // gains from its place in the order; events pool their calls, graph replays their medians.
    std::vector<std::vector<double>> samples(all.size());
    std::vector<Stats> one_graph(all.size());  // graph timing in one round: its own median, min and max
    std::vector<bool> failed(all.size(), false);
    in_rounds(all.size(), o_.rounds, [&](size_t i) {
      const Candidate& k = all[i];
      if (failed[i]) return;
      progress_.at(index, c.label, k.name);
      try {
        if (graph) {
          one_graph[i] = timer.graph(k.run);
          samples[i].push_back(one_graph[i].median);
        } else {
          const std::vector<double> ms = timer.event_samples(k.run);
          samples[i].insert(samples[i].end(), ms.begin(), ms.end());
        }
      } catch (const std::exception& e) {
        skipped->push_back(k.name + ": " + e.what());
        cudaGetLastError();
        failed[i] = true;
      }
    });
    std::vector<Record> rows;
    for (size_t i = 0; i < all.size(); ++i) {
      if (failed[i]) continue;
      const Candidate& k = all[i];
      const Stats s = graph && o_.rounds == 1 ? one_graph[i] : summarize(samples[i]);
      Record r;
      r.case_label = c.label, r.kernel = k.name, r.role = k.role, r.dtype = c.dtype;
      r.elem_bytes = p.elem_bytes, r.rows = p.rows, r.cols = p.cols, r.batch = p.batch;
      r.ld_src = p.ld_src, r.ld_dst = p.ld_dst;
      r.timing = graph ? "graph" : "events";
      r.ms_median = s.median, r.ms_min = s.min, r.ms_max = s.max;
      r.gbps = 2.0 * double(p.bytes()) / (s.median * 1e6);
      r.pct_peak = gpu_.peak_gbps > 0 ? 100.0 * r.gbps / gpu_.peak_gbps : 0.0;
      r.device = gpu_.name, r.commit = XPOSE_COMMIT, r.date = today(), r.placement = o_.placement;
      rows.push_back(r);
    }
    double ceiling = 0;
    for (const Record& r : rows)
      if (r.role == "ceiling") ceiling = std::max(ceiling, r.gbps);
    for (Record& r : rows) r.pct_copy = ceiling > 0 ? 100.0 * r.gbps / ceiling : 0.0;
    return rows;
  }

  // One in-place case: the copy ceiling of the matrix's bytes, xpose_transpose_inplace on the
  // matrix (each timed call transposes the last one's result again), and xpose's out-of-place
  // transpose of it into a second buffer. --check: the first in-place call against the CPU path.
  void inplace_case(size_t index, Case c) {
    Problem p = problem_of(c);
    if (!fits(c, p)) return;
    const int64_t rows = p.rows, cols = p.cols, batch = p.batch, e = p.elem_bytes;
    DeviceBuffer data(p.bytes()), other(p.bytes());
    cuda_ok(fill_random(data.ptr, p.bytes(), e, uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()),
                        stream_),
            "fill_random");
    cuda_ok(cudaStreamSynchronize(stream_), "fill");
    p.src = data.ptr;
    p.dst = other.ptr;
    std::printf("\n== %s in place (%lld-byte elements, batch %lld; %.3f GB; CUDA events per call, median of %d%s)\n",
                c.label.c_str(), (long long)e, (long long)batch, double(p.bytes()) / 1e9, o_.reps, rounds_text().c_str());
    size_t workspace_bytes = 0;
    std::string refused;
    if (xpose_transpose_inplace_workspace(rows, cols, e, batch, &workspace_bytes) != XPOSE_SUCCESS)
      refused = xpose_last_error();
    else if (o_.explain)
      std::printf("  inplace: %s\n", explain_inplace(e, rows, cols, batch, data.ptr).c_str());
    std::unique_ptr<DeviceBuffer> workspace;
    if (workspace_bytes) workspace = std::make_unique<DeviceBuffer>(int64_t(workspace_bytes));
    void* const w = workspace ? workspace->ptr : nullptr;

    std::vector<std::string> skipped;
    std::string check;
    if (o_.check && refused.empty()) {
      std::vector<uint8_t> before(size_t(p.bytes())), want(before.size()), got(before.size());
      cuda_ok(cudaMemcpy(before.data(), data.ptr, before.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
      const Shape s{rows, cols, 0, 0, batch, 0, 0};
      transpose_host(before.data(), want.data(), e, s);
      if (xpose_transpose_inplace(data.ptr, rows, cols, e, batch, w, workspace_bytes, stream_) != XPOSE_SUCCESS)
        die(c.label + ": " + xpose_last_error());
      cuda_ok(cudaStreamSynchronize(stream_), "inplace");
      cuda_ok(cudaMemcpy(got.data(), data.ptr, got.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
      check = got == want ? "passed" : "FAILED";
      if (got != want) ++failures_;
    }
    std::vector<Candidate> all = ceilings(p);
    if (refused.empty())
      all.push_back({"inplace", "xpose", [=, d = data.ptr](cudaStream_t s) {
                       return xpose_transpose_inplace(d, rows, cols, e, batch, w, workspace_bytes, s) == XPOSE_SUCCESS
                                  ? std::string()
                                  : std::string(xpose_last_error());
                     }});
    else
      skipped.push_back("inplace: " + refused), ++inplace_refused_;
    for (Candidate& k : xpose_candidates(p, {"auto"})) {
      k.name = "out-of-place auto";
      all.push_back(std::move(k));
    }
    GpuTimer timer(stream_, o_.warmup, o_.reps);
    std::vector<Record> rows_out = time_rows(index, c, p, all, timer, false, &skipped);
    for (Record& r : rows_out) {
      if (r.kernel == "inplace") r.check = check, r.extra_bytes = int64_t(workspace_bytes);
      if (r.kernel == "out-of-place auto") {
        const Explanation x = explain_choice(p.src, p.dst, e, p.shape());
        r.chosen = x.kernel, r.rule = x.rule;
      }
      writer_.write(r);
      if (r.kernel == "inplace") auto_pct_.push_back({c.label, r.pct_copy});
      if (r.kernel == "inplace" && rows == cols) inplace_square_.insert(c.label);
    }
    print_rows(rows_out);
    for (const std::string& s : skipped) std::printf("  skipped %s\n", s.c_str());
    std::printf("  workspace %zu bytes (%.4f%% of the matrix); copy ceiling: the faster of cudaMemcpyAsync and copy\n",
                workspace_bytes, 100.0 * double(workspace_bytes) / double(p.bytes()));
    std::fflush(stdout);
  }

  // Host microseconds per call: each xpose call (the automatic choice unless --kernel
  // names others) beside a bare launch of the copy kernel on the same bytes.
  void host_cost_case(Case c) {
    Problem p = problem_of(c);
    if (!fits(c, p)) return;
    DeviceBuffer src(p.src_span_bytes(), o_.placement), dst(p.dst_span_bytes(), o_.placement);
    cuda_ok(fill_random(src.ptr, p.src_span_bytes(), p.elem_bytes, 1, stream_), "fill_random");
    p.src = src.ptr;
    p.dst = dst.ptr;
    std::vector<Candidate> all = {{"copy (bare launch)", "ceiling", [p](cudaStream_t s) {
                                     const cudaError_t e = launch_copy(p.src, p.dst, p.bytes(), s);
                                     return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
                                   }}};
    for (Candidate& k : xpose_candidates(p, o_.kernels.empty() ? std::vector<std::string>{"auto"} : o_.kernels))
      all.push_back(std::move(k));
    // The same through a plan made once (xpose_plan_execute: the bases' checks and the launch).
    const auto plan = std::make_shared<xpose::Plan>(xpose::Plan::transpose(p.elem_bytes, p.shape(), nullptr, p.src, p.dst));
    all.push_back({"plan execute (auto)", "xpose", [p, plan](cudaStream_t s) {
                     const xpose_status_t st = xpose_plan_execute(plan->get(), p.src, p.dst, s);
                     return st == XPOSE_SUCCESS ? std::string() : std::string(xpose_last_error());
                   }});
    // What an execute's residency check costs: the driver's answer for both bases.
    all.push_back({"2x pointer attributes", "probe", [p](cudaStream_t) {
                     cudaPointerAttributes a{};
                     cudaError_t e = cudaPointerGetAttributes(&a, p.src);
                     if (e == cudaSuccess) e = cudaPointerGetAttributes(&a, p.dst);
                     return e == cudaSuccess ? std::string() : std::string(cudaGetErrorString(e));
                   }});
    std::printf("\n== %s: host time per call (%d runs of 100 calls enqueued back to back, median)\n",
                c.label.c_str(), o_.reps);
    if (o_.explain) std::printf("  auto: %s\n", explain(p.src, p.dst, p.elem_bytes, p.shape()).c_str());
    std::printf("  %-20s %11s %11s %11s %14s\n", "call", "us(median)", "us(min)", "us(max)", "x bare launch");
    GpuTimer timer(stream_, o_.warmup, o_.reps);
    double bare = 0;
    for (const Candidate& k : all) {
      const Stats s = timer.host(k.run);
      if (k.role == "ceiling") bare = s.median;
      std::printf("  %-20s %11.3f %11.3f %11.3f %13.2fx\n", k.name.c_str(), s.median * 1e3, s.min * 1e3, s.max * 1e3,
                  s.median / bare);
      Record r;
      r.case_label = c.label, r.kernel = k.name, r.role = k.role, r.dtype = c.dtype;
      r.elem_bytes = p.elem_bytes, r.rows = p.rows, r.cols = p.cols, r.batch = p.batch;
      r.ld_src = p.ld_src, r.ld_dst = p.ld_dst, r.timing = "host";
      r.ms_median = s.median, r.ms_min = s.min, r.ms_max = s.max;
      r.pct_copy = 100.0 * bare / s.median;  // the bare launch's host time as a % of this call's
      r.device = gpu_.name, r.commit = XPOSE_COMMIT, r.date = today(), r.placement = o_.placement;
      writer_.write(r);
    }
    std::fflush(stdout);
  }

  // --random's report: the automatic choice over the draws, and where a peer was faster.
  void report_spread() const {
    if (o_.inplace) {
      std::printf("\n== in place, %% of the same-run copy of the matrix%s:\n",
                  o_.mode == Mode::random ? (", random draws of seed " + std::to_string(o_.seed)).c_str() : "");
      for (const bool square : {true, false}) {
        std::vector<std::pair<std::string, double>> part;
        for (const auto& [label, pct] : auto_pct_)
          if ((inplace_square_.count(label) > 0) == square) part.push_back({label, pct});
        const Spread sp = spread_of(part, 0);
        std::printf("  %-11s %3d served: median %.1f%%, 10th percentile %.1f%%, worst %.1f%%\n",
                    square ? "square" : "rectangular", sp.count, sp.median, sp.p10, sp.worst);
      }
      std::printf("  %d refused (not served on the GPU)\n", inplace_refused_);
    } else
      std::fputs(spread_report(auto_pct_, behind_peers_, "problems", o_.seed, "cuBLAS", o_.peers).c_str(), stdout);
  }

  const Options& o_;
  Gpu gpu_;
  std::vector<std::pair<std::string, double>> auto_pct_, behind_peers_;
  RecordWriter& writer_;
  Progress progress_;
  cudaStream_t stream_ = nullptr;
  std::unique_ptr<PeerLibraries> peers_;
  int failures_ = 0, skipped_for_memory_ = 0;
  std::set<std::string> inplace_square_;  // --inplace: the labels of square cases
  int inplace_refused_ = 0;
};

// ---------------------------------------------------------------------------------
// CPU: the reference transpose beside memcpy, for one shape (8192x8192 by default).

// Refuses a case that cannot fit in the host's memory, as fits() does on the GPU.
void require_host_memory(const Case& c, const Problem& p) {
  const double need = double(p.src_span_bytes()) + double(p.dst_span_bytes());
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (need >= 0.9 * have)
    die(c.label + " needs " + std::to_string(int64_t(need / (1 << 20))) + " MiB of host memory; this machine has " +
        std::to_string(int64_t(have / (1 << 20))) + " MiB");
}

int run_cpu(const Options& o, RecordWriter& writer) {
  if (o.inplace && o.mode != Mode::single) die("--inplace on the CPU path times one --shape", 2);
  if (o.mode == Mode::sweep || o.mode == Mode::cases || o.mode == Mode::host_cost || o.mode == Mode::random)
    die("--sweep, --cases, --random and --host-cost need a GPU", 2);
  for (const std::string& name : o.gpu_only)
    std::fprintf(stderr, "xpose-bench: %s does nothing on the CPU path\n", name.c_str());
  for (Case c : o.cases) {
    if (!o.shape_given) c = make_case(c.dtype, 8192, 8192);
    Problem p = problem_of(c);
    require_host_memory(c, p);
    std::vector<uint8_t> src(size_t(p.src_span_bytes())), dst(size_t(p.dst_span_bytes()));
    for (size_t i = 0; i < src.size(); ++i) src[i] = uint8_t(i * 2654435761u >> 13);
    p.src = src.data();
    p.dst = dst.data();
    const auto time_cpu = [&](const std::function<void()>& run) {
      run();
      std::vector<double> ms;
      for (int i = 0; i < std::max(1, std::min(o.reps, 5)); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      return summarize(ms);
    };
    std::printf("xpose-bench %s: CPU path, %s, %s\n", XPOSE_COMMIT, c.label.c_str(), today().c_str());
    std::vector<Record> rows;
    const auto add = [&](const std::string& name, const std::string& role, const Stats& s) {
      Record r;
      r.case_label = c.label, r.kernel = name, r.role = role, r.dtype = c.dtype;
      r.elem_bytes = p.elem_bytes, r.rows = p.rows, r.cols = p.cols, r.batch = p.batch;
      r.ld_src = p.ld_src, r.ld_dst = p.ld_dst, r.timing = "host clock";
      r.ms_median = s.median, r.ms_min = s.min, r.ms_max = s.max;
      r.gbps = 2.0 * double(p.bytes()) / (s.median * 1e6);
      r.device = "cpu", r.commit = XPOSE_COMMIT, r.date = today();
      rows.push_back(r);
    };
    add("memcpy", "ceiling", time_cpu([&] { std::copy(src.begin(), src.begin() + p.bytes(), dst.begin()); }));
    if (o.inplace)  // each run transposes the last one's result again
      add("cpu_inplace", "xpose", time_cpu([&] { transpose_inplace_host(dst.data(), p.elem_bytes, p.rows, p.cols, p.batch); }));
    else
      add("cpu_reference", "xpose", time_cpu([&] { transpose_host(p.src, p.dst, p.elem_bytes, p.shape()); }));
    for (Record& r : rows) {
      r.pct_copy = 100.0 * r.gbps / rows[0].gbps;
      writer.write(r);
    }
    print_rows(rows);
  }
  return 0;
}

void require_known_kernels(const Options& o) {
  std::set<std::string> known = {"auto"};
  std::string list = "auto";
  for (const KernelInfo& k : kernel_list()) known.insert(k.name), list += ", " + k.name;
  for (const std::string& name : o.kernels)
    if (!known.count(name)) die("unknown --kernel '" + name + "' (known: " + list + ")", 2);
}

// Opened before any work, so that a path that cannot be written is a bad argument.
RecordWriter open_outputs(const Options& o) {
  try {
    return RecordWriter(o.json, o.csv);
  } catch (const std::runtime_error& e) {
    die(e.what(), 2);
  }
}

int run(const Options& o, RecordWriter& writer) {
  if (o.device == "cpu") return run_cpu(o, writer);
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    std::printf("xpose-bench: no CUDA device (%s); timing the CPU path instead\n",
                e != cudaSuccess ? cudaGetErrorString(e) : "none found");
    return run_cpu(o, writer);
  }
  const Gpu gpu = describe_gpu();
  if (o.mode == Mode::random)
    std::printf("xpose-bench: %zu random problems, seed %llu (--random %zu --seed %llu draws them again)\n",
                o.cases.size(), (unsigned long long)o.seed, o.cases.size(), (unsigned long long)o.seed);
  if (o.placement == "inside")
    std::printf("xpose-bench: src and dst are the first half of allocations twice as large (--placement inside)\n");
  else if (o.placement == "offset")
    std::printf("xpose-bench: src and dst start 4 KiB into allocations 4 KiB larger (--placement offset)\n");
  GpuBench bench(o, gpu, writer);
  return bench.run_all();
}

}  // namespace
}  // namespace xpose::bench

int main(int argc, char** argv) {
  using namespace xpose::bench;
  int exit_code = 0;
  const auto options = parse_options(argc, argv, &exit_code);
  if (!options) return exit_code;
  require_known_kernels(*options);
  if (options->list) {
    for (const Case& c : options->cases) std::printf("%s\n", to_json(c).dump().c_str());
    return 0;
  }
  if (options->rules) {
    std::fputs(rules_markdown().c_str(), stdout);
    return 0;
  }
  RecordWriter writer = open_outputs(*options);
  try {
    const int code = run(*options, writer);
    writer.close();
    return code;
  } catch (const std::bad_alloc&) {
    die("out of host memory");
  } catch (const std::exception& e) {
    die(e.what());
  }
}
