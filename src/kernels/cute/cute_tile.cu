// The CuTe family (seed 001): the same tile transposes as the hand-written ladder, with
// the thread and data mappings declared as CuTe layouts. One kernel moves a 32-row tile
// (layout::CuteTile) from src to the column-major view of dst, either directly (the naive
// pair, through one thread layout) or through shared memory in a given CuTe layout (the
// rest). Tiles cut by the matrix edge are predicated through identity tensors, separately
// on the read and the write side.
//   cute_naive_read           threads along src rows: coalesced reads, strided writes
//   cute_naive_write          threads down src columns: strided reads, coalesced writes
//   cute_smem_conflict_read   row-major tile: the column reads conflict
//   cute_smem_conflict_write  column-major tile: the column writes conflict
//   cute_padded               row-major tile, rows padded by one bank
//   cute_swizzled             row-major tile through seed 001's Swizzle (composition)
#include <cute/tensor.hpp>

#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "layout/cute_tiles.hpp"

namespace xpose::kernels {
namespace {

template <int E>
using CuteTile = layout::CuteTile<E>;

using layout::AlongRows;
using layout::cute_threads;
using layout::DownColumns;

// The tile at block (x, y, z) as two CuTe tensors over the same (row, column) coordinates:
// src rows ld_src apart, and dst seen column-major (element (r, c) at c * ld_dst + r).
template <int E>
struct TileViews {
  using T = CuteTile<E>;
  TileRef<Elem<E>> t;
  __device__ auto src() const {
    return cute::make_tensor(cute::make_gmem_ptr(t.src),
                             cute::make_layout(typename T::Shape{}, cute::make_stride(p_ld_src, cute::_1{})));
  }
  __device__ auto dst() const {
    return cute::make_tensor(cute::make_gmem_ptr(t.dst),
                             cute::make_layout(typename T::Shape{}, cute::make_stride(cute::_1{}, p_ld_dst)));
  }
  int64_t p_ld_src, p_ld_dst;
};

// Copies the elements of `from` to `to` (two partitions of the same coordinates) that lie
// inside the matrix; `coords` is the same partition of the tile's identity tensor.
template <class From, class To, class Coords>
__device__ __forceinline__ void copy_inside(const From& from, To& to, const Coords& coords, int rows, int cols) {
  CUTE_UNROLL
  for (int i = 0; i < cute::size(from); ++i)
    if (cute::get<0>(coords(i)) < rows && cute::get<1>(coords(i)) < cols) to(i) = from(i);
}

template <int E, class Threads>
__global__ void __launch_bounds__(cute_threads) transpose_cute_naive(Problem p, TileOrigin o) {
  using T = CuteTile<E>;
  const TileViews<E> v{block_tile<Elem<E>>(p, o, T::rows, T::cols), p.ld_src, p.ld_dst};
  auto src = v.src();
  auto dst = v.dst();
  const auto coords = cute::local_partition(cute::make_identity_tensor(typename T::Shape{}), Threads{}, threadIdx.x);
  const auto from = cute::local_partition(src, Threads{}, threadIdx.x);
  auto to = cute::local_partition(dst, Threads{}, threadIdx.x);
  copy_inside(from, to, coords, v.t.rows, v.t.cols);
}

template <int E, class SmemLayout>
__global__ void __launch_bounds__(cute_threads) transpose_cute_smem(Problem p, TileOrigin o) {
  using T = CuteTile<E>;
  __shared__ Elem<E> buffer[cute::cosize_v<SmemLayout>];
  const TileViews<E> v{block_tile<Elem<E>>(p, o, T::rows, T::cols), p.ld_src, p.ld_dst};
  auto src = v.src();
  auto dst = v.dst();
  auto tile = cute::make_tensor(cute::make_smem_ptr(buffer), SmemLayout{});
  const auto ids = cute::make_identity_tensor(typename T::Shape{});

  auto in = cute::local_partition(tile, AlongRows{}, threadIdx.x);
  copy_inside(cute::local_partition(src, AlongRows{}, threadIdx.x), in,
              cute::local_partition(ids, AlongRows{}, threadIdx.x),
              v.t.rows, v.t.cols);
  __syncthreads();
  auto to = cute::local_partition(dst, DownColumns{}, threadIdx.x);
  copy_inside(cute::local_partition(tile, DownColumns{}, threadIdx.x), to,
              cute::local_partition(ids, DownColumns{}, threadIdx.x),
              v.t.rows, v.t.cols);
}

// The shared-memory layouts, each a type so that one kernel serves them all.
template <int E> using RowMajorTile = decltype(CuteTile<E>::plain());
template <int E>
using ColumnMajorTile = decltype(cute::make_layout(typename CuteTile<E>::Shape{}, cute::GenColMajor{}));
template <int E> using PaddedTile = decltype(CuteTile<E>::padded());
template <int E> using SwizzledTile = decltype(CuteTile<E>::swizzled());

detail::Launch cute_shape(const Problem& p, const detail::Device&) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    using T = CuteTile<decltype(e)::value>;
    return tile_launch(p, T::rows, T::cols, {cute_threads, 1, 1});
  });
}

template <class Threads>
cudaError_t launch_naive(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    return launch_tiles(transpose_cute_naive<decltype(e)::value, Threads>, p, l, 0, s, p);
  });
}

template <template <int> class SmemLayoutOf>
cudaError_t launch_smem(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return launch_tiles(transpose_cute_smem<E, SmemLayoutOf<E>>, p, l, 0, s, p);
  });
}

}  // namespace

const detail::Kernel cute_naive_read = {"cute_naive_read", "CuTe: threads along src rows, strided dst writes",
                                        always_supported, cute_shape, launch_naive<AlongRows>};
const detail::Kernel cute_naive_write = {"cute_naive_write", "CuTe: threads down src columns, coalesced dst writes",
                                         always_supported, cute_shape, launch_naive<DownColumns>};
const detail::Kernel cute_smem_conflict_read = {"cute_smem_conflict_read",
                                                "CuTe: row-major shared tile, column reads conflict",
                                                always_supported, cute_shape, launch_smem<RowMajorTile>};
const detail::Kernel cute_smem_conflict_write = {"cute_smem_conflict_write",
                                                 "CuTe: column-major shared tile, column writes conflict",
                                                 always_supported, cute_shape, launch_smem<ColumnMajorTile>};
const detail::Kernel cute_padded = {"cute_padded", "CuTe: shared tile rows padded by one bank", always_supported,
                                    cute_shape, launch_smem<PaddedTile>};
const detail::Kernel cute_swizzled = {"cute_swizzled", "CuTe: shared tile through a composed Swizzle",
                                      always_supported, cute_shape, launch_smem<SwizzledTile>};

}  // namespace xpose::kernels
