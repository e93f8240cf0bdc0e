// The validated description of one N-D permutation (xpose_permute): what the layers below
// the API read. Made only by the API's validation (api/validate.hpp).
#pragma once

#include <cstdint>

#include "layout/permute.hpp"

namespace xpose::detail {

constexpr int max_rank = 16;  // XPOSE_MAX_RANK

// Axis i of src: its extent, its stride in src, and the stride in dst of the dst axis that
// is this src axis (all in elements). Every default resolved.
using PermAxis = layout::PermuteAxis;

// dst[sum_i x_i * dst_stride_i] = src[sum_i x_i * src_stride_i] for every index x with
// 0 <= x_i < extent_i. `perm` is kept for messages and explanations (dst axis k is src axis
// perm[k]); the strides say everything a kernel needs. Unless empty: the element count,
// each side's span in bytes and every stride times elem_bytes fit in int64, no two dst
// elements share memory, src and dst do not overlap.
struct Permutation {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t elem_bytes = 0;
  int rank = 0;
  PermAxis axes[max_rank];
  int perm[max_rank] = {};

  bool empty() const {
    for (int i = 0; i < rank; ++i)
      if (axes[i].extent == 0) return true;
    return false;
  }
  int64_t elements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= axes[i].extent;
    return n;
  }
  // The axes as the host index math takes them (layout::normalize, layout::as_transpose).
  layout::PermuteAxes shape() const {
    layout::PermuteAxes s;
    s.rank = rank;
    s.elem_bytes = elem_bytes;
    for (int i = 0; i < rank; ++i) s.axes[i] = axes[i];
    return s;
  }
  // Bytes from each side's first element to one past its last; 0 when empty.
  int64_t src_span_bytes() const { return span(&PermAxis::src_stride); }
  int64_t dst_span_bytes() const { return span(&PermAxis::dst_stride); }

 private:
  int64_t span(int64_t PermAxis::*stride) const {
    if (empty()) return 0;
    int64_t last = 0;
    for (int i = 0; i < rank; ++i) last += (axes[i].extent - 1) * (axes[i].*stride);
    return (last + 1) * elem_bytes;
  }
};

}  // namespace xpose::detail
