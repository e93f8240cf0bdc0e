// short_lines: matrices with a short side of 9 to 128 bytes stored dense (S x N -> N x S
// interleave, N x S -> S x N de-interleave), too many lines for skinny's registers and too
// short a side for a tile's rows to fill sectors. A block moves a span of 256 bytes of each
// line: the lines as 16-byte vectors, the dense run (S x 256 bytes, contiguous) as 16-byte
// vectors in order, the run staged in shared memory in its order (layout::ShortLines).
// The dense run 16-byte aligned in every matrix (the plan refuses the rest); lines that are not
// (odd pitches, offset bases; Shifted) are read as the aligned vectors around each vector,
// shifted (load_shifted), and written as the aligned 16-byte windows each line's span touches,
// element by element only where a window reaches past the span. A span the matrix cuts moves
// element by element.
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/fast_divmod.hpp"
#include "layout/skinny.hpp"

namespace xpose::engines {
namespace {

constexpr int threads = layout::short_lines_threads;

// Blocks an SM a kernel is compiled for (0: as ptxas chooses). Interleaving from shifted lines
// took 70 registers a thread for bytes and 46 for halves unbounded; 4 and 6 blocks keep them at
// 64 and 40 without a spill (a bound on the others made ptxas spill them).
template <int E, bool Interleave, bool Shifted>
constexpr int min_blocks = Interleave && Shifted ? (E == 1 ? 4 : E == 2 ? 6 : 0) : 0;

// by_short: division by S, the short side.
template <int E, bool Interleave, bool Shifted>
__global__ void __launch_bounds__(threads, (min_blocks<E, Interleave, Shifted>))
    transpose_short_lines(Problem p, layout::FastDivmod by_short, TileOrigin o) {
  using L = layout::ShortLines<E>;
  __shared__ uint4 staged[L::max_staged];
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
    int at[L::per_thread];        // where their first elements are staged
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) {
        uint32_t i;
        const int g = int(by_short.divmod(uint32_t(q), &i));  // vector g of line i
        at[r] = L::staged_at(S, int(i), g, 0);
        const Elem<E>* const from = t.src + int(i) * ld + g * L::V;
        if constexpr (Shifted) {
          const Elem<E>* const row = t.src - t.c0 + int(i) * ld;  // the line's row in the matrix
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
        for (int u = 0; u < L::V; ++u) run[at[r] + u * S] = v[r].e[u];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) {
        uint32_t c;
        const int g = int(by_short.divmod(uint32_t(q), &c));
        __stwb(reinterpret_cast<uint4*>(t.dst) + q, staged[L::staged_vector(S, g, int(c))]);
      }
    }
  } else {
#pragma unroll
    for (int r = 0; r < L::per_thread; ++r) {
      const int q = int(threadIdx.x) + r * threads;
      if (q < items) {
        uint32_t c;
        const int g = int(by_short.divmod(uint32_t(q), &c));
        staged[L::staged_vector(S, g, int(c))] = reinterpret_cast<const uint4*>(t.src)[q];
      }
    }
    __syncthreads();
    if constexpr (Shifted) {
      const int gap = L::window_gap(S);
#pragma unroll
      for (int r = 0; r < L::window_per_thread; ++r) {
        const int n = int(threadIdx.x) + r * threads, i = n / L::windows, j = n % L::windows;
        if (n < S * L::windows) {
          Elem<E>* const line = t.dst + i * ld;  // the span's first element of line i
          const int skew = int(reinterpret_cast<uintptr_t>(line) % 16) / E, k0 = L::window_first(j, skew);
          const int low = L::window_low(S, i, j, skew);
          Vector<E> v;
          if (k0 >= 0 && k0 + L::V <= L::J) {
#pragma unroll
            for (int u = 0; u < L::V; ++u) v.e[u] = run[low + u * S + (u >= skew ? gap : 0)];
            __stwb(reinterpret_cast<uint4*>(line + k0), whole(v));
          } else {
#pragma unroll
            for (int u = 0; u < L::V; ++u)
              if (k0 + u >= 0 && k0 + u < L::J) line[k0 + u] = run[low + u * S + (u >= skew ? gap : 0)];
          }
        }
      }
    } else {
#pragma unroll 4  // bytes at 40 registers (fully unrolled 48: 5 blocks an SM where 6 fit)
      for (int r = 0; r < L::per_thread; ++r) {
        const int n = int(threadIdx.x) + r * threads, i = n / L::line_vectors, g = n % L::line_vectors;
        if (n < items) {
          Vector<E> v;
#pragma unroll
          for (int u = 0; u < L::V; ++u) v.e[u] = run[L::staged_at(S, i, g, u)];
          __stwb(reinterpret_cast<uint4*>(t.dst + i * ld + g * L::V), whole(v));
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
  return interleave ? p.src_rows_aligned_16() : p.dst_rows_aligned_16();
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
      const layout::FastDivmod by_short(uint32_t(plan.variant > 0 ? p.rows : p.cols));
      switch (plan.variant) {
        case 1: return launch_tiles(transpose_short_lines<E, true, false>, plan, s, p, by_short);
        case 2: return launch_tiles(transpose_short_lines<E, true, true>, plan, s, p, by_short);
        case -1: return launch_tiles(transpose_short_lines<E, false, false>, plan, s, p, by_short);
        default: return launch_tiles(transpose_short_lines<E, false, true>, plan, s, p, by_short);
      }
    }
  });
}

}  // namespace

const Engine short_lines = {"short_lines",
                            "short side of 9 elements to 128 bytes stored dense: spans of 256 bytes a line, the "
                            "dense run staged in its order",
                            "256 threads per span of 256 bytes a line",
                            Input::transpose,
                            supports,
                            plan,
                            launch,
                            tiles_text};

}  // namespace xpose::engines
