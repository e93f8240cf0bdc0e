// A normalized permutation (layout/permute.hpp) as the N-D kernels walk it, on the host and
// the device alike:
//   a       the axis read fastest: src's smallest stride (coalesced loads)
//   b       the axis written fastest: dst's smallest stride (coalesced stores)
//   outer   every other axis, one linear index split by fast divisors (innermost first,
//           dst's order: neighbouring indices write near each other)
// Where a and b differ the tiled kernel turns 32x32 tiles of (a, b) through shared memory,
// as the 2-D transpose does; where they are one axis, rows along it are copied as they are.
#pragma once

#include <algorithm>
#include <cstdint>

#include "layout/fast_divmod.hpp"
#include "layout/hd.hpp"
#include "layout/permute.hpp"

namespace xpose::layout {

constexpr int nd_tile = 32;        // a tile of nd_tile x nd_tile elements (tiled kernel)
constexpr int nd_block_rows = 8;   // a block of nd_tile x nd_block_rows threads
constexpr int nd_max_outer = 14;   // 16 axes less a and b

struct NdForm {
  int64_t elem_bytes = 1;
  bool tiled = false;  // a != b
  int64_t extent_a = 1, extent_b = 1;
  int64_t src_a = 0, src_b = 0, dst_a = 0, dst_b = 0;
  int outer_rank = 0;
  FastDivmod outer_extent[nd_max_outer];  // innermost (smallest dst stride) first
  int64_t outer_src[nd_max_outer] = {}, outer_dst[nd_max_outer] = {};
  uint32_t outer_count = 1;
  uint32_t tiles_a = 1, tiles_b = 1;  // the tiled kernel's tiles along a and b

  // src and dst element offsets of outer index `linear` (< outer_count).
  XPOSE_HD void outer_offsets(uint32_t linear, int64_t* src, int64_t* dst) const {
    int64_t s = 0, d = 0;
    for (int i = 0; i < outer_rank; ++i) {
      uint32_t index;
      linear = outer_extent[i].divmod(linear, &index);
      s += int64_t(index) * outer_src[i];
      d += int64_t(index) * outer_dst[i];
    }
    *src = s;
    *dst = d;
  }
};

// The N-D form of a normalized permutation, or false (with *why) where its counts do not fit
// the kernels' 32-bit indices.
inline bool nd_form(const PermuteShape& s, NdForm* out, const char** why) {
  NdForm f;
  f.elem_bytes = s.elem_bytes;
  if (s.rank == 0) {  // one element: a row of one
    *out = f;
    return true;
  }
  int a = 0, b = 0;
  for (int i = 1; i < s.rank; ++i) {
    if (s.axes[i].src_stride < s.axes[a].src_stride) a = i;
    if (s.axes[i].dst_stride < s.axes[b].dst_stride) b = i;
  }
  // Where dst's fastest axis is also src's (ties on src's stride), take it for both.
  if (s.axes[b].src_stride == s.axes[a].src_stride) a = b;
  f.tiled = a != b;
  f.extent_a = s.axes[a].extent, f.src_a = s.axes[a].src_stride, f.dst_a = s.axes[a].dst_stride;
  if (f.tiled) f.extent_b = s.axes[b].extent, f.src_b = s.axes[b].src_stride, f.dst_b = s.axes[b].dst_stride;
  int order[16], n = 0;
  for (int i = 0; i < s.rank; ++i)
    if (i != a && i != b) order[n++] = i;
  std::sort(order, order + n, [&](int x, int y) { return s.axes[x].dst_stride < s.axes[y].dst_stride; });
  uint64_t count = 1;
  for (int k = 0; k < n; ++k) {
    const PermuteAxis& axis = s.axes[order[k]];
    count *= uint64_t(axis.extent);
    if (uint64_t(axis.extent) > UINT32_MAX || count > UINT32_MAX) {
      *why = "its axes other than the two fastest hold 2^32 or more indices";
      return false;
    }
    f.outer_extent[k] = FastDivmod(uint32_t(axis.extent));
    f.outer_src[k] = axis.src_stride;
    f.outer_dst[k] = axis.dst_stride;
  }
  f.outer_rank = n;
  f.outer_count = uint32_t(count);
  const int64_t tiles_a = (f.extent_a + nd_tile - 1) / nd_tile, tiles_b = (f.extent_b + nd_tile - 1) / nd_tile;
  if (f.tiled && tiles_a * tiles_b > int64_t(INT32_MAX)) {
    *why = "its two fastest axes hold more than 2^31 tiles";
    return false;
  }
  if (!f.tiled && f.extent_a > int64_t(INT32_MAX) * nd_tile) {
    *why = "its fastest axis is longer than 2^36 elements";
    return false;
  }
  f.tiles_a = uint32_t(tiles_a);
  f.tiles_b = uint32_t(tiles_b);
  *out = f;
  return true;
}

}  // namespace xpose::layout
