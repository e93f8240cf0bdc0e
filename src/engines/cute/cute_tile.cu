// The CuTe family: the same tile transposes as the hand-written ladder, with
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
//   cute_swizzled             row-major tile through a CuTe Swizzle (composition)
//   cute_vectorized           16-byte copy atoms on both global sides, row-major tile
//   cute_vectorized_swizzled  the same through a Swizzle that keeps both walks conflict-free
#include <cute/tensor.hpp>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/cute_tiles.hpp"

namespace xpose::engines {
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

// The vectorized pair's global store: a 16-byte copy atom whose store is one st.global.v4
// (__stwb, the default write-back policy). Through UniversalCopy<uint128_t> the compiler
// split the store of a fragment filled element by element into two or four narrower
// stores (st.global.v2.u32 for fp32, st.global.u64 for fp16: PTX), the mistake that slowed
// vec_swizzled (docs/experiments.md, 2).
struct StoreWhole16 {
  using SRegisters = cute::uint128_t[1];
  using DRegisters = cute::uint128_t[1];
  __device__ static void copy(const cute::uint128_t& src, cute::uint128_t& dst) {
    __stwb(reinterpret_cast<uint4*>(&dst), reinterpret_cast<const uint4&>(src));
  }
};

}  // namespace
}  // namespace xpose::engines

template <>
struct cute::Copy_Traits<xpose::engines::StoreWhole16> : cute::Copy_Traits<cute::UniversalCopy<cute::uint128_t>> {};

namespace xpose::engines {
namespace {

// The vectorized pair: 16-byte copy atoms on both global sides (a TiledCopy each), the
// tile's elements through shared memory one by one in the given layout. Tiles cut by the
// matrix edge move element by element, predicated, through the same layout: for elements of
// 2 bytes and more every load in flight before the first shared-memory store (a rolled loop
// there held small problems to its latency); for bytes in a rolled loop, since holding a
// thread's 16 bytes in registers took the whole kernel from 32 to 80 registers, 3 blocks an
// SM instead of 8, and whole tiles ran at that occupancy too.
template <int E, class SmemLayout>
__global__ void __launch_bounds__(layout::CuteVecTile<E>::threads) transpose_cute_vectorized(Problem p, TileOrigin o) {
  using T = layout::CuteVecTile<E>;
  using LoadAtom = cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>, Elem<E>>;
  using StoreAtom = cute::Copy_Atom<StoreWhole16, Elem<E>>;
  __shared__ alignas(16) Elem<E> buffer[cute::cosize_v<SmemLayout>];
  const TileRef<Elem<E>> t = block_tile<Elem<E>>(p, o, T::tile, T::tile);
  auto src = cute::make_tensor(cute::make_gmem_ptr(t.src),
                               cute::make_layout(typename T::Shape{}, cute::make_stride(p.ld_src, cute::_1{})));
  auto dst = cute::make_tensor(cute::make_gmem_ptr(t.dst),
                               cute::make_layout(typename T::Shape{}, cute::make_stride(cute::_1{}, p.ld_dst)));
  auto tile = cute::make_tensor(cute::make_smem_ptr(buffer), SmemLayout{});

  if (t.rows == T::tile && t.cols == T::tile) {
    const auto load = T::template load_copy<LoadAtom>();
    const auto loader = load.get_thread_slice(threadIdx.x);
    const auto from = loader.partition_S(src);
    auto in = cute::make_fragment_like(from);
    cute::copy(load, from, in);  // every load in flight before the first shared-memory store
    auto staged = loader.partition_D(tile);
    CUTE_UNROLL
    for (int i = 0; i < cute::size(in); ++i) staged(i) = in(i);
    __syncthreads();
    const auto store = T::template store_copy<StoreAtom>();
    const auto storer = store.get_thread_slice(threadIdx.x);
    auto to = storer.partition_D(dst);
    const auto gathered = storer.partition_S(tile);
    auto out = cute::make_fragment_like(to);
    CUTE_UNROLL
    for (int i = 0; i < cute::size(out); ++i) out(i) = gathered(i);
    cute::copy(store, out, to);
  } else if constexpr (E == 1) {
#pragma unroll 1
    for (int i = threadIdx.x; i < T::tile * T::tile; i += T::threads) {
      const int r = i / T::tile, c = i % T::tile;  // along a src row
      if (r < t.rows && c < t.cols) tile(r, c) = src(r, c);
    }
    __syncthreads();
#pragma unroll 1
    for (int i = threadIdx.x; i < T::tile * T::tile; i += T::threads) {
      const int c = i / T::tile, r = i % T::tile;  // along a dst row
      if (r < t.rows && c < t.cols) dst(r, c) = tile(r, c);
    }
  } else {
    constexpr int n = T::tile * T::tile / T::threads;
    static_assert(n * T::threads == T::tile * T::tile, "each thread takes the same number of a cut tile's elements");
    Elem<E> held[n];
    CUTE_UNROLL
    for (int j = 0; j < n; ++j) {  // every load in flight before the first shared-memory store
      const int i = threadIdx.x + j * T::threads, r = i / T::tile, c = i % T::tile;  // along a src row
      if (r < t.rows && c < t.cols) held[j] = src(r, c);
    }
    CUTE_UNROLL
    for (int j = 0; j < n; ++j) {
      const int i = threadIdx.x + j * T::threads, r = i / T::tile, c = i % T::tile;
      if (r < t.rows && c < t.cols) tile(r, c) = held[j];
    }
    __syncthreads();
    CUTE_UNROLL
    for (int j = 0; j < n; ++j) {
      const int i = threadIdx.x + j * T::threads, c = i / T::tile, r = i % T::tile;  // along a dst row
      if (r < t.rows && c < t.cols) dst(r, c) = tile(r, c);
    }
  }
}

// The shared-memory layouts, each a type so that one kernel serves them all.
template <int E> using RowMajorTile = decltype(CuteTile<E>::plain());
template <int E>
using ColumnMajorTile = decltype(cute::make_layout(typename CuteTile<E>::Shape{}, cute::GenColMajor{}));
template <int E> using PaddedTile = decltype(CuteTile<E>::padded());
template <int E> using SwizzledTile = decltype(CuteTile<E>::swizzled());

Support cute_plan(Plan* plan, const Device&, const PlanOptions&) {
  return with_elem_bytes(plan->task.problem.elem_bytes, [&](auto e) {
    using T = CuteTile<decltype(e)::value>;
    tile_plan(plan, T::rows, T::cols, {cute_threads, 1, 1});
    return detail::served();
  });
}

template <class Threads>
cudaError_t launch_naive(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    return launch_tiles(transpose_cute_naive<decltype(e)::value, Threads>, plan, s, plan.task.problem);
  });
}

template <template <int> class SmemLayoutOf>
cudaError_t launch_smem(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return launch_tiles(transpose_cute_smem<E, SmemLayoutOf<E>>, plan, s, plan.task.problem);
  });
}

template <int E> using VecPlainTile = decltype(layout::CuteVecTile<E>::plain());
template <int E> using VecSwizzledTile = decltype(layout::CuteVecTile<E>::swizzled());

Support vectorized_supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  return detail::needs_16_byte_rows(t.problem, "a CuTe 16-byte copy atom");
}

Support cute_vec_plan(Plan* plan, const Device&, const PlanOptions&) {
  return with_elem_bytes(plan->task.problem.elem_bytes, [&](auto e) {
    using T = layout::CuteVecTile<decltype(e)::value>;
    tile_plan(plan, T::tile, T::tile, {uint32_t(T::threads), 1, 1});
    return detail::served();
  });
}

template <template <int> class SmemLayoutOf>
cudaError_t launch_vectorized(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    return launch_tiles(transpose_cute_vectorized<E, SmemLayoutOf<E>>, plan, s, plan.task.problem);
  });
}

constexpr const char* cute_launch = "32 rows x 64 elements (bytes: 128), 256 threads";
constexpr const char* cute_vec_launch = "32x32 tile (bytes 64x64, 8-byte 16x16), up to 256 threads";

}  // namespace

const Engine cute_naive_read = {"cute_naive_read",
                                "CuTe: threads along src rows, strided dst writes",
                                cute_launch,
                                Input::transpose,
                                any_task,
                                cute_plan,
                                launch_naive<AlongRows>,
                                tiles_text};
const Engine cute_naive_write = {"cute_naive_write",
                                 "CuTe: threads down src columns, coalesced dst writes",
                                 cute_launch,
                                 Input::transpose,
                                 any_task,
                                 cute_plan,
                                 launch_naive<DownColumns>,
                                 tiles_text};
const Engine cute_smem_conflict_read = {"cute_smem_conflict_read",
                                        "CuTe: row-major shared tile, column reads conflict",
                                        cute_launch,
                                        Input::transpose,
                                        any_task,
                                        cute_plan,
                                        launch_smem<RowMajorTile>,
                                        tiles_text};
const Engine cute_smem_conflict_write = {"cute_smem_conflict_write",
                                         "CuTe: column-major shared tile, column writes conflict",
                                         cute_launch,
                                         Input::transpose,
                                         any_task,
                                         cute_plan,
                                         launch_smem<ColumnMajorTile>,
                                         tiles_text};
const Engine cute_padded = {"cute_padded",
                            "CuTe: shared tile rows padded by one bank",
                            cute_launch,
                            Input::transpose,
                            any_task,
                            cute_plan,
                            launch_smem<PaddedTile>,
                            tiles_text};
const Engine cute_swizzled = {"cute_swizzled",
                              "CuTe: shared tile through a composed Swizzle",
                              cute_launch,
                              Input::transpose,
                              any_task,
                              cute_plan,
                              launch_smem<SwizzledTile>,
                              tiles_text};

const Engine cute_vectorized = {"cute_vectorized",
                                "CuTe: 16-byte copy atoms both sides, row-major shared tile (column reads conflict)",
                                cute_vec_launch,
                                Input::transpose,
                                vectorized_supports,
                                cute_vec_plan,
                                launch_vectorized<VecPlainTile>,
                                tiles_text};
const Engine cute_vectorized_swizzled = {"cute_vectorized_swizzled",
                                         "CuTe: 16-byte copy atoms both sides, shared tile through a composed Swizzle",
                                         cute_vec_launch,
                                         Input::transpose,
                                         vectorized_supports,
                                         cute_vec_plan,
                                         launch_vectorized<VecSwizzledTile>,
                                         tiles_text};

}  // namespace xpose::engines
