#include "engines/permute_nd.hpp"

#include <cstring>

#include "engines/common.cuh"

namespace xpose::detail {
namespace {

using layout::nd_block_rows;
using layout::nd_tile;
using layout::NdForm;

// One 32x32 tile of (a, b) for each outer index the block visits: loads along a (src's
// fastest axis), stores along b (dst's), through a tile padded by one element.
template <int E>
__global__ void permute_tiled(const engines::Elem<E>* __restrict__ src, engines::Elem<E>* __restrict__ dst,
                              const NdForm f) {
  __shared__ engines::Elem<E> tile[nd_tile][nd_tile + 1];
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

// Rows along a, the axis fastest on both sides: a warp per outer index, 32 elements a step.
template <int E>
__global__ void permute_rows(const engines::Elem<E>* __restrict__ src, engines::Elem<E>* __restrict__ dst,
                             const NdForm f) {
  for (uint64_t outer = uint64_t(blockIdx.y) * nd_block_rows + threadIdx.y; outer < f.outer_count;
       outer += uint64_t(gridDim.y) * nd_block_rows) {
    int64_t s, d;
    f.outer_offsets(uint32_t(outer), &s, &d);
    for (int64_t a = int64_t(blockIdx.x) * nd_tile + threadIdx.x; a < f.extent_a; a += int64_t(gridDim.x) * nd_tile)
      dst[d + a * f.dst_a] = src[s + a * f.src_a];
  }
}

}  // namespace

bool is_nd_kernel(const char* name) {
  for (const char* n : nd_kernel_names)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

bool plan_nd(const layout::PermuteShape& reduced, const void* src, void* dst, const char* kernel, NdPlan* out,
             std::string* why) {
  NdPlan p;
  const char* reason = nullptr;
  if (!layout::nd_form(reduced, &p.form, &reason)) {
    *why = reason;
    return false;
  }
  const char* fits = p.form.tiled ? "permute_tiled" : "permute_rows";
  if (kernel && std::strcmp(kernel, fits) != 0) {
    *why = p.form.tiled ? "permute_rows copies rows of an axis fastest on both sides; here src's fastest axis and "
                          "dst's differ (permute_tiled serves that)"
                        : "permute_tiled turns tiles of two axes; here one axis is fastest on both sides "
                          "(permute_rows serves that)";
    return false;
  }
  p.kernel = fits;
  p.src = src;
  p.dst = dst;
  const int64_t outer = p.form.outer_count;
  p.block = {uint32_t(nd_tile), uint32_t(nd_block_rows), 1};
  if (p.form.tiled) {
    p.grid = {p.form.tiles_a * p.form.tiles_b, uint32_t(std::min<int64_t>(outer, layout::max_grid_yz)), 1};
  } else {
    const int64_t chunks = std::min<int64_t>(layout::ceil_div(p.form.extent_a, nd_tile), 4096);
    p.grid = {uint32_t(chunks), uint32_t(std::min<int64_t>(layout::ceil_div(outer, nd_block_rows), layout::max_grid_yz)),
              1};
  }
  *out = p;
  return true;
}

cudaError_t launch_nd(const NdPlan& p, cudaStream_t stream) {
  const dim3 grid(p.grid.x, p.grid.y, p.grid.z), block(p.block.x, p.block.y, p.block.z);
  return engines::with_elem_bytes(p.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    using T = engines::Elem<E>;
    const T* src = static_cast<const T*>(p.src);
    T* dst = static_cast<T*>(p.dst);
    if (p.form.tiled)
      permute_tiled<E><<<grid, block, 0, stream>>>(src, dst, p.form);
    else
      permute_rows<E><<<grid, block, 0, stream>>>(src, dst, p.form);
    return cudaGetLastError();
  });
}

std::string describe(const NdPlan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  std::string text = std::string(p.kernel) + ": ";
  text += p.form.tiled ? "32x32 tiles of src's fastest axis (" + s(p.form.extent_a) + ") and dst's (" +
                             s(p.form.extent_b) + ") through shared memory"
                       : "rows of the axis fastest on both sides (" + s(p.form.extent_a) + " elements)";
  text += ", " + s(p.form.outer_count) + " outer indices over " + s(p.form.outer_rank) + " axes; grid " +
          s(p.grid.x) + "x" + s(p.grid.y) + ", block " + s(p.block.x) + "x" + s(p.block.y) + ", " +
          s(p.form.elem_bytes) + "-byte elements";
  return text;
}

}  // namespace xpose::detail
