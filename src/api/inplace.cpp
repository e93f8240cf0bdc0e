// The C ABI's in-place transposition: arguments -> a checked InplaceProblem (api/validate) ->
// its plan (dispatch/inplace) -> launch; and the C++ API's explain and CPU path.
#include "api/boundary.hpp"
#include "api/validate.hpp"
#include "core/device.hpp"
#include "dispatch/inplace.hpp"

namespace xpose::detail {
namespace {

Result run_inplace(const InplaceArgs& args, void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  InplaceProblem p;
  if (Result e = resolve_inplace(args, true, &p); e.failed()) return e;
  InplacePlan plan;
  if (Result e = plan_inplace(p, &plan); e.failed()) return e;
  if (p.trivial()) return ok();
  Device device;
  if (Result e = current_device(&device); e.failed()) return e;
  if (Result e = check_device_pointer("data", p.data, device); e.failed()) return e;
  if (Result e = check_workspace(p, workspace, workspace_bytes, plan.workspace_bytes); e.failed()) return e;
  if (plan.workspace_bytes)
    if (Result e = check_device_pointer("workspace", workspace, device); e.failed()) return e;
  return launch_inplace(plan, p.data, workspace, stream);
}

}  // namespace
}  // namespace xpose::detail

extern "C" {

xpose_status_t xpose_transpose_inplace(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch,
                                       void* workspace, size_t workspace_bytes, cudaStream_t stream) {
  using namespace xpose::detail;
  return guarded([&] { return run_inplace({data, rows, cols, elem_bytes, batch}, workspace, workspace_bytes, stream); });
}

xpose_status_t xpose_transpose_inplace_workspace(int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch,
                                                 size_t* bytes) {
  using namespace xpose::detail;
  if (!bytes) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "bytes is a null pointer"));
  return guarded([&] {
    InplaceProblem p;
    if (Result e = resolve_inplace({nullptr, rows, cols, elem_bytes, batch}, false, &p); e.failed()) return e;
    InplacePlan plan;
    if (Result e = plan_inplace(p, &plan); e.failed()) return e;
    *bytes = plan.workspace_bytes;
    return ok();
  });
}

}  // extern "C"

namespace xpose {

std::string explain_inplace(int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch, const void* data) {
  detail::InplaceProblem p;
  detail::throw_if_failed(detail::resolve_inplace({nullptr, rows, cols, elem_bytes, batch}, false, &p));
  p.data = const_cast<void*>(data);
  detail::InplacePlan plan;
  detail::throw_if_failed(detail::plan_inplace(p, &plan));
  return plan.text;
}

void transpose_inplace_host(void* data, int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch) {
  detail::InplaceProblem p;
  detail::throw_if_failed(detail::resolve_inplace({data, rows, cols, elem_bytes, batch}, true, &p));
  detail::run_inplace_on_host(p);
}

}  // namespace xpose
