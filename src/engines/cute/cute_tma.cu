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

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/tma/tensor_map.hpp"
#include "layout/cute_tiles.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::engines {
namespace {

using layout::CuteTmaTile;

template <class Tile, class LoadCopy, class StoreCopy>
__global__ void __launch_bounds__(Tile::threads)
    transpose_cute_tma(const __grid_constant__ LoadCopy load, const __grid_constant__ StoreCopy store,
                       int64_t rows, int64_t cols, int64_t batch, TileOrigin o) {
  using T = typename Tile::T;
  // All shared memory is dynamic (sized by the plan, smem_bytes below): the load's
  // mbarrier first, then the tile on the swizzle's 1024-byte period.
  extern __shared__ uint8_t dynamic[];
  uint64_t& loaded = *reinterpret_cast<uint64_t*>(dynamic);
  const uint32_t base = uint32_t(__cvta_generic_to_shared(dynamic));
  T* const buffer = reinterpret_cast<T*>(dynamic + ((base + sizeof(uint64_t) + 1023) / 1024 * 1024 - base));
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

Support supports(const Task& t, const Device& d) {
  if (t.problem.elem_bytes == 16)
    return detail::refused(detail::Refusal::other, "cute_tma moves elements of 1, 2, 4 or 8 bytes (TMA's widest "
                                                   "element); tma and tma_pipeline serve 16");
  return tma::supports(t, d);
}

// The variant: whole rows (1) where both sides' rows are whole 128-byte segments, else slabs (0).
template <int E, class F>
auto with_tile(int variant, F&& f) {
  return variant ? f(CuteTmaTile<E, true>{}) : f(CuteTmaTile<E, false>{});
}

// The dynamic shared memory a block takes: its mbarrier and tile (aligned to the swizzle's
// period), or more where at most Tile::blocks_per_sm blocks should share an SM: then each
// block takes a 1 KiB-aligned share of the SM's shared memory, so that that many fit and
// one more does not (the rest of the share unused).
template <class Tile>
size_t smem_bytes(const Device& d) {
  const size_t needed = size_t(Tile::bytes) + 1024 + sizeof(uint64_t);
  constexpr int blocks = Tile::blocks_per_sm;
  if constexpr (blocks <= 0) return needed;
  const size_t share = size_t(d.smem_per_sm) / std::max(blocks, 1) / 1024 * 1024;
  const size_t reserved = size_t(d.reserved_smem_per_block);
  return share > reserved + needed ? share - reserved : needed;
}

Support plan(Plan* plan, const Device& d, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  return with_elem_bytes_up_to_8(p.elem_bytes, detail::refused("cute_tma moves elements of at most 8 bytes"),
                                 [&](auto e) {
                                   constexpr int E = decltype(e)::value;
                                   const int whole_rows = layout::cute_tma_whole_rows(E, p.rows, p.cols) ? 1 : 0;
                                   return with_tile<E>(whole_rows, [&](auto tile) {
                                     using Tile = decltype(tile);
                                     tile_plan(plan, Tile::edge, Tile::edge, {uint32_t(Tile::threads), 1, 1});
                                     plan->variant = whole_rows;
                                     plan->variant_name = whole_rows ? "whole 256-byte rows" : "128-byte slabs";
                                     plan->smem_bytes = smem_bytes<Tile>(d);
                                     return detail::served();
                                   });
                                 });
}

template <class Tile>
cudaError_t launch_with(const Plan& plan, cudaStream_t s) {
  using T = typename Tile::T;
  const Problem& p = plan.task.problem;
  const auto src = Tile::matrices(static_cast<const T*>(p.src), p.rows, p.cols, p.ld_src, p.stride_src, p.batch);
  const auto dst = Tile::matrices(static_cast<T*>(p.dst), p.cols, p.rows, p.ld_dst, p.stride_dst, p.batch);
  const auto load = cute::make_tma_copy(cute::SM90_TMA_LOAD{}, src, typename Tile::Smem{});
  const auto store = cute::make_tma_copy(cute::SM90_TMA_STORE{}, dst, typename Tile::Smem{});
  constexpr auto kernel = transpose_cute_tma<Tile, std::decay_t<decltype(load)>, std::decay_t<decltype(store)>>;
  if (cudaError_t e = detail::allow_dynamic_smem<kernel>(plan.device, plan.smem_bytes); e != cudaSuccess) return e;
  return launch_tiles(kernel, plan, s, load, store, p.rows, p.cols, p.batch);
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes_up_to_8(plan.task.problem.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    return with_tile<decltype(e)::value>(plan.variant, [&](auto tile) { return launch_with<decltype(tile)>(plan, s); });
  });
}

}  // namespace

const Engine cute_tma = {
    "cute_tma",
    "CuTe: SM90 TMA copy atoms in and out, 128-byte-swizzled tiles of 256-byte rows, each row one 3-D box where both "
    "sides' rows are whole 128-byte segments (else two halves; bytes: 128-byte rows)",
    "tile of 256-byte rows (u8 256x256, fp16 128x128, fp32 64x64, fp64 32x32), 256 threads",
    Input::transpose,
    supports,
    plan,
    launch,
    tiles_text};

}  // namespace xpose::engines
