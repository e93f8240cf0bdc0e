// tma_pipeline: the production TMA transpose (kernels/tma/pipeline.cuh), in the
// configuration experiments/tma_pipeline.cu measured best on the H100.
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "kernels/tma/pipeline.cuh"
#include "kernels/tma/tensor_map.hpp"

namespace xpose::kernels {
namespace {

// experiments/tma_pipeline.cu on the H100 (docs/results/tma-pipeline-experiment-2.txt):
// every configuration tried lands at 86-90% of copy once L2 promotion is at most 128
// bytes (256-byte promotion fetched the neighbouring tile's lines too and cost 3-7%).
using Config = tma::PipeConfig<128, 4, 2, 256>;
constexpr int l2_promotion = 128;

template <int E>
cudaError_t allow_smem() {
  return cudaFuncSetAttribute(tma::transpose_tma_pipeline<E, Config>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              int(tma::pipe_smem_bytes<E, Config>()));
}

// Shared memory, not threads, bounds the resident blocks (96 KB each: two per H100 SM).
template <int E>
int blocks_per_sm() {
  static const int blocks = [] {
    int n = 0;
    if (allow_smem<E>() != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, tma::transpose_tma_pipeline<E, Config>, Config::threads,
                                                      tma::pipe_smem_bytes<E, Config>()) != cudaSuccess)
      cudaGetLastError();  // no GPU (planning on the CPU): assume one
    return n > 0 ? n : 1;
  }();
  return blocks;
}

detail::Launch shape(const Problem& p, const detail::Device& d) {
  detail::Launch l;
  l.tile_rows = Config::rows;
  l.tile_cols = int(128 / p.elem_bytes);
  const int64_t tiles = tma::pipe_work(p, l.tile_rows, l.tile_cols).tiles;
  const int per_sm = with_elem_bytes(p.elem_bytes, [](auto e) { return blocks_per_sm<decltype(e)::value>(); });
  const int64_t resident = int64_t(per_sm) * std::max(d.sm_count, 1);
  l.grid = {uint32_t(std::min(tiles, resident)), 1, 1};
  l.block = {uint32_t(Config::threads), 1, 1};
  return l;
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  CUtensorMap src, dst;
  const int n = l.tile_cols;
  tma::MapShape src_shape =
      tma::map_shape(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes, n, l.tile_rows, true);
  tma::MapShape dst_shape = tma::dst_map_shape(p, n, true);
  src_shape.l2_promotion = dst_shape.l2_promotion = l2_promotion;
  if (cudaError_t e = tma::encode(src_shape, p.src, &src); e != cudaSuccess) return e;
  if (cudaError_t e = tma::encode(dst_shape, p.dst, &dst); e != cudaSuccess) return e;
  return with_elem_bytes(p.elem_bytes, [&](auto tag) {
    constexpr int E = decltype(tag)::value;
    if (cudaError_t e = allow_smem<E>(); e != cudaSuccess) return e;
    tma::transpose_tma_pipeline<E, Config><<<to_dim3(l.grid), to_dim3(l.block), tma::pipe_smem_bytes<E, Config>(), s>>>(
        src, dst, tma::pipe_work(p, l.tile_rows, l.tile_cols));
    return cudaGetLastError();
  });
}

}  // namespace

const detail::Kernel tma_pipeline = {
    "tma_pipeline", "persistent TMA pipeline: tile loads in flight on mbarriers, bulk-group stores, register micro-blocks",
    tma::unserved, shape, launch};

}  // namespace xpose::kernels
