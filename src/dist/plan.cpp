// xpose::dist::Plan: a rank's schedule (dist/schedule.hpp) and its execution on GPU or host
// memory. Transposes go through the public entry points, which check each call's pointers.
#include <cuda_runtime_api.h>

#include <cstring>
#include <string>

#include "dist/schedule.hpp"
#include "xpose/distributed.hpp"

namespace xpose::dist {
namespace {

using detail::dist::CopyOp;
using detail::dist::Schedule;
using detail::dist::TransposeOp;

[[noreturn]] void refuse(const std::string& message) { throw Error(XPOSE_ERROR_INVALID_ARGUMENT, message); }

const unsigned char* at(const void* base, int64_t offset) { return static_cast<const unsigned char*>(base) + offset; }
unsigned char* at(void* base, int64_t offset) { return static_cast<unsigned char*>(base) + offset; }

// Two buffers that share a byte cannot be the two sides of one pass.
void check_apart(const char* a_name, const void* a, int64_t a_bytes, const char* b_name, const void* b,
                 int64_t b_bytes) {
  if (a_bytes <= 0 || b_bytes <= 0) return;
  const auto x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  if (x < y + uint64_t(b_bytes) && y < x + uint64_t(a_bytes))
    refuse(std::string(a_name) + " and " + b_name + " overlap");
}

void check_step(int step, int steps) {
  if (step < 0 || step >= steps)
    refuse("step " + std::to_string(step) + " is outside 0.." + std::to_string(steps - 1));
}

void check_present(const char* name, const void* p, int64_t bytes) {
  if (bytes > 0 && !p) refuse(std::string(name) + " is a null pointer");
}

void check_workspace(const void* ws, size_t bytes) {
  if (bytes == 0) return;  // a plan that exchanges nothing reads no workspace
  check_present("workspace", ws, int64_t(bytes));
  if (reinterpret_cast<uintptr_t>(ws) % detail::dist::kMessageAlign)
    refuse("workspace is not 256-byte aligned");
}

// A step's places, once the buffers they join are checked.
const std::vector<CopyOp>& checked_places(const Plan& plan, const Schedule& s, int step, const void* workspace,
                                          const void* dst) {
  check_step(step, plan.steps());
  check_workspace(workspace, plan.workspace_bytes());
  const auto& places = s.steps[size_t(step)].places;
  if (!places.empty()) {
    check_present("dst", dst, plan.dst_bytes());
    check_apart("workspace", workspace, int64_t(plan.workspace_bytes()), "dst", dst, plan.dst_bytes());
  }
  return places;
}

Shape shape_of(const TransposeOp& op) {
  return Shape{op.rows, op.cols, op.ld_src, op.ld_dst, op.batch, op.stride_src, op.stride_dst};
}

}  // namespace

Plan::Plan(const Split& split, int rank, const Options& options) {
  detail::dist::Split s{split.row_offsets, split.col_offsets, split.batch, split.elem_bytes, split.ld_src,
                        split.ld_dst,      rank,              options.max_steps, options.step_bytes};
  auto schedule = std::make_shared<Schedule>();
  if (detail::Result e = detail::dist::make_schedule(s, schedule.get()); e.failed()) throw Error(e.status, e.message);
  const auto messages = [](const std::vector<detail::dist::Message>& list) {
    std::vector<Message> out;
    for (const auto& m : list) out.push_back({m.peer, m.offset, m.bytes, m.padded});
    return out;
  };
  for (const auto& step : schedule->steps) {
    sends_.push_back(messages(step.sends));
    recvs_.push_back(messages(step.recvs));
  }
  schedule_ = std::move(schedule);
}

int Plan::nranks() const { return schedule_->nranks; }
int Plan::rank() const { return schedule_->rank; }
int Plan::steps() const { return int(schedule_->steps.size()); }
size_t Plan::workspace_bytes() const { return schedule_->workspace_bytes; }
int64_t Plan::src_bytes() const { return schedule_->src_span_bytes; }
int64_t Plan::dst_bytes() const { return schedule_->dst_span_bytes; }

const std::vector<Message>& Plan::sends(int step) const {
  check_step(step, steps());
  return sends_[size_t(step)];
}

const std::vector<Message>& Plan::recvs(int step) const {
  check_step(step, steps());
  return recvs_[size_t(step)];
}

void Plan::check_buffers(const void* src, const void* dst, const void* workspace) const {
  check_present("src", src, src_bytes());
  check_present("dst", dst, dst_bytes());
  check_workspace(workspace, workspace_bytes());
  check_apart("src", src, src_bytes(), "dst", dst, dst_bytes());
  check_apart("src", src, src_bytes(), "workspace", workspace, int64_t(workspace_bytes()));
  check_apart("dst", dst, dst_bytes(), "workspace", workspace, int64_t(workspace_bytes()));
}

void Plan::transpose_own(const void* src, void* dst, cudaStream_t stream) const {
  if (!schedule_->has_own) return;
  const TransposeOp& op = schedule_->own;
  check_apart("src", src, src_bytes(), "dst", dst, dst_bytes());
  transpose(at(src, op.src_offset), at(dst, op.dst_offset), schedule_->elem_bytes, shape_of(op), stream);
}

void Plan::transpose_own(int step, const void* src, void* dst, cudaStream_t stream) const {
  check_step(step, steps());
  check_apart("src", src, src_bytes(), "dst", dst, dst_bytes());
  for (const TransposeOp& op : schedule_->steps[size_t(step)].owns)
    transpose(at(src, op.src_offset), at(dst, op.dst_offset), schedule_->elem_bytes, shape_of(op), stream);
}

void Plan::pack(int step, const void* src, void* workspace, cudaStream_t stream) const {
  check_step(step, steps());
  check_workspace(workspace, workspace_bytes());
  check_apart("src", src, src_bytes(), "workspace", workspace, int64_t(workspace_bytes()));
  for (const TransposeOp& op : schedule_->steps[size_t(step)].packs)
    transpose(at(src, op.src_offset), at(workspace, op.dst_offset), schedule_->elem_bytes, shape_of(op), stream);
}

void Plan::place(int step, const void* workspace, void* dst, cudaStream_t stream) const {
  for (const CopyOp& op : checked_places(*this, *schedule_, step, workspace, dst)) {
    const cudaError_t code =
        cudaMemcpy2DAsync(at(dst, op.dst_offset), size_t(op.dst_pitch), at(workspace, op.src_offset),
                          size_t(op.src_pitch), size_t(op.width), size_t(op.height), cudaMemcpyDeviceToDevice, stream);
    if (code != cudaSuccess) {
      cudaGetLastError();
      throw Error(XPOSE_ERROR_CUDA, std::string("cudaMemcpy2DAsync (placing a received block): ") +
                                        cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
    }
  }
}

void Plan::transpose_own_host(const void* src, void* dst) const {
  if (!schedule_->has_own) return;
  const TransposeOp& op = schedule_->own;
  check_apart("src", src, src_bytes(), "dst", dst, dst_bytes());
  transpose_host(at(src, op.src_offset), at(dst, op.dst_offset), schedule_->elem_bytes, shape_of(op));
}

void Plan::transpose_own_host(int step, const void* src, void* dst) const {
  check_step(step, steps());
  check_apart("src", src, src_bytes(), "dst", dst, dst_bytes());
  for (const TransposeOp& op : schedule_->steps[size_t(step)].owns)
    transpose_host(at(src, op.src_offset), at(dst, op.dst_offset), schedule_->elem_bytes, shape_of(op));
}

void Plan::pack_host(int step, const void* src, void* workspace) const {
  check_step(step, steps());
  check_workspace(workspace, workspace_bytes());
  check_apart("src", src, src_bytes(), "workspace", workspace, int64_t(workspace_bytes()));
  for (const TransposeOp& op : schedule_->steps[size_t(step)].packs)
    transpose_host(at(src, op.src_offset), at(workspace, op.dst_offset), schedule_->elem_bytes, shape_of(op));
}

void Plan::place_host(int step, const void* workspace, void* dst) const {
  for (const CopyOp& op : checked_places(*this, *schedule_, step, workspace, dst))
    for (int64_t i = 0; i < op.height; ++i)
      std::memcpy(at(dst, op.dst_offset + i * op.dst_pitch), at(workspace, op.src_offset + i * op.src_pitch),
                  size_t(op.width));
}

}  // namespace xpose::dist
