// short_lines: matrices with a short side of 9 to 128 bytes stored dense (S x N -> N x S
// interleave, N x S -> S x N de-interleave), too many lines for skinny's registers and too
// short a side for a tile's rows to fill sectors. A block moves a span of 256 bytes of each
// line: the lines as 16-byte vectors, the dense run (S x 256 bytes, contiguous) as 16-byte
// vectors in order, the run staged in shared memory as it lies in memory (layout::ShortLines).
// The dense run 16-byte aligned in every matrix (the plan refuses the rest); lines that are not
// (odd pitches, offset bases) are read as the aligned vectors around each vector, shifted
// (load_shifted), and written element by element (Shifted). A span the matrix cuts moves
// element by element.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/skinny.hpp"

namespace xpose::engines {
namespace {

constexpr int threads = layout::short_lines_threads;

template <int E, bool Interleave, bool Shifted>
__global__ void __launch_bounds__(threads) transpose_short_lines(Problem p, TileOrigin o) {
  using L = layout::ShortLines<E>;
  __shared__ uint4 staged[L::max_items];
  Elem<E>* const run = reinterpret_cast<Elem<E>*>(staged);
  const int S = int(Interleave ? p.rows : p.cols);
  const TileRef<Elem<E>> t = Interleave ? block_tile<Elem<E>>(p, o, S, L::J) : block_tile<Elem<E>>(p, o, L::J, S);
  const int n = Interleave ? t.cols : t.rows;
  const int64_t ld = Interleave ? p.ld_src : p.ld_dst;
  if (n < L::J) {  // the span the matrix cuts: dense position f is element f / S of line f % S
    for (int f = int(threadIdx.x); f < n * S; f += threads) {
      const int k = f / S, i = f % S;
      if constexpr (Interleave)
        t.dst[f] = t.src[i * ld + k];
      else
        t.dst[i * ld + k] = t.src[f];
    }
    return;
  }
  const int items = S * L::line_vectors;
  if constexpr (Interleave) {
    Vector<E> v[L::per_thread];  // every load in flight before the first shared store
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) {
        const Elem<E>* const from = t.src + L::line(S, q) * ld + L::vector(S, q) * L::V;
        if constexpr (Shifted) {
          const Elem<E>* const row = t.src - t.c0 + L::line(S, q) * ld;  // the line's row in the matrix
          v[r] = load_shifted<E>(from, L::V, row, row + p.cols);
        } else {
          v[r].bits = *reinterpret_cast<const uint4*>(from);
        }
      }
    }
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items)
#pragma unroll
        for (int u = 0; u < L::V; ++u) run[L::dense_at(S, q, u)] = v[r].e[u];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) __stwb(reinterpret_cast<uint4*>(t.dst) + q, staged[q]);
    }
  } else {
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) staged[q] = reinterpret_cast<const uint4*>(t.src)[q];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) {
        Vector<E> v;
#pragma unroll
        for (int u = 0; u < L::V; ++u) v.e[u] = run[L::dense_at(S, q, u)];
        Elem<E>* const to = t.dst + L::line(S, q) * ld + L::vector(S, q) * L::V;
        if constexpr (Shifted) {
#pragma unroll
          for (int u = 0; u < L::V; ++u) to[u] = v.e[u];
        } else {
          __stwb(reinterpret_cast<uint4*>(to), whole(v));
        }
      }
    }
  }
}

int direction(const Problem& p) {
  return layout::short_lines_direction(p.rows, p.cols, p.ld_src, p.ld_dst, p.elem_bytes);
}

// Whether every span's dense run starts on 16 bytes (a span starts S x 256 bytes into its
// matrix's run): the dense side's base and batch stride; and its lines.
bool dense_aligned(const Problem& p, bool interleave) {
  return interleave ? layout::rows_16_aligned(reinterpret_cast<uintptr_t>(p.dst), 0, p.batch, p.stride_dst, p.elem_bytes)
                    : layout::rows_16_aligned(reinterpret_cast<uintptr_t>(p.src), 0, p.batch, p.stride_src, p.elem_bytes);
}
bool lines_aligned(const Problem& p, bool interleave) {
  return interleave
             ? layout::rows_16_aligned(reinterpret_cast<uintptr_t>(p.src), p.ld_src, p.batch, p.stride_src, p.elem_bytes)
             : layout::rows_16_aligned(reinterpret_cast<uintptr_t>(p.dst), p.ld_dst, p.batch, p.stride_dst, p.elem_bytes);
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  const Problem& p = t.problem;
  const int dir = direction(p);
  if (dir == 0)
    return detail::refused(detail::Refusal::other,
                           "short_lines needs a short side of 9 elements to 128 bytes stored dense (rows with "
                           "ld_dst == rows, or cols with ld_src == cols)");
  if (!dense_aligned(p, dir > 0))
    return detail::refused(detail::Refusal::other,
                           "short_lines needs the dense side's base and batch stride 16-byte aligned");
  return detail::served();
}
static_assert(layout::short_lines_max_bytes == 128 && layout::skinny_max == 8, "the refusal names the bounds");

Support plan(Plan* plan, const Device&, const PlanOptions&) {
  const Problem& p = plan->task.problem;
  const int dir = direction(p);
  const int J = layout::short_lines_span_bytes / int(p.elem_bytes);
  if (dir > 0)
    tile_plan(plan, int(p.rows), J, {threads, 1, 1});
  else
    tile_plan(plan, J, int(p.cols), {threads, 1, 1});
  const bool shifted = !lines_aligned(p, dir > 0);
  plan->variant = dir * (shifted ? 2 : 1);
  plan->variant_name = dir > 0 ? (shifted ? "interleave, shifted lines" : "interleave")
                               : (shifted ? "de-interleave, shifted lines" : "de-interleave");
  return detail::served();
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  return with_elem_bytes(plan.task.problem.elem_bytes, [&](auto e) {
    constexpr int E = decltype(e)::value;
    if constexpr (E == 16) {
      return cudaErrorInvalidValue;  // no 16-byte short side past skinny's 8 elements fits 128 bytes
    } else {
      const Problem& p = plan.task.problem;
      switch (plan.variant) {
        case 1: return launch_tiles(transpose_short_lines<E, true, false>, plan, s, p);
        case 2: return launch_tiles(transpose_short_lines<E, true, true>, plan, s, p);
        case -1: return launch_tiles(transpose_short_lines<E, false, false>, plan, s, p);
        default: return launch_tiles(transpose_short_lines<E, false, true>, plan, s, p);
      }
    }
  });
}

}  // namespace

const Engine short_lines = {"short_lines",
                            "short side of 9 elements to 128 bytes stored dense: spans of 256 bytes a line, the "
                            "dense run staged as it lies in memory",
                            "256 threads per span of 256 bytes a line",
                            Input::transpose,
                            supports,
                            plan,
                            launch,
                            tiles_text};

}  // namespace xpose::engines
