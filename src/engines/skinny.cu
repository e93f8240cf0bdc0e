// skinny: matrices with a short side of at most 8 elements stored dense (2 x N -> N x 2
// interleave, N x 2 -> 2 x N de-interleave, 3 x N planar -> packed, ...), where a square
// tile would be mostly empty. Each block moves a span of 256 x V long-side indices (V =
// 16/E): every thread one 16-byte vector of each of the S lines, turned in registers into
// S 16-byte vectors of the dense run (layout::SkinnySpan), which crosses shared memory so
// that the dense side, too, is read or written in coalesced 16-byte vectors. A span cut by
// the end of the matrix moves its whole vectors so and its last elements one by one. Where
// lines or the dense run are not 16-byte aligned (odd pitches, batches of odd matrices,
// offset bases), the same vectors are read as the aligned vectors around them, shifted
// (layout::shifted_chunk), and written as the aligned 16-byte vectors of the destination,
// shifted out of shared memory, with the partial first and last ones element by element.
#include <type_traits>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/skinny.hpp"

namespace xpose::engines {
namespace {

constexpr int threads = 256;
static_assert(threads % 8 == 0, "dense-order loads offset thread t's staged index (layout::skinny_staged)");
template <int E> constexpr int span = threads * (16 / E);  // long-side indices per block

// A thread's 16-byte vector of each of the S lines turned into the S vectors of the dense run
// they make (layout::SkinnySpan), in registers; and back.
template <int E, int S>
__device__ __forceinline__ void lines_to_dense(const Vector<E> (&line)[S], Vector<E> (&run)[S]) {
  using Span = layout::SkinnySpan<S, 16 / E>;
#pragma unroll
  for (int q = 0; q < S; ++q)
#pragma unroll
    for (int u = 0; u < 16 / E; ++u) {
      const auto from = Span::line_of(q, u);
      run[q].e[u] = line[from.line].e[from.k];
    }
}
template <int E, int S>
__device__ __forceinline__ void dense_to_lines(const Vector<E> (&run)[S], Vector<E> (&line)[S]) {
  using Span = layout::SkinnySpan<S, 16 / E>;
#pragma unroll
  for (int i = 0; i < S; ++i)
#pragma unroll
    for (int k = 0; k < 16 / E; ++k) {
      const auto to = Span::dense_slot(i, k);
      line[i].e[k] = run[to.vector].e[to.element];
    }
}

// The first m (<= threads) 16-byte vectors of each line: thread t < m moves vector t of
// every line; the dense run's first S * m vectors are written by all threads.
template <int E, int S>
__device__ __forceinline__ void interleave_vectors(const Elem<E>* lines, int64_t ld, Elem<E>* dense, uint4* staged, int m) {
  if (int(threadIdx.x) < m) {
    Vector<E> line[S], run[S];
#pragma unroll
    for (int i = 0; i < S; ++i) line[i].bits = *reinterpret_cast<const uint4*>(lines + i * ld + threadIdx.x * (16 / E));
    lines_to_dense<E, S>(line, run);
#pragma unroll
    for (int q = 0; q < S; ++q) staged[layout::skinny_staged<S>(threadIdx.x * S) + q] = whole(run[q]);
  }
  __syncthreads();
  const int at = layout::skinny_staged<S>(threadIdx.x);  // dense vector q * threads + t
#pragma unroll
  for (int q = 0; q < S; ++q)
    if (q * threads + int(threadIdx.x) < S * m)
      __stwb(reinterpret_cast<uint4*>(dense) + q * threads + threadIdx.x,
             staged[layout::skinny_staged<S>(q * threads) + at]);
}

// The inverse: the dense run's first S * m vectors in, the first m vectors of each line out.
template <int E, int S>
__device__ __forceinline__ void deinterleave_vectors(const Elem<E>* dense, Elem<E>* lines, int64_t ld, uint4* staged, int m) {
#pragma unroll
  for (int q = 0; q < S; ++q)
    if (q * threads + int(threadIdx.x) < S * m)
      staged[layout::skinny_staged<S>(q * threads) + layout::skinny_staged<S>(threadIdx.x)] =
          reinterpret_cast<const uint4*>(dense)[q * threads + threadIdx.x];
  __syncthreads();
  if (int(threadIdx.x) >= m) return;
  Vector<E> run[S], line[S];
#pragma unroll
  for (int q = 0; q < S; ++q) run[q].bits = staged[layout::skinny_staged<S>(threadIdx.x * S) + q];
  dense_to_lines<E, S>(run, line);
#pragma unroll
  for (int i = 0; i < S; ++i) __stwb(reinterpret_cast<uint4*>(lines + i * ld + threadIdx.x * (16 / E)), whole(line[i]));
}

// Where piece k of a stream lies in shared memory: in order, or staged (layout::skinny_staged).
struct InOrder {
  __device__ __forceinline__ int operator()(int k) const { return k; }
};
template <int S>
struct Staged {
  __device__ __forceinline__ int operator()(int k) const { return layout::skinny_staged<S>(k); }
};
// The shifted interleave stages padded only for S = 8: H200, 16 MiB, af77c0a's unpadded staging
// against padded (s72): S = 8 +8 to +19 points, S = 4 -2 to +3, S = 2 -3 to -6 (its reads of
// piece j - 1 cross the pads, presumably, where the conflicts they remove were only 2-way).
template <int S>
using ShiftedStaging = std::conditional_t<S == 8, Staged<S>, InOrder>;

// The first `bytes` bytes of `stream` (16-byte pieces in shared memory, piece k at stream[at(k)],
// readable one piece past them) stored from `to` on, at any alignment (layout::ShiftedRun): the
// whole dst vectors as one store each, the partial first and last element by element; the
// block's threads take the vectors in turn.
template <int E, class At = InOrder>
__device__ __forceinline__ void store_shifted(Elem<E>* to, int bytes, const uint4* stream, At at = {}) {
  const layout::ShiftedRun run{int(reinterpret_cast<uintptr_t>(to) % 16), bytes};  // skew: a multiple of E
  unsigned char* const aligned = reinterpret_cast<unsigned char*>(to) - run.skew;
  for (int j = int(threadIdx.x); j < run.vectors(); j += threads) {
    if (run.whole(j)) {
      const uint4 lo = stream[at(run.at(j) / 16)], hi = stream[at(run.at(j) / 16 + 1)];
      const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
      uint32_t out[4];
      layout::shift_out_chunk(w, run.at(j) % 16, out);
      __stwb(reinterpret_cast<uint4*>(aligned + 16 * j), make_uint4(out[0], out[1], out[2], out[3]));
    } else {
      for (int b = run.first(j); b < run.last(j); b += E)  // an element never straddles two pieces
        to[b / E] = *reinterpret_cast<const Elem<E>*>(reinterpret_cast<const unsigned char*>(stream + at(b / 16)) + b % 16);
    }
  }
}

// Interleave from lines or into a dense run not 16-byte aligned: each thread's vector of
// every line shifted in (load_shifted; line i's row spans [row + i * ld, + p.cols)), turned
// into S dense vectors, staged; the dense run stored shifted (store_shifted).
template <int E, int S>
__device__ __forceinline__ void interleave_shifted(const Elem<E>* lines, int64_t ld, const Elem<E>* row,
                                                   int64_t row_length, Elem<E>* dense, uint4* staged, int n) {
  constexpr int V = 16 / E;
  if (int(threadIdx.x) * V < n) {
    const int k0 = int(threadIdx.x) * V, count = min(V, n - k0);
    Vector<E> line[S], run[S];
#pragma unroll
    for (int i = 0; i < S; ++i)
      line[i] = load_shifted<E>(lines + i * ld + k0, count, row + i * ld, row + i * ld + row_length);
    lines_to_dense<E, S>(line, run);
#pragma unroll
    for (int q = 0; q < S; ++q) staged[ShiftedStaging<S>{}(threadIdx.x * S) + q] = whole(run[q]);
  }
  __syncthreads();
  store_shifted<E>(dense, n * S * E, staged, ShiftedStaging<S>{});
}

// The inverse: the dense run shifted in (it lies within [begin, end), the matrix's dense
// rows), turned into each line's vector, staged line by line (line i from staged[i *
// threads]), each line stored shifted.
template <int E, int S>
__device__ __forceinline__ void deinterleave_shifted(const Elem<E>* dense, const Elem<E>* begin, const Elem<E>* end,
                                                     Elem<E>* lines, int64_t ld, uint4* staged, int n) {
  constexpr int V = 16 / E;
  const int elements = n * S;
  for (int q = int(threadIdx.x); q * V < elements; q += threads)
    staged[layout::skinny_staged<S>(q)] = load_shifted<E>(dense + q * V, min(V, elements - q * V), begin, end).bits;
  __syncthreads();
  const bool mine = int(threadIdx.x) * V < n;
  Vector<E> run[S], line[S];
  if (mine) {
#pragma unroll
    for (int q = 0; q < S; ++q) run[q].bits = staged[layout::skinny_staged<S>(threadIdx.x * S) + q];
    dense_to_lines<E, S>(run, line);
  }
  __syncthreads();
  if (mine)
#pragma unroll
    for (int i = 0; i < S; ++i) staged[i * threads + threadIdx.x] = whole(line[i]);
  __syncthreads();
#pragma unroll 1
  for (int i = 0; i < S; ++i) store_shifted<E>(lines + i * ld, n * E, staged + i * threads);
}

template <int E, int S, bool Interleave>
__global__ void __launch_bounds__(threads) transpose_skinny(Problem p, TileOrigin o) {
  __shared__ uint4 staged[layout::skinny_staged<S>(S * threads)];
  constexpr int J = span<E>;
  const TileRef<Elem<E>> t = Interleave ? block_tile<Elem<E>>(p, o, S, J) : block_tile<Elem<E>>(p, o, J, S);
  const int n = Interleave ? t.cols : t.rows;
  const int64_t ld = Interleave ? p.ld_src : p.ld_dst;
  // interleave: src rows are the lines, dst the dense run; de-interleave: the other way round.
  // The span's whole 16-byte vectors in registers, then whatever is left (the end of a
  // span the matrix cuts, or every element where lines or runs are not 16-byte aligned,
  // which the plan leaves to transpose_skinny_shifted) element by element.
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

// Lines or the dense run not 16-byte aligned (in some matrix of the batch, or all): every
// vector shifted (interleave_shifted, deinterleave_shifted). Its own kernel: the shifts take
// more registers than the aligned kernel's budget allows it.
template <int E, int S, bool Interleave>
__global__ void __launch_bounds__(threads) transpose_skinny_shifted(Problem p, TileOrigin o) {
  __shared__ uint4 staged[layout::skinny_staged<S>(S * threads) + 1];  // + 1: store_shifted reads past its bytes
  constexpr int J = span<E>;
  const TileRef<Elem<E>> t = Interleave ? block_tile<Elem<E>>(p, o, S, J) : block_tile<Elem<E>>(p, o, J, S);
  if constexpr (Interleave)  // line i's row: [t.src - t.c0 + i * ld_src, + cols)
    interleave_shifted<E, S>(t.src, p.ld_src, t.src - t.c0, p.cols, t.dst, staged, t.cols);
  else  // the matrix's dense rows: [t.src - t.r0 * S, + rows * S)
    deinterleave_shifted<E, S>(t.src, t.src - t.r0 * S, t.src + (p.rows - t.r0) * S, t.dst, p.ld_dst, staged, t.rows);
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

// Whether every block's lines and dense run are 16-byte aligned: the bases, the lines' pitch
// and, in a batch, both batch strides (a span starts 4096 bytes, or S times that, from its
// matrix's first element).
bool all_aligned(const Problem& p, bool interleave) {
  const auto at = [](const void* b) { return reinterpret_cast<uintptr_t>(b); };
  const int64_t e = p.elem_bytes;
  return layout::rows_16_aligned(at(p.src), interleave ? p.ld_src : 0, p.batch, p.stride_src, e) &&
         layout::rows_16_aligned(at(p.dst), interleave ? 0 : p.ld_dst, p.batch, p.stride_dst, e);
}

// The variant: the short side S, plus `shifted` where some block's lines or dense run are not
// 16-byte aligned (transpose_skinny_shifted); negative for de-interleaving.
constexpr int shifted = 16;
static_assert(layout::skinny_max < shifted, "the variant keeps the short side and the kernel apart");

Support plan(Plan* plan, const Device&, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  return with_elem_bytes(p.elem_bytes, [&](auto e) {
    constexpr int J = span<decltype(e)::value>;
    const bool interleave = direction(p) == Direction::interleave, aligned = all_aligned(p, interleave);
    if (interleave)
      tile_plan(plan, int(p.rows), J, {threads, 1, 1});
    else
      tile_plan(plan, J, int(p.cols), {threads, 1, 1});
    const int v = (interleave ? int(p.rows) : int(p.cols)) + (aligned ? 0 : shifted);
    plan->variant = interleave ? v : -v;
    plan->variant_name = interleave ? (aligned ? "interleave" : "interleave, shifted")
                                    : (aligned ? "de-interleave" : "de-interleave, shifted");
    return detail::served();
  });
}

template <int E, bool Interleave, int S = 1>
cudaError_t launch_short(const Plan& plan, cudaStream_t s, int short_side, bool shift) {
  if constexpr (S < layout::skinny_max)
    if (short_side != S) return launch_short<E, Interleave, S + 1>(plan, s, short_side, shift);
  if (shift) return launch_tiles(transpose_skinny_shifted<E, S, Interleave>, plan, s, plan.task.problem);
  return launch_tiles(transpose_skinny<E, S, Interleave>, plan, s, plan.task.problem);
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const int v = plan.variant > 0 ? plan.variant : -plan.variant;
    const bool shift = v > shifted;
    if (plan.variant > 0) return launch_short<E, true>(plan, s, shift ? v - shifted : v, shift);
    return launch_short<E, false>(plan, s, shift ? v - shifted : v, shift);
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
