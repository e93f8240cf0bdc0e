// tma_pipeline: the production TMA transpose. A persistent grid (two blocks per SM) walks
// the tiles; each block keeps several tile loads in flight on mbarriers while its threads
// turn the current tile around in shared memory and the copy engine drains earlier tiles
// to dst in bulk groups. Tiles are 128 src rows by one 128-byte box column
// (layout::TmaPipeTile), turned in register micro-blocks so that every shared-memory access
// is a conflict-free word of 4 to 16 bytes. Edges need no code: loads fill what lies
// outside the matrix with zeros and stores clip it.
#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "kernels/tma/ptx.cuh"
#include "kernels/tma/tensor_map.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::kernels {
namespace {

constexpr int pipe_rows = 128;    // src rows per tile
constexpr int pipe_stages = 4;    // tile loads in flight per block
constexpr int pipe_out = 2;       // dst tiles being stored per block
constexpr int pipe_threads = 256;
constexpr int pipe_blocks_per_sm = 2;

template <int E>
using PipeTile = layout::TmaPipeTile<E, pipe_rows>;

template <int E>
constexpr size_t pipe_smem_bytes() {  // + 1024 to align the buffers to the swizzle's period
  return size_t(pipe_stages + pipe_out) * PipeTile<E>::size * E + 1024;
}

// The tile walk of one launch: tile t is column tile t % col_tiles, row tile
// t / col_tiles % row_tiles, matrix t / (col_tiles * row_tiles).
struct PipeWork {
  int64_t tiles, col_tiles, row_tiles;
  int64_t rows;
};

template <int W> struct WordOf;
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint2; };
template <> struct WordOf<16> { using type = uint4; };

// One word of a micro-block row: m elements of E bytes.
template <int E>
union MicroRow {
  typename WordOf<PipeTile<E>::word_bytes>::type word;
  Elem<E> e[PipeTile<E>::m];
};

// Turns one tile: each thread's micro-blocks are read as m words of m src-row elements,
// transposed in registers, and written as m words of m dst-row elements.
template <int E>
__device__ __forceinline__ void turn_tile(const Elem<E>* in, Elem<E>* out) {
  using T = PipeTile<E>;
  constexpr int m = T::m;
#pragma unroll
  for (int item = 0; item < T::micro_blocks / pipe_threads; ++item) {
    const auto mb = T::micro(item * pipe_threads + threadIdx.x);
    MicroRow<E> a[m], b[m];
#pragma unroll
    for (int q = 0; q < m; ++q) a[q].word = *reinterpret_cast<const decltype(a[q].word)*>(in + T::In::at(mb.I * m + q, mb.J * m));
#pragma unroll
    for (int q = 0; q < m; ++q)
#pragma unroll
      for (int p = 0; p < m; ++p) b[q].e[p] = a[p].e[q];
#pragma unroll
    for (int q = 0; q < m; ++q) *reinterpret_cast<decltype(b[q].word)*>(out + T::out_at(mb.J * m + q, mb.I * m)) = b[q].word;
  }
}

template <int E>
__global__ void __launch_bounds__(pipe_threads, pipe_blocks_per_sm)
    transpose_tma_pipeline(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                           PipeWork w) {
  using T = PipeTile<E>;
  constexpr int split = E == 16 ? 2 : 1;  // 16-byte elements are two TMA elements
  extern __shared__ uint8_t raw[];
  Elem<E>* const in = reinterpret_cast<Elem<E>*>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  Elem<E>* const out = in + pipe_stages * T::size;
  __shared__ uint64_t loaded[pipe_stages];

  struct At { int c0, r0, b; };
  const auto tile_at = [&](int64_t t) {
    return At{int(t % w.col_tiles * T::n), int(t / w.col_tiles % w.row_tiles * T::rows),
              int(t / (w.col_tiles * w.row_tiles))};
  };
  const auto load = [&](int64_t k) {  // the block's k-th tile into stage k % stages
    const int64_t t = blockIdx.x + k * gridDim.x;
    if (t >= w.tiles) return;
    const int s = int(k % pipe_stages);
    const At a = tile_at(t);
    tma::ptx::mbarrier_arrive_expect_tx(&loaded[s], T::size * E);
    tma::ptx::load_3d(in + s * T::size, &src, a.c0 * split, a.r0, a.b, &loaded[s]);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < pipe_stages; ++s) tma::ptx::mbarrier_init(&loaded[s], 1);
    tma::ptx::fence_barrier_init();
    for (int k = 0; k < pipe_stages - 1; ++k) load(k);
  }
  for (int64_t k = 0; blockIdx.x + k * gridDim.x < w.tiles; ++k) {
    if (threadIdx.x == 0) {
      load(k + pipe_stages - 1);  // into the stage every thread finished turning last round
      tma::ptx::bulk_wait_group_read<pipe_out - 1>();  // out[k % pipe_out] is read out
    }
    __syncthreads();
    const int s = int(k % pipe_stages);
    tma::ptx::mbarrier_wait(&loaded[s], uint32_t(k / pipe_stages) & 1);
    Elem<E>* const turned = out + (k % pipe_out) * T::size;
    turn_tile<E>(in + s * T::size, turned);
    tma::ptx::fence_proxy_async_shared();
    __syncthreads();
    if (threadIdx.x == 0) {
      const At a = tile_at(blockIdx.x + k * gridDim.x);
#pragma unroll 1
      for (int j = 0; j < T::boxes_out && a.r0 + j * T::n < w.rows; ++j)
        tma::ptx::store_3d(&dst, (a.r0 + j * T::n) * split, a.c0, a.b, turned + j * T::n * T::n);
      tma::ptx::bulk_commit_group();
    }
  }
  if (threadIdx.x == 0) tma::ptx::bulk_wait_group<0>();
}

std::string unsupported(const Problem& p, const detail::Device& d) {
  if (d.cc != 90)
    return "the TMA kernels are built for compute capability 9.0 (sm_90a); the device is " +
           std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10);
  return tma::unaddressable(p);
}

PipeWork work_of(const Problem& p, int tile_rows, int tile_cols) {
  PipeWork w;
  w.col_tiles = layout::ceil_div(p.cols, tile_cols);
  w.row_tiles = layout::ceil_div(p.rows, tile_rows);
  w.tiles = w.col_tiles * w.row_tiles * p.batch;
  w.rows = p.rows;
  return w;
}

detail::Launch shape(const Problem& p, const detail::Device& d) {
  detail::Launch l;
  l.tile_rows = pipe_rows;
  l.tile_cols = int(128 / p.elem_bytes);
  const int64_t tiles = work_of(p, l.tile_rows, l.tile_cols).tiles;
  l.grid = {uint32_t(std::min<int64_t>(tiles, int64_t(pipe_blocks_per_sm) * std::max(d.sm_count, 1))), 1, 1};
  l.block = {pipe_threads, 1, 1};
  return l;
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  CUtensorMap src, dst;
  const int n = l.tile_cols;
  if (cudaError_t e = tma::encode(tma::map_shape(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes, n,
                                                 l.tile_rows, true),
                                  p.src, &src);
      e != cudaSuccess)
    return e;
  if (cudaError_t e = tma::encode(tma::dst_map_shape(p, n, true), p.dst, &dst); e != cudaSuccess) return e;
  return with_elem_bytes(p.elem_bytes, [&](auto tag) {
    constexpr int E = decltype(tag)::value;
    const auto kernel = transpose_tma_pipeline<E>;
    constexpr size_t smem = pipe_smem_bytes<E>();
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        e != cudaSuccess)
      return e;
    kernel<<<to_dim3(l.grid), to_dim3(l.block), smem, s>>>(src, dst, work_of(p, l.tile_rows, l.tile_cols));
    return cudaGetLastError();
  });
}

}  // namespace

const detail::Kernel tma_pipeline = {
    "tma_pipeline", "persistent TMA pipeline: 4 tile loads in flight, bulk-group stores, register micro-blocks",
    unsupported, shape, launch};

}  // namespace xpose::kernels
