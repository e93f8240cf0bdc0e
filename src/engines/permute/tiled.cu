// permute_tiled: 32x32 tiles of src's and dst's fastest axes through shared memory, element by
// element: any strides, any alignment.
#include <algorithm>
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"

namespace xpose::engines {
namespace {

using layout::nd_block_rows;
using layout::nd_tile;
using layout::NdForm;

// One 32x32 tile of (a, b) for each outer index the block visits: loads along a (src's
// fastest axis), stores along b (dst's), through a tile padded by one element.
template <int E>
__global__ void permute_tiled(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f) {
  __shared__ Elem<E> tile[nd_tile][nd_tile + 1];
  const int64_t a0 = int64_t(blockIdx.x % f.tiles_a) * nd_tile, b0 = int64_t(blockIdx.x / f.tiles_a) * nd_tile;
  const int x = threadIdx.x, y = threadIdx.y;
  for (uint64_t outer = blockIdx.y; outer < f.outer_count; outer += gridDim.y) {  // 64 bits: no wrap near 2^32
    int64_t s, d;
    f.outer_offsets(uint32_t(outer), &s, &d);
    for (int j = y; j < nd_tile; j += nd_block_rows)
      if (a0 + x < f.extent_a && b0 + j < f.extent_b) tile[j][x] = src[s + (a0 + x) * f.src_a + (b0 + j) * f.src_b];
    __syncthreads();
    for (int j = y; j < nd_tile; j += nd_block_rows)
      if (b0 + x < f.extent_b && a0 + j < f.extent_a) dst[d + (a0 + j) * f.dst_a + (b0 + x) * f.dst_b] = tile[x][j];
    __syncthreads();
  }
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (!t.form.tiled)
    return detail::refused(
        "its fastest axis is one on both sides: there are no tiles to turn (permute_rows serves "
        "that)");
  return detail::served();
}

Support plan(Plan* p, const Device&, const PlanOptions&) {
  const layout::NdForm& f = p->task.form;
  p->block = {uint32_t(nd_tile), uint32_t(nd_block_rows), 1};
  p->grid = {f.tiles_a * f.tiles_b, uint32_t(std::min<int64_t>(f.outer_count, layout::max_grid_yz)), 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    permute_tiled<E><<<to_dim3(p.grid), to_dim3(p.block), 0, stream>>>(static_cast<const Elem<E>*>(p.task.src),
                                                                       static_cast<Elem<E>*>(p.task.dst), p.task.form);
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) {
  return "32x32 tiles of src's fastest axis (" + std::to_string(p.task.form.extent_a) + ") and dst's (" +
         std::to_string(p.task.form.extent_b) + ") through shared memory, element by element";
}

}  // namespace

const Engine permute_tiled = {"permute_tiled",
                              "32x32 tiles of src's and dst's fastest axes through shared memory, element by element",
                              "",
                              Input::nd_form,
                              supports,
                              plan,
                              launch,
                              text};

}  // namespace xpose::engines
