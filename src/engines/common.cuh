// What every engine's kernels share: element types by size, and the tile a block turns.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/engine.hpp"
#include "layout/elem_size.hpp"
#include "layout/grid.hpp"

namespace xpose::engines {

using detail::Device;
using detail::Input;
using detail::Plan;
using detail::PlanOptions;
using detail::Problem;
using detail::Support;
using detail::Task;
using detail::Tiles;

// Elements are moved as opaque words of their size.
template <int E> struct ElemOf;
template <> struct ElemOf<1> { using type = uint8_t; };
template <> struct ElemOf<2> { using type = uint16_t; };
template <> struct ElemOf<4> { using type = uint32_t; };
template <> struct ElemOf<8> { using type = uint2; };
template <> struct ElemOf<16> { using type = uint4; };
template <int E> using Elem = typename ElemOf<E>::type;

// Calls f(std::integral_constant<int, E>{}) with the element size as a compile-time value.
using layout::with_elem_bytes;

// with_elem_bytes for the engines that move elements of at most 8 bytes (TMA's widest
// element, 16-byte vectors of at least two): `refused` for 16-byte elements, which their
// supports() turns away before any plan or launch.
template <class R, class F>
R with_elem_bytes_up_to_8(int64_t elem_bytes, R refused, F&& f) {
  switch (elem_bytes) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    default: return refused;
  }
}

// One tile: its first src element, its first dst element, and how much of it lies
// inside the matrix (whole tiles take the unpredicated path).
template <class T>
struct TileRef {
  const T* src;
  T* dst;
  int rows, cols;
  int64_t r0 = 0, c0 = 0;  // its first row and column in the matrix
};

// Each block turns exactly one tile: block (x, y, z) is column tile x, row tile y and
// batch z, counted from the launch's origin. Walks larger than CUDA's grid limits are
// split into several launches on the host (launch_tiles), so kernels carry no tile loops.
// by_column: the launch's tiles are taken column by column (the plan's Tiles::by_column).
struct TileOrigin {
  int64_t col_tile = 0, row_tile = 0, batch = 0;
  bool by_column = false;
};

// The tile of this block, counted from the launch's origin.
__device__ __forceinline__ layout::TilePos block_pos(const TileOrigin& o) {
  if (o.by_column) return layout::column_major_tile(blockIdx.x, blockIdx.y, gridDim.x, gridDim.y);
  return {int64_t(blockIdx.x), int64_t(blockIdx.y)};
}

template <class T>
__device__ __forceinline__ TileRef<T> block_tile(const Problem& p, const TileOrigin& o, int tile_rows, int tile_cols) {
  const int64_t b = o.batch + blockIdx.z;
  const layout::TilePos pos = block_pos(o);
  const int64_t r0 = (o.row_tile + pos.y) * tile_rows, c0 = (o.col_tile + pos.x) * tile_cols;
  TileRef<T> t;
  t.src = static_cast<const T*>(p.src) + b * p.stride_src + r0 * p.ld_src + c0;
  t.dst = static_cast<T*>(p.dst) + b * p.stride_dst + c0 * p.ld_dst + r0;
  t.rows = int(min(int64_t(tile_rows), p.rows - r0));
  t.cols = int(min(int64_t(tile_cols), p.cols - c0));
  t.r0 = r0;
  t.c0 = c0;
  return t;
}

}  // namespace xpose::engines
