// The CPU reference permutation: every element, an odometer over the axes with the axis of
// the smallest dst stride innermost (writes run along dst), the outermost axis split across
// threads for large problems. And the CPU path's N-D permutation: the GPU kernels' form
// (layout/permute_nd.hpp) walked in cache-sized tiles by every core.
#include <algorithm>
#include <cstring>
#include <thread>

#include "cpu/micro_kernels.hpp"
#include "cpu/parallel.hpp"
#include "cpu/reference.hpp"
#include "layout/grid.hpp"

namespace xpose::cpu {
namespace {

template <int E>
void permute_part(const detail::Permutation& p, const int* order, int n, int64_t first, int64_t last) {
  const auto* src = static_cast<const unsigned char*>(p.src);
  auto* dst = static_cast<unsigned char*>(p.dst);
  // order[0] is the outermost axis (its range [first, last)), order[n-1] the innermost.
  int64_t index[detail::max_rank] = {};
  index[0] = first;
  if (n == 0) {
    std::memcpy(dst, src, E);
    return;
  }
  const detail::PermAxis& inner = p.axes[order[n - 1]];
  for (;;) {
    int64_t s = 0, d = 0;
    for (int k = 0; k < n - 1; ++k) s += index[k] * p.axes[order[k]].src_stride, d += index[k] * p.axes[order[k]].dst_stride;
    const int64_t begin = n == 1 ? first : 0, end = n == 1 ? last : inner.extent;
    for (int64_t i = begin; i < end; ++i)
      std::memcpy(dst + (d + i * inner.dst_stride) * E, src + (s + i * inner.src_stride) * E, E);
    if (n == 1) return;
    int k = n - 2;
    for (; k >= 0; --k) {
      if (++index[k] < (k == 0 ? last : p.axes[order[k]].extent)) break;
      index[k] = k == 0 ? first : 0;
      if (k == 0) return;
    }
    if (k < 0) return;
  }
}

template <int E>
void permute_all(const detail::Permutation& p) {
  int order[detail::max_rank], n = 0;
  for (int i = 0; i < p.rank; ++i)
    if (p.axes[i].extent > 1) order[n++] = i;
  std::sort(order, order + n, [&](int a, int b) { return p.axes[a].dst_stride > p.axes[b].dst_stride; });
  // The outermost axis in up to a core's worth of ranges.
  const int64_t outer = n ? p.axes[order[0]].extent : 1;
  const int64_t parts = std::min<int64_t>(outer, cores());
  for_each_item(parts, p.elements(), int64_t(1) << 16, [&](int64_t t) {
    permute_part<E>(p, order, n, outer * t / parts, outer * (t + 1) / parts);
  });
}

// Tiles of nd_cpu_tile x nd_cpu_tile of (a, b), written along b (dst's fastest axis: whole
// dst lines, no line written twice), read along a tile's src lines, which stay in cache while
// the tile is turned. Rows (a == b) go several outer indices to an item, so that each item
// moves about nd_cpu_chunk elements.
constexpr int64_t nd_cpu_tile = 64, nd_cpu_chunk = 4096;

template <int E>
void permute_form_all(const layout::NdForm& f, const unsigned char* src, unsigned char* dst) {
  const int64_t step_a = f.tiled ? nd_cpu_tile : nd_cpu_chunk, step_b = f.tiled ? nd_cpu_tile : 1;
  const int64_t tiles_a = layout::ceil_div(f.extent_a, step_a), tiles_b = layout::ceil_div(f.extent_b, step_b);
  // Outer indices an item takes: one for tiles, enough short rows to fill a chunk for rows.
  const int64_t group = f.tiled || f.extent_a >= nd_cpu_chunk ? 1 : nd_cpu_chunk / f.extent_a;
  const int64_t per_group = tiles_a * tiles_b, groups = layout::ceil_div(int64_t(f.outer_count), group);
  const int64_t items = groups * per_group;
  const Micro micro = micro_kernel(E);
  const int64_t elements = int64_t(f.outer_count) * f.extent_a * f.extent_b;
  for_each_item(items, elements, int64_t(1) << 16, [&](int64_t item) {
    const int64_t t = item % per_group, a0 = (t % tiles_a) * step_a, b0 = (t / tiles_a) * step_b;
    const int64_t a1 = std::min(f.extent_a, a0 + step_a), b1 = std::min(f.extent_b, b0 + step_b);
    const int64_t first = item / per_group * group, last = std::min<int64_t>(f.outer_count, first + group);
    for (int64_t outer = first; outer < last; ++outer) {
      int64_t s, d;
      f.outer_offsets(uint32_t(outer), &s, &d);
      if (!f.tiled && f.src_a == 1 && f.dst_a == 1) {  // a row contiguous on both sides: one copy
        std::memcpy(dst + (d + a0) * E, src + (s + a0) * E, size_t(a1 - a0) * E);
        continue;
      }
      // Where a is contiguous in src and b in dst the tile is a 2-D transpose block (src rows
      // along b, src_b apart; dst rows along a, dst_a apart): its whole squares go through
      // the micro-kernel, the rest element by element.
      int64_t a_end = a0, b_end = b0;
      if (f.tiled && micro.k > 0 && f.src_a == 1 && f.dst_b == 1) {
        a_end = a0 + (a1 - a0) / micro.k * micro.k;
        b_end = b0 + (b1 - b0) / micro.k * micro.k;
        for (int64_t a = a0; a < a_end; a += micro.k)
          for (int64_t b = b0; b < b_end; b += micro.k)
            micro.run(src + (s + a + b * f.src_b) * E, f.src_b * E, dst + (d + a * f.dst_a + b) * E, f.dst_a * E);
      }
      for (int64_t a = a0; a < a1; ++a)
        for (int64_t b = (a < a_end ? b_end : b0); b < b1; ++b)
          std::memcpy(dst + (d + a * f.dst_a + b * f.dst_b) * E, src + (s + a * f.src_a + b * f.src_b) * E, E);
    }
  });
}

}  // namespace

void permute_form(const layout::NdForm& f, const void* src, void* dst) {
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  with_elem_bytes(f.elem_bytes, [&](auto e) { permute_form_all<decltype(e)::value>(f, s, d); });
}

void permute(const detail::Permutation& p) {
  if (p.empty()) return;
  with_elem_bytes(p.elem_bytes, [&](auto e) { permute_all<decltype(e)::value>(p); });
}

}  // namespace xpose::cpu
