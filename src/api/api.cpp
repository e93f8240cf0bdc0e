// The C ABI and the C++ API's library functions: arguments -> checked layout and bases (api/validate)
// -> the planner's plan (dispatch/planner) -> launch; and the plan handle that keeps a plan.
#include <iterator>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "api/boundary.hpp"
#include "api/validate.hpp"
#include "core/device.hpp"
#include "core/engine.hpp"
#include "dispatch/planner.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/rules.hpp"
#include "dispatch/tuning.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::detail {

std::string& last_error_message() {
  thread_local std::string message;
  return message;
}

namespace {

// The current device, and both bases reachable from it.
Result device_for(const void* src, const void* dst, Device* out) {
  if (Result e = current_device(out); e.failed()) return e;
  return check_device_access(src, dst, *out);
}

Result run(const char* kernel, const Args& args, cudaStream_t stream) {
  if (Result e = check_kernel_name(kernel, false); e.failed()) return e;
  Problem problem;
  if (Result e = resolve_transpose(args, &problem); e.failed()) return e;
  Device device;
  CallPlan plan;
  if (!problem.empty())
    if (Result e = device_for(problem.src, problem.dst, &device); e.failed()) return e;
  if (Result e = plan_transpose(kernel, problem, device, &plan); e.failed()) return e;
  return launch(plan, stream);
}

Result run_permute(const char* kernel, const PermuteArgs& args, cudaStream_t stream) {
  if (Result e = check_kernel_name(kernel, true); e.failed()) return e;
  Permutation p;
  if (Result e = resolve_permute(args, &p); e.failed()) return e;
  Device device;
  CallPlan plan;
  if (!p.empty())
    if (Result e = device_for(p.src, p.dst, &device); e.failed()) return e;
  if (Result e = plan_permute(kernel, p, device, &plan); e.failed()) return e;
  return launch(plan, stream);
}

// A base of the class `sample` is in (modulo plan_alignment), for planning without one: the
// planner reads bases only modulo plan_alignment (NULL: an aligned base).
template <class T>
T* stand_in(T* sample, uintptr_t slot) {
  const uintptr_t rest = reinterpret_cast<uintptr_t>(sample) % plan_alignment;
  return reinterpret_cast<T*>(slot * plan_alignment + rest);
}

}  // namespace
}  // namespace xpose::detail

// A plan handle: the checked layout (bases null), the device, and the plan for bases of the
// classes it was made for. Never changed after xpose_plan_* made it.
struct xpose_plan {
  bool permutation = false;
  xpose::detail::Problem problem;      // a transpose's layout
  xpose::detail::Permutation perm;     // a permutation's
  std::string kernel;                  // empty: the automatic choice
  xpose::detail::Device device;
  xpose::detail::CallPlan plan;
  std::string text;

  bool empty() const { return permutation ? perm.empty() : problem.empty(); }
};

namespace xpose::detail {
namespace {

// The layout's plan on the current device, for bases like src and dst.
template <class Layout, class PlanFor>
Result make_plan(Layout layout, const char* kernel, const void* src, const void* dst, PlanFor plan_for,
                xpose_plan_t* out) {
  auto h = std::make_unique<xpose_plan>();
  if (!layout.empty()) {
    if (Result e = check_alignment(src, dst, layout.elem_bytes); e.failed()) return e;
    if (Result e = current_device(&h->device); e.failed()) return e;
  }
  Layout planned = layout;
  planned.src = stand_in(src, 2);
  planned.dst = stand_in(const_cast<void*>(dst), 4);
  if (Result e = plan_for(kernel, planned, h->device, &h->plan); e.failed()) return e;
  h->kernel = kernel ? kernel : "";
  h->text = plan_text(h->plan).text;
  if constexpr (std::is_same_v<Layout, Permutation>) {
    h->permutation = true;
    h->perm = layout;
  } else {
    h->problem = layout;
  }
  *out = h.release();
  return ok();
}

template <class Layout, class PlanFor>
Result execute_on(const xpose_plan& h, Layout layout, const void* src, void* dst, cudaStream_t stream,
                 PlanFor plan_for) {
  int device = 0;
  XPOSE_TRY_CUDA(cudaGetDevice(&device));
  if (device != h.device.id)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "the plan is for device " + std::to_string(h.device.id) +
                                                  " but the current device is " + std::to_string(device));
  if (Result e = check_bases(layout, src, dst); e.failed()) return e;
  if (Result e = check_device_access(src, dst, h.device); e.failed()) return e;
  if (same_class(h.plan, src, dst)) return launch(rebased(h.plan, src, dst), stream);
  CallPlan plan;  // bases of another class: the plan a call would make for them
  if (Result e = plan_for(h.kernel.empty() ? nullptr : h.kernel.c_str(), layout, h.device, &plan); e.failed())
    return e;
  return launch(plan, stream);
}

Result execute(const xpose_plan* h, const void* src, void* dst, cudaStream_t stream) {
  if (!h) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is a null pointer");
  if (h->empty()) return ok();
  return h->permutation ? execute_on(*h, h->perm, src, dst, stream, plan_permute)
                        : execute_on(*h, h->problem, src, dst, stream, plan_transpose);
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
  using namespace xpose::detail;
  return guarded(
      [&] { return run(nullptr, {src, dst, rows, cols, elem_bytes, ld_src, ld_dst, batch, stride_src, stride_dst}, stream); });
}

xpose_status_t xpose_transpose_with(const char* kernel, const void* src, void* dst, int64_t rows, int64_t cols,
                                    int64_t elem_bytes, int64_t ld_src, int64_t ld_dst, int64_t batch,
                                    int64_t stride_src, int64_t stride_dst, cudaStream_t stream) {
  using namespace xpose::detail;
  if (!kernel) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "kernel name is a null pointer"));
  return guarded(
      [&] { return run(kernel, {src, dst, rows, cols, elem_bytes, ld_src, ld_dst, batch, stride_src, stride_dst}, stream); });
}

xpose_status_t xpose_permute(const void* src, void* dst, int rank, const int64_t* extents, const int* perm,
                             int64_t elem_bytes, const int64_t* src_strides, const int64_t* dst_strides,
                             cudaStream_t stream) {
  using namespace xpose::detail;
  return guarded([&] {
    return run_permute(nullptr, {src, dst, rank, extents, perm, elem_bytes, src_strides, dst_strides}, stream);
  });
}

xpose_status_t xpose_permute_with(const char* kernel, const void* src, void* dst, int rank, const int64_t* extents,
                                  const int* perm, int64_t elem_bytes, const int64_t* src_strides,
                                  const int64_t* dst_strides, cudaStream_t stream) {
  using namespace xpose::detail;
  if (!kernel) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "kernel name is a null pointer"));
  return guarded([&] {
    return run_permute(kernel, {src, dst, rank, extents, perm, elem_bytes, src_strides, dst_strides}, stream);
  });
}

xpose_status_t xpose_plan_transpose(xpose_plan_t* plan, const char* kernel, const void* src, const void* dst,
                                    int64_t rows, int64_t cols, int64_t elem_bytes, int64_t ld_src, int64_t ld_dst,
                                    int64_t batch, int64_t stride_src, int64_t stride_dst) {
  using namespace xpose::detail;
  if (!plan) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is a null pointer"));
  *plan = nullptr;
  return guarded([&] {
    if (Result e = check_kernel_name(kernel, false); e.failed()) return e;
    Problem layout;
    if (Result e = resolve_shape({nullptr, nullptr, rows, cols, elem_bytes, ld_src, ld_dst, batch, stride_src,
                                 stride_dst}, &layout);
        e.failed())
      return e;
    return make_plan(layout, kernel, src, dst, plan_transpose, plan);
  });
}

xpose_status_t xpose_plan_permute(xpose_plan_t* plan, const char* kernel, const void* src, const void* dst, int rank,
                                  const int64_t* extents, const int* perm, int64_t elem_bytes,
                                  const int64_t* src_strides, const int64_t* dst_strides) {
  using namespace xpose::detail;
  if (!plan) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "plan is a null pointer"));
  *plan = nullptr;
  return guarded([&] {
    if (Result e = check_kernel_name(kernel, true); e.failed()) return e;
    Permutation layout;
    if (Result e = resolve_permute_layout({nullptr, nullptr, rank, extents, perm, elem_bytes, src_strides, dst_strides},
                                         &layout);
        e.failed())
      return e;
    return make_plan(layout, kernel, src, dst, plan_permute, plan);
  });
}

xpose_status_t xpose_plan_execute(xpose_plan_t plan, const void* src, void* dst, cudaStream_t stream) {
  using namespace xpose::detail;
  return guarded([&] { return execute(plan, src, dst, stream); });
}

const char* xpose_plan_explain(xpose_plan_t plan) { return plan ? plan->text.c_str() : ""; }

void xpose_plan_destroy(xpose_plan_t plan) { delete plan; }

const char* xpose_status_string(xpose_status_t status) {
  switch (status) {
    case XPOSE_SUCCESS: return "success";
    case XPOSE_ERROR_INVALID_ARGUMENT: return "invalid argument";
    case XPOSE_ERROR_NOT_SUPPORTED: return "not supported";
    case XPOSE_ERROR_CUDA: return "CUDA error";
  }
  return "unknown status";
}

const char* xpose_last_error(void) { return xpose::detail::last_error_message().c_str(); }

#define XPOSE_STRINGIFY_(x) #x
#define XPOSE_STRINGIFY(x) XPOSE_STRINGIFY_(x)
const char* xpose_version(void) {
  return XPOSE_STRINGIFY(XPOSE_VERSION_MAJOR) "." XPOSE_STRINGIFY(XPOSE_VERSION_MINOR) "." XPOSE_STRINGIFY(
      XPOSE_VERSION_PATCH);
}

}  // extern "C"

namespace xpose {

std::vector<KernelInfo> kernel_list() {
  std::vector<KernelInfo> list;
  for (const detail::Engine* e : detail::engines(detail::Input::transpose)) list.push_back({e->name, e->summary});
  return list;
}

std::vector<KernelInfo> permute_kernel_list() {
  std::vector<KernelInfo> list;
  for (const detail::Engine* e : detail::engines(detail::Input::nd_form)) list.push_back({e->name, e->summary});
  return list;
}

Layout resolve(int64_t elem_bytes, const Shape& shape) {
  detail::Problem p;
  detail::throw_if_failed(detail::resolve_shape(detail::args_of(nullptr, nullptr, elem_bytes, shape), &p));
  Layout l;
  l.shape = Shape{p.rows, p.cols, p.ld_src, p.ld_dst, p.batch, p.stride_src, p.stride_dst};
  l.elem_bytes = p.elem_bytes;
  l.bytes = p.bytes();
  l.src_span_bytes = p.src_span_bytes();
  l.dst_span_bytes = p.dst_span_bytes();
  return l;
}

namespace {

Explanation explanation_of(const detail::CallPlan& plan) {
  detail::PlanText t = detail::plan_text(plan);
  return {std::move(t.kernel), std::move(t.rule), std::move(t.tuning), std::move(t.text)};
}

// The plan a call would make: its checks, the device's, and the choice.
template <class Layout, class PlanFor>
Explanation explain_call(const Layout& layout, const char* kernel, PlanFor&& plan_for) {
  if (kernel && !*kernel) kernel = nullptr;
  detail::Device device;
  if (!layout.empty()) detail::throw_if_failed(detail::device_for(layout.src, layout.dst, &device));
  detail::CallPlan plan;
  detail::throw_if_failed(plan_for(kernel, layout, device, &plan));
  return explanation_of(plan);
}

}  // namespace

Explanation explain_choice(const void* src, void* dst, int64_t elem_bytes, const Shape& shape, const char* kernel) {
  detail::throw_if_failed(detail::check_kernel_name(kernel && *kernel ? kernel : nullptr, false));
  detail::Problem problem;
  detail::throw_if_failed(detail::resolve_transpose(detail::args_of(src, dst, elem_bytes, shape), &problem));
  return explain_call(problem, kernel, detail::plan_transpose);
}

std::string explain(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  return explain_choice(src, dst, elem_bytes, shape).text;
}

std::vector<RuleInfo> rules() {
  std::vector<RuleInfo> list;
  for (const detail::Rule& r : detail::rules()) {
    const detail::Engine* e = detail::find_engine(r.engine_name, detail::Input::transpose);
    list.push_back({r.id, r.engine_name, r.condition, r.reason, e ? e->launch_text : "", r.engine != nullptr});
  }
  return list;
}

std::vector<RuleInfo> permute_rules() {
  std::vector<RuleInfo> list;
  for (const detail::NdRule& r : detail::nd_rules()) {
    list.push_back({r.id, r.engine->name, r.condition, r.reason, r.engine->summary, true});
  }
  return list;
}

std::vector<TuningParameter> tuning_parameters() {
  std::vector<TuningParameter> list;
  for (const detail::TuningField& f : detail::tuning_fields()) list.push_back({f.name, f.meaning, f.bytes});
  return list;
}

std::vector<TuningRecord> tuning_records() {
  std::vector<TuningRecord> list;
  for (const detail::Tuning& t : detail::tunings()) {
    TuningRecord r{t.name, t.selects, {}};
    for (const detail::TuningField& f : detail::tuning_fields()) r.values.push_back(t.*f.value);
    list.push_back(r);
  }
  return list;
}

std::string current_tuning() {
  detail::Device d;
  detail::throw_if_failed(detail::current_device(&d));
  return detail::tuning_for(d).name;
}

namespace {

detail::PermuteArgs permute_args(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& s) {
  return {src,           dst,
          int(s.extents.size()), s.extents.data(),
          s.perm.data(), elem_bytes,
          s.src_strides.empty() ? nullptr : s.src_strides.data(),
          s.dst_strides.empty() ? nullptr : s.dst_strides.data()};
}

}  // namespace

Explanation explain_permute(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& shape,
                            const char* kernel) {
  check_sizes(shape);
  detail::throw_if_failed(detail::check_kernel_name(kernel && *kernel ? kernel : nullptr, true));
  detail::Permutation p;
  detail::throw_if_failed(detail::resolve_permute(permute_args(src, dst, elem_bytes, shape), &p));
  return explain_call(p, kernel, detail::plan_permute);
}

void permute_host(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& shape) {
  check_sizes(shape);
  detail::Permutation p;
  detail::throw_if_failed(detail::resolve_permute(permute_args(src, dst, elem_bytes, shape), &p));
  detail::run_on_host(p);
}

void transpose_host(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  detail::Problem problem;
  detail::throw_if_failed(detail::resolve_transpose(detail::args_of(src, dst, elem_bytes, shape), &problem));
  detail::run_on_host(problem);
}

}  // namespace xpose
