// tma_pipeline: the pipelined TMA transpose (engines/tma/pipeline.cuh), in the
// configuration tools/experiments/tma_pipeline.cu measured best on the H100.
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/tma/pipeline.cuh"
#include "engines/tma/tensor_map.hpp"

namespace xpose::engines {
namespace {

// tools/experiments/tma_pipeline.cu (docs/experiments.md, 3):
// every configuration tried lands close to the others once L2 promotion is at most 128
// bytes; 256-byte promotion fetched the neighbouring tile's lines too.
using Config = tma::PipeConfig<128, 4, 2, 256>;
constexpr int l2_promotion = 128;

template <int E>
constexpr auto kernel = tma::transpose_tma_pipeline<E, Config>;

// Shared memory, not threads, bounds the resident blocks (96 KiB each: two per H100 SM).
// Asked of the runtime once per device; where it cannot answer (planning for a pretend
// device on a machine without one) one block per SM is assumed.
template <int E>
int blocks_per_sm(const Device& d) {
  static detail::PerDevice known;
  int blocks = 0;
  const cudaError_t e = known.get(d.id, &blocks, [&](int* n) {
    if (cudaError_t err = detail::allow_dynamic_smem<kernel<E>>(d.id, tma::pipe_smem_bytes<E, Config>()); err != cudaSuccess)
      return err;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, kernel<E>, Config::threads, tma::pipe_smem_bytes<E, Config>());
  });
  if (e != cudaSuccess) cudaGetLastError();
  return blocks > 0 ? blocks : 1;
}

// A persistent grid of as many blocks as are resident at once, walking tiles of
// Config::rows src rows by one 128-byte box column.
Support plan(Plan* plan, const Device& d, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const int n = 128 / E;
    Tiles& t = tile_plan(plan, Config::rows, n, {uint32_t(Config::threads), 1, 1});
    const int64_t tiles = t.walk.col_tiles * t.walk.row_tiles * t.walk.batch;
    const int64_t resident = int64_t(blocks_per_sm<E>(d)) * std::max(d.sm_count, 1);
    plan->grid = {uint32_t(std::min(tiles, resident)), 1, 1};
    plan->smem_bytes = tma::pipe_smem_bytes<E, Config>();
    t.maps = {tma::src_map(p, n, true, Config::rows, l2_promotion), tma::dst_map(p, n, true, l2_promotion)};
    return detail::served();
  });
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  CUtensorMap src, dst;
  if (cudaError_t e = tma::encode(plan, &src, &dst); e != cudaSuccess) return e;
  return with_elem_bytes(p.elem_bytes, [&](auto tag) {
    constexpr int E = decltype(tag)::value;
    if (cudaError_t e = detail::allow_dynamic_smem<kernel<E>>(plan.device, plan.smem_bytes); e != cudaSuccess) return e;
    kernel<E><<<to_dim3(plan.grid), to_dim3(plan.block), plan.smem_bytes, s>>>(
        src, dst, tma::pipe_work(tiles(plan).walk, p.rows));
    return cudaGetLastError();
  });
}

}  // namespace

const Engine tma_pipeline = {
    "tma_pipeline",
    "persistent TMA pipeline: tile loads in flight on mbarriers, bulk-group stores, register micro-blocks",
    "persistent grid, 4 tile loads in flight per block",
    Input::transpose,
    tma::supports,
    plan,
    launch,
    tiles_text};

}  // namespace xpose::engines
