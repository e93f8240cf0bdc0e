#include "dispatch/planner.hpp"

#include <algorithm>
#include <string>

#include "cpu/reference.hpp"
#include "dispatch/registry.hpp"
#include "engines/engines.hpp"
#include "layout/permute.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::detail {
namespace {

std::string nd_names() { return engine_names(Input::nd_form); }

// The transpose engine a name calls for: nullptr (the automatic choice) for a null name.
Result named_engine(const char* name, const Engine** out) {
  *out = nullptr;
  if (!name) return ok();
  *out = find_engine(name, Input::transpose);
  if (!*out)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                "unknown kernel " + quoted(name) + "; known: " + engine_names(Input::transpose));
  return ok();
}

uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// The widest element both bases are aligned to (at most 16 bytes).
int64_t widest_aligned(const void* src, const void* dst) {
  const uintptr_t bases = address(src) | address(dst);
  int64_t widest = 16;
  while (widest > 1 && bases % uintptr_t(widest)) widest /= 2;
  return widest;
}

// A permutation's essentials: its axes, unit axes dropped, fused and with the widest element
// both bases allow (layout/permute.hpp); 16-byte elements on an 8-byte boundary as 8-byte
// pairs (kept whole only where 16 axes that do not fuse leave no room for the pair's axis).
layout::PermuteAxes normalized(const Permutation& p) {
  const int64_t widest = widest_aligned(p.src, p.dst);
  layout::PermuteAxes s = layout::normalize(p.shape(), widest);
  if (s.elem_bytes > widest && layout::split_elements(&s, widest)) s = layout::normalize(s, widest);
  return s;
}

std::string axes_text(const layout::PermuteAxes& s) {
  std::string text = std::to_string(s.elem_bytes) + "-byte elements, axes (extent:src stride:dst stride)";
  for (int i = 0; i < s.rank; ++i)
    text += " " + std::to_string(s.axes[i].extent) + ":" + std::to_string(s.axes[i].src_stride) + ":" +
            std::to_string(s.axes[i].dst_stride);
  return text;
}

// 16-byte elements on an 8-byte boundary (NumPy's alignment of complex128): the transpose
// engines move 16-byte elements as aligned vectors, so such a transpose runs as the
// permutation it is, which the planner takes in 8-byte pairs.
bool on_pair_boundary(const Problem& p) {
  return p.elem_bytes == 16 && (address(p.src) | address(p.dst)) % 16 != 0;
}

// A checked transpose as the permutation (0, 2, 1) of its (batch, rows, cols) axes.
Permutation as_permutation(const Problem& p) {
  Permutation q;
  q.src = p.src;
  q.dst = p.dst;
  q.elem_bytes = p.elem_bytes;
  q.rank = 3;
  q.axes[0] = {p.batch, p.stride_src, p.stride_dst};
  q.axes[1] = {p.rows, p.ld_src, 1};
  q.axes[2] = {p.cols, 1, p.ld_dst};
  for (PermAxis& a : q.axes)
    if (a.extent == 1) a.src_stride = a.dst_stride = 0;  // as resolve_permute leaves them
  q.perm[0] = 0, q.perm[1] = 2, q.perm[2] = 1;
  return q;
}

// layout::as_transpose's form as the checked Problem it is.
Problem transpose_problem(const layout::TransposeForm& t, const void* src, void* dst) {
  Problem p;
  p.src = src;
  p.dst = dst;
  p.rows = t.rows, p.cols = t.cols, p.elem_bytes = t.elem_bytes;
  p.ld_src = t.ld_src, p.ld_dst = t.ld_dst;
  p.batch = t.batch;
  p.stride_src = t.batch == 1 ? t.rows * t.ld_src : t.stride_src;
  p.stride_dst = t.batch == 1 ? t.cols * t.ld_dst : t.stride_dst;
  return p;
}

// A permutation's normalized form as the transpose it is, where it is one.
bool transpose_of(const Permutation& p, const layout::PermuteAxes& reduced, Problem* out) {
  layout::TransposeForm t;
  if (!layout::as_transpose(reduced, &t)) return false;
  *out = transpose_problem(t, p.src, p.dst);
  return true;
}

// A batch whose matrices interleave: a batch stride on either side shorter than one matrix's
// span there (the batch axis lies between the rows and the columns). The 2-D engines tile
// one matrix at a time, a poor fit where a side is a few elements; such problems go to the
// N-D table (README: "Choosing a kernel").
bool interleaves(const Problem& p) {
  return p.batch > 1 && (p.stride_src < (p.rows - 1) * p.ld_src + p.cols || p.stride_dst < (p.cols - 1) * p.ld_dst + p.rows);
}

// Whether the N-D rules for what the transpose table hands over may take `c`: a general tile
// kernel (aligned_stores, cute_padded, smem_padded, or without the CuTe family the fallback
// smem_swizzled) or a vector tile (vec_swizzled, cute_vectorized_swizzled: H200 s174, 66 random
// 2-D draws, +2 to +8 on average by element size, -6.2 to +26.6) where a side is short
// (short_transpose_side_short(), rule short_transposes), or an element-wise tile kernel (cute_padded, smem_swizzled, smem_padded
// where rows are not 16-byte aligned) whatever its sides (rule filled_transposes). (smem_padded,
// the H200's rule unaligned_mid, took unaligned transposes from cute_padded: handed over only
// where a side was short, fp32 ones that fill permute_aligned_stores' blocks ran 8-14 points
// slower, H200 2026-11-29. Aligned ones, rule small_fp32's, stay.)
bool hands_over(const Problem& p, const Choice& c) {
  const Engine* e = c.plan.engine;
  bool element_wise = e == &engines::smem_swizzled ||
                      (e == &engines::smem_padded && !needs_16_byte_rows(p, "smem_padded").served());
#ifdef XPOSE_HAVE_CUTE
  element_wise = element_wise || e == &engines::cute_padded;
#endif
  bool vectors = e == &engines::vec_swizzled;
#ifdef XPOSE_HAVE_CUTE
  vectors = vectors || e == &engines::cute_vectorized_swizzled;
#endif
  if (!c.tuning || !(element_wise || vectors || e == &engines::aligned_stores)) return false;
  return element_wise ||
         short_transpose_side_short(*c.tuning, p.elem_bytes, p.cols * p.elem_bytes, p.rows * p.elem_bytes, p.bytes());
}

void classify(CallPlan* plan, const void* src, const void* dst) {
  plan->src_class = address(src) % plan_alignment;
  plan->dst_class = address(dst) % plan_alignment;
}

}  // namespace

bool transpose_form(const Permutation& p, Problem* out) { return transpose_of(p, normalized(p), out); }

Result check_kernel_name(const char* kernel, bool permutation) {
  if (permutation && kernel && find_engine(kernel, Input::nd_form)) return ok();
  const Engine* named = nullptr;
  Result e = named_engine(kernel, &named);
  if (e.failed() && permutation) e.message += "; for permutations also " + nd_names();
  return e;
}

Result plan_permute(const char* kernel, const Permutation& p, const Device& d, CallPlan* out) {
  const bool nd_named = kernel && find_engine(kernel, Input::nd_form);
  const Engine* named = nullptr;
  if (!nd_named)
    if (Result e = named_engine(kernel, &named); e.failed()) {
      e.message += "; for permutations also " + nd_names();
      return e;
    }
  CallPlan plan;
  plan.permutation = true;
  classify(&plan, p.src, p.dst);
  if (p.empty()) {
    *out = plan;
    return ok();
  }
  plan.shape = normalized(p);
  if (plan.shape.elem_bytes > widest_aligned(p.src, p.dst))
    return fail(XPOSE_ERROR_NOT_SUPPORTED, "16-byte elements on an 8-byte boundary in 16 axes that do not fuse: "
                                           "align src and dst to 16 bytes");
  Problem problem;
  const bool two_d = !nd_named && transpose_of(p, plan.shape, &problem);
  std::string why;
  if (two_d && !named && interleaves(problem) && choose_nd(plan.shape, p.src, p.dst, nullptr, d, &plan.choice, &why)) {
    *out = plan;
    return ok();
  }
  if (two_d) {
    if (Result e = named ? choose_named(*named, problem, d, &plan.choice) : choose(problem, d, &plan.choice);
        e.failed())
      return e;
    // A side of a few bytes that the table gives a general tile kernel, or rows the element-wise
    // tiles take: the N-D rules for what it hands over (short_transposes, filled_transposes).
    Choice nd;
    if (!named && hands_over(problem, plan.choice) &&
        choose_nd(plan.shape, p.src, p.dst, nullptr, d, &nd, &why, /*handed_over=*/true))
      plan.choice = nd;
    *out = plan;
    return ok();
  }
  if (named)
    return fail(XPOSE_ERROR_NOT_SUPPORTED, std::string(kernel) + " transposes batched matrices; this permutation is "
                                               "not one once normalized (" + axes_text(plan.shape) +
                                               "): name one of " + nd_names() + ", or let xpose choose");
  if (!choose_nd(plan.shape, p.src, p.dst, nd_named ? kernel : nullptr, d, &plan.choice, &why))
    return fail(XPOSE_ERROR_NOT_SUPPORTED, "this permutation (" + axes_text(plan.shape) + ") cannot be served: " + why);
  *out = plan;
  return ok();
}

Result plan_transpose(const char* kernel, const Problem& p, const Device& d, CallPlan* out) {
  const Engine* named = nullptr;
  if (Result e = named_engine(kernel, &named); e.failed()) return e;
  if (!p.empty() && on_pair_boundary(p)) {
    if (named)
      return fail(XPOSE_ERROR_NOT_SUPPORTED, std::string(kernel) + " needs 16-byte elements on a 16-byte boundary; "
                                             "these are on an 8-byte one, which only the automatic choice serves");
    if (Result e = plan_permute(nullptr, as_permutation(p), d, out); e.failed()) return e;
    out->as_pairs = true;
    return ok();
  }
  if (!p.empty() && !named && interleaves(p)) return plan_permute(nullptr, as_permutation(p), d, out);
  CallPlan plan;
  classify(&plan, p.src, p.dst);
  if (!p.empty())
    if (Result e = named ? choose_named(*named, p, d, &plan.choice) : choose(p, d, &plan.choice); e.failed()) return e;
  // What the table hands the N-D rules as a permutation it hands them as a transpose too where
  // the rule says so (short_transposes): the same layout, the same kernel through either call.
  // (filled_transposes lost on 2-D draws: fp64 every one of 10, by 10-35 points, H200.)
  if (!p.empty() && !named && hands_over(p, plan.choice)) {
    CallPlan nd;
    if (Result e = plan_permute(nullptr, as_permutation(p), d, &nd);
        !e.failed() && nd.choice.nd_rule && nd.choice.nd_rule->from_transposes) {
      *out = nd;
      return ok();
    }
  }
  *out = plan;
  return ok();
}

bool same_class(const CallPlan& plan, const void* src, const void* dst) {
  return address(src) % plan_alignment == plan.src_class && address(dst) % plan_alignment == plan.dst_class;
}

CallPlan rebased(const CallPlan& plan, const void* src, void* dst) {
  CallPlan p = plan;
  p.choice.plan.task.rebase(src, dst);
  return p;
}

Result launch(const CallPlan& plan, cudaStream_t stream) {
  if (const Engine* e = plan.choice.plan.engine) XPOSE_TRY_CUDA(e->launch(plan.choice.plan, stream));
  return ok();
}

PlanText plan_text(const CallPlan& plan) {
  PlanText t;
  const std::string normalized = plan.permutation ? "normalized to " + axes_text(plan.shape) + ", " : "";
  const std::string pairs = plan.as_pairs ? "16-byte elements on an 8-byte boundary, run as the permutation (0, 2, 1), "
                                          : "";
  const Choice& c = plan.choice;
  if (const Engine* e = c.plan.engine) {
    t.kernel = e->name;
    t.rule = c.rule ? c.rule->id : c.nd_rule ? c.nd_rule->id : "";
    t.tuning = c.tuning ? c.tuning->name : "";
    const bool nd = c.plan.task.input == Input::nd_form;
    t.text = pairs + normalized +
             (nd                 ? "an N-D permutation: "
              : plan.permutation ? "a batched 2-D transpose: "
                                 : "") +
             choice_text(c);
  } else {
    t.text = plan.permutation ? "nothing to do: the permutation is empty" : "nothing to do: the problem is empty";
  }
  return t;
}

void run_on_host(const Problem& p) {
  if (!p.empty()) cpu::transpose(p);
}

void run_on_host(const Permutation& p) {
  if (p.empty()) return;
  Problem problem;
  const layout::PermuteAxes reduced = normalized(p);
  if (transpose_of(p, reduced, &problem)) return cpu::transpose(problem);
  layout::NdForm form;
  const char* why = nullptr;
  if (layout::nd_form(reduced, &form, &why)) return cpu::permute_form(form, p.src, p.dst);
  cpu::permute(p);
}

}  // namespace xpose::detail
