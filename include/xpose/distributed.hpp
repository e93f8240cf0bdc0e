// xpose::dist: the transpose of a matrix split by rows over several ranks (GPUs), with the
// exchange left to the caller's communication library. xpose_nccl.h runs it over NCCL;
// xpose.distributed runs it over torch.distributed; any other all-to-all (MPI, NVSHMEM, a
// loopback in tests) can drive a Plan the same way:
//
//   xpose::dist::Plan plan(split, my_rank);           // validates; same steps on every rank
//   cudaMalloc(&ws, plan.workspace_bytes());
//   plan.transpose_own(src, dst, stream);             // the block that stays on this rank
//   for (int j = 0; j < plan.steps(); ++j) {
//     plan.pack(j, src, ws, stream);                  // this rank's blocks, transposed into messages
//     exchange(plan.sends(j), plan.recvs(j), ws);     // message k goes to / comes from peer k.peer
//     plan.place(j, ws, dst, stream);                 // received messages into dst's columns
//   }
//
// A batch of rows x cols matrices A is split by rows: rank p holds rows [row_offsets[p],
// row_offsets[p+1]) of each, at src, `ld_src` elements apart, matrices my_rows * ld_src apart.
// A^T (cols x rows) is returned split by rows: rank p holds rows [col_offsets[p],
// col_offsets[p+1]) of each A^T at dst, `ld_dst` apart, matrices my_cols * ld_dst apart.
// Every rank passes the same offsets, batch and element size (xpose_nccl_check verifies it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "xpose/xpose.hpp"

namespace xpose {
namespace detail::dist {
struct Schedule;
}

namespace dist {

struct Split {
  std::vector<int64_t> row_offsets;  // nranks + 1 values, 0 .. rows, never decreasing
  std::vector<int64_t> col_offsets;  // nranks + 1 values, 0 .. cols, never decreasing
  int64_t batch = 1;
  int64_t elem_bytes = 0;  // 1, 2, 4, 8 or 16
  int64_t ld_src = 0;      // 0: cols
  int64_t ld_dst = 0;      // 0: rows
};

// One message of a step, in the workspace. `padded` is `bytes` rounded up to 256: a step's
// messages lie back to back at their padded lengths in rank order, so an all-to-all that takes
// one buffer and per-rank counts can send padded[...] (both ends agree on every length).
struct Message {
  int peer = 0;
  size_t offset = 0, bytes = 0, padded = 0;
};

// How the exchange is pipelined: the largest block between two ranks is cut into steps of at
// least step_bytes, at most max_steps of them (0: the defaults, 64 MiB and 8). Every rank
// passes the same options.
struct Options {
  int max_steps = 0;
  int64_t step_bytes = 0;
};

class XPOSE_API Plan {
 public:
  // Throws xpose::Error (invalid argument) for a split that is wrong.
  Plan(const Split& split, int rank, const Options& options = {});

  int nranks() const;
  int rank() const;
  int steps() const;  // the same on every rank for the same split
  size_t workspace_bytes() const;
  int64_t src_bytes() const;  // what src must hold (from its first element to one past its last)
  int64_t dst_bytes() const;
  const std::vector<Message>& sends(int step) const;
  const std::vector<Message>& recvs(int step) const;

  // Throws xpose::Error (invalid argument) where src, dst or the workspace is null though it
  // must hold bytes, the workspace is not 256-byte aligned, or two of them share a byte: what
  // a driver checks before it enqueues anything (each call below checks its own buffers too).
  void check_buffers(const void* src, const void* dst, const void* workspace) const;

  // GPU memory, enqueued on `stream`; never synchronize, never allocate. The workspace is
  // workspace_bytes() of device memory, 256-byte aligned.
  void transpose_own(const void* src, void* dst, cudaStream_t stream = nullptr) const;
  // Step `step`'s cut of the same block (all steps' cuts together are the whole block): a
  // pipelined driver runs it beside step `step`'s exchange instead of the whole block at once.
  void transpose_own(int step, const void* src, void* dst, cudaStream_t stream = nullptr) const;
  void pack(int step, const void* src, void* workspace, cudaStream_t stream = nullptr) const;
  void place(int step, const void* workspace, void* dst, cudaStream_t stream = nullptr) const;

  // The same on host memory (the CPU path; tests simulate ranks with it).
  void transpose_own_host(const void* src, void* dst) const;
  void transpose_own_host(int step, const void* src, void* dst) const;
  void pack_host(int step, const void* src, void* workspace) const;
  void place_host(int step, const void* workspace, void* dst) const;

 private:
  std::shared_ptr<const detail::dist::Schedule> schedule_;
  std::vector<std::vector<Message>> sends_, recvs_;
};

}  // namespace dist
}  // namespace xpose
