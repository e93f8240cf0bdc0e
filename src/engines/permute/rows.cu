// permute_rows: rows of an axis fastest on both sides, copied as they are, (outer index,
// position in the row) as one linear index in launches of fewer than 2^30 elements.
// permute_gather: the same walk over a tiled form's elements, dst's order, each src element
// gathered (layout::nd_gather_offsets).
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdRowsChunk;

// Rows along a, the axis fastest on both sides: (outer index, position in the row) as one
// linear index, consecutive threads on consecutive elements, each thread nd_rows_per_thread
// of them with every load in flight before the first store. Gather (a tiled form): the row is
// the outer index's a x b elements in dst's order, b fastest (`by_b`: by extent_b).
template <int E, bool Gather>
__global__ void __launch_bounds__(layout::nd_rows_threads)
    permute_rows(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdRowsChunk c,
                 const layout::FastDivmod by_b) {
  constexpr int threads = layout::nd_rows_threads, per_thread = layout::nd_rows_per_thread;
  const uint32_t count = uint32_t(c.count()), first = blockIdx.x * (threads * per_thread) + threadIdx.x;
  Elem<E> v[per_thread];
  int64_t to[per_thread];
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    const uint32_t i = first + k * threads;
    if (i < count) {
      uint32_t pos;
      const uint32_t outer = c.length.divmod(i, &pos);
      int64_t s, d;
      f.outer_offsets(c.outer_base + outer, &s, &d);
      if constexpr (Gather) {
        layout::nd_gather_offsets(f, by_b, uint32_t(c.a_base + pos), &s, &d);
        v[k] = src[s];
        to[k] = d;
      } else {
        const int64_t a = c.a_base + pos;
        v[k] = src[s + a * f.src_a];
        to[k] = d + a * f.dst_a;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k)
    if (first + k * threads < count) dst[to[k]] = v[k];
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (t.form.tiled)
    return detail::refused(
        "permute_rows copies rows of an axis fastest on both sides; here src's fastest axis and "
        "dst's differ (permute_vec_tiled or permute_tiled serves that)");
  return detail::served();
}

Support plan(Plan* p, const Device&, const PlanOptions&) {
  p->block = {uint32_t(layout::nd_rows_threads), 1, 1};
  return detail::served();
}

// Each chunk of the walk (layout::for_each_rows_chunk) one launch: rows of extent_a elements, or
// where Gather each outer index's extent_a x extent_b.
template <bool Gather>
cudaError_t launch(const Plan& p, cudaStream_t stream) {
  const NdForm& f = p.task.form;
  const layout::FastDivmod by_b(uint32_t(Gather ? f.extent_b : 1));
  return with_elem_bytes(f.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    cudaError_t e = cudaSuccess;
    layout::for_each_rows_chunk(f, Gather ? f.extent_a * f.extent_b : f.extent_a, [&](const NdRowsChunk& c) {
      if (e != cudaSuccess) return;
      constexpr int64_t per_block = layout::nd_rows_threads * layout::nd_rows_per_thread;
      const auto blocks = uint32_t(layout::ceil_div(int64_t(c.count()), per_block));
      permute_rows<E, Gather><<<blocks, to_dim3(p.block), 0, stream>>>(
          static_cast<const Elem<E>*>(p.task.src), static_cast<Elem<E>*>(p.task.dst), f, c, by_b);
      e = cudaGetLastError();
    });
    return e;
  });
}

std::string text(const Plan& p) {
  return "rows of the axis fastest on both sides (" + std::to_string(p.task.form.extent_a) + " elements), " +
         std::to_string(layout::nd_rows_per_thread) + " elements a thread";
}

Support gather_supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (!t.form.tiled)
    return detail::refused(
        "permute_gather moves a tiled form's elements (src's fastest axis and dst's differ); here "
        "one axis is fastest on both sides (permute_rows serves that)");
  if (t.form.extent_a * t.form.extent_b >= layout::nd_gather_max_items)
    return detail::refused("permute_gather takes src's and dst's fastest axes of fewer than 2^31 elements together");
  return detail::served();
}

std::string gather_text(const Plan& p) {
  return "each element gathered from src in dst's order (src's fastest axis " + std::to_string(p.task.form.extent_a) +
         ", dst's " + std::to_string(p.task.form.extent_b) + "), " + std::to_string(layout::nd_rows_per_thread) +
         " elements a thread";
}

}  // namespace

const Engine permute_rows = {"permute_rows",
                             "rows of an axis fastest on both sides, copied as they are",
                             "",
                             Input::nd_form,
                             supports,
                             plan,
                             launch<false>,
                             text,
                             /*takes_tile_order=*/false,
                             /*sizes_grid=*/false};

const Engine permute_gather = {"permute_gather",
                               "each element gathered from src in dst's order, as PyTorch's copy of a permuted tensor",
                               "",
                               Input::nd_form,
                               gather_supports,
                               plan,
                               launch<true>,
                               gather_text,
                               /*takes_tile_order=*/false,
                               /*sizes_grid=*/false};

}  // namespace xpose::engines
