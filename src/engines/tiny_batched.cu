// tiny_batched: batches of small dense matrices (at most 8 KiB each), where a tile per
// matrix would leave most of each block idle. A block takes a chunk of whole matrices
// (up to 16 KiB, layout::TinyBatch): the chunk's src comes in as 16-byte vectors into
// shared memory, and its dst, the same range of the batch, goes out as 16-byte vectors,
// each element gathered from the staged src (its index by multiply-high divisions: with
// integer divisions the gather, not memory, set the pace; docs/performance.md, rule tiny_batch;
// 8- and 16-byte elements in rows of an even length staged swizzled: TinyBatch::swizzle).
// Chunks that do not start on 16 bytes, and the last vector's tail, move element by element.
#include <climits>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/tiny_batch.hpp"

namespace xpose::engines {
namespace {

using layout::TinyBatch;

template <int E>
__global__ void __launch_bounds__(TinyBatch::threads) transpose_tiny_batched(Problem p, int chunk_elems,
                                                                              layout::FastDivmod n_div,
                                                                              layout::FastDivmod rows_div) {
  __shared__ alignas(16) Elem<E> staged[TinyBatch::chunk_bytes / E];
  constexpr int V = 16 / E;
  const int64_t first = int64_t(blockIdx.x) * chunk_elems;
  const int len = int(min(int64_t(chunk_elems), p.rows * p.cols * p.batch - first));
  const Elem<E>* src = static_cast<const Elem<E>*>(p.src) + first;
  Elem<E>* dst = static_cast<Elem<E>*>(p.dst) + first;
  const uint32_t cols = uint32_t(p.cols);
  const int vecs = aligned_16(src) && aligned_16(dst) ? len / V : 0;
  const uint32_t swizzle = TinyBatch::swizzle(E, p.cols);

  if constexpr (E >= 8) {
#pragma unroll 4
    for (int v = threadIdx.x; v < vecs; v += TinyBatch::threads) {
      Vector<E> out;
      out.bits = reinterpret_cast<const uint4*>(src)[v];
      // Element k to place k ^ m (m < 2: fp64's pair swapped or not; a select, no register
      // indexed at run time).
      const uint32_t m = TinyBatch::vector_mask(uint32_t(v * V), E, swizzle);
      if constexpr (V == 2) {
        const Vector<E> in = out;
        out.e[0] = m ? in.e[1] : in.e[0];
        out.e[1] = m ? in.e[0] : in.e[1];
      }
      reinterpret_cast<uint4*>(staged)[TinyBatch::staged_at(uint32_t(v * V), E, swizzle) / V] = whole(out);
    }
  } else {  // in place (TinyBatch::swizzle); the loop above, mask 0, took 4-byte elements to 39 registers
#pragma unroll 4
    for (int v = threadIdx.x; v < vecs; v += TinyBatch::threads)
      reinterpret_cast<uint4*>(staged)[v] = reinterpret_cast<const uint4*>(src)[v];
  }
  for (int i = vecs * V + threadIdx.x; i < len; i += TinyBatch::threads)
    staged[TinyBatch::staged_at(uint32_t(i), E, swizzle)] = src[i];
  __syncthreads();
#pragma unroll 4
  for (int v = threadIdx.x; v < vecs; v += TinyBatch::threads) {
    Vector<E> out;
    if constexpr (E <= 2) {  // 8 or 16 elements a vector: one division pair, then steps
      TinyBatch::Walk walk(uint32_t(v * V), n_div, rows_div, cols);
#pragma unroll
      for (int k = 0; k < V; ++k, walk.next()) out.e[k] = staged[walk.src()];
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k)
        out.e[k] = staged[TinyBatch::staged_at(TinyBatch::src_of_dst(uint32_t(v * V + k), n_div, rows_div, cols), E,
                                               swizzle)];
    }
    __stwb(reinterpret_cast<uint4*>(dst) + v, whole(out));
  }
  for (int i = vecs * V + threadIdx.x; i < len; i += TinyBatch::threads)
    dst[i] = staged[TinyBatch::staged_at(TinyBatch::src_of_dst(uint32_t(i), n_div, rows_div, cols), E, swizzle)];
}

int64_t chunk_elems(const Problem& p) {
  const int64_t n = p.rows * p.cols;
  return TinyBatch::matrices_per_chunk(n, int(p.elem_bytes)) * n;
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  const Problem& p = t.problem;
  const int64_t n = p.rows * p.cols;
  const bool dense = p.ld_src == p.cols && p.ld_dst == p.rows && (p.batch == 1 || (p.stride_src == n && p.stride_dst == n));
  if (!dense || p.matrix_bytes() > TinyBatch::max_bytes)
    return detail::refused(detail::Refusal::other,
                           "tiny_batched needs dense matrices (ld = extent, batch stride = matrix size) of at most "
                           "8192 bytes");
  if (layout::ceil_div(n * p.batch, chunk_elems(p)) > INT_MAX)
    return detail::refused(detail::Refusal::other, "tiny_batched: more chunks than one grid holds");
  return detail::served();
}
static_assert(TinyBatch::max_bytes == 8192, "tiny_batched's refusal names the bound");

// One block per chunk of whole matrices; the walk's tile is one matrix.
Support plan(Plan* plan, const Device&, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  Tiles& t = plan->make<Tiles>();
  t.chunk_elems = chunk_elems(p);
  t.walk = {layout::ceil_div(p.rows * p.cols * p.batch, t.chunk_elems), 1, 1, int(p.rows), int(p.cols)};
  plan->grid = {uint32_t(t.walk.col_tiles), 1, 1};
  plan->block = {uint32_t(TinyBatch::threads), 1, 1};
  return detail::served();
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    transpose_tiny_batched<decltype(e)::value><<<to_dim3(plan.grid), to_dim3(plan.block), 0, s>>>(
        p, int(tiles(plan).chunk_elems), layout::FastDivmod(uint32_t(p.rows * p.cols)),
        layout::FastDivmod(uint32_t(p.rows)));
    return cudaGetLastError();
  });
}

}  // namespace

const Engine tiny_batched = {
    "tiny_batched",
    "batches of dense matrices of at most 8 KiB: whole matrices per block, 16-byte loads and stores",
    "16 KiB of whole matrices per block, 256 threads",
    Input::transpose,
    supports,
    plan,
    launch,
    tiles_text};

}  // namespace xpose::engines
