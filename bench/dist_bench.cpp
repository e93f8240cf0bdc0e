// xpose-dist-bench: the distributed transpose (xpose_nccl.h) against NCCL's all-to-all of the
// same bytes, measured in the same run on the same ranks, one process per GPU (forked).
//
//   xpose-dist-bench [--ranks 2,4,8] [--gib 1,2,4,...] [--dtype fp32] [--steps 0,1,4] [--json out.jsonl]
//
// A is rows x cols of `dtype` holding --gib GiB in all, split evenly by rows; its transpose
// comes back split evenly by rows. The all-to-all sends each rank's 1/P of its part to every
// rank (ncclAlltoAll: the exchange every distributed transpose makes). Each figure is the
// median of --reps timed calls on rank 0 (CUDA events on its stream) after --warmup calls.
// The table's last column is xpose as a % of the all-to-all's bandwidth (its time / ours).
#include <CLI/CLI.hpp>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "fork_ranks.hpp"
#include "xpose/nccl.hpp"
#include "xpose_commit.hpp"  // XPOSE_COMMIT, written at build time

namespace {

struct Options {
  std::vector<int> ranks;
  std::vector<double> gib{1, 2, 4, 8, 16, 32, 64};
  std::string dtype = "fp32";
  std::vector<int> steps{0};
  int reps = 5, warmup = 2;
  std::string json;
  bool nccl_memory = false;  // src, dst and workspace from ncclMemAlloc, registered with the comm
};

int64_t elem_bytes_of(const std::string& dtype) {
  if (dtype == "u8") return 1;
  if (dtype == "fp16" || dtype == "bf16") return 2;
  if (dtype == "fp32") return 4;
  if (dtype == "fp64") return 8;
  if (dtype == "c128") return 16;
  return 0;
}

#define CHECK_CUDA(call)                                                                   \
  do {                                                                                     \
    const cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));                     \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)
#define CHECK_NCCL(call)                                                                   \
  do {                                                                                     \
    const ncclResult_t e_ = (call);                                                        \
    if (e_ != ncclSuccess) {                                                               \
      std::fprintf(stderr, "%s: %s\n", #call, ncclGetErrorString(e_));                     \
      return 1;                                                                            \
    }                                                                                      \
  } while (0)

// Median milliseconds of `reps` calls of f on `stream`, after `warmup`.
template <class F>
double time_ms(cudaStream_t stream, int warmup, int reps, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> ms;
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a, stream);
    f();
    cudaEventRecord(b, stream);
    cudaEventSynchronize(b);
    float t = 0;
    cudaEventElapsedTime(&t, a, b);
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

int rank_body(const Options& o, int rank, int nranks, ncclComm_t comm) {
  const int64_t E = elem_bytes_of(o.dtype);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  CHECK_CUDA(cudaGetDeviceProperties(&prop, rank));
  int* fits = nullptr;
  CHECK_CUDA(cudaMalloc(&fits, sizeof(int)));
  std::ofstream json;
  if (rank == 0 && !o.json.empty()) json.open(o.json, std::ios::app);
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  for (double gib : o.gib) {
    // rows = 2^k, cols = elements / rows, so that the matrix holds `gib` GiB.
    const int64_t total = int64_t(gib * double(int64_t(1) << 30)) / E * E, elements = total / E;
    int64_t rows = int64_t(1) << int(std::floor(std::log2(std::sqrt(double(elements)))));
    rows = std::max<int64_t>(rows / nranks * nranks, nranks);
    const int64_t cols = elements / rows;
    std::vector<int64_t> ro, co;
    for (int r = 0; r <= nranks; ++r) {
      ro.push_back(rows * r / nranks);
      co.push_back(cols * r / nranks);
    }
    const size_t local = size_t((ro[1] - ro[0]) * cols * E), local_t = size_t((co[1] - co[0]) * rows * E);
    size_t ws_bytes = 0;
    for (int s : o.steps)
      ws_bytes = std::max(ws_bytes, xpose::nccl::workspace_bytes(ro.data(), co.data(), 1, E, comm, {s, 0}));
    // Every rank must agree whether this size fits, or the ones that go on would wait forever.
    size_t free_bytes = 0, total_bytes = 0;
    CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    const int fits_here = local + local_t + ws_bytes + (size_t(1) << 30) < free_bytes ? 1 : 0;
    CHECK_CUDA(cudaMemcpy(fits, &fits_here, sizeof(int), cudaMemcpyHostToDevice));
    CHECK_NCCL(ncclAllReduce(fits, fits, 1, ncclInt32, ncclMin, comm, stream));
    int fits_all = 0;
    CHECK_CUDA(cudaMemcpyAsync(&fits_all, fits, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    if (!fits_all) {
      if (rank == 0) std::printf("%d ranks, %.0f GiB: does not fit every GPU's free memory; skipped\n", nranks, gib);
      continue;
    }
    void *src = nullptr, *dst = nullptr, *ws = nullptr;
    void* handles[3] = {};
    const size_t sizes[3] = {local, local_t, std::max<size_t>(ws_bytes, 1)};
    void** buffers[3] = {&src, &dst, &ws};
    for (int i = 0; i < 3; ++i)
      if (o.nccl_memory) {
        CHECK_NCCL(ncclMemAlloc(buffers[i], sizes[i]));
        CHECK_NCCL(ncclCommRegister(comm, *buffers[i], sizes[i], &handles[i]));
      } else {
        CHECK_CUDA(cudaMalloc(buffers[i], sizes[i]));
      }
    CHECK_CUDA(cudaMemset(src, 0x5a, local));
    const size_t per_peer = local / size_t(nranks);
    const double a2a = time_ms(stream, o.warmup, o.reps, [&] {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0)
      ncclAlltoAll(src, dst, per_peer, ncclUint8, comm, stream);
#else
      ncclGroupStart();
      for (int r = 0; r < nranks; ++r) {
        ncclSend(static_cast<char*>(src) + r * per_peer, per_peer, ncclUint8, r, comm, stream);
        ncclRecv(static_cast<char*>(dst) + r * per_peer, per_peer, ncclUint8, r, comm, stream);
      }
      ncclGroupEnd();
#endif
    });
    const double copy = time_ms(stream, o.warmup, o.reps, [&] {
      cudaMemcpyAsync(dst, src, std::min(local, local_t), cudaMemcpyDeviceToDevice, stream);
    });
    for (int s : o.steps) {
      std::string error;
      const double ms = time_ms(stream, o.warmup, o.reps, [&] {
        try {
          xpose::nccl::transpose(src, 0, dst, 0, ro.data(), co.data(), 1, E, ws, ws_bytes, comm, stream, {s, 0});
        } catch (const xpose::Error& e) {
          error = e.what();
        }
      });
      if (!error.empty()) {
        std::fprintf(stderr, "[rank %d] %s\n", rank, error.c_str());
        return 1;
      }
      if (rank != 0) continue;
      const double sent_gbs = double(local - per_peer) / (a2a * 1e6);  // what each rank sends to the others
      std::printf("%5d %6.0f %7lldx%-7lld %5s %5d %10.3f %10.3f %9.1f %8.3f %7.1f%%\n", nranks, gib,
                  (long long)rows, (long long)cols, o.dtype.c_str(), s, a2a, ms, sent_gbs, copy, 100.0 * a2a / ms);
      std::fflush(stdout);
      if (json.is_open())
        json << nlohmann::json{{"ranks", nranks},        {"total_bytes", total},  {"rows", rows},
                               {"cols", cols},           {"dtype", o.dtype},      {"elem_bytes", E},
                               {"steps", s},             {"alltoall_ms", a2a},    {"xpose_ms", ms},
                               {"alltoall_gbs_per_rank", sent_gbs},                {"local_copy_ms", copy},
                               {"pct_of_alltoall", 100.0 * a2a / ms},             {"device", prop.name},
                               {"commit", XPOSE_COMMIT}, {"date", date},         {"nccl", NCCL_VERSION_CODE},
                               {"nccl_memory", o.nccl_memory}}
                    .dump()
             << "\n";
    }
    for (int i = 0; i < 3; ++i)
      if (o.nccl_memory) {
        CHECK_NCCL(ncclCommDeregister(comm, handles[i]));
        CHECK_NCCL(ncclMemFree(*buffers[i]));
      } else {
        cudaFree(*buffers[i]);
      }
  }
  cudaFree(fits);
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"xpose-dist-bench: the distributed transpose against NCCL's all-to-all of the same bytes"};
  app.add_option("--ranks", o.ranks, "rank counts (default: 2, 4, 8 up to the GPU count)")->delimiter(',');
  app.add_option("--gib", o.gib, "sizes of A in GiB")->delimiter(',');
  app.add_option("--dtype", o.dtype, "u8, fp16, fp32, fp64 or c128");
  app.add_option("--steps", o.steps, "pipelining steps to try (0: the library's default)")->delimiter(',');
  app.add_option("--reps", o.reps, "timed calls (the median is reported)")->check(CLI::Range(1, 1000));
  app.add_option("--warmup", o.warmup, "untimed calls first")->check(CLI::Range(0, 1000));
  app.add_flag("--nccl-memory", o.nccl_memory,
               "allocate src, dst and the workspace with ncclMemAlloc and register them with the comm "
               "(ncclCommRegister), for the all-to-all and xpose alike");
  app.add_option("--json", o.json, "append one JSON record per row to this file");
  CLI11_PARSE(app, argc, argv);
  if (!elem_bytes_of(o.dtype)) {
    std::fprintf(stderr, "xpose-dist-bench: unknown --dtype '%s'\n", o.dtype.c_str());
    return 2;
  }
  const int devices = xpose::ranks::device_count();
  if (o.ranks.empty())
    for (int n = 2; n <= devices; n *= 2) o.ranks.push_back(n);
  if (o.ranks.empty() || *std::max_element(o.ranks.begin(), o.ranks.end()) > devices) {
    std::fprintf(stderr, "xpose-dist-bench: needs as many GPUs as ranks; this machine has %d\n", devices);
    return 2;
  }
  std::printf("xpose-dist-bench, commit %s; median of %d calls on rank 0\n", XPOSE_COMMIT, o.reps);
  std::printf("%5s %6s %15s %5s %5s %10s %10s %9s %8s %8s\n", "ranks", "GiB", "matrix", "dtype", "steps", "a2a ms",
              "xpose ms", "a2a GB/s", "copy ms", "of a2a");
  int failed = 0;
  for (int n : o.ranks) failed += xpose::ranks::run_ranks(n, [&](int r, int p, ncclComm_t c) { return rank_body(o, r, p, c); });
  return failed ? 1 : 0;
}
