// permute_rows: rows of an axis fastest on both sides, copied as they are, (outer index,
// position in the row) as one linear index in launches of fewer than 2^30 elements.
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
// of them with every load in flight before the first store.
template <int E>
__global__ void __launch_bounds__(layout::nd_rows_threads)
    permute_rows(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdRowsChunk c) {
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
      const int64_t a = c.a_base + pos;
      v[k] = src[s + a * f.src_a];
      to[k] = d + a * f.dst_a;
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

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    cudaError_t e = cudaSuccess;
    layout::for_each_rows_chunk(p.task.form, p.task.form.extent_a, [&](const NdRowsChunk& c) {
      if (e != cudaSuccess) return;
      constexpr int64_t per_block = layout::nd_rows_threads * layout::nd_rows_per_thread;
      const auto blocks = uint32_t(layout::ceil_div(int64_t(c.count()), per_block));
      permute_rows<E><<<blocks, to_dim3(p.block), 0, stream>>>(static_cast<const Elem<E>*>(p.task.src),
                                                               static_cast<Elem<E>*>(p.task.dst), p.task.form, c);
      e = cudaGetLastError();
    });
    return e;
  });
}

std::string text(const Plan& p) {
  return "rows of the axis fastest on both sides (" + std::to_string(p.task.form.extent_a) + " elements), " +
         std::to_string(layout::nd_rows_per_thread) + " elements a thread";
}

}  // namespace

const Engine permute_rows = {"permute_rows",
                             "rows of an axis fastest on both sides, copied as they are",
                             "",
                             Input::nd_form,
                             supports,
                             plan,
                             launch,
                             text,
                             /*takes_tile_order=*/false,
                             /*sizes_grid=*/false};

}  // namespace xpose::engines
