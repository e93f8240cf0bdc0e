// cute_tma: the TMA transpose written with CuTe's SM90 copy atoms. The host builds two
// TMA TiledCopies with make_tma_copy (CUTLASS encodes the tensor maps through
// cudaGetDriverEntryPointByVersion, nothing links libcuda): a load over src as a stack of
// (rows, cols) matrices and a store over dst as a stack of (cols, rows) matrices, each
// into a square shared-memory tile under the 128-byte swizzle (layout::CuteTmaTile): 256-
// byte rows, each moved whole in one 3-D box where both sides' rows are whole 128-byte
// segments, else as two slabs of 128-byte rows (bytes: rows of 128). One block per tile:
// one thread issues the load on an mbarrier, all threads turn the tile in place in register
// micro-blocks, one thread issues the store. Loads fill what lies outside the matrix with
// zeros and stores clip it, so edge tiles run the same code. The tile lives in dynamic
// shared memory (a byte tile of whole rows is 64 KiB), and the launch asks for more than it
// needs where an SM should hold fewer tiles than fit (CuteTmaTile::blocks_per_sm).
#include <cute/tensor.hpp>
// (after tensor.hpp, which they assume)
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>

#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "kernels/tma/tensor_map.hpp"
#include "layout/cute_tiles.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::kernels {
namespace {

using layout::CuteTmaTile;

template <class Tile, class LoadCopy, class StoreCopy>
__global__ void __launch_bounds__(Tile::threads)
    transpose_cute_tma(const __grid_constant__ LoadCopy load, const __grid_constant__ StoreCopy store,
                       int64_t rows, int64_t cols, int64_t batch, TileOrigin o) {
  using T = typename Tile::T;
  extern __shared__ uint8_t dynamic[];  // sized by dynamic_smem (launch.cuh)
  __shared__ uint64_t loaded;
  // The tile starts on the swizzle's 1024-byte period (the launch adds 1 KiB for this).
  const uint32_t base = uint32_t(__cvta_generic_to_shared(dynamic));
  T* const buffer = reinterpret_cast<T*>(dynamic + ((base + 1023) / 1024 * 1024 - base));
  auto tile = cute::make_tensor(cute::make_smem_ptr(buffer), typename Tile::Smem{});

  const int64_t b = o.batch + blockIdx.z, tr = o.row_tile + blockIdx.y, tc = o.col_tile + blockIdx.x;
  const auto src = cute::local_tile(load.get_tma_tensor(Tile::shape(rows, cols, batch))(cute::_, cute::_, b),
                                    typename Tile::Shape{}, cute::make_coord(tr, tc));
  const auto dst = cute::local_tile(store.get_tma_tensor(Tile::shape(cols, rows, batch))(cute::_, cute::_, b),
                                    typename Tile::Shape{}, cute::make_coord(tc, tr));
  if (threadIdx.x == 0) {
    cute::initialize_barrier(loaded, 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cute::set_barrier_transaction_bytes(loaded, Tile::bytes);
    const auto slice = load.get_slice(0);
    cute::copy(load.with(loaded), slice.partition_S(src), slice.partition_D(tile));
  }
  cute::wait_barrier(loaded, 0);
  constexpr int E = sizeof(T);
  using Word = typename layout::WordOf<layout::MicroTraits<E>::m * E>::type;
  layout::turn_in_place<E, Tile::edge>([&](int r, int c) -> Word& { return *reinterpret_cast<Word*>(&tile(r, c)); },
                                       threadIdx.x, Tile::threads);
  cute::tma_store_fence();  // the threads' shared-memory writes, visible to the copy engine
  __syncthreads();
  if (threadIdx.x == 0) {
    const auto slice = store.get_slice(0);
    cute::copy(store, slice.partition_S(tile), slice.partition_D(dst));
    cute::tma_store_arrive();
    cute::tma_store_wait<0>();  // shared memory must outlive the store's reads
  }
}

std::string unserved(const Problem& p, const detail::Device& d) {
  if (p.elem_bytes == 16)
    return "cute_tma moves elements of 1, 2, 4 or 8 bytes (TMA's widest element); tma and tma_pipeline serve 16";
  return tma::unserved(p, d);
}

// The tile, by layout: whole rows where both sides' rows are whole 128-byte segments.
template <int E, class F>
auto with_tile(const Problem& p, F&& f) {
  return layout::cute_tma_whole_rows(E, p.rows, p.cols) ? f(CuteTmaTile<E, true>{}) : f(CuteTmaTile<E, false>{});
}

detail::Launch shape(const Problem& p, const detail::Device&) {
  return with_elem_bytes_up_to_8(p.elem_bytes, detail::Launch{}, [&](auto e) {
    return with_tile<decltype(e)::value>(p, [&](auto tile) {
      using Tile = decltype(tile);
      return tile_launch(p, Tile::edge, Tile::edge, {uint32_t(Tile::threads), 1, 1});
    });
  });
}

template <class Tile>
cudaError_t launch_with(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  using T = typename Tile::T;
  // Batch strides of a single matrix are never used; any pitch past the matrix keeps the
  // tensor map's strides valid.
  const int64_t stride_src = p.batch > 1 ? p.stride_src : p.rows * p.ld_src;
  const int64_t stride_dst = p.batch > 1 ? p.stride_dst : p.cols * p.ld_dst;
  const auto src = Tile::matrices(static_cast<const T*>(p.src), p.rows, p.cols, p.ld_src, stride_src, p.batch);
  const auto dst = Tile::matrices(static_cast<T*>(p.dst), p.cols, p.rows, p.ld_dst, stride_dst, p.batch);
  const auto load = cute::make_tma_copy(cute::SM90_TMA_LOAD{}, src, typename Tile::Smem{});
  const auto store = cute::make_tma_copy(cute::SM90_TMA_STORE{}, dst, typename Tile::Smem{});
  const auto kernel = transpose_cute_tma<Tile, std::decay_t<decltype(load)>, std::decay_t<decltype(store)>>;
  size_t smem = 0;
  if (cudaError_t e = dynamic_smem(kernel, size_t(Tile::bytes) + 1024, Tile::blocks_per_sm, &smem); e != cudaSuccess)
    return e;
  return launch_tiles(kernel, p, l, smem, s, load, store, p.rows, p.cols, p.batch);
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes_up_to_8(p.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    return with_tile<decltype(e)::value>(p, [&](auto tile) { return launch_with<decltype(tile)>(p, l, s); });
  });
}

}  // namespace

const detail::Kernel cute_tma = {"cute_tma",
                                 "CuTe: SM90 TMA copy atoms in and out, 128-byte-swizzled tiles of 256-byte rows, each row one 3-D box where both sides' rows are whole 128-byte segments (else two halves; bytes: 128-byte rows)",
                                 unserved, shape, launch};

}  // namespace xpose::kernels
