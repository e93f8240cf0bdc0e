// A permutation reduced to its essentials, on the host: the index math xpose_permute plans
// with, and the CPU tests replay. An N-D permutation is a set of axes, each an extent with a
// stride on each side (elements); the dst order is in the strides.
//   normalize       drop axes of one index; fuse two axes that stay adjacent and in order on
//                   both sides (one's strides are the other's times its extent); fold an axis
//                   contiguous on both sides into a wider element, up to 16 bytes
//   split_elements  the same permutation in narrower elements (a base off the element's alignment)
//   as_transpose    the normalized permutation as xpose_transpose's (batched) 2-D transpose,
//                   where it is one
#pragma once

#include <algorithm>
#include <cstdint>

namespace xpose::layout {

struct PermuteAxis {
  int64_t extent = 1, src_stride = 0, dst_stride = 0;
};

struct PermuteAxes {
  int rank = 0;
  int64_t elem_bytes = 1;
  PermuteAxis axes[16];
};

// Axis `outer` and axis `inner` address the same elements as one axis of extent
// outer.extent * inner.extent with inner's strides.
constexpr bool fusable(const PermuteAxis& outer, const PermuteAxis& inner) {
  return outer.src_stride == inner.extent * inner.src_stride && outer.dst_stride == inner.extent * inner.dst_stride;
}

// `max_elem_bytes`: the widest element both bases are aligned to (a power of two, at most 16).
// The axes come out in src order (src strides descending; ties broken by dst strides).
inline PermuteAxes normalize(const PermuteAxes& in, int64_t max_elem_bytes = 16) {
  PermuteAxes s;
  s.elem_bytes = in.elem_bytes;
  for (int i = 0; i < in.rank; ++i)
    if (in.axes[i].extent != 1) s.axes[s.rank++] = in.axes[i];
  for (bool fused = true; fused;) {
    fused = false;
    for (int a = 0; a < s.rank && !fused; ++a)
      for (int b = 0; b < s.rank && !fused; ++b)
        if (a != b && fusable(s.axes[a], s.axes[b])) {
          s.axes[b].extent *= s.axes[a].extent;
          s.axes[a] = s.axes[--s.rank];
          fused = true;
        }
  }
  // Fold the axis contiguous on both sides into the element: the largest factor f of its
  // extent that keeps the element a power of two of at most max_elem_bytes and divides every
  // other stride (then each such stride still lands on a whole element).
  for (int c = 0; c < s.rank; ++c) {
    PermuteAxis& axis = s.axes[c];
    if (axis.src_stride != 1 || axis.dst_stride != 1) continue;
    int64_t f = 1;
    for (int64_t g = 2; g * s.elem_bytes <= max_elem_bytes && axis.extent % g == 0; g *= 2) {
      bool divides = true;
      for (int i = 0; i < s.rank; ++i)
        if (i != c && (s.axes[i].src_stride % g || s.axes[i].dst_stride % g)) divides = false;
      if (!divides) break;
      f = g;
    }
    if (f == 1) break;
    s.elem_bytes *= f;
    axis.extent /= f;
    for (int i = 0; i < s.rank; ++i)
      if (i != c) s.axes[i].src_stride /= f, s.axes[i].dst_stride /= f;
    if (axis.extent == 1) s.axes[c] = s.axes[--s.rank];
    break;
  }
  std::sort(s.axes, s.axes + s.rank, [](const PermuteAxis& a, const PermuteAxis& b) {
    return a.src_stride != b.src_stride ? a.src_stride > b.src_stride : a.dst_stride > b.dst_stride;
  });
  return s;
}

// The same permutation in elements of `elem_bytes` (a power of two below s.elem_bytes): every
// stride scaled by the split, and an axis of the split's extent contiguous on both sides;
// normalize() fuses it with an axis that continues it. False where no axis is left for it.
inline bool split_elements(PermuteAxes* s, int64_t elem_bytes) {
  if (s->elem_bytes <= elem_bytes) return true;
  if (s->rank == 16) return false;
  const int64_t f = s->elem_bytes / elem_bytes;
  for (int i = 0; i < s->rank; ++i) s->axes[i].src_stride *= f, s->axes[i].dst_stride *= f;
  s->axes[s->rank++] = {f, 1, 1};
  s->elem_bytes = elem_bytes;
  return true;
}

// xpose_transpose's arguments: dst[b*stride_dst + j*ld_dst + i] = src[b*stride_src + i*ld_src + j].
struct TransposeForm {
  int64_t rows = 1, cols = 1, elem_bytes = 1;
  int64_t ld_src = 1, ld_dst = 1;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

// a * b * c fits in int64 (all non-negative).
inline bool product_fits(int64_t a, int64_t b, int64_t c) {
  int64_t ab, abc;
  return !__builtin_mul_overflow(a, b, &ab) && !__builtin_mul_overflow(ab, c, &abc);
}

// A normalized permutation as a transpose of `batch` matrices, where it is one: an axis
// contiguous in src (the columns), an axis contiguous in dst (the rows), and at most one
// more (the batch), with pitches that clear their rows and one matrix's pitch in bytes
// within int64, as xpose_transpose requires (a 2-D request cannot say "stride 0" or "rows
// overlap"). A copy is the transpose of a single row.
inline bool as_transpose(const PermuteAxes& s, TransposeForm* out) {
  if (s.rank > 3) return false;
  PermuteAxis unit;  // an axis of one index: strides that address nothing
  const PermuteAxis* axes[3] = {&unit, &unit, &unit};
  for (int i = 0; i < s.rank; ++i) axes[i] = &s.axes[i];
  const int order[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (const auto& o : order) {
    const PermuteAxis &r = *axes[o[0]], &c = *axes[o[1]], &b = *axes[o[2]];  // rows, cols, batch
    const bool cols_ok = c.extent == 1 || c.src_stride == 1;
    const bool rows_ok = r.extent == 1 || r.dst_stride == 1;
    const bool pitches_ok = (r.extent == 1 || r.src_stride >= c.extent) && (c.extent == 1 || c.dst_stride >= r.extent);
    const bool batch_ok = b.extent == 1 || (b.src_stride > 0 && b.dst_stride > 0);
    if (!(cols_ok && rows_ok && pitches_ok && batch_ok)) continue;
    TransposeForm t;
    t.rows = r.extent, t.cols = c.extent, t.batch = b.extent, t.elem_bytes = s.elem_bytes;
    t.ld_src = r.extent == 1 ? c.extent : r.src_stride;
    t.ld_dst = c.extent == 1 ? r.extent : c.dst_stride;
    if (!product_fits(t.rows, t.ld_src, t.elem_bytes) || !product_fits(t.cols, t.ld_dst, t.elem_bytes)) continue;
    t.stride_src = b.extent == 1 ? 0 : b.src_stride;
    t.stride_dst = b.extent == 1 ? 0 : b.dst_stride;
    *out = t;
    return true;
  }
  return false;
}

}  // namespace xpose::layout
