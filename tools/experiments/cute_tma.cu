// Experiment (not part of the library): what holds cute_tma (src/kernels/cute/cute_tma.cu)
// below the copy ceiling? Variants of its kernel (tile, in-place turn, one block per tile):
// three shared-memory layouts (Kind below: how the TMA boxes cut a 256-byte tile row) and
// a cap on the tiles an SM holds at once (dynamic shared memory the kernel does not use).
// Each is checked against a naive transpose on the device and timed beside
// cudaMemcpyAsync in three interleaved rounds; prints % of copy. Earlier rounds of this
// experiment (docs/performance.md) also tried a register cap (spills: 49-62%), 2x2 micro-
// blocks for more blocks per SM (worse), evict-first loads and grouped tile orders (worse).
// Built with -DXPOSE_BUILD_EXPERIMENTS=ON (target cute_tma_exp); run it on the GPU machine.
#include <cute/tensor.hpp>
// (after tensor.hpp, which they assume)
#include <cute/atom/copy_traits_sm90_tma.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cutlass/arch/barrier.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "layout/cute_tiles.hpp"
#include "layout/micro_block.hpp"
#include "layout/tma_tile.hpp"

#define CHECK(x)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

using namespace xpose::layout;

// The tile's shared-memory layout, three ways: Sw2d is the library's (CuTe's SW128 atom
// tiled: a tile of 256-byte rows is two slabs, one TMA box of 128-byte rows each);
// Plain is row-major with no swizzle (one box of 256-byte rows, TMA allows no swizzle
// past 128 bytes); Split is the same bytes as Plain under the 128-byte swizzle, with
// each row's columns a (128-byte segment, segments) mode: over a gmem view whose
// segment stride is dynamic, make_tma_copy cannot merge the two and issues one 3-D box
// (segment, 2 segments, rows), so each row's 256 bytes still come and go together.
enum Kind { Sw2d, Plain, Split };

// Edge_: the tile's edge (0: the library's, 256-byte rows, 128 for bytes); a tile past
// 32 KiB lives in dynamic shared memory.
template <int E_, Kind Kind_, int Cap_ = 0, int MinBlocks_ = 0, int Edge_ = 0>
struct Knobs {
  static constexpr int E = E_, edge = Edge_ ? Edge_ : E == 1 ? 128 : 256 / E, seg = 128 / E, segs = edge / seg;
  static constexpr int bytes = edge * edge * E;
  static constexpr bool dynamic = bytes > 32768;
  static constexpr int cap = Cap_, min_blocks = MinBlocks_;
  static constexpr Kind kind = Kind_;
  using T = cute::uint_byte_t<E>;
  using Shape = cute::Shape<cute::Int<edge>, cute::Int<edge>>;
  using RowSplit = cute::Layout<cute::Shape<cute::Int<edge>, cute::Shape<cute::Int<seg>, cute::Int<segs>>>,
                                cute::Stride<cute::Int<edge>, cute::Stride<cute::_1, cute::Int<seg>>>>;
  using SplitShape = cute::Shape<cute::Int<edge>, cute::Shape<cute::Int<seg>, cute::Int<segs>>>;
  using Smem = std::conditional_t<
      Kind_ == Sw2d, decltype(cute::tile_to_shape(cute::SM90::GMMA::Layout_K_SW128_Atom<T>{}, Shape{})),
      std::conditional_t<Kind_ == Plain, cute::Layout<Shape, cute::Stride<cute::Int<edge>, cute::_1>>,
                         cute::ComposedLayout<cute::Swizzle<3, 4, 3>, cute::smem_ptr_flag_bits<8 * E>, RowSplit>>>;
  using TileShape = std::conditional_t<Kind_ == Split, SplitShape, Shape>;
  // (rows, cols) of a row-major matrix with pitch ld, as the kind's TMA wants to see it
  template <class P>
  CUTE_HOST_DEVICE static auto gmem(P* p, int64_t rows, int64_t cols, int64_t ld) {
    if constexpr (Kind_ == Split)
      return cute::make_tensor(cute::make_gmem_ptr(p), cute::make_shape(rows, cute::make_shape(cute::Int<seg>{}, cols / seg)),
                               cute::make_stride(ld, cute::make_stride(cute::_1{}, int64_t(seg))));
    else
      return cute::make_tensor(cute::make_gmem_ptr(p), cute::make_shape(rows, cols), cute::make_stride(ld, cute::_1{}));
  }
};

template <class K, class LoadCopy, class StoreCopy>
__global__ void __launch_bounds__(256, K::min_blocks)
    transpose(const __grid_constant__ LoadCopy load, const __grid_constant__ StoreCopy store, int64_t rows, int64_t cols) {
  using T = typename K::T;
  __shared__ alignas(1024) T fixed[K::dynamic ? 1 : K::edge * K::edge];
  extern __shared__ uint8_t spare[];
  T* const buffer = K::dynamic ? reinterpret_cast<T*>((reinterpret_cast<uintptr_t>(spare) + 1023) / 1024 * 1024) : fixed;
  __shared__ uint64_t loaded;
  auto tile = cute::make_tensor(cute::make_smem_ptr(buffer), typename K::Smem{});
  const int64_t tr = blockIdx.y, tc = blockIdx.x;
  const auto src = cute::local_tile(load.get_tma_tensor(cute::shape(K::gmem((T*)nullptr, rows, cols, cols))),
                                    typename K::TileShape{}, cute::make_coord(tr, tc));
  const auto dst = cute::local_tile(store.get_tma_tensor(cute::shape(K::gmem((T*)nullptr, cols, rows, rows))),
                                    typename K::TileShape{}, cute::make_coord(tc, tr));
  if (threadIdx.x == 0) {
    cute::initialize_barrier(loaded, 1);
    cutlass::arch::fence_barrier_init();
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    cute::set_barrier_transaction_bytes(loaded, K::edge * K::edge * K::E);
    const auto slice = load.get_slice(0);
    cute::copy(load.with(loaded), slice.partition_S(src), slice.partition_D(tile));
  }
  cute::wait_barrier(loaded, 0);
  using Word = typename WordOf<MicroTraits<K::E>::m * K::E>::type;
  turn_in_place<K::E, K::edge>([&](int r, int c) -> Word& { return *reinterpret_cast<Word*>(&tile(r, c)); },
                               threadIdx.x, 256);
  cute::tma_store_fence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const auto slice = store.get_slice(0);
    cute::copy(store, slice.partition_S(tile), slice.partition_D(dst));
    cute::tma_store_arrive();
    cute::tma_store_wait<0>();
  }
}

template <class T>
__global__ void naive(const T* src, T* dst, int64_t rows, int64_t cols) {
  const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (i < rows * cols) dst[(i % cols) * rows + i / cols] = src[i];
}
__global__ void fill(uint32_t* p, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    p[i] = uint32_t(i * 2654435761u) ^ seed ^ uint32_t(i >> 20);
}
__global__ void mismatches(const uint32_t* a, const uint32_t* b, int64_t n, unsigned long long* count) {
  unsigned long long local = 0;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    local += a[i] != b[i];
  if (local) atomicAdd(count, local);
}

template <class F>
float median_ms(F&& f, int reps) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  for (int i = 0; i < 3; ++i) f();
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    CHECK(cudaEventRecord(a));
    f();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

uint8_t *src, *dst, *ref;
unsigned long long* count;
int64_t N;  // square side of the current element size
size_t bytes;

struct Variant {
  const char* name;
  float (*time)(bool check, const char* name);
};

template <class K>
float time_variant(bool check, const char* name) {
  using T = typename K::T;
  const auto load = cute::make_tma_copy(cute::SM90_TMA_LOAD{}, K::gmem(reinterpret_cast<const T*>(src), N, N, N),
                                        typename K::Smem{});
  const auto store = cute::make_tma_copy(cute::SM90_TMA_STORE{}, K::gmem(reinterpret_cast<T*>(dst), N, N, N),
                                         typename K::Smem{});
  const auto kernel = transpose<K, std::decay_t<decltype(load)>, std::decay_t<decltype(store)>>;
  const dim3 grid(N / K::edge, N / K::edge);
  // Cap: reserve dynamic shared memory so that at most `cap` blocks fit an SM.
  const int fixed = (K::dynamic ? 0 : K::bytes) + 1024;  // static tile and barrier, and the reserved 1 KiB
  const int dyn = std::max(K::cap ? 228 * 1024 / K::cap - fixed - 64 : 0, K::dynamic ? K::bytes + 1024 : 0);
  if (dyn) CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  auto go = [&] { kernel<<<grid, 256, dyn>>>(load, store, N, N); };
  if (check) {
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, kernel));
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, dyn));
    CHECK(cudaMemset(dst, 0xA5, bytes));
    go();
    CHECK(cudaGetLastError());
    CHECK(cudaMemset(count, 0, sizeof *count));
    mismatches<<<1024, 256>>>(reinterpret_cast<const uint32_t*>(dst), reinterpret_cast<const uint32_t*>(ref),
                              int64_t(bytes / 4), count);
    unsigned long long bad = 0;
    CHECK(cudaMemcpy(&bad, count, sizeof bad, cudaMemcpyDeviceToHost));
    std::printf("%-32s %3d registers, %4zu B local, %d blocks/SM, %s\n", name, attr.numRegs, attr.localSizeBytes,
                per_sm, bad ? "WRONG" : "ok");
  }
  return median_ms(go, 15);
}

#define V(...) Variant{#__VA_ARGS__, time_variant<Knobs<__VA_ARGS__>>}

template <int E, size_t n>
void measure(int64_t side, const Variant (&variants)[n]) {
  using T = cute::uint_byte_t<E>;
  N = side;
  bytes = size_t(N * N * E);
  CHECK(cudaMalloc(&src, bytes));
  CHECK(cudaMalloc(&dst, bytes));
  CHECK(cudaMalloc(&ref, bytes));
  fill<<<1024, 256>>>(reinterpret_cast<uint32_t*>(src), int64_t(bytes / 4), 12345u);
  naive<<<unsigned(N * N / 256), 256>>>(reinterpret_cast<const T*>(src), reinterpret_cast<T*>(ref), N, N);
  CHECK(cudaDeviceSynchronize());
  std::printf("== E=%d %lldx%lld (element size, kind, cap, min blocks)\n", E, (long long)N, (long long)N);
  std::vector<std::vector<float>> pct(n);
  for (int round = 0; round < 3; ++round) {
    const float copy = median_ms([&] { CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice)); }, 15);
    std::printf("round %d: copy %.4f ms = %.1f GB/s\n", round, copy, 2.0 * bytes / (copy * 1e6));
    for (size_t v = 0; v < n; ++v) pct[v].push_back(100.f * copy / variants[v].time(round == 0, variants[v].name));
  }
  for (size_t v = 0; v < n; ++v) {
    std::sort(pct[v].begin(), pct[v].end());
    std::printf("%-32s %% of copy per round (sorted): %5.1f %5.1f %5.1f\n", variants[v].name, pct[v][0], pct[v][1],
                pct[v][2]);
  }
  cudaFree(src);
  cudaFree(dst);
  cudaFree(ref);
}

int main() {
  CHECK(cudaMalloc(&count, sizeof *count));
  // bytes: the library's 128x128 tile (one segment a row) against 256x256 tiles whose
  // 256-byte rows travel whole (64 KiB in dynamic shared memory: 3 per SM at most)
  const Variant u8[] = {V(1, Sw2d), V(1, Split, 0, 0, 256), V(1, Split, 2, 0, 256)};
  measure<1>(32768, u8);
  // 512-byte rows (four segments a box) for the others
  const Variant fp32[] = {V(4, Split, 3), V(4, Split, 0, 0, 128), V(4, Split, 2, 0, 128)};
  measure<4>(32768, fp32);
  const Variant fp16[] = {V(2, Split, 2), V(2, Split, 0, 0, 256)};
  measure<2>(32768, fp16);
  const Variant fp64[] = {V(8, Split), V(8, Split, 0, 0, 64), V(8, Split, 3, 0, 64), V(8, Split, 4, 0, 64)};
  measure<8>(16384, fp64);
  return 0;
}
