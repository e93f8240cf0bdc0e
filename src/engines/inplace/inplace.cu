// Square in-place transposition: block (x, y) with x < y loads tiles (y, x) and (x, y) of the
// matrix into shared memory and writes each, turned, where the other was; a diagonal block
// (x == y) turns its own tile. Rows of a tile are read and written along their length (a warp a
// row of 32 elements), shared memory padded by one element a row.
#include "engines/common.cuh"
#include "engines/inplace/inplace.hpp"

namespace xpose::engines {
namespace {

constexpr int kTile = 32, kRows = 8;  // a tile's side; a block's rows of threads

template <int E>
__global__ void __launch_bounds__(kTile* kRows) inplace_swap_tiles(Elem<E>* data, int64_t n) {
  __shared__ Elem<E> a[kTile][kTile + 1], b[kTile][kTile + 1];
  const int tx = int(blockIdx.x), ty = int(blockIdx.y), x = int(threadIdx.x);
  if (tx > ty) return;  // each pair once: (tx, ty) with tx <= ty
  const bool diagonal = tx == ty;
  const int64_t r0 = int64_t(ty) * kTile, c0 = int64_t(tx) * kTile;  // tile A at (r0, c0), B at (c0, r0)
  // Rows and columns of each tile inside the matrix: A's rows and B's columns run from r0, the
  // others from c0.
  const int far = n - r0 < kTile ? int(n - r0) : kTile, near = n - c0 < kTile ? int(n - c0) : kTile;
  Elem<E>* const m = data + int64_t(blockIdx.z) * n * n;
  Elem<E>* const pa = m + r0 * n + c0 + x;  // A's row 0, this thread's column
  Elem<E>* const pb = m + c0 * n + r0 + x;  // B's row 0
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < far && x < near) a[i][x] = pa[i * n];
    if (!diagonal && i < near && x < far) b[i][x] = pb[i * n];
  }
  __syncthreads();
  for (int i = threadIdx.y; i < kTile; i += kRows) {
    if (i < near && x < far) pb[i * n] = a[x][i];  // B's place takes A's columns
    if (!diagonal && i < far && x < near) pa[i * n] = b[x][i];
  }
}

}  // namespace

const char* inplace_refusal(const InplaceTask& t) {
  if (t.n < 0 || t.batch < 0) return "transpose_inplace: sizes must be non-negative";
  if (t.elem_bytes != 1 && t.elem_bytes != 2 && t.elem_bytes != 4 && t.elem_bytes != 8 && t.elem_bytes != 16)
    return "transpose_inplace: elements are 1, 2, 4, 8 or 16 bytes";
  if (t.n > 0 && t.batch > 0 && !t.data) return "transpose_inplace: data is null";
  if (reinterpret_cast<uintptr_t>(t.data) % uint64_t(t.elem_bytes))
    return "transpose_inplace: data is not aligned to its element size";
  const int64_t tiles = (t.n + kTile - 1) / kTile;
  if (tiles > 65535 || t.batch > 65535) return "transpose_inplace: more than 65535 tiles a side or matrices";
  return nullptr;
}

cudaError_t transpose_inplace_square(const InplaceTask& t, cudaStream_t stream) {
  if (t.n <= 1 || t.batch == 0) return cudaSuccess;
  const unsigned tiles = unsigned((t.n + kTile - 1) / kTile);
  const dim3 grid(tiles, tiles, unsigned(t.batch)), block(kTile, kRows);
  return with_elem_bytes(t.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    inplace_swap_tiles<E><<<grid, block, 0, stream>>>(static_cast<Elem<E>*>(t.data), t.n);
    return cudaGetLastError();
  });
}

}  // namespace xpose::engines
