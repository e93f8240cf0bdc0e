// The C ABI and the C++ API's library functions: arguments -> Problem -> Plan -> launch.
#include <new>
#include <string>

#include "cpu/reference.hpp"
#include "cuda_check.hpp"
#include "plan.hpp"
#include "problem.hpp"
#include "registry.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::detail {
namespace {

thread_local std::string last_error_message;

xpose_status_t report(const Error& e) {
  if (e.failed()) last_error_message = e.message;
  return e.status;
}

// Everything short of the launch. `name` null means the automatic choice. An empty
// problem succeeds here with no plan (plan->kernel stays null).
Error prepare(const char* name, const Args& args, Problem* problem, Plan* plan) {
  const Kernel* named = nullptr;
  if (name) {
    if (copy_kernel_name == name)
      return fail(XPOSE_ERROR_NOT_SUPPORTED, "copy is the benchmark's copy ceiling, not a transpose");
    named = find_kernel(name);
    if (!named)
      return fail(XPOSE_ERROR_INVALID_ARGUMENT, "unknown kernel '" + std::string(name) + "'; known: " + kernel_names());
  }
  if (Error e = resolve(args, problem); e.failed() || problem->empty()) return e;
  if (Error e = check_device_access(*problem); e.failed()) return e;
  Device device;
  if (Error e = current_device(&device); e.failed()) return e;
  return named ? plan_named(*named, *problem, device, plan) : plan_auto(*problem, device, plan);
}

Error run(const char* name, const Args& args, cudaStream_t stream) {
  Problem problem;
  Plan plan;
  if (Error e = prepare(name, args, &problem, &plan); e.failed() || !plan.kernel) return e;
  XPOSE_TRY_CUDA(plan.kernel->launch(problem, plan.launch, stream));
  return ok();
}

xpose_status_t guarded(const char* name, const Args& args, cudaStream_t stream) {
  try {
    return report(run(name, args, stream));
  } catch (const std::bad_alloc&) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, "out of host memory"));
  } catch (const std::exception& e) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, std::string("internal error: ") + e.what()));
  }
}

Args args_of(const void* src, void* dst, int64_t elem_bytes, const xpose::Shape& s) {
  return Args{src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst, s.batch, s.stride_src, s.stride_dst};
}

}  // namespace
}  // namespace xpose::detail

extern "C" {

xpose_status_t xpose_transpose(const void* src, void* dst, int64_t rows, int64_t cols, int64_t elem_bytes,
                               int64_t ld_src, int64_t ld_dst, int64_t batch, int64_t stride_src,
                               int64_t stride_dst, cudaStream_t stream) {
  return xpose::detail::guarded(
      nullptr, {src, dst, rows, cols, elem_bytes, ld_src, ld_dst, batch, stride_src, stride_dst}, stream);
}

xpose_status_t xpose_transpose_with(const char* kernel, const void* src, void* dst, int64_t rows, int64_t cols,
                                    int64_t elem_bytes, int64_t ld_src, int64_t ld_dst, int64_t batch,
                                    int64_t stride_src, int64_t stride_dst, cudaStream_t stream) {
  if (!kernel) {
    xpose::detail::last_error_message = "kernel name is a null pointer";
    return XPOSE_ERROR_INVALID_ARGUMENT;
  }
  return xpose::detail::guarded(
      kernel, {src, dst, rows, cols, elem_bytes, ld_src, ld_dst, batch, stride_src, stride_dst}, stream);
}

const char* xpose_status_string(xpose_status_t status) {
  switch (status) {
    case XPOSE_SUCCESS: return "success";
    case XPOSE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case XPOSE_ERROR_NOT_SUPPORTED: return "not supported";
    case XPOSE_ERROR_CUDA: return "CUDA error";
  }
  return "unknown status";
}

const char* xpose_last_error(void) { return xpose::detail::last_error_message.c_str(); }

}  // extern "C"

namespace xpose {

std::vector<KernelInfo> kernel_list() {
  std::vector<KernelInfo> list;
  for (const detail::Kernel* k : detail::transpose_kernels()) list.push_back({k->name, k->summary, true});
  list.push_back({std::string(detail::copy_kernel_name), "16-byte-vector device copy: the benchmark's ceiling", false});
  return list;
}

std::string explain(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  detail::Problem problem;
  detail::Plan plan;
  const detail::Error e = detail::prepare(nullptr, detail::args_of(src, dst, elem_bytes, shape), &problem, &plan);
  if (e.failed()) throw Error(e.status, e.message);
  return plan.kernel ? detail::describe(plan) : "nothing to do: the problem is empty";
}

void transpose_host(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  detail::Problem problem;
  const detail::Error e = detail::resolve(detail::args_of(src, dst, elem_bytes, shape), &problem);
  if (e.failed()) throw Error(e.status, e.message);
  cpu::transpose(problem);
}

}  // namespace xpose
