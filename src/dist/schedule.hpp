// The distributed transpose as data: what one rank packs, sends, receives and places, step
// by step. A batch of rows x cols matrices A is split by rows over P ranks (rank p holds rows
// [row_offsets[p], row_offsets[p+1]) of every matrix); A^T is returned split by rows over the
// same ranks (rank p holds rows [col_offsets[p], col_offsets[p+1]) of A^T, the columns of A).
//
// Rank p's part of what rank q receives is the block A[rows of p, columns of q]; p transposes
// it straight into a contiguous message (the pack), the exchange delivers it, and q copies it
// into its column range of dst with one strided copy (the place). p's own block is transposed
// from src into dst directly. Each block is cut into `steps` pieces of whole transposed rows,
// the same cut on both sides, so that a step's exchange overlaps the next step's pack and the
// previous step's place. Nothing here touches memory: tests execute schedules on the CPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.hpp"

namespace xpose::detail::dist {

// The request as one rank sees it: every rank passes the same offsets, batch and element
// size; ld_src/ld_dst are its own (0: packed, cols and rows).
struct Split {
  std::vector<int64_t> row_offsets, col_offsets;  // nranks + 1 each, 0 .. rows and 0 .. cols
  int64_t batch = 1, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int rank = 0;
  int max_steps = 0;       // 0: the default (kMaxSteps)
  int64_t step_bytes = 0;  // 0: the default (kStepBytes)
};

// Pipelining: the largest block between two ranks is cut into steps of at least kStepBytes,
// at most kMaxSteps of them, and every block into as many.
// On 2 x H200, 64 GiB fp32, 8 steps came closer to the all-to-all than 4 (docs/performance.md,
// "Several GPUs").
constexpr int kMaxSteps = 8;
constexpr int64_t kStepBytes = int64_t(64) << 20;
constexpr int kMaxRanks = 1 << 16;
constexpr size_t kMessageAlign = 256;  // each message starts 256-byte aligned in the workspace

// One xpose_transpose call, offsets in bytes from the src and dst (or workspace) bases.
struct TransposeOp {
  int64_t src_offset = 0, dst_offset = 0;
  int64_t rows = 0, cols = 0, ld_src = 0, ld_dst = 0;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

// One strided copy of `height` rows of `width` bytes (cudaMemcpy2D's arguments).
struct CopyOp {
  int64_t src_offset = 0, dst_offset = 0;
  int64_t height = 0, width = 0, src_pitch = 0, dst_pitch = 0;
};

// One message of a step: to (or from) `peer`, at `offset` in the workspace, `bytes` long and
// taking `padded` (bytes rounded up to kMessageAlign) there.
struct Message {
  int peer = 0;
  size_t offset = 0, bytes = 0, padded = 0;
};

struct Step {
  std::vector<TransposeOp> owns;   // src -> dst: the step's cut of this rank's own block
  std::vector<TransposeOp> packs;  // src -> workspace, before the step's sends
  std::vector<Message> sends, recvs;
  std::vector<CopyOp> places;  // workspace -> dst, after the step's receives
};

struct Schedule {
  int nranks = 0, rank = 0;
  int64_t elem_bytes = 0;
  bool has_own = false;
  TransposeOp own;          // src -> dst: this rank's own block (cut into the steps' owns too)
  std::vector<Step> steps;  // the same count on every rank
  size_t workspace_bytes = 0;
  int64_t src_span_bytes = 0, dst_span_bytes = 0;  // what src and dst must hold
};

// Validates a split (every check that needs neither pointers nor peers) and schedules it.
Result make_schedule(const Split& split, Schedule* out);

}  // namespace xpose::detail::dist
