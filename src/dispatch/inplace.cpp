#include "dispatch/inplace.hpp"

#include "cpu/inplace.hpp"
#include "core/device.hpp"
#include "engines/inplace/inplace.hpp"

namespace xpose::detail {

Result plan_inplace(const InplaceProblem& p, InplacePlan* out) {
  InplacePlan plan;
  plan.problem = p;
  if (p.trivial()) {
    plan.text = "nothing to move (a row, a column or no elements)";
  } else {
    const engines::InplacePath& path = engines::inplace_path_of(p);
    if (const char* why = path.refusal(p)) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
    plan.path = &path;
    plan.workspace_bytes = path.workspace_bytes(p);
    plan.text = path.describe(p);
  }
  *out = std::move(plan);
  return ok();
}

Result launch_inplace(const InplacePlan& plan, void* data, void* workspace, cudaStream_t stream) {
  InplaceProblem p = plan.problem;
  p.data = data;
  Device device;
  if (Result e = current_device(&device); e.failed()) return e;
  if (!plan.path) return ok();  // nothing to move
  XPOSE_TRY_CUDA(plan.path->transpose(p, workspace, device.sm_count, stream));
  return ok();
}

void run_inplace_on_host(const InplaceProblem& p) {
  if (!p.trivial()) cpu::transpose_inplace(p.data, p.rows, p.cols, p.elem_bytes, p.batch);
}

}  // namespace xpose::detail
