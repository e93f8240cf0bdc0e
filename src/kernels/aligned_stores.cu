// aligned_stores: for rows that are not 16-byte aligned, or dst pitches that put every
// other dst row in the middle of a 32-byte sector (each costs vec_swizzled and the TMA
// kernels 20-40% of their speed: docs/performance.md). Elements come in one by one along
// src rows (coalesced) into a padded shared tile; each dst row's piece goes out as 16-byte
// vectors shifted to start on a 32-byte sector (layout::AlignedDstTile), so the L2 sees
// whole sectors. Vectors that reach past the matrix store their elements one by one.
#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "kernels/vector.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/smem_layout.hpp"

namespace xpose::kernels {
namespace {

template <int E>
__global__ void __launch_bounds__(layout::AlignedDstTile<E>::threads) transpose_aligned_stores(Problem p, TileOrigin o) {
  using A = layout::AlignedDstTile<E>;
  using Tile = layout::PaddedTile<A::rows, A::cols, layout::pad_for(E)>;
  __shared__ Elem<E> tile[Tile::size];
  const int64_t b = o.batch + blockIdx.z;
  const int64_t r0 = (o.row_tile + blockIdx.y) * A::piece - A::max_shift;  // first staged src row
  const int64_t c0 = (o.col_tile + blockIdx.x) * A::cols;
  const Elem<E>* src = static_cast<const Elem<E>*>(p.src) + b * p.stride_src;
  Elem<E>* dst = static_cast<Elem<E>*>(p.dst) + b * p.stride_dst;

#pragma unroll 4
  for (int i = threadIdx.x; i < A::rows * A::cols; i += A::threads) {
    const int j = i / A::cols, c = i % A::cols;  // along a src row
    const int64_t r = r0 + j;
    if (r >= 0 && r < p.rows && c0 + c < p.cols) tile[Tile::at(j, c)] = src[r * p.ld_src + c0 + c];
  }
  __syncthreads();
#pragma unroll
  for (int i = threadIdx.x; i < A::cols * A::vecs_per_piece; i += A::threads) {
    const int c = i / A::vecs_per_piece, v = i % A::vecs_per_piece;  // vector v of dst row c0 + c
    if (c0 + c >= p.cols) continue;
    Elem<E>* row = dst + (c0 + c) * p.ld_dst;
    const int s = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
    const int64_t first = r0 + A::max_shift - s + int64_t(v) * A::vec;  // the vector's first src row
    if (first >= 0 && first + A::vec <= p.rows) {
      Vector<E> out;
#pragma unroll
      for (int k = 0; k < A::vec; ++k) out.e[k] = tile[Tile::at(A::tile_row(s, v, k), c)];
      __stwb(reinterpret_cast<uint4*>(row + first), whole(out));
    } else {
      for (int k = 0; k < A::vec; ++k)
        if (first + k >= 0 && first + k < p.rows) row[first + k] = tile[Tile::at(A::tile_row(s, v, k), c)];
    }
  }
}

std::string unsupported(const Problem& p, const detail::Device& d) {
  if (auto why = detail::unsupported_device(d); !why.empty()) return why;
  if (p.elem_bytes == 16) return "aligned_stores moves elements of 1, 2, 4 or 8 bytes (16-byte elements are always whole vectors)";
  return {};
}

detail::Launch shape(const Problem& p, const detail::Device&) {
  return with_elem_bytes_up_to_8(p.elem_bytes, detail::Launch{}, [&](auto e) {
    using A = layout::AlignedDstTile<decltype(e)::value>;
    detail::Launch l = tile_launch(p, A::piece, A::cols, {uint32_t(A::threads), 1, 1});
    l.grid = layout::grid_of_tiles(layout::ceil_div(p.cols, A::cols), A::row_blocks(p.rows), p.batch);
    return l;
  });
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes_up_to_8(p.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    using A = layout::AlignedDstTile<decltype(e)::value>;
    // launch_tiles counts row tiles from the problem's rows: give it the shifted extent.
    Problem grid = p;
    grid.rows = A::row_blocks(p.rows) * A::piece;
    return launch_tiles(transpose_aligned_stores<decltype(e)::value>, grid, l, 0, s, p);
  });
}

}  // namespace

const detail::Kernel aligned_stores = {
    "aligned_stores", "element loads; 16-byte dst stores shifted to start on 32-byte sectors (unaligned rows or pitches)",
    unsupported, shape, launch};

}  // namespace xpose::kernels
