// skinny: matrices with a short side of at most 8 elements stored dense (2 x N -> N x 2
// interleave, N x 2 -> 2 x N de-interleave, 3 x N planar -> packed, ...), where a square
// tile would be mostly empty. Each block moves a span of 256 x V long-side indices (V =
// 16/E): every thread one 16-byte vector of each of the S lines, turned in registers into
// S 16-byte vectors of the dense run (layout::SkinnySpan), which crosses shared memory so
// that the dense side, too, is read or written in coalesced 16-byte vectors. A span cut by
// the end of the matrix moves its whole vectors so and its last elements one by one; lines
// or dense runs not 16-byte aligned move element by element.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/skinny.hpp"

namespace xpose::engines {
namespace {

constexpr int threads = 256;
template <int E> constexpr int span = threads * (16 / E);  // long-side indices per block

// The first m (<= threads) 16-byte vectors of each line: thread t < m moves vector t of
// every line; the dense run's first S * m vectors are written by all threads.
template <int E, int S>
__device__ __forceinline__ void interleave_vectors(const Elem<E>* lines, int64_t ld, Elem<E>* dense, uint4* staged, int m) {
  using Span = layout::SkinnySpan<S, 16 / E>;
  if (int(threadIdx.x) < m) {
    Vector<E> line[S], run[S];
#pragma unroll
    for (int i = 0; i < S; ++i) line[i].bits = *reinterpret_cast<const uint4*>(lines + i * ld + threadIdx.x * (16 / E));
#pragma unroll
    for (int q = 0; q < S; ++q)
#pragma unroll
      for (int u = 0; u < 16 / E; ++u) {
        const auto from = Span::line_of(q, u);
        run[q].e[u] = line[from.line].e[from.k];
      }
#pragma unroll
    for (int q = 0; q < S; ++q) staged[threadIdx.x * S + q] = whole(run[q]);
  }
  __syncthreads();
#pragma unroll
  for (int q = 0; q < S; ++q)
    if (q * threads + int(threadIdx.x) < S * m)
      __stwb(reinterpret_cast<uint4*>(dense) + q * threads + threadIdx.x, staged[q * threads + threadIdx.x]);
}

// The inverse: the dense run's first S * m vectors in, the first m vectors of each line out.
template <int E, int S>
__device__ __forceinline__ void deinterleave_vectors(const Elem<E>* dense, Elem<E>* lines, int64_t ld, uint4* staged, int m) {
  using Span = layout::SkinnySpan<S, 16 / E>;
#pragma unroll
  for (int q = 0; q < S; ++q)
    if (q * threads + int(threadIdx.x) < S * m)
      staged[q * threads + threadIdx.x] = reinterpret_cast<const uint4*>(dense)[q * threads + threadIdx.x];
  __syncthreads();
  if (int(threadIdx.x) >= m) return;
  Vector<E> run[S], line[S];
#pragma unroll
  for (int q = 0; q < S; ++q) run[q].bits = staged[threadIdx.x * S + q];
#pragma unroll
  for (int i = 0; i < S; ++i)
#pragma unroll
    for (int k = 0; k < 16 / E; ++k) {
      const auto to = Span::dense_slot(i, k);
      line[i].e[k] = run[to.vector].e[to.element];
    }
#pragma unroll
  for (int i = 0; i < S; ++i) __stwb(reinterpret_cast<uint4*>(lines + i * ld + threadIdx.x * (16 / E)), whole(line[i]));
}

template <int E, int S, bool Interleave>
__global__ void __launch_bounds__(threads) transpose_skinny(Problem p, TileOrigin o) {
  __shared__ uint4 staged[S * threads];
  constexpr int J = span<E>;
  const TileRef<Elem<E>> t = Interleave ? block_tile<Elem<E>>(p, o, S, J) : block_tile<Elem<E>>(p, o, J, S);
  const int n = Interleave ? t.cols : t.rows;
  const int64_t ld = Interleave ? p.ld_src : p.ld_dst;
  // interleave: src rows are the lines, dst the dense run; de-interleave: the other way round.
  // The span's whole 16-byte vectors in registers, then whatever is left (the end of a
  // span the matrix cuts, or every element where lines or runs are not 16-byte aligned)
  // element by element.
  const bool vectors = (ld * E) % 16 == 0 && aligned_16(t.src) && aligned_16(t.dst);
  const int m = vectors ? n / (16 / E) : 0;
  if (m > 0) {
    if constexpr (Interleave)
      interleave_vectors<E, S>(t.src, ld, t.dst, staged, m);
    else
      deinterleave_vectors<E, S>(t.src, t.dst, ld, staged, m);
  }
#pragma unroll 1
  for (int f = m * (16 / E) * S + threadIdx.x; f < n * S; f += threads) {
    const int k = f / S, i = f % S;  // dense position f is element k of line i
    if constexpr (Interleave)
      t.dst[f] = t.src[i * ld + k];
    else
      t.dst[i * ld + k] = t.src[f];
  }
}

enum class Direction { none, interleave, deinterleave };

// Interleave where rows are few and dst rows dense; de-interleave where cols are few and
// src rows dense; the shorter side wins when both are.
Direction direction(const Problem& p) {
  const bool rows_short = p.rows <= layout::skinny_max && p.ld_dst == p.rows;
  const bool cols_short = p.cols <= layout::skinny_max && p.ld_src == p.cols;
  if (rows_short && (!cols_short || p.rows <= p.cols)) return Direction::interleave;
  if (cols_short) return Direction::deinterleave;
  return Direction::none;
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (direction(t.problem) == Direction::none)
    return detail::refused(detail::Refusal::other,
                           "skinny needs a short side of at most 8 elements stored dense (rows <= 8 with ld_dst == "
                           "rows, or cols <= 8 with ld_src == cols)");
  return detail::served();
}
static_assert(layout::skinny_max == 8, "skinny's refusal names the bound");

// The variant is the short side, negative for de-interleaving.
Support plan(Plan* plan, const Device&, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    constexpr int J = span<decltype(e)::value>;
    const bool interleave = direction(p) == Direction::interleave;
    if (interleave)
      tile_plan(plan, int(p.rows), J, {threads, 1, 1});
    else
      tile_plan(plan, J, int(p.cols), {threads, 1, 1});
    plan->variant = interleave ? int(p.rows) : -int(p.cols);
    plan->variant_name = interleave ? "interleave" : "de-interleave";
    return detail::served();
  });
}

template <int E, bool Interleave, int S = 1>
cudaError_t launch_short(const Plan& plan, cudaStream_t s, int short_side) {
  if constexpr (S < layout::skinny_max)
    if (short_side != S) return launch_short<E, Interleave, S + 1>(plan, s, short_side);
  return launch_tiles(transpose_skinny<E, S, Interleave>, plan, s, plan.task.problem);
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    if (plan.variant > 0) return launch_short<E, true>(plan, s, plan.variant);
    return launch_short<E, false>(plan, s, -plan.variant);
  });
}

}  // namespace

const Engine skinny = {"skinny",
                       "short side of at most 8 elements: 16-byte lines turned in registers into a dense run",
                       "256 threads per span of 4096/E long-side indices",
                       Input::transpose,
                       supports,
                       plan,
                       launch,
                       tiles_text};

}  // namespace xpose::engines
