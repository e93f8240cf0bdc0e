// Square in-place transposition: one block a pair of tiles (ti, tj), ti <= tj, across the
// diagonal. It loads tile A at (tj, ti) and tile B at (ti, tj) into registers, stages both in
// shared memory, and writes each turned where the other was (a diagonal block turns its own
// tile): every load lands before the first store, and no other block touches either tile.
// Rows and bases 16-byte aligned move as 16-byte vectors on both sides through
// vec_swizzled's tile (engines/vec_tile.cuh); the rest element by element through a padded
// 32 x 32 tile. The launch folds the triangle of pairs into a rectangle (layout::fold_pair).
#include <algorithm>

#include "engines/common.cuh"
#include "engines/inplace/inplace.hpp"
#include "engines/vec_tile.cuh"
#include "layout/grid.hpp"
#include "layout/inplace.hpp"

namespace xpose::engines {
namespace {

// 16-byte elements on an 8-byte boundary (NumPy's complex128) move as two 8-byte words.
struct alignas(8) Words8x2 {
  uint2 lo, hi;
};
template <int E>
using InplaceElem = std::conditional_t<E == 16, Words8x2, Elem<E>>;

// The pair of this block: tile A's first element pa (rows r0.., columns c0..), B's pb, and how
// many rows of A (`far`) and columns (`near`) lie inside the matrix.
struct PairRef {
  int64_t a, b;  // element offsets of A and B in the matrix
  int far, near;
  bool diagonal, valid;
};

__device__ __forceinline__ PairRef block_pair(int64_t n, int tile, int64_t tiles) {
  const layout::TilePair p = layout::fold_pair(blockIdx.x, blockIdx.y, tiles);
  const int64_t r0 = p.tj * tile, c0 = p.ti * tile;
  PairRef r;
  r.a = r0 * n + c0, r.b = c0 * n + r0;
  r.far = int(min(int64_t(tile), n - r0)), r.near = int(min(int64_t(tile), n - c0));
  r.diagonal = p.ti == p.tj, r.valid = p.valid;
  return r;
}

template <int E, bool Edge>
__device__ __forceinline__ void swap_vector_tiles(Elem<E>* m, int64_t n, const PairRef& p, Elem<E>* sa, Elem<E>* sb) {
  VecTileLoads<E> a, b;
  load_vec_tile<E, Edge>(m + p.a, n, p.far, p.near, a);
  if (!p.diagonal) load_vec_tile<E, Edge>(m + p.b, n, p.near, p.far, b);
  stage_vec_tile<E>(a, sa);
  if (!p.diagonal) stage_vec_tile<E>(b, sb);
  __syncthreads();
  store_vec_tile<E, Edge>(sa, m + p.b, n, p.far, p.near);
  if (!p.diagonal) store_vec_tile<E, Edge>(sb, m + p.a, n, p.near, p.far);
}

template <int E>
__global__ void __launch_bounds__(layout::VecTile<E>::threads)
    inplace_swap_vec_tiles(Elem<E>* data, int64_t n, int64_t tiles, int64_t batch0) {
  using V = layout::VecTile<E>;
  __shared__ Elem<E> sa[V::Layout::size], sb[V::Layout::size];
  const PairRef p = block_pair(n, V::tile, tiles);
  if (!p.valid) return;
  Elem<E>* const m = data + (batch0 + blockIdx.z) * n * n;
  if (p.far == V::tile)
    swap_vector_tiles<E, false>(m, n, p, sa, sb);
  else
    swap_vector_tiles<E, true>(m, n, p, sa, sb);
}

constexpr int kTile = 32, kRows = 8;  // the element path: a tile's side; a block's rows of threads

template <int E>
__global__ void __launch_bounds__(kTile* kRows)
    inplace_swap_tiles(InplaceElem<E>* data, int64_t n, int64_t tiles, int64_t batch0) {
  __shared__ InplaceElem<E> a[kTile][kTile + 1], b[kTile][kTile + 1];
  const PairRef p = block_pair(n, kTile, tiles);
  if (!p.valid) return;
  const int x = int(threadIdx.x);
  InplaceElem<E>* const m = data + (batch0 + blockIdx.z) * n * n;
  InplaceElem<E>* const pa = m + p.a + x;  // A's row 0, this thread's column
  InplaceElem<E>* const pb = m + p.b + x;  // B's row 0
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < p.far && x < p.near) a[i][x] = pa[i * n];
    if (!p.diagonal && i < p.near && x < p.far) b[i][x] = pb[i * n];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < p.near && x < p.far) pb[i * n] = a[x][i];  // B's place takes A's columns
    if (!p.diagonal && i < p.far && x < p.near) pa[i * n] = b[x][i];
  }
}

bool vectors(const InplaceProblem& t) {
  return reinterpret_cast<uintptr_t>(t.data) % 16 == 0 && t.cols * t.elem_bytes % 16 == 0;
}

int tile_side(const InplaceProblem& t) {
  return vectors(t) ? with_elem_bytes(t.elem_bytes, [](auto e) { return layout::VecTile<decltype(e)::value>::tile; })
                    : kTile;
}

}  // namespace

const char* inplace_refusal(const InplaceProblem& t) {
  if (t.trivial()) return nullptr;
  if (t.rows != t.cols)
    return "rectangular matrices are not yet transposed in place on the GPU (square ones are; the CPU path takes any)";
  const int64_t tiles = (t.rows + tile_side(t) - 1) / tile_side(t);
  if (layout::fold_launch_rows(tiles) > layout::max_grid_yz)
    return "the matrix is too large for one launch's grid (more than 2^17 tiles a side)";
  return nullptr;
}

size_t inplace_workspace_bytes(const InplaceProblem&) { return 0; }

const char* inplace_path(const InplaceProblem& t) { return vectors(t) ? "vectors" : "elements"; }

cudaError_t transpose_inplace(const InplaceProblem& t, void*, cudaStream_t stream) {
  const int64_t n = t.rows;
  if (t.trivial()) return cudaSuccess;
  const int64_t tiles = (n + tile_side(t) - 1) / tile_side(t);
  return with_elem_bytes(t.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    for (int64_t b = 0; b < t.batch; b += layout::max_grid_yz) {
      const dim3 grid(unsigned(tiles + 1), unsigned(layout::fold_launch_rows(tiles)),
                      unsigned(std::min<int64_t>(layout::max_grid_yz, t.batch - b)));
      if (vectors(t))
        inplace_swap_vec_tiles<E>
            <<<grid, layout::VecTile<E>::threads, 0, stream>>>(static_cast<Elem<E>*>(t.data), n, tiles, b);
      else
        inplace_swap_tiles<E><<<grid, dim3(kTile, kRows), 0, stream>>>(static_cast<InplaceElem<E>*>(t.data), n, tiles, b);
      if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
    }
    return cudaSuccess;
  });
}

}  // namespace xpose::engines
