// xpose_nccl.h on every GPU of the machine, one process per GPU (bench/fork_ranks.hpp):
// uneven splits, every element size, batches, padded rows, pipelined steps and graph capture,
// each rank's dst checked byte for byte against A^T, guard bands and row padding untouched;
// then the refusals (a small workspace, bad offsets, ranks that disagree), which must leave
// dst untouched. Skips, saying why, with fewer than 2 GPUs.
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "fork_ranks.hpp"
#include "xpose/xpose_nccl.h"

namespace {

constexpr size_t guard = 256;
constexpr uint8_t poison = 0xA5;

// Byte k of element (b, i, j) of A: a hash, so each rank makes its own part alone.
uint8_t byte_of(uint64_t seed, uint64_t index) {
  uint64_t z = seed + index * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return uint8_t(z ^ (z >> 31));
}

struct Case {
  const char* name;
  std::vector<int64_t> row_fractions, col_fractions;  // per mille of rows and cols per rank, repeated
  int64_t rows, cols, batch, elem_bytes, ld_src_pad, ld_dst_pad;
  bool graph;
};

std::vector<int64_t> offsets(const std::vector<int64_t>& weights, int nranks, int64_t total) {
  std::vector<int64_t> w(static_cast<size_t>(nranks)), out{0};
  int64_t sum = 0;
  for (int r = 0; r < nranks; ++r) sum += w[size_t(r)] = weights[size_t(r) % weights.size()];
  int64_t acc = 0;
  for (int r = 0; r < nranks; ++r) {
    acc += w[size_t(r)];
    out.push_back(sum ? total * acc / sum : 0);
  }
  out.back() = total;
  return out;
}

int failures = 0;
#define EXPECT(cond, ...)                                        \
  do {                                                           \
    if (!(cond)) {                                               \
      std::printf("[rank %d] FAILED %s: ", rank, #cond);         \
      std::printf(__VA_ARGS__);                                  \
      std::printf("\n");                                         \
      ++failures;                                                \
    }                                                            \
  } while (0)

int run_case(const Case& c, int rank, int nranks, ncclComm_t comm, uint64_t seed, cudaStream_t stream) {
  const std::vector<int64_t> ro = offsets(c.row_fractions, nranks, c.rows), co = offsets(c.col_fractions, nranks, c.cols);
  const int64_t E = c.elem_bytes, R = c.rows, C = c.cols, B = c.batch;
  const int64_t my_rows = ro[size_t(rank) + 1] - ro[size_t(rank)], my_cols = co[size_t(rank) + 1] - co[size_t(rank)];
  const int64_t ld_src = C + c.ld_src_pad, ld_dst = R + c.ld_dst_pad;
  const size_t src_bytes = size_t(B * my_rows * ld_src * E), dst_bytes = size_t(B * my_cols * ld_dst * E);
  std::vector<uint8_t> src(src_bytes), want(guard + dst_bytes + guard, poison);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < my_rows; ++i)
      for (int64_t j = 0; j < ld_src; ++j)
        for (int64_t k = 0; k < E; ++k)
          src[size_t(((b * my_rows + i) * ld_src + j) * E + k)] =
              j < C ? byte_of(seed, uint64_t(((b * R + ro[size_t(rank)] + i) * C + j) * E + k))
                    : byte_of(~seed, uint64_t(i * ld_src + j));
  for (int64_t b = 0; b < B; ++b)
    for (int64_t c2 = 0; c2 < my_cols; ++c2)
      for (int64_t i = 0; i < R; ++i)
        for (int64_t k = 0; k < E; ++k)
          want[guard + size_t(((b * my_cols + c2) * ld_dst + i) * E + k)] =
              byte_of(seed, uint64_t(((b * R + i) * C + co[size_t(rank)] + c2) * E + k));

  size_t ws_bytes = 0;
  if (xpose_nccl_transpose_workspace(ro.data(), co.data(), B, E, comm, &ws_bytes) != XPOSE_SUCCESS) {
    std::printf("[rank %d] FAILED %s: workspace query: %s\n", rank, c.name, xpose_nccl_last_error());
    return 1;
  }
  uint8_t *d_src = nullptr, *d_dst = nullptr, *d_ws = nullptr;
  if (cudaMalloc(&d_src, src.size() + 1) != cudaSuccess || cudaMalloc(&d_dst, want.size()) != cudaSuccess ||
      cudaMalloc(&d_ws, ws_bytes + 1) != cudaSuccess) {
    std::printf("[rank %d] FAILED %s: cudaMalloc\n", rank, c.name);
    return 1;
  }
  cudaMemcpy(d_src, src.data(), src.size(), cudaMemcpyHostToDevice);
  cudaMemset(d_dst, poison, want.size());
  xpose_status_t status = xpose_nccl_check(ro.data(), co.data(), B, E, comm, stream);
  EXPECT(status == XPOSE_SUCCESS, "%s: xpose_nccl_check: %s", c.name, xpose_nccl_last_error());
  if (c.graph) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal);
    status = xpose_nccl_transpose(d_src, ld_src, d_dst + guard, ld_dst, ro.data(), co.data(), B, E, d_ws, ws_bytes,
                                  comm, stream);
    EXPECT(cudaStreamEndCapture(stream, &graph) == cudaSuccess, "%s: capture", c.name);
    EXPECT(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "%s: instantiate", c.name);
    EXPECT(cudaGraphLaunch(exec, stream) == cudaSuccess, "%s: graph launch", c.name);
    cudaStreamSynchronize(stream);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  } else {
    status = xpose_nccl_transpose(d_src, ld_src, d_dst + guard, ld_dst, ro.data(), co.data(), B, E, d_ws, ws_bytes,
                                  comm, stream);
  }
  EXPECT(status == XPOSE_SUCCESS, "%s: %s", c.name, xpose_nccl_last_error());
  EXPECT(cudaStreamSynchronize(stream) == cudaSuccess, "%s: %s", c.name, cudaGetErrorString(cudaGetLastError()));
  std::vector<uint8_t> got(want.size());
  cudaMemcpy(got.data(), d_dst, got.size(), cudaMemcpyDeviceToHost);
  size_t first = 0;
  while (first < got.size() && got[first] == want[first]) ++first;
  EXPECT(first == got.size(), "%s: first wrong byte %lld from dst's start", c.name, (long long)first - (long long)guard);

  // Refusals: nothing enqueued, dst untouched. A workspace one byte short; offsets that decrease.
  cudaMemset(d_dst, poison, want.size());
  if (ws_bytes > 0) {
    status = xpose_nccl_transpose(d_src, ld_src, d_dst + guard, ld_dst, ro.data(), co.data(), B, E, d_ws,
                                  ws_bytes - 1, comm, stream);
    EXPECT(status == XPOSE_ERROR_INVALID_ARGUMENT, "%s: a small workspace was accepted", c.name);
    EXPECT(std::strstr(xpose_nccl_last_error(), "workspace_bytes"), "%s: %s", c.name, xpose_nccl_last_error());
    status = xpose_nccl_transpose(d_src, ld_src, d_dst + guard, ld_dst, ro.data(), co.data(), B, E, d_ws + 1,
                                  ws_bytes, comm, stream);
    EXPECT(status == XPOSE_ERROR_INVALID_ARGUMENT, "%s: a misaligned workspace was accepted", c.name);
  }
  std::vector<int64_t> bad = ro;
  bad[0] = 1;
  status = xpose_nccl_transpose(d_src, ld_src, d_dst + guard, ld_dst, bad.data(), co.data(), B, E, d_ws, ws_bytes,
                                comm, stream);
  EXPECT(status == XPOSE_ERROR_INVALID_ARGUMENT, "%s: bad offsets were accepted", c.name);
  // A host dst, where every rank has one (a rank with nothing to write would go on alone and
  // wait for the others forever, as with any collective one rank refuses).
  bool every_rank_writes = R > 0 && B > 0;
  for (int r = 0; r < nranks; ++r) every_rank_writes &= co[size_t(r) + 1] > co[size_t(r)];
  if (every_rank_writes) {
    status = xpose_nccl_transpose(d_src, ld_src, src.data(), ld_dst, ro.data(), co.data(), B, E, d_ws, ws_bytes, comm,
                                  stream);
    EXPECT(status == XPOSE_ERROR_INVALID_ARGUMENT, "%s: a host dst was accepted", c.name);
  }
  cudaStreamSynchronize(stream);
  cudaMemcpy(got.data(), d_dst, got.size(), cudaMemcpyDeviceToHost);
  EXPECT(got == std::vector<uint8_t>(want.size(), poison), "%s: a refused call wrote to dst", c.name);
  cudaFree(d_src);
  cudaFree(d_dst);
  cudaFree(d_ws);
  return 0;
}

int body(int rank, int nranks, ncclComm_t comm, uint64_t seed) {
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
  const Case cases[] = {
      {"fp32 even", {1}, {1}, 1000, 777, 1, 4, 0, 0, false},
      {"u8 uneven, padded, batch 3", {1, 3, 0, 2}, {2, 1, 1}, 301, 517, 3, 1, 5, 3, false},
      {"fp16 one rank holds nothing", {0, 1}, {1, 0, 2}, 130, 95, 2, 2, 0, 1, false},
      {"fp64", {2, 1}, {1, 2}, 129, 257, 1, 8, 1, 0, false},
      {"c128 batch 2", {1}, {1}, 64, 100, 2, 16, 0, 0, false},
      {"fp32 8192^2 (pipelined)", {1}, {1}, 8192, 8192, 1, 4, 0, 0, false},
      {"u8 uneven 6000x9001 (pipelined)", {3, 5}, {4, 1}, 6000, 9001, 1, 1, 7, 0, false},
      {"bf16 under graph capture", {1, 2}, {2, 1}, 3000, 4099, 2, 2, 0, 0, true},
  };
  for (const Case& c : cases) {
    const int before = failures;
    run_case(c, rank, nranks, comm, seed, stream);
    if (rank == 0) std::printf("%s %s\n", failures == before ? "ok  " : "FAIL", c.name);
  }
  // Ranks that disagree: rank 1 passes another element size. Every rank must refuse.
  const std::vector<int64_t> ro = offsets({1}, nranks, 64), co = offsets({1}, nranks, 32);
  const xpose_status_t status = xpose_nccl_check(ro.data(), co.data(), 1, rank == 1 ? 2 : 4, comm, stream);
  EXPECT(status == XPOSE_ERROR_INVALID_ARGUMENT, "disagreeing ranks were accepted");
  EXPECT(std::strstr(xpose_nccl_last_error(), "elem_bytes"), "%s", xpose_nccl_last_error());
  if (rank == 0) std::printf("%s ranks that disagree are refused on every rank (%s)\n",
                             status == XPOSE_ERROR_INVALID_ARGUMENT ? "ok  " : "FAIL", xpose_nccl_last_error());
  cudaStreamDestroy(stream);
  return failures ? 1 : 0;
}

}  // namespace

int main() {
  const int devices = xpose::ranks::device_count();
  if (devices < 2) {
    std::printf("Skipped: the distributed test needs 2 or more CUDA devices; this machine has %d\n", devices);
    return 0;
  }
  const uint64_t seed = std::random_device{}() * 0x100000001ull;
  int failed = 0;
  for (int nranks = 2; nranks <= devices; nranks *= 2) {
    std::printf("== %d ranks (seed %llu)\n", nranks, (unsigned long long)seed);
    std::fflush(stdout);
    failed += xpose::ranks::run_ranks(nranks, [&](int r, int n, ncclComm_t comm) { return body(r, n, comm, seed); });
  }
  std::printf(failed ? "FAILED: %d rank runs failed\n" : "PASSED\n", failed);
  return failed ? 1 : 0;
}
