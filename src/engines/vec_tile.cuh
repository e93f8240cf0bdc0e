// A tile of layout::VecTile<E> turned through shared memory as 16-byte vectors on both sides:
// loaded from src rows into registers, staged in the swizzled tile, stored as dst rows (the
// tile's columns). vec_swizzled turns one tile a block; the in-place square transpose two, a
// pair across the diagonal, every load of both in flight before the first store.
#pragma once

#include "engines/common.cuh"
#include "engines/vector.cuh"
#include "layout/smem_layout.hpp"

namespace xpose::engines {

template <int E>
struct VecTileLoads {
  Vector<E> v[layout::VecTile<E>::per_thread];
};

// The tile at src (rows x cols of it inside the matrix, src rows ld elements apart). In a tile
// the matrix edge cuts (Edge), a vector wholly inside loads as one, one the edge cuts element
// by element, one wholly outside not at all: the cut tiles keep every load in flight too.
template <int E, bool Edge>
__device__ __forceinline__ void load_vec_tile(const Elem<E>* src, int64_t ld, int rows, int cols, VecTileLoads<E>& in) {
  using V = layout::VecTile<E>;
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i) {
    const auto e = V::load_coord(i * V::threads + threadIdx.x, 0);
    const Elem<E>* from = src + e.r * ld + e.c;
    if (!Edge || (e.r < rows && e.c + V::vec <= cols)) {
      in.v[i].bits = *reinterpret_cast<const uint4*>(from);
    } else {
      in.v[i].bits = make_uint4(0, 0, 0, 0);
      if (e.r < rows)
#pragma unroll
        for (int k = 0; k < V::vec; ++k)
          if (e.c + k < cols) in.v[i].e[k] = from[k];
    }
  }
}

template <int E>
__device__ __forceinline__ void stage_vec_tile(const VecTileLoads<E>& in, Elem<E>* smem) {
  using V = layout::VecTile<E>;
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i)
#pragma unroll
    for (int k = 0; k < V::vec; ++k) {
      const auto e = V::load_coord(i * V::threads + threadIdx.x, k);
      smem[V::Layout::at(e.r, e.c)] = in.v[i].e[k];
    }
}

// The staged tile's columns as dst rows at dst (ld elements apart); rows x cols as loaded.
template <int E, bool Edge>
__device__ __forceinline__ void store_vec_tile(const Elem<E>* smem, Elem<E>* dst, int64_t ld, int rows, int cols) {
  using V = layout::VecTile<E>;
#pragma unroll
  for (int i = 0; i < V::per_thread; ++i) {
    const int v = i * V::threads + threadIdx.x;
    Vector<E> out;
#pragma unroll
    for (int k = 0; k < V::vec; ++k) {
      const auto e = V::store_coord(v, k);
      out.e[k] = smem[V::Layout::at(e.r, e.c)];
    }
    const auto e = V::store_coord(v, 0);  // dst row e.c, elements e.r ..
    Elem<E>* to = dst + e.c * ld + e.r;
    if (!Edge || (e.c < cols && e.r + V::vec <= rows)) {
      __stwb(reinterpret_cast<uint4*>(to), whole(out));
    } else if (e.c < cols) {
#pragma unroll
      for (int k = 0; k < V::vec; ++k)
        if (e.r + k < rows) to[k] = out.e[k];
    }
  }
}

}  // namespace xpose::engines
