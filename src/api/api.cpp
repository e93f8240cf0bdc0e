// The C ABI and the C++ API's library functions: arguments -> validated Problem -> the
// rule table's (or the caller's) engine -> its plan -> launch.
#include <iterator>
#include <new>
#include <string>

#include "api/validate.hpp"
#include "core/device.hpp"
#include "core/engine.hpp"
#include "cpu/reference.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/rules.hpp"
#include "dispatch/tuning.hpp"
#include "engines/permute_nd.hpp"
#include "layout/permute.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::detail {
namespace {

thread_local std::string last_error_message;

xpose_status_t report(const Error& e) {
  if (e.failed()) last_error_message = e.message;
  return e.status;
}

// The engine a name calls for: nullptr (the automatic choice) for a null name.
Error named_engine(const char* name, const Engine** out) {
  *out = nullptr;
  if (!name) return ok();
  *out = find_engine(name);
  if (!*out)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "unknown kernel " + quoted(name) + "; known: " + engine_names());
  return ok();
}

// Everything short of the launch, for a resolved problem: `named` null means the automatic
// choice. An empty problem succeeds here with no plan (out->plan.engine stays null).
Error choose_for(const Engine* named, const Problem& problem, Choice* out) {
  if (problem.empty()) return ok();
  Device device;
  if (Error e = current_device(&device); e.failed()) return e;
  if (Error e = check_device_access(problem.src, problem.dst, device); e.failed()) return e;
  return named ? choose_named(*named, problem, device, out) : choose(problem, device, out);
}

// 16-byte elements on an 8-byte boundary (NumPy's alignment of complex128): the transpose
// engines move 16-byte elements as aligned vectors, so such a transpose runs as the
// permutation it is, which the planner takes in 8-byte pairs.
bool on_pair_boundary(const Problem& p) {
  return p.elem_bytes == 16 && (reinterpret_cast<uintptr_t>(p.src) | reinterpret_cast<uintptr_t>(p.dst)) % 16 != 0;
}

struct TransposeAsPermute {
  int64_t extents[3], src_strides[3], dst_strides[3];
  int perm[3] = {0, 2, 1};
  PermuteArgs args;
  explicit TransposeAsPermute(const Problem& p)
      : extents{p.batch, p.rows, p.cols}, src_strides{p.stride_src, p.ld_src, 1}, dst_strides{p.stride_dst, p.ld_dst, 1},
        args{p.src, p.dst, 3, extents, perm, p.elem_bytes, src_strides, dst_strides} {}
  TransposeAsPermute(const TransposeAsPermute&) = delete;
};

Error refuse_named_pairs(const char* name) {
  return fail(XPOSE_ERROR_NOT_SUPPORTED, std::string(name) + " needs 16-byte elements on a 16-byte boundary; these "
                                             "are on an 8-byte one, which only the automatic choice serves");
}

// The widest element both bases of a permutation are aligned to (at most 16 bytes).
int64_t widest_aligned(const Permutation& p) {
  const uintptr_t bases = reinterpret_cast<uintptr_t>(p.src) | reinterpret_cast<uintptr_t>(p.dst);
  int64_t widest = 16;
  while (widest > 1 && bases % uintptr_t(widest)) widest /= 2;
  return widest;
}

// A permutation's essentials: its axes, unit axes dropped, fused and with the widest element
// both bases allow (layout/permute.hpp); 16-byte elements on an 8-byte boundary as 8-byte
// pairs (kept whole only where 16 axes that do not fuse leave no room for the pair's axis).
layout::PermuteShape normalized(const Permutation& p) {
  const int64_t widest = widest_aligned(p);
  layout::PermuteShape s = layout::normalize(p.shape(), widest);
  if (s.elem_bytes > widest && layout::split_elements(&s, widest)) s = layout::normalize(s, widest);
  return s;
}

std::string axes_text(const layout::PermuteShape& s) {
  std::string text = std::to_string(s.elem_bytes) + "-byte elements, axes (extent:src stride:dst stride)";
  for (int i = 0; i < s.rank; ++i)
    text += " " + std::to_string(s.axes[i].extent) + ":" + std::to_string(s.axes[i].src_stride) + ":" +
            std::to_string(s.axes[i].dst_stride);
  return text;
}

// The transpose a permutation is once reduced, where it is one (a copy is the transpose of a
// single row): false where its reduced form has no 2-D equivalent xpose_transpose accepts.
bool transpose_of(const Permutation& p, const layout::PermuteShape& reduced, Problem* out) {
  layout::TransposeForm t;
  return layout::as_transpose(reduced, &t) &&
         !resolve(Args{p.src, p.dst, t.rows, t.cols, t.elem_bytes, t.ld_src, t.ld_dst, t.batch, t.stride_src,
                       t.stride_dst},
                  out)
              .failed();
}

std::string nd_names() {
  std::string text;
  for (const char* n : nd_kernel_names) text += std::string(text.empty() ? "" : ", ") + n;
  return text;
}

// What a permutation runs: a transpose engine's plan (through the rule table, where its
// normalized form is a batched 2-D transpose or a copy) or an N-D kernel's.
struct PermuteChoice {
  Choice transpose;
  NdPlan nd;  // nd.kernel null: the transpose's
  layout::PermuteShape shape;  // the normalized form
};

// The N-D kernels serve any permutation xpose_transpose's form cannot say (more axes, a
// broadcast axis, ...); a named transpose engine serves only that form.
Error prepare_permute(const char* name, const PermuteArgs& args, PermuteChoice* out) {
  const bool nd_named = name && is_nd_kernel(name);
  const Engine* named = nullptr;
  if (!nd_named)
    if (Error e = named_engine(name, &named); e.failed()) {
      e.message += "; for permutations also " + nd_names();
      return e;
    }
  Permutation p;
  if (Error e = resolve_permute(args, &p); e.failed() || p.empty()) return e;
  Device device;
  if (Error e = current_device(&device); e.failed()) return e;
  if (Error e = check_device_access(p.src, p.dst, device); e.failed()) return e;
  out->shape = normalized(p);
  if (out->shape.elem_bytes > widest_aligned(p))
    return fail(XPOSE_ERROR_NOT_SUPPORTED, "16-byte elements on an 8-byte boundary in 16 axes that do not fuse: "
                                           "align src and dst to 16 bytes");
  Problem problem;
  if (!nd_named && transpose_of(p, out->shape, &problem))
    return named ? choose_named(*named, problem, device, &out->transpose) : choose(problem, device, &out->transpose);
  if (named)
    return fail(XPOSE_ERROR_NOT_SUPPORTED, std::string(name) + " transposes batched matrices; this permutation is "
                                               "not one once normalized (" + axes_text(out->shape) +
                                               "): name one of " + nd_names() + ", or let xpose choose");
  std::string why;
  if (!plan_nd(out->shape, p.src, p.dst, nd_named ? name : nullptr, &out->nd, &why))
    return fail(XPOSE_ERROR_NOT_SUPPORTED, "this permutation (" + axes_text(out->shape) + ") cannot be served: " + why);
  return ok();
}

Error launch(const Choice& choice, cudaStream_t stream) {
  if (!choice.plan.engine) return ok();  // an empty problem: nothing to launch
  XPOSE_TRY_CUDA(choice.plan.engine->launch(choice.plan, stream));
  return ok();
}

Error run_permute(const char* name, const PermuteArgs& args, cudaStream_t stream) {
  PermuteChoice choice;
  if (Error e = prepare_permute(name, args, &choice); e.failed()) return e;
  if (choice.nd.kernel) {
    XPOSE_TRY_CUDA(launch_nd(choice.nd, stream));
    return ok();
  }
  return launch(choice.transpose, stream);
}

Error run(const char* name, const Args& args, cudaStream_t stream) {
  const Engine* named = nullptr;
  if (Error e = named_engine(name, &named); e.failed()) return e;
  Problem problem;
  if (Error e = resolve(args, &problem); e.failed()) return e;
  if (!problem.empty() && on_pair_boundary(problem)) {
    if (named) return refuse_named_pairs(name);
    return run_permute(nullptr, TransposeAsPermute(problem).args, stream);
  }
  Choice choice;
  if (Error e = choose_for(named, problem, &choice); e.failed()) return e;
  return launch(choice, stream);
}

// The C ABI's wall: no exception crosses it.
template <class F>
xpose_status_t guarded(F&& f) {
  try {
    return report(f());
  } catch (const std::bad_alloc&) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, "out of host memory"));
  } catch (const std::exception& e) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, std::string("internal error: ") + e.what()));
  }
}

Args args_of(const void* src, void* dst, int64_t elem_bytes, const xpose::Shape& s) {
  return Args{src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst, s.batch, s.stride_src, s.stride_dst};
}

void throw_if_failed(const Error& e) {
  if (e.failed()) throw xpose::Error(e.status, e.message);
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
  for (const detail::Engine* e : detail::engines()) list.push_back({e->name, e->summary});
  return list;
}

std::vector<KernelInfo> permute_kernel_list() {
  std::vector<KernelInfo> list;
  for (size_t i = 0; i < std::size(detail::nd_kernel_names); ++i)
    list.push_back({detail::nd_kernel_names[i], detail::nd_kernel_summaries[i]});
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

Explanation explain_choice(const void* src, void* dst, int64_t elem_bytes, const Shape& shape, const char* kernel) {
  const char* name = kernel && *kernel ? kernel : nullptr;
  const detail::Engine* named = nullptr;
  detail::throw_if_failed(detail::named_engine(name, &named));
  detail::Problem problem;
  detail::throw_if_failed(detail::resolve(detail::args_of(src, dst, elem_bytes, shape), &problem));
  if (!problem.empty() && detail::on_pair_boundary(problem)) {
    if (named) detail::throw_if_failed(detail::refuse_named_pairs(name));
    const detail::TransposeAsPermute t(problem);
    const PermuteShape as_permute{{t.extents, t.extents + 3}, {t.perm, t.perm + 3},
                                  {t.src_strides, t.src_strides + 3}, {t.dst_strides, t.dst_strides + 3}};
    Explanation e = explain_permute(src, dst, elem_bytes, as_permute);
    e.text = "16-byte elements on an 8-byte boundary, run as the permutation (0, 2, 1), " + e.text;
    return e;
  }
  detail::Choice choice;
  detail::throw_if_failed(detail::choose_for(named, problem, &choice));
  if (!choice.plan.engine) return {"", "", "", "nothing to do: the problem is empty"};
  return {choice.plan.engine->name, choice.rule ? choice.rule->id : "", choice.tuning ? choice.tuning->name : "",
          detail::explain(choice)};
}

std::string explain(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  return explain_choice(src, dst, elem_bytes, shape).text;
}

std::vector<RuleInfo> rules() {
  std::vector<RuleInfo> list;
  for (const detail::Rule& r : detail::rules()) {
    const detail::Engine* e = detail::find_engine(r.engine_name);
    list.push_back({r.id, r.engine_name, r.condition, r.reason, e ? e->launch_text : "", r.engine != nullptr});
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
  detail::PermuteChoice c;
  detail::throw_if_failed(
      detail::prepare_permute(kernel && *kernel ? kernel : nullptr, permute_args(src, dst, elem_bytes, shape), &c));
  const std::string normalized = "normalized to " + detail::axes_text(c.shape);
  if (c.nd.kernel) return {c.nd.kernel, "", "", normalized + ", an N-D permutation: " + detail::describe(c.nd)};
  const detail::Choice& t = c.transpose;
  if (!t.plan.engine) return {"", "", "", "nothing to do: the permutation is empty"};
  return {t.plan.engine->name, t.rule ? t.rule->id : "", t.tuning ? t.tuning->name : "",
          normalized + ", a batched 2-D transpose: " + detail::explain(t)};
}

void permute_host(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& shape) {
  check_sizes(shape);
  detail::Permutation p;
  detail::throw_if_failed(detail::resolve_permute(permute_args(src, dst, elem_bytes, shape), &p));
  if (p.empty()) return;
  // Where the reduced permutation is a transpose, the cache-blocked 2-D reference runs it;
  // other reduced forms go through the N-D kernels' form in cache-sized tiles.
  detail::Problem problem;
  const layout::PermuteShape reduced = detail::normalized(p);
  if (detail::transpose_of(p, reduced, &problem)) return cpu::transpose(problem);
  layout::NdForm form;
  const char* why = nullptr;
  if (layout::nd_form(reduced, &form, &why)) return cpu::permute_form(form, p.src, p.dst);
  cpu::permute(p);
}

void transpose_host(const void* src, void* dst, int64_t elem_bytes, const Shape& shape) {
  detail::Problem problem;
  detail::throw_if_failed(detail::resolve(detail::args_of(src, dst, elem_bytes, shape), &problem));
  cpu::transpose(problem);
}

}  // namespace xpose
