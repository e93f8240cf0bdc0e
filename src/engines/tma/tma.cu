// The TMA ladder, generalised to every element size, shape, ld and batch:
// the copy engine moves a square tile of 128-byte rows into shared memory and the
// transposed tile back out; threads only turn the tile around in shared memory.
//   tma             plain tile: the column walk of the turn is bank-conflicted
//   tma_swizzle128  the copy engine's 128-byte swizzle on both tiles, element by element
//   tma_batched     the same, each thread a run of 8 elements of one row
// Edges need no code: loads fill what lies outside the matrix with zeros and stores
// clip it, so a tile cut by the edge runs the same path as a whole one.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/tma/ptx.cuh"
#include "engines/tma/tensor_map.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::engines {
namespace {

template <int E, int Run>
struct TmaShape {
  static constexpr int edge = layout::TmaTile<E>::edge;
  static constexpr int runs = edge * edge / Run;  // runs of Run elements along src rows
  static constexpr int threads = runs < 256 ? runs : 256;
  static constexpr int split = layout::tma_split(E);
};

template <int E, class Tile, int Run>
__global__ void __launch_bounds__(TmaShape<E, Run>::threads)
    transpose_tma(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst, TileOrigin o) {
  using S = TmaShape<E, Run>;
  constexpr int n = S::edge;
  __shared__ alignas(1024) Elem<E> in[n * n];  // 1024-byte aligned: the 128-byte swizzle's period
  __shared__ alignas(1024) Elem<E> out[n * n];
  __shared__ uint64_t loaded;
  const int c0 = int((o.col_tile + blockIdx.x) * n), r0 = int((o.row_tile + blockIdx.y) * n);
  const int b = int(o.batch + blockIdx.z);
  if (threadIdx.x == 0) {
    tma::ptx::mbarrier_init(&loaded, 1);
    tma::ptx::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::ptx::mbarrier_arrive_expect_tx(&loaded, sizeof(in));
    tma::ptx::load_3d(in, &src, c0 * S::split, r0, b, &loaded);
  }
  tma::ptx::mbarrier_wait(&loaded, 0);
  for (int i = threadIdx.x; i < S::runs; i += S::threads) {
    const int r = i / (n / Run), c = i % (n / Run) * Run;
#pragma unroll
    for (int j = 0; j < Run; ++j) out[Tile::at(c + j, r)] = in[Tile::at(r, c + j)];
  }
  tma::ptx::fence_proxy_async_shared();
  __syncthreads();
  if (threadIdx.x == 0) {
    tma::ptx::store_3d(&dst, r0 * S::split, c0, b, out);
    tma::ptx::bulk_commit_group();
    tma::ptx::bulk_wait_group_read<0>();  // shared memory must outlive the store's reads
  }
}

// One block per square tile of 128-byte rows, one box each way.
template <bool Swizzled, int Run>
Support plan(Plan* plan, const Device&, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    using S = TmaShape<decltype(e)::value, Run>;
    tile_plan(plan, S::edge, S::edge, {uint32_t(S::threads), 1, 1}).maps = {tma::src_map(p, S::edge, Swizzled),
                                                                            tma::dst_map(p, S::edge, Swizzled)};
    return detail::served();
  });
}

template <bool Swizzled, int Run>
cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  CUtensorMap src, dst;
  if (cudaError_t e = tma::encode(plan, &src, &dst); e != cudaSuccess) return e;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    using Tile = std::conditional_t<Swizzled, typename layout::TmaTile<E>::Swizzled128,
                                    typename layout::TmaTile<E>::Plain>;
    return launch_tiles(transpose_tma<E, Tile, Run>, plan, s, src, dst);
  });
}

constexpr const char* square_launch = "a square tile of 128-byte rows (128/E elements a side), up to 256 threads";

}  // namespace

const Engine tma_plain = {"tma",
                          "TMA tile in and out, plain shared-memory tile",
                          square_launch,
                          Input::transpose,
                          tma::supports,
                          plan<false, 1>,
                          launch<false, 1>,
                          tiles_text};
const Engine tma_swizzle128 = {"tma_swizzle128", "TMA with the 128-byte swizzle, one element per step",
                               square_launch,    Input::transpose,
                               tma::supports,    plan<true, 1>,
                               launch<true, 1>,  tiles_text};
const Engine tma_batched = {"tma_batched",   "TMA with the 128-byte swizzle, runs of 8 elements per thread",
                            square_launch,   Input::transpose,
                            tma::supports,   plan<true, 8>,
                            launch<true, 8>, tiles_text};

}  // namespace xpose::engines
