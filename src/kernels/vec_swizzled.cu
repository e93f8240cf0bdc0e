// vec_swizzled (seed 004's fastest): 16-byte global loads and stores on both sides,
// the tile in a swizzled shared-memory layout that keeps both walks conflict-free.
// Edge tiles fall back to predicated element accesses through the same layout.
#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "layout/smem_layout.hpp"

namespace xpose::kernels {
namespace {

template <int E>
union Vector {
  uint4 bits;
  Elem<E> e[16 / E];
};

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads) transpose_vec_swizzled(Problem p) {
  using T = Elem<E>;
  using V = layout::VecTile<E>;
  using Tile = typename V::Layout;
  __shared__ T tile[Tile::size];
  for_each_tile<T>(p, V::tile, V::tile, [&](const TileRef<T>& t) {
    if (t.rows == V::tile && t.cols == V::tile) {
      Vector<E> in[V::per_thread];
#pragma unroll
      for (int i = 0; i < V::per_thread; ++i) {
        const auto e = V::load_coord(i * V::threads + threadIdx.x, 0);
        in[i].bits = *reinterpret_cast<const uint4*>(t.src + e.r * p.ld_src + e.c);
      }
#pragma unroll
      for (int i = 0; i < V::per_thread; ++i)
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::load_coord(i * V::threads + threadIdx.x, k);
          tile[Tile::at(e.r, e.c)] = in[i].e[k];
        }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < V::per_thread; ++i) {
        Vector<E> out;
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::store_coord(i * V::threads + threadIdx.x, k);
          out.e[k] = tile[Tile::at(e.r, e.c)];
        }
        const auto e = V::store_coord(i * V::threads + threadIdx.x, 0);
        *reinterpret_cast<uint4*>(t.dst + e.c * p.ld_dst + e.r) = out.bits;
      }
    } else {
#pragma unroll
      for (int i = 0; i < V::per_thread; ++i)
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::load_coord(i * V::threads + threadIdx.x, k);
          if (e.r < t.rows && e.c < t.cols) tile[Tile::at(e.r, e.c)] = t.src[e.r * p.ld_src + e.c];
        }
      __syncthreads();
#pragma unroll
      for (int i = 0; i < V::per_thread; ++i)
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::store_coord(i * V::threads + threadIdx.x, k);
          if (e.r < t.rows && e.c < t.cols) t.dst[e.c * p.ld_dst + e.r] = tile[Tile::at(e.r, e.c)];
        }
    }
    __syncthreads();  // the next tile overwrites what this one still reads
  });
}

std::string unsupported(const Problem& p, const detail::Device& d) {
  if (auto why = detail::unsupported_device(d); !why.empty()) return why;
  const auto misaligned = [&](const void* ptr) { return reinterpret_cast<uintptr_t>(ptr) % 16 != 0; };
  if (misaligned(p.src) || misaligned(p.dst)) return "vec_swizzled needs src and dst aligned to 16 bytes";
  const int64_t e = p.elem_bytes;
  if ((p.ld_src * e) % 16 || (p.ld_dst * e) % 16)
    return "vec_swizzled needs ld_src and ld_dst to be multiples of 16 bytes";
  if (p.batch > 1 && ((p.stride_src * e) % 16 || (p.stride_dst * e) % 16))
    return "vec_swizzled needs stride_src and stride_dst to be multiples of 16 bytes";
  return {};
}

detail::Launch shape(const Problem& p, const detail::Device&) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    using V = layout::VecTile<decltype(e)::value>;
    detail::Launch l;
    l.tile_rows = l.tile_cols = V::tile;
    l.grid = layout::tile_grid(p.rows, p.cols, p.batch, V::tile, V::tile);
    l.block = {uint32_t(V::threads), 1, 1};
    return l;
  });
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    return launch_kernel(transpose_vec_swizzled<decltype(e)::value>, l, 0, s, p);
  });
}

}  // namespace

const detail::Kernel vec_swizzled = {
    "vec_swizzled", "16-byte vector loads and stores, swizzled shared-memory tile", unsupported, shape,
    launch};

}  // namespace xpose::kernels
