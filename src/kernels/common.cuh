// What every tiled transpose kernel shares: element types by size, the tile walk over
// (batch, row tile, column tile), and the base pointers of one tile on each side.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layout/grid.hpp"
#include "problem.hpp"

namespace xpose::kernels {

using detail::Problem;

// Elements are moved as opaque words of their size.
template <int E> struct ElemOf;
template <> struct ElemOf<1> { using type = uint8_t; };
template <> struct ElemOf<2> { using type = uint16_t; };
template <> struct ElemOf<4> { using type = uint32_t; };
template <> struct ElemOf<8> { using type = uint2; };
template <> struct ElemOf<16> { using type = uint4; };
template <int E> using Elem = typename ElemOf<E>::type;

// Calls f(std::integral_constant-like tag) with the element size as a compile-time value.
template <int E> struct SizeTag { static constexpr int value = E; };
template <class F>
auto with_elem_bytes(int64_t elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1: return f(SizeTag<1>{});
    case 2: return f(SizeTag<2>{});
    case 4: return f(SizeTag<4>{});
    case 8: return f(SizeTag<8>{});
    default: return f(SizeTag<16>{});
  }
}

// One tile: its first src element, its first dst element, and how much of it lies
// inside the matrix (full tiles take the unpredicated path).
template <class T>
struct TileRef {
  const T* src;
  T* dst;
  int rows, cols;
};

// Visits every tile of the problem; blocks stride over tiles past the grid's limits.
// Every thread of a block visits the same tiles, so barriers inside `visit` are safe.
template <class T, class Visit>
__device__ __forceinline__ void for_each_tile(const Problem& p, int tile_rows, int tile_cols, Visit&& visit) {
  const int64_t tiles_r = layout::ceil_div(p.rows, tile_rows), tiles_c = layout::ceil_div(p.cols, tile_cols);
  for (int64_t b = blockIdx.z; b < p.batch; b += gridDim.z)
    for (int64_t tr = blockIdx.y; tr < tiles_r; tr += gridDim.y)
      for (int64_t tc = blockIdx.x; tc < tiles_c; tc += gridDim.x) {
        const int64_t r0 = tr * tile_rows, c0 = tc * tile_cols;
        TileRef<T> t;
        t.src = static_cast<const T*>(p.src) + b * p.stride_src + r0 * p.ld_src + c0;
        t.dst = static_cast<T*>(p.dst) + b * p.stride_dst + c0 * p.ld_dst + r0;
        t.rows = int(min(int64_t(tile_rows), p.rows - r0));
        t.cols = int(min(int64_t(tile_cols), p.cols - c0));
        visit(t);
      }
}

}  // namespace xpose::kernels
