// tiny_batched: batches of small dense matrices (at most 4 KiB each), where a tile per
// matrix would leave most of each block idle. A block takes a chunk of whole matrices
// (up to 16 KiB, layout::TinyBatch): the chunk's src comes in as 16-byte vectors into
// shared memory, and its dst, the same range of the batch, goes out as 16-byte vectors,
// each element gathered from the staged src. Chunks that do not start on 16 bytes, and
// the last vector's tail, move element by element.
#include <climits>

#include "kernels/common.cuh"
#include "kernels/kernels.hpp"
#include "kernels/launch.cuh"
#include "kernels/vector.cuh"
#include "layout/tiny_batch.hpp"

namespace xpose::kernels {
namespace {

using layout::TinyBatch;

template <int E>
__global__ void __launch_bounds__(TinyBatch::threads) transpose_tiny_batched(Problem p, int chunk_elems) {
  __shared__ alignas(16) Elem<E> staged[TinyBatch::chunk_bytes / E];
  constexpr int V = 16 / E;
  const int64_t first = int64_t(blockIdx.x) * chunk_elems;
  const int len = int(min(int64_t(chunk_elems), p.rows * p.cols * p.batch - first));
  const Elem<E>* src = static_cast<const Elem<E>*>(p.src) + first;
  Elem<E>* dst = static_cast<Elem<E>*>(p.dst) + first;
  const int rows = int(p.rows), cols = int(p.cols);
  const int vecs = aligned_16(src) && aligned_16(dst) ? len / V : 0;

#pragma unroll 4
  for (int v = threadIdx.x; v < vecs; v += TinyBatch::threads)
    reinterpret_cast<uint4*>(staged)[v] = reinterpret_cast<const uint4*>(src)[v];
  for (int i = vecs * V + threadIdx.x; i < len; i += TinyBatch::threads) staged[i] = src[i];
  __syncthreads();
#pragma unroll 4
  for (int v = threadIdx.x; v < vecs; v += TinyBatch::threads) {
    Vector<E> out;
#pragma unroll
    for (int k = 0; k < V; ++k) out.e[k] = staged[TinyBatch::src_of_dst(v * V + k, rows, cols)];
    __stwb(reinterpret_cast<uint4*>(dst) + v, whole(out));
  }
  for (int i = vecs * V + threadIdx.x; i < len; i += TinyBatch::threads)
    dst[i] = staged[TinyBatch::src_of_dst(i, rows, cols)];
}

int64_t chunk_elems(const Problem& p) {
  const int64_t n = p.rows * p.cols;
  return TinyBatch::matrices_per_chunk(n, int(p.elem_bytes)) * n;
}

std::string unsupported(const Problem& p, const detail::Device& d) {
  if (auto why = detail::unsupported_device(d); !why.empty()) return why;
  const int64_t n = p.rows * p.cols;
  const bool dense = p.ld_src == p.cols && p.ld_dst == p.rows && (p.batch == 1 || (p.stride_src == n && p.stride_dst == n));
  if (!dense || n * p.elem_bytes > TinyBatch::max_bytes)
    return "tiny_batched needs dense matrices (ld = extent, batch stride = matrix size) of at most " +
           std::to_string(TinyBatch::max_bytes) + " bytes";
  if (layout::ceil_div(n * p.batch, chunk_elems(p)) > INT_MAX) return "tiny_batched: more chunks than one grid holds";
  return {};
}

detail::Launch shape(const Problem& p, const detail::Device&) {
  detail::Launch l;
  l.tile_rows = int(p.rows);
  l.tile_cols = int(p.cols);
  l.grid = {uint32_t(layout::ceil_div(p.rows * p.cols * p.batch, chunk_elems(p))), 1, 1};
  l.block = {uint32_t(TinyBatch::threads), 1, 1};
  return l;
}

cudaError_t launch(const Problem& p, const detail::Launch& l, cudaStream_t s) {
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    transpose_tiny_batched<decltype(e)::value><<<to_dim3(l.grid), to_dim3(l.block), 0, s>>>(p, int(chunk_elems(p)));
    return cudaGetLastError();
  });
}

}  // namespace

const detail::Kernel tiny_batched = {
    "tiny_batched", "batches of dense matrices of at most 4 KiB: whole matrices per block, 16-byte loads and stores",
    unsupported, shape, launch};

}  // namespace xpose::kernels
