// permute_vec_tiled: tiles of src's and dst's fastest axes through swizzled shared memory,
// 16-byte vectors on both sides, short axes packed several to a tile (layout::NdVecTiles).
#include <algorithm>
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdVecTiles;

// A tile of (outer index, b) rows by a columns, several swizzled slabs (NdVecTiles), per
// loop step: every src row piece loaded as a 16-byte vector before the first shared-memory
// store, then each dst row piece gathered from its slab and stored as one vector. Where each
// tile row starts in src and dst (-1: outside the problem) and where each tile column's dst
// row starts are found once, a thread each, into shared memory, so that a vector's address
// is a table lookup and an add.
template <int E>
__global__ void __launch_bounds__(layout::NdVecTile<E>::threads, layout::NdVecTile<E>::min_blocks)
    permute_vec_tiled(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdVecTiles t) {
  using V = layout::VecTile<E>;
  using Slab = typename V::Layout;
  using N = layout::NdVecTile<E>;
  constexpr int slabs = N::slabs, most = slabs * V::tile;  // rows or columns at most
  __shared__ Elem<E> smem[slabs * Slab::size];
  __shared__ int64_t row_src[most], row_dst[most], col_dst[most];
  const int64_t a0 = int64_t(blockIdx.x % t.tiles_a) * t.cols();
  const int64_t b0 = int64_t(blockIdx.x / t.tiles_a) << t.sub_shift;
  const int cols = int(min(int64_t(t.cols()), f.extent_a - a0));
  for (int c = threadIdx.x; c < t.cols(); c += N::threads) col_dst[c] = (a0 + c) * f.dst_a;
  for (uint32_t group = blockIdx.y; group < t.groups; group += gridDim.y) {
    const uint32_t first = group * t.subs, live = min(t.subs, f.outer_count - first);
    for (int r = threadIdx.x; r < t.rows; r += N::threads) {
      const uint32_t sub = t.sub_of(r);
      const int64_t b = b0 + t.b_of(r);
      int64_t s = -1, d = -1;
      if (sub < live && b < f.extent_b) {
        f.outer_offsets(first + sub, &s, &d);
        s += b * f.src_b + a0;
        d += b;
      }
      row_src[r] = s;
      row_dst[r] = d;
    }
    __syncthreads();
    Vector<E> in[slabs][N::per_thread];
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i) {
        const auto e = V::load_coord(i * N::threads + threadIdx.x, 0);
        const int c = t.slab_col(j) + e.c;
        const int64_t from = row_src[t.slab_row(j) + e.r];
        in[j][i].bits = make_uint4(0, 0, 0, 0);
        if (from >= 0 && c < cols) in[j][i].bits = *reinterpret_cast<const uint4*>(src + from + c);
      }
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i)
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::load_coord(i * N::threads + threadIdx.x, k);
          smem[j * Slab::size + Slab::at(e.r, e.c)] = in[j][i].e[k];
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i) {
        const int v = i * N::threads + threadIdx.x;
        const auto e = V::store_coord(v, 0);
        const int c = t.slab_col(j) + e.c;
        const int64_t to = row_dst[t.slab_row(j) + e.r];
        if (to >= 0 && c < cols) {
          Vector<E> out;
#pragma unroll
          for (int k = 0; k < V::vec; ++k) {
            const auto g = V::store_coord(v, k);
            out.e[k] = smem[j * Slab::size + Slab::at(g.r, g.c)];
          }
          __stwb(reinterpret_cast<uint4*>(dst + to + col_dst[c]), engines::whole(out));
        }
      }
    __syncthreads();  // the tile and the row tables are the next step's
  }
}

Support plan(Plan* p, const Device&, const PlanOptions&) {
  const char* why = nullptr;
  layout::NdVecTiles& t = p->make<layout::NdVecTiles>();
  if (!layout::nd_vec_tiles(p->task.form, reinterpret_cast<uintptr_t>(p->task.src),
                            reinterpret_cast<uintptr_t>(p->task.dst), &t, &why))
    return detail::refused(why);
  layout::order_outer_for_tiles(t, &p->task.form);
  const int threads = layout::with_elem_bytes(p->task.form.elem_bytes,
                                              [](auto e) { return layout::NdVecTile<decltype(e)::value>::threads; });
  p->block = {uint32_t(threads), 1, 1};
  p->grid = {t.tiles_a * t.tiles_b, uint32_t(std::min<int64_t>(t.groups, layout::max_grid_yz)), 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    permute_vec_tiled<E><<<to_dim3(p.grid), to_dim3(p.block), 0, stream>>>(static_cast<const Elem<E>*>(p.task.src),
                                                                           static_cast<Elem<E>*>(p.task.dst),
                                                                           p.task.form, p.params<layout::NdVecTiles>());
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  const layout::NdVecTiles& t = p.params<layout::NdVecTiles>();
  return s(t.rows) + "x" + s(t.cols()) + " tiles (swizzled " + s(t.tile) + "x" + s(t.tile) + " slabs) of " + s(t.subs) +
         " outer indices x dst's fastest axis (" + s(p.task.form.extent_b) + ") by src's (" + s(p.task.form.extent_a) +
         "), 16-byte vectors on both sides";
}

}  // namespace

const Engine permute_vec_tiled = {
    "permute_vec_tiled",
    "tiles of src's and dst's fastest axes through swizzled shared memory, 16-byte vectors on both sides",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text};

}  // namespace xpose::engines
