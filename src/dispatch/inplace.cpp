#include "dispatch/inplace.hpp"

#include "cpu/inplace.hpp"
#include "engines/inplace/inplace.hpp"

namespace xpose::detail {

Result plan_inplace(const InplaceProblem& p, InplacePlan* out) {
  if (const char* why = engines::inplace_refusal(p)) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  InplacePlan plan;
  plan.problem = p;
  plan.workspace_bytes = engines::inplace_workspace_bytes(p);
  plan.text = p.trivial() ? "nothing to move (a row, a column or no elements)"
                          : std::string("square tile pairs swapped across the diagonal, moved as ") +
                                engines::inplace_path(p) + ", no workspace";
  *out = std::move(plan);
  return ok();
}

Result launch_inplace(const InplacePlan& plan, void* data, void* workspace, cudaStream_t stream) {
  InplaceProblem p = plan.problem;
  p.data = data;
  XPOSE_TRY_CUDA(engines::transpose_inplace(p, workspace, stream));
  return ok();
}

void run_inplace_on_host(const InplaceProblem& p) {
  if (!p.trivial()) cpu::transpose_inplace(p.data, p.rows, p.cols, p.elem_bytes, p.batch);
}

}  // namespace xpose::detail
