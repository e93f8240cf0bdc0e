#include "dispatch/inplace.hpp"

#include "cpu/inplace.hpp"
#include "core/device.hpp"
#include "engines/inplace/c2r.hpp"
#include "engines/inplace/inplace.hpp"
#include "engines/inplace/narrow.hpp"
#include "layout/inplace.hpp"

namespace xpose::detail {

Result plan_inplace(const InplaceProblem& p, InplacePlan* out) {
  if (const char* why = engines::inplace_refusal(p)) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  InplacePlan plan;
  plan.problem = p;
  plan.workspace_bytes = engines::inplace_workspace_bytes(p);
  if (p.trivial())
    plan.text = "nothing to move (a row, a column or no elements)";
  else if (p.rows == p.cols)
    plan.text = std::string("square tile pairs swapped across the diagonal, moved as ") + engines::inplace_path(p) +
                ", no workspace";
  else if (engines::narrow::takes(p))
    plan.text = engines::narrow::describe(p);
  else if (engines::c2r::takes(p))
    plan.text = engines::c2r::describe(p);
  else {
    const layout::InplaceShape s = layout::inplace_shape(p.rows, p.cols);
    const std::string blocks =
        s.c == 1 ? std::string("sides sharing no factor: no blocks to turn")
                 : std::to_string(s.a) + " x " + std::to_string(s.b) + " blocks of " + std::to_string(s.c) + " x " +
                       std::to_string(s.c) + " turned in place (" +
                       (std::string(engines::inplace_path(p)) == "small blocks"
                            ? std::string("each whole through shared memory")
                            : std::string("tile pairs moved as ") + engines::inplace_path(p)) +
                       ")";
    plan.text = blocks + ", then " + std::to_string(layout::unit_count(s) * p.batch) + " rows of " +
                std::to_string(s.c) + " elements moved along their cycles (in pieces of at most 1 KiB); workspace " +
                std::to_string(plan.workspace_bytes) + " bytes (a bit a piece)";
  }
  *out = std::move(plan);
  return ok();
}

Result launch_inplace(const InplacePlan& plan, void* data, void* workspace, cudaStream_t stream) {
  InplaceProblem p = plan.problem;
  p.data = data;
  Device device;
  if (Result e = current_device(&device); e.failed()) return e;
  XPOSE_TRY_CUDA(engines::transpose_inplace(p, workspace, device.sm_count, stream));
  return ok();
}

void run_inplace_on_host(const InplaceProblem& p) {
  if (!p.trivial()) cpu::transpose_inplace(p.data, p.rows, p.cols, p.elem_bytes, p.batch);
}

}  // namespace xpose::detail
