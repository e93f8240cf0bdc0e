// smem, smem_padded, smem_swizzled: the textbook 32x32 tile through shared
// memory so that both global sides are coalesced. The three differ only in the tile's
// shared-memory layout: plain (a column walk hits one bank), padded by one bank per
// row, or XOR-swizzled.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/smem_layout.hpp"

namespace xpose::engines {
namespace {

namespace cl = layout::classic;

template <int E, template <int> class TileOf>
__global__ void __launch_bounds__(cl::block_x * cl::block_y) transpose_smem(Problem p, TileOrigin o) {
  using T = Elem<E>;
  using Tile = TileOf<E>;
  __shared__ T tile[Tile::size];
  const TileRef<T> t = block_tile<T>(p, o, cl::tile, cl::tile);
  const bool full = t.rows == cl::tile && t.cols == cl::tile;
#pragma unroll
  for (int j = 0; j < cl::per_thread; ++j) {
    const auto e = cl::load_coord(threadIdx.x, threadIdx.y, j);
    if (full || (e.r < t.rows && e.c < t.cols)) tile[Tile::at(e.r, e.c)] = t.src[e.r * p.ld_src + e.c];
  }
  __syncthreads();
#pragma unroll
  for (int j = 0; j < cl::per_thread; ++j) {
    const auto e = cl::store_coord(threadIdx.x, threadIdx.y, j);
    if (full || (e.r < t.rows && e.c < t.cols)) t.dst[e.c * p.ld_dst + e.r] = tile[Tile::at(e.r, e.c)];
  }
}

template <template <int> class TileOf>
cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes(p.elem_bytes,
                         [&](auto e) { return launch_tiles(transpose_smem<decltype(e)::value, TileOf>, plan, s, p); });
}

constexpr const char* classic_launch = "32x32 tile, 32x8 threads";

}  // namespace

const Engine smem = {"smem",
                     "32x32 tile through shared memory, column reads bank-conflicted",
                     classic_launch,
                     Input::transpose,
                     any_task,
                     classic_plan,
                     launch<cl::Plain>,
                     tiles_text};
const Engine smem_padded = {"smem_padded",      "32x32 tile, rows padded by one bank",
                            classic_launch,     Input::transpose,
                            any_task,           classic_plan,
                            launch<cl::Padded>, tiles_text};
const Engine smem_swizzled = {"smem_swizzled",
                              "32x32 tile, column c of row r stored at c ^ r",
                              classic_launch,
                              Input::transpose,
                              any_task,
                              classic_plan,
                              launch<cl::Swizzled>,
                              tiles_text};

}  // namespace xpose::engines
