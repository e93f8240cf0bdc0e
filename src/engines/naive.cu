// naive_read / naive_write: no shared memory, each thread moves its
// elements straight from src to dst. One side is coalesced, the other strides by ld.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/smem_layout.hpp"

namespace xpose::engines {
namespace {

namespace cl = layout::classic;

// CoalescedRead: a warp walks a src row. Otherwise a warp walks a dst row.
template <int E, bool CoalescedRead>
__global__ void __launch_bounds__(cl::block_x * cl::block_y) transpose_naive(Problem p, TileOrigin o) {
  using T = Elem<E>;
  const TileRef<T> t = block_tile<T>(p, o, cl::tile, cl::tile);
  const bool full = t.rows == cl::tile && t.cols == cl::tile;
#pragma unroll
  for (int j = 0; j < cl::per_thread; ++j) {
    const auto e = CoalescedRead ? cl::load_coord(threadIdx.x, threadIdx.y, j)
                                 : cl::store_coord(threadIdx.x, threadIdx.y, j);
    if (full || (e.r < t.rows && e.c < t.cols)) t.dst[e.c * p.ld_dst + e.r] = t.src[e.r * p.ld_src + e.c];
  }
}

template <bool CoalescedRead>
cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    return launch_tiles(transpose_naive<decltype(e)::value, CoalescedRead>, plan, s, p);
  });
}

constexpr const char* classic_launch = "32x32 tile, 32x8 threads";

}  // namespace

const Engine naive_read = {"naive_read",   "coalesced reads, strided writes, no shared memory",
                           classic_launch, Input::transpose,
                           any_task,       classic_plan,
                           launch<true>,   tiles_text};
const Engine naive_write = {"naive_write",  "strided reads, coalesced writes, no shared memory",
                            classic_launch, Input::transpose,
                            any_task,       classic_plan,
                            launch<false>,  tiles_text};

}  // namespace xpose::engines
