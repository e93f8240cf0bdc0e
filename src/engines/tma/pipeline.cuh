// The pipelined TMA transpose, as a template over its configuration so that
// tma_pipeline.cu instantiates the chosen one and tools/experiments/tma_pipeline.cu can time
// others. A persistent grid walks the tiles; each block keeps Stages - 1 tile loads in
// flight on mbarriers while its threads turn the current tile around in shared memory
// and the copy engine drains up to Out earlier tiles to dst in bulk groups. Tiles are
// Rows src rows by one 128-byte box column (layout::TmaPipeTile), turned in register
// micro-blocks so that every shared-memory access is a conflict-free word of 4 to 16
// bytes. Edges need no code: loads fill what lies outside the matrix with zeros and
// stores clip it.
#pragma once

#include "engines/common.cuh"
#include "engines/tma/ptx.cuh"
#include "layout/micro_block.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::engines::tma {

// Order: how tile t maps to (column tile, row band): along src rows first (0), down src
// columns first (1), or in groups of Group column tiles (2).
template <int Rows, int Stages, int Out, int Threads, int Order = 0, int Group = 8>
struct PipeConfig {
  static constexpr int rows = Rows, stages = Stages, out = Out, threads = Threads, order = Order, group = Group;
};

template <int E, class C>
using PipeTile = layout::TmaPipeTile<E, C::rows>;

template <int E, class C>
constexpr size_t pipe_smem_bytes() {  // + 1024 to align the buffers to the swizzle's period
  return size_t(C::stages + C::out) * PipeTile<E, C>::size * E + 1024;
}

// The tile walk of one launch, as the persistent blocks step through it.
struct PipeWork {
  int64_t tiles, col_tiles, row_tiles;
  int64_t rows;
};

inline PipeWork pipe_work(const layout::TileWalk& walk, int64_t rows) {
  return {walk.col_tiles * walk.row_tiles * walk.batch, walk.col_tiles, walk.row_tiles, rows};
}

// Turns one tile: each thread's micro-blocks are read as m words of m src-row elements,
// transposed in registers (layout/micro_block.hpp), and written as m words of m dst-row
// elements. The stores go through explicit st.shared: a plain store of a word assembled
// in a union was split by the compiler into per-element stores.
template <int E, class C>
__device__ __forceinline__ void turn_tile(const Elem<E>* in, Elem<E>* out) {
  using T = PipeTile<E, C>;
  using Word = typename layout::WordOf<T::word_bytes>::type;
  constexpr int m = T::m;
  static_assert(T::micro_blocks % C::threads == 0, "every thread turns the same number of micro-blocks");
#pragma unroll
  for (int item = 0; item < T::micro_blocks / C::threads; ++item) {
    const auto mb = T::micro(item * C::threads + threadIdx.x);
    Word a[m], b[m];
#pragma unroll
    for (int q = 0; q < m; ++q) a[q] = *reinterpret_cast<const Word*>(in + T::In::at(mb.I * m + q, mb.J * m));
    layout::transpose_micro(a, b);
#pragma unroll
    for (int q = 0; q < m; ++q) ptx::st_shared(out + T::out_at(mb.J * m + q, mb.I * m), b[q]);
  }
}

struct TileAt {
  int c0, r0, b;  // first src column, first src row, matrix
};

template <class C>
__device__ __forceinline__ TileAt pipe_tile_at(const PipeWork& w, int64_t t, int n) {
  const int64_t per_matrix = w.col_tiles * w.row_tiles, b = t / per_matrix, i = t % per_matrix;
  int64_t ct, rt;
  if (C::order == 0) {
    ct = i % w.col_tiles, rt = i / w.col_tiles;
  } else if (C::order == 1) {
    rt = i % w.row_tiles, ct = i / w.row_tiles;
  } else {  // groups of C::group column tiles, walked down the row bands
    const int64_t g = i / (C::group * w.row_tiles), in_g = i % (C::group * w.row_tiles);
    const int64_t width = min(int64_t(C::group), w.col_tiles - g * C::group);
    ct = g * C::group + in_g % width, rt = in_g / width;
  }
  return {int(ct * n), int(rt * C::rows), int(b)};
}

template <int E, class C>
__global__ void __launch_bounds__(C::threads)
    transpose_tma_pipeline(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst,
                           PipeWork w) {
  using T = PipeTile<E, C>;
  constexpr int split = layout::tma_split(E);
  extern __shared__ uint8_t raw[];
  // Aligned by offsetting `raw` itself, not through an integer: the compiler then still
  // knows these are shared-memory pointers and emits LDS/STS rather than generic loads.
  Elem<E>* const in = reinterpret_cast<Elem<E>*>(raw + ((1024 - (ptx::smem_addr(raw) & 1023)) & 1023));
  Elem<E>* const out = in + C::stages * T::size;
  __shared__ uint64_t loaded[C::stages];

  const auto load = [&](int64_t k) {  // the block's k-th tile into stage k % stages
    const int64_t t = blockIdx.x + k * gridDim.x;
    if (t >= w.tiles) return;
    const int s = int(k % C::stages);
    const TileAt a = pipe_tile_at<C>(w, t, T::n);
    ptx::mbarrier_arrive_expect_tx(&loaded[s], T::size * E);
    ptx::load_3d(in + s * T::size, &src, a.c0 * split, a.r0, a.b, &loaded[s]);
  };

  if (threadIdx.x == 0) {
    for (int s = 0; s < C::stages; ++s) ptx::mbarrier_init(&loaded[s], 1);
    ptx::fence_barrier_init();
    for (int k = 0; k < C::stages - 1; ++k) load(k);
  }
  for (int64_t k = 0; blockIdx.x + k * gridDim.x < w.tiles; ++k) {
    if (threadIdx.x == 0) {
      load(k + C::stages - 1);                 // into the stage every thread finished turning last round
      ptx::bulk_wait_group_read<C::out - 1>();  // out[k % Out] has been read out by its store
    }
    __syncthreads();
    const int s = int(k % C::stages);
    ptx::mbarrier_wait(&loaded[s], uint32_t(k / C::stages) & 1);
    Elem<E>* const turned = out + (k % C::out) * T::size;
    turn_tile<E, C>(in + s * T::size, turned);
    ptx::fence_proxy_async_shared();
    __syncthreads();
    if (threadIdx.x == 0) {
      const TileAt a = pipe_tile_at<C>(w, blockIdx.x + k * gridDim.x, T::n);
#pragma unroll 1
      for (int j = 0; j < T::boxes_out && a.r0 + j * T::n < w.rows; ++j)
        ptx::store_3d(&dst, (a.r0 + j * T::n) * split, a.c0, a.b, turned + j * T::n * T::n);
      ptx::bulk_commit_group();
    }
  }
  if (threadIdx.x == 0) ptx::bulk_wait_group<0>();
}

}  // namespace xpose::engines::tma
