// vec_swizzled: 16-byte global loads and stores on both sides,
// the tile in a swizzled shared-memory layout that keeps both walks conflict-free.
// Tiles the matrix edge cuts move the same way, their vectors predicated.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/smem_layout.hpp"

namespace xpose::engines {
namespace {

// Tiles move as 16-byte vectors, every load in flight before the first shared-memory store.
// In a tile the matrix edge cuts (Edge), a vector wholly inside moves as one; one the edge
// cuts moves the elements inside one by one, and one wholly outside not at all: the cut
// tiles keep the whole tiles' loads in flight (a rolled element loop there held small
// problems to its latency: docs/performance.md, "Known gaps", matrices cut by a tile edge).
template <int E, bool Edge>
__device__ __forceinline__ void vectors_through_smem(const Problem& p, const TileRef<Elem<E>>& t, Elem<E>* smem) {
  using V = layout::VecTile<E>;
  using Tile = typename V::Layout;
  Vector<E> in[V::per_thread];
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i) {
    const auto e = V::load_coord(i * V::threads + threadIdx.x, 0);
    const Elem<E>* from = t.src + e.r * p.ld_src + e.c;
    if (!Edge || (e.r < t.rows && e.c + V::vec <= t.cols)) {
      in[i].bits = *reinterpret_cast<const uint4*>(from);
    } else {
      in[i].bits = make_uint4(0, 0, 0, 0);
      if (e.r < t.rows)
#pragma unroll
        for (int k = 0; k < V::vec; ++k)
          if (e.c + k < t.cols) in[i].e[k] = from[k];
    }
  }
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i)
#pragma unroll
    for (int k = 0; k < V::vec; ++k) {
      const auto e = V::load_coord(i * V::threads + threadIdx.x, k);
      smem[Tile::at(e.r, e.c)] = in[i].e[k];
    }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i) {
    const int v = i * V::threads + threadIdx.x;
    Vector<E> out;
#pragma unroll
    for (int k = 0; k < V::vec; ++k) {
      const auto e = V::store_coord(v, k);
      out.e[k] = smem[Tile::at(e.r, e.c)];
    }
    const auto e = V::store_coord(v, 0);  // dst row e.c, elements e.r ..
    Elem<E>* to = t.dst + e.c * p.ld_dst + e.r;
    if (!Edge || (e.c < t.cols && e.r + V::vec <= t.rows)) {
      __stwb(reinterpret_cast<uint4*>(to), whole(out));
    } else if (e.c < t.cols) {
#pragma unroll
      for (int k = 0; k < V::vec; ++k)
        if (e.r + k < t.rows) to[k] = out.e[k];
    }
  }
}

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads) transpose_vec_swizzled(Problem p, TileOrigin o) {
  using V = layout::VecTile<E>;
  __shared__ Elem<E> smem[V::Layout::size];
  const TileRef<Elem<E>> t = block_tile<Elem<E>>(p, o, V::tile, V::tile);
  if (t.rows == V::tile && t.cols == V::tile)
    vectors_through_smem<E, false>(p, t, smem);
  else
    vectors_through_smem<E, true>(p, t, smem);
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  return detail::needs_16_byte_rows(t.problem, "vec_swizzled");
}

Support plan(Plan* plan, const Device&, const PlanOptions& o) {
  return with_elem_bytes(plan->task.problem.elem_bytes, [&](auto e) {
    using V = layout::VecTile<decltype(e)::value>;
    tile_plan(plan, V::tile, V::tile, {uint32_t(V::threads), 1, 1}).by_column = o.tiles_by_column;
    return detail::served();
  });
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes(p.elem_bytes,
                         [&](auto e) { return launch_tiles(transpose_vec_swizzled<decltype(e)::value>, plan, s, p); });
}

}  // namespace

const Engine vec_swizzled = {"vec_swizzled",
                             "16-byte vector loads and stores, swizzled shared-memory tile",
                             "64x64 tile for 1- and 4-byte elements, else 32x32; 256 threads (128 for 2-byte)",
                             Input::transpose,
                             supports,
                             plan,
                             launch,
                             tiles_text,
                             /*takes_tile_order=*/true};

}  // namespace xpose::engines
