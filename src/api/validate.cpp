#include "api/validate.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>

#include "core/distinct.hpp"

namespace xpose::detail {
namespace {

std::string str(int64_t v) { return std::to_string(v); }

bool mul(int64_t a, int64_t b, int64_t* out) { return !__builtin_mul_overflow(a, b, out); }
bool add(int64_t a, int64_t b, int64_t* out) { return !__builtin_add_overflow(a, b, out); }

// Elements from the first to one past the last of a (batch x outer x inner) block with
// unit inner stride, or false on int64 overflow.
bool span_of(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t stride, int64_t* span) {
  int64_t a, b;
  return mul(outer - 1, ld, &a) && mul(batch - 1, stride, &b) && add(a, b, &a) && add(a, inner, span);
}

// A base must sit on its element's alignment: the element size, but 8 bytes for 16-byte
// elements (NumPy's and C's alignment of complex128 and long double pairs); the GPU moves
// those as 8-byte pairs where a base is not 16-byte aligned (api.cpp).
int64_t alignment_of(int64_t elem_bytes) { return std::min<int64_t>(elem_bytes, 8); }

std::string misaligned(const char* side, int64_t e) {
  if (e == 16) return std::string(side) + " is not aligned to 8 bytes (16-byte elements need 8)";
  return std::string(side) + " is not aligned to its element size of " + str(e) + " bytes";
}

Result overflow(const char* what) {
  return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::string(what) + " overflows int64");
}

}  // namespace

namespace {

// Counts, pitches, overflow and the normalization of pitches that address nothing: the
// arithmetic of a request, pointers aside (they are copied, unchecked).
Result resolve_extents(const Args& a, Problem* out) {
  const int64_t e = a.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "elem_bytes is " + str(e) + "; it must be 1, 2, 4, 8 or 16");
  const struct { const char* name; int64_t value; } counts[] = {
      {"rows", a.rows},     {"cols", a.cols},         {"batch", a.batch},          {"ld_src", a.ld_src},
      {"ld_dst", a.ld_dst}, {"stride_src", a.stride_src}, {"stride_dst", a.stride_dst}};
  for (const auto& c : counts)
    if (c.value < 0) return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::string(c.name) + " is negative (" + str(c.value) + ")");

  Problem p;
  p.src = a.src;
  p.dst = a.dst;
  p.rows = a.rows;
  p.cols = a.cols;
  p.elem_bytes = e;
  p.batch = a.batch;
  p.ld_src = a.ld_src ? a.ld_src : a.cols;
  p.ld_dst = a.ld_dst ? a.ld_dst : a.rows;
  if (p.ld_src < p.cols)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "ld_src (" + str(p.ld_src) + ") is smaller than cols (" + str(p.cols) + ")");
  if (p.ld_dst < p.rows)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "ld_dst (" + str(p.ld_dst) + ") is smaller than rows (" + str(p.rows) + ")");
  if (p.empty()) {
    *out = p;
    return ok();
  }

  // A batch stride of 0 is one matrix by the caller's pitch (before the normalization below).
  if (!a.stride_src && !mul(p.rows, p.ld_src, &p.stride_src)) return overflow("rows * ld_src");
  if (!a.stride_dst && !mul(p.cols, p.ld_dst, &p.stride_dst)) return overflow("cols * ld_dst");
  if (a.stride_src) p.stride_src = a.stride_src;
  if (a.stride_dst) p.stride_dst = a.stride_dst;

  int64_t total, src_span, dst_span, src_bytes, dst_bytes;
  if (!mul(p.rows, p.cols, &total) || !mul(total, p.batch, &total) || !mul(total, e, &total))
    return overflow("rows * cols * batch * elem_bytes");
  if (!span_of(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, &src_span) || !mul(src_span, e, &src_bytes))
    return overflow("the extent of src in bytes");
  if (!span_of(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, &dst_span) || !mul(dst_span, e, &dst_bytes))
    return overflow("the extent of dst in bytes");

  // Pitches that address nothing take their packed values: a single src row has no src
  // pitch, a single dst row no dst pitch, a single matrix no batch stride. The caller's
  // values there may be anything, and the kernels' checks multiply every field by the
  // element size. With one matrix's pitch in bytes checked too, every such product fits.
  if (p.rows == 1) p.ld_src = p.cols;
  if (p.cols == 1) p.ld_dst = p.rows;
  int64_t src_matrix, dst_matrix, unused;
  if (!mul(p.rows, p.ld_src, &src_matrix) || !mul(src_matrix, e, &unused))
    return overflow("rows * ld_src * elem_bytes");
  if (!mul(p.cols, p.ld_dst, &dst_matrix) || !mul(dst_matrix, e, &unused))
    return overflow("cols * ld_dst * elem_bytes");
  if (p.batch == 1) {
    p.stride_src = src_matrix;
    p.stride_dst = dst_matrix;
  }
  *out = p;
  return ok();
}

std::string index_text(int rank, const int64_t* index) {
  std::string t = "(";
  for (int i = 0; i < rank; ++i) t += (i ? ", " : "") + str(index[i]);
  return t + ")";
}

// dst's elements, each of its own: proven, disproven with two indices at one element, or
// neither within the search's bound (then refused as unproven, never as overlapping).
// `overlap` opens the message of a disproof, `subject` names the strides.
Result dst_distinct(int rank, const int64_t* extents, const int64_t* strides, const std::string& overlap,
                   const std::string& subject, const std::string& indices) {
  const detail::DistinctAnswer a = detail::distinct_elements(rank, extents, strides, kDistinctBudget);
  switch (a.verdict) {
    case detail::Distinct::yes: return ok();
    case detail::Distinct::no:
      return fail(XPOSE_ERROR_INVALID_ARGUMENT, overlap + ": with " + subject + ", " + indices + " " +
                                                    index_text(rank, a.first) + " and " + index_text(rank, a.second) +
                                                    " are one element");
    case detail::Distinct::unknown: break;
  }
  return fail(XPOSE_ERROR_INVALID_ARGUMENT,
              "cannot prove that " + subject + " give every dst element memory of its own: they do not nest, and "
              "the search for two indices at one element stopped after " + str(kDistinctBudget) +
              " steps; use strides that nest (sorted by stride, each clears what the smaller ones span)");
}

Result dst_disjoint(const Problem& p) {
  const int64_t extents[] = {p.batch, p.cols, p.rows}, strides[] = {p.stride_dst, p.ld_dst, 1};
  return dst_distinct(3, extents, strides, "dst batches overlap",
                      "stride_dst " + str(p.stride_dst) + " and ld_dst " + str(p.ld_dst),
                      "dst[b * stride_dst + j * ld_dst + i] at (b, j, i) =");
}

}  // namespace

Result resolve_shape(const Args& a, Problem* out) {
  Args shape = a;
  shape.src = nullptr;
  shape.dst = nullptr;
  Problem p;
  if (Result e = resolve_extents(shape, &p); e.failed()) return e;
  if (!p.empty())
    if (Result e = dst_disjoint(p); e.failed()) return e;
  *out = p;
  return ok();
}

Result resolve_transpose(const Args& a, Problem* out) {
  Problem p;
  if (Result e = resolve_extents(a, &p); e.failed()) return e;
  if (p.empty()) {
    *out = p;
    return ok();
  }
  if (Result e = dst_disjoint(p); e.failed()) return e;
  if (Result e = check_bases(p, a.src, a.dst); e.failed()) return e;
  *out = p;
  return ok();
}

Result check_alignment(const void* src, const void* dst, int64_t e) {
  if (reinterpret_cast<uintptr_t>(src) % uintptr_t(alignment_of(e)))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, misaligned("src", e));
  if (reinterpret_cast<uintptr_t>(dst) % uintptr_t(alignment_of(e)))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, misaligned("dst", e));
  return ok();
}

namespace {

// The checks of two bases against spans of src_bytes and dst_bytes of elem_bytes elements.
Result check_spans(const void* src, const void* dst, int64_t e, int64_t src_bytes, int64_t dst_bytes,
                  const char* verb) {
  if (!src) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "src is a null pointer");
  if (!dst) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "dst is a null pointer");
  if (Result err = check_alignment(src, dst, e); err.failed()) return err;
  const uintptr_t s = reinterpret_cast<uintptr_t>(src), d = reinterpret_cast<uintptr_t>(dst);
  if (s > UINTPTR_MAX - uintptr_t(src_bytes) || d > UINTPTR_MAX - uintptr_t(dst_bytes))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "src or dst extends past the end of the address space");
  if (s < d + uintptr_t(dst_bytes) && d < s + uintptr_t(src_bytes))
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::string("src and dst overlap; xpose ") + verb + " out of place only");
  return ok();
}

// A checked layout's bases: checked against its spans, then set (an empty layout takes any).
template <class Layout>
Result set_bases(Layout& p, const void* src, void* dst, const char* verb) {
  if (p.empty()) return ok();
  if (Result e = check_spans(src, dst, p.elem_bytes, p.src_span_bytes(), p.dst_span_bytes(), verb); e.failed())
    return e;
  p.src = src;
  p.dst = dst;
  return ok();
}

}  // namespace

Result check_bases(Problem& p, const void* src, void* dst) { return set_bases(p, src, dst, "transposes"); }
Result check_bases(Permutation& p, const void* src, void* dst) { return set_bases(p, src, dst, "permutes"); }

namespace {

Result check_pointer(const char* name, const void* ptr, const Device& dev) {
  const int device = dev.id;
  cudaPointerAttributes attr{};
  XPOSE_TRY_CUDA(cudaPointerGetAttributes(&attr, ptr));
  switch (attr.type) {
    case cudaMemoryTypeDevice:
      if (attr.device != device)
        return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::string(name) + " is memory of device " + str(attr.device) +
                                                      " but the current device is " + str(device));
      return ok();
    case cudaMemoryTypeManaged:
      return ok();
    case cudaMemoryTypeHost:
      if (attr.devicePointer == ptr) return ok();
      return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                  std::string(name) + " is pinned host memory not mapped at the same address on the device");
    default:
      if (dev.pageable_access) return ok();
      return fail(XPOSE_ERROR_INVALID_ARGUMENT,
                  std::string(name) + " is a host pointer the GPU cannot access (allocate it with cudaMalloc)");
  }
}

}  // namespace

Result check_device_pointer(const char* name, const void* ptr, const Device& d) { return check_pointer(name, ptr, d); }

Result check_device_access(const void* src, const void* dst, const Device& d) {
  if (Result e = check_pointer("src", src, d); e.failed()) return e;
  return check_pointer("dst", dst, d);
}

Result resolve_permute_layout(const PermuteArgs& a, Permutation* out) {
  const auto invalid = [](std::string message) { return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::move(message)); };
  if (a.rank < 0 || a.rank > max_rank)
    return invalid("rank is " + std::to_string(a.rank) + "; it must be 0 to " + std::to_string(max_rank));
  if (a.rank > 0 && !a.extents) return invalid("extents is a null pointer");
  if (a.rank > 0 && !a.perm) return invalid("perm is a null pointer");
  const int64_t e = a.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return invalid("elem_bytes is " + str(e) + "; it must be 1, 2, 4, 8 or 16");
  const int rank = a.rank;
  for (int i = 0; i < rank; ++i)
    if (a.extents[i] < 0) return invalid("extents[" + std::to_string(i) + "] is negative (" + str(a.extents[i]) + ")");
  bool seen[max_rank] = {};
  for (int k = 0; k < rank; ++k) {
    const int axis = a.perm[k];
    if (axis < 0 || axis >= rank)
      return invalid("perm[" + std::to_string(k) + "] is " + std::to_string(axis) + "; perm must be a permutation of 0 to " +
                     std::to_string(rank - 1));
    if (seen[axis])
      return invalid("perm[" + std::to_string(k) + "] repeats axis " + std::to_string(axis) +
                     "; perm must be a permutation of 0 to " + std::to_string(rank - 1));
    seen[axis] = true;
  }
  for (const auto& [name, strides] : {std::pair{"src_strides", a.src_strides}, std::pair{"dst_strides", a.dst_strides}})
    if (strides)
      for (int i = 0; i < rank; ++i)
        if (strides[i] < 0)
          return invalid(std::string(name) + "[" + std::to_string(i) + "] is negative (" + str(strides[i]) + ")");

  Permutation p;
  p.elem_bytes = e;
  p.rank = rank;
  for (int i = 0; i < rank; ++i) {
    p.axes[i].extent = a.extents[i];
    p.perm[i] = a.perm[i];
  }
  if (p.empty()) {
    *out = p;
    return ok();
  }
  int64_t total = e;
  for (int i = 0; i < rank; ++i)
    if (!mul(total, a.extents[i], &total)) return invalid("the element count times elem_bytes overflows int64");

  // Dense defaults (no overflow: each is a product of extents, at most the element count).
  int64_t dense = 1;
  for (int i = rank - 1; i >= 0; --i) {
    p.axes[i].src_stride = a.src_strides ? a.src_strides[i] : dense;
    dense *= a.extents[i];
  }
  dense = 1;
  int64_t dst_strides[max_rank];
  for (int k = rank - 1; k >= 0; --k) {
    dst_strides[k] = a.dst_strides ? a.dst_strides[k] : dense;
    p.axes[a.perm[k]].dst_stride = dst_strides[k];
    dense *= a.extents[a.perm[k]];
  }
  // An axis of one index addresses nothing: its strides, whatever they are, are never used.
  for (int i = 0; i < rank; ++i)
    if (p.axes[i].extent == 1) p.axes[i].src_stride = p.axes[i].dst_stride = 0;
  for (const auto& [name, stride] : {std::pair{"src", &PermAxis::src_stride}, std::pair{"dst", &PermAxis::dst_stride}}) {
    int64_t last = 0;
    for (int i = 0; i < rank; ++i) {
      int64_t step;
      if (!mul(p.axes[i].extent - 1, p.axes[i].*stride, &step) || !add(last, step, &last))
        return invalid(std::string("the extent of ") + name + " in bytes overflows int64");
    }
    if (!add(last, 1, &last) || !mul(last, e, &last))
      return invalid(std::string("the extent of ") + name + " in bytes overflows int64");
  }

  int64_t dst_extents[max_rank];
  for (int k = 0; k < rank; ++k) {
    dst_extents[k] = a.extents[a.perm[k]];
    if (dst_extents[k] == 1) dst_strides[k] = 0;
  }
  if (Result err = dst_distinct(rank, dst_extents, dst_strides, "dst strides let elements share memory",
                                "dst strides " + index_text(rank, dst_strides), "dst indices"); err.failed()) return err;
  *out = p;
  return ok();
}

Result resolve_permute(const PermuteArgs& a, Permutation* out) {
  Permutation p;
  if (Result e = resolve_permute_layout(a, &p); e.failed()) return e;
  if (Result e = check_bases(p, a.src, a.dst); e.failed()) return e;
  *out = p;
  return ok();
}

Result resolve_inplace(const InplaceArgs& a, bool with_data, InplaceProblem* out) {
  const int64_t e = a.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "elem_bytes is " + str(e) + "; it must be 1, 2, 4, 8 or 16");
  for (const auto& [name, value] : {std::pair{"rows", a.rows}, std::pair{"cols", a.cols}, std::pair{"batch", a.batch}})
    if (value < 0) return fail(XPOSE_ERROR_INVALID_ARGUMENT, std::string(name) + " is negative (" + str(value) + ")");
  InplaceProblem p;
  p.rows = a.rows, p.cols = a.cols, p.elem_bytes = e, p.batch = a.batch;
  int64_t bytes;
  if (!mul(p.rows, p.cols, &bytes) || !mul(bytes, p.batch, &bytes) || !mul(bytes, e, &bytes))
    return overflow("rows * cols * batch * elem_bytes");
  if (with_data && !p.empty()) {
    if (!a.data) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "data is a null pointer");
    if (reinterpret_cast<uintptr_t>(a.data) % uintptr_t(alignment_of(e)))
      return fail(XPOSE_ERROR_INVALID_ARGUMENT, misaligned("data", e));
    if (reinterpret_cast<uintptr_t>(a.data) > UINTPTR_MAX - uintptr_t(bytes))
      return fail(XPOSE_ERROR_INVALID_ARGUMENT, "data extends past the end of the address space");
    p.data = a.data;
  }
  *out = p;
  return ok();
}

Result check_workspace(const InplaceProblem& p, const void* workspace, size_t bytes, size_t needed) {
  if (bytes < needed)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "workspace_bytes is " + std::to_string(bytes) + "; this transpose needs " +
                                                  std::to_string(needed) + " (xpose_transpose_inplace_workspace)");
  if (needed == 0) return ok();
  if (!workspace) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "workspace is a null pointer");
  const uintptr_t w = reinterpret_cast<uintptr_t>(workspace), d = reinterpret_cast<uintptr_t>(p.data);
  if (w % 16) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "workspace is not aligned to 16 bytes");
  if (w > UINTPTR_MAX - needed) return fail(XPOSE_ERROR_INVALID_ARGUMENT, "workspace extends past the end of the address space");
  if (w < d + uintptr_t(p.bytes()) && d < w + needed)
    return fail(XPOSE_ERROR_INVALID_ARGUMENT, "workspace overlaps the matrices");
  return ok();
}

namespace {

// A span of `bytes` at p (none where p is null) for the overlap checks.
struct Span {
  const char* name;
  uintptr_t at, bytes;
};

Result quantize_recipe(const xpose_quantize_desc_t& d, layout::QuantizeRecipe* out) {
  const auto invalid = [](const std::string& m) { return fail(XPOSE_ERROR_INVALID_ARGUMENT, m); };
  if (d.format != XPOSE_FP8_E4M3 && d.format != XPOSE_FP8_E5M2)
    return invalid("desc->format is " + str(d.format) + "; it must be XPOSE_FP8_E4M3 or XPOSE_FP8_E5M2");
  if (d.scaling < XPOSE_SCALING_TENSOR_GIVEN || d.scaling > XPOSE_SCALING_MX)
    return invalid("desc->scaling is " + str(d.scaling) + "; it must be an xpose_scaling_t");
  if (d.scale_layout < XPOSE_SCALES_ROW_MAJOR || d.scale_layout > XPOSE_SCALES_TILED_128X4)
    return invalid("desc->scale_layout is " + str(d.scale_layout) + "; it must be an xpose_scale_layout_t");
  layout::QuantizeRecipe r;
  r.out = d.format == XPOSE_FP8_E4M3 ? layout::Fp8::e4m3 : layout::Fp8::e5m2;
  r.scaling = layout::Scaling(int(d.scaling));
  r.layout = layout::ScaleLayout(int(d.scale_layout));
  r.block_rows = d.block_rows, r.block_cols = d.block_cols;
  r.pow2_scales = d.pow2_scales != 0;
  r.scale = d.scale;
  if (const char* why = layout::recipe_refusal(r)) {
    const std::string text = why, prefix = "quantize: ";
    return invalid("desc: " + (text.rfind(prefix, 0) == 0 ? text.substr(prefix.size()) : text));
  }
  *out = r;
  return ok();
}

}  // namespace

Result resolve_quantize(const QuantizeArgs& a, bool with_pointers, QuantizeProblem* out) {
  const auto invalid = [](const std::string& m) { return fail(XPOSE_ERROR_INVALID_ARGUMENT, m); };
  if (!a.desc) return invalid("desc is a null pointer");
  const xpose_quantize_desc_t& d = *a.desc;
  if (d.struct_size != sizeof(xpose_quantize_desc_t))
    return invalid("desc->struct_size is " + std::to_string(d.struct_size) + "; this library's descriptor has " +
                   std::to_string(sizeof(xpose_quantize_desc_t)) + " bytes (xpose_quantize_desc_init sets it)");
  if (d.input < XPOSE_QUANTIZE_FP32 || d.input > XPOSE_QUANTIZE_FP16)
    return invalid("desc->input is " + str(d.input) + "; it must be XPOSE_QUANTIZE_FP32, _BF16 or _FP16");
  QuantizeProblem p;
  if (Result e = quantize_recipe(d, &p.recipe); e.failed()) return e;
  p.input = QuantizeInputType(int(d.input));
  for (const auto& [name, value] : {std::pair{"rows", d.rows}, std::pair{"cols", d.cols}, std::pair{"ld", d.ld}})
    if (value < 0) return invalid(std::string("desc->") + name + " is negative (" + str(value) + ")");
  p.rows = d.rows, p.cols = d.cols, p.ld = d.ld ? d.ld : d.cols;
  if (p.ld < p.cols) return invalid("desc->ld (" + str(p.ld) + ") is smaller than cols (" + str(p.cols) + ")");
  const int64_t e = input_bytes(p.input);
  int64_t x_bytes = 0, codes = 0;
  if (!p.empty()) {
    if (!mul(p.rows - 1, p.ld, &x_bytes) || !add(x_bytes, p.cols, &x_bytes) || !mul(x_bytes, e, &x_bytes))
      return overflow("the extent of x in bytes");
    if (!mul(p.rows, p.cols, &codes)) return overflow("rows * cols");
  }
  if (!with_pointers || p.empty()) {
    *out = p;
    return ok();
  }

  if (!a.x) return invalid("x is a null pointer");
  if (reinterpret_cast<uintptr_t>(a.x) % uintptr_t(e))
    return invalid("x is not aligned to its element size of " + str(e) + " bytes");
  if (!a.data && !a.data_t && !a.scales && !a.scales_t && !a.amax)
    return invalid("no output: give at least one of data, data_t, scales, scales_t and amax");
  if (p.recipe.scaling == layout::Scaling::tensor_amax && !a.amax)
    return invalid("current scaling (XPOSE_SCALING_TENSOR_AMAX) needs the amax output: x's amax is reduced there first");
  const uintptr_t scale_bytes = uintptr_t(layout::scale_bytes(p.recipe));
  if (reinterpret_cast<uintptr_t>(a.amax) % 4) return invalid("amax is not aligned to 4 bytes");
  for (const auto& [name, ptr] : {std::pair{"scales", a.scales}, std::pair{"scales_t", a.scales_t}})
    if (reinterpret_cast<uintptr_t>(ptr) % scale_bytes) return invalid(std::string(name) + " is not aligned to 4 bytes");
  const auto at = [](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr); };
  const Span spans[] = {
      {"x", at(a.x), uintptr_t(x_bytes)},
      {"data", at(a.data), uintptr_t(codes)},
      {"data_t", at(a.data_t), uintptr_t(codes)},
      {"scales", at(a.scales), uintptr_t(layout::scale_count(p.recipe, p.rows, p.cols)) * scale_bytes},
      {"scales_t", at(a.scales_t), uintptr_t(layout::scale_count(p.recipe, p.cols, p.rows)) * scale_bytes},
      {"amax", at(a.amax), 4}};
  for (const Span& s : spans)
    if (s.at && s.at > UINTPTR_MAX - s.bytes) return invalid(std::string(s.name) + " extends past the end of the address space");
  for (size_t i = 0; i < std::size(spans); ++i)
    for (size_t j = i + 1; j < std::size(spans); ++j) {
      const Span &u = spans[i], &v = spans[j];
      if (u.at && v.at && u.at < v.at + v.bytes && v.at < u.at + u.bytes)
        return invalid(std::string(u.name) + " and " + v.name + " overlap");
    }
  p.x = a.x;
  p.data = static_cast<uint8_t*>(a.data), p.data_t = static_cast<uint8_t*>(a.data_t);
  p.scales = a.scales, p.scales_t = a.scales_t, p.amax = a.amax;
  *out = p;
  return ok();
}

}  // namespace xpose::detail
