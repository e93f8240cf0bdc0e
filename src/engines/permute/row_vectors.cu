// permute_row_vectors: rows of an axis fastest and contiguous on both sides, moved as 16-byte
// dst vectors at any alignment (layout::NdRowVectors).
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/nd_row_vectors.hpp"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdRowVectors;

// Each thread moves nd_row_vectors_per_thread granules, every load in flight before the first
// value is shifted or stored: a whole granule whose src bytes lie inside the row as one aligned
// 16-byte vector or the two around them, shifted (layout::shifted_chunk); any other one element
// by element, only the elements of the row (`keep`: a bit an element, and above them the
// offset of a shifted granule's bytes into its first vector).
template <int E>
__global__ void __launch_bounds__(layout::nd_row_vectors_threads, layout::nd_row_vectors_min_blocks)
    permute_row_vectors(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f,
                        const NdRowVectors t, const layout::NdRowsChunk c) {
  constexpr int threads = layout::nd_row_vectors_threads, per_thread = layout::nd_row_vectors_per_thread;
  constexpr int n = 16 / E;  // elements a granule
  constexpr uint32_t all = (1u << n) - 1;
  const uint32_t count = uint32_t(c.count()), first = blockIdx.x * (threads * per_thread) + threadIdx.x;
  Vector<E> v[per_thread];
  uint4 hi[per_thread];           // a shifted granule's second src vector
  unsigned char* to[per_thread];  // the granule's first dst byte
  uint32_t keep[per_thread];      // its elements to store; bits 16 on: the shift
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    keep[k] = 0;
    to[k] = nullptr;
    const uint32_t i = first + k * threads;
    if (i >= count) continue;
    uint32_t g;
    const uint32_t outer = c.length.divmod(i, &g);
    g += uint32_t(c.a_base);
    int64_t s, d;
    f.outer_offsets(c.outer_base + outer, &s, &d);
    const unsigned char* from = reinterpret_cast<const unsigned char*>(src + s);
    unsigned char* row = reinterpret_cast<unsigned char*>(dst + d);
    const layout::RowGranule r = layout::row_granule(reinterpret_cast<uintptr_t>(row), t.row_bytes, g);
    if (r.begin >= r.end) continue;
    to[k] = row + r.first;
    if (r.whole) {
      const auto at = [&](const unsigned char* p) { return reinterpret_cast<uintptr_t>(p); };
      const layout::ShiftedChunk sc = layout::shifted_chunk(at(from + r.first), at(from), at(from + t.row_bytes));
      if (sc.whole) {
        const uint4* vectors = reinterpret_cast<const uint4*>(sc.first);
        v[k].bits = vectors[0];
        if (sc.offset != 0) hi[k] = vectors[1];
        keep[k] = all | uint32_t(sc.offset) << 16;
        continue;
      }
    }
    const Elem<E>* elems = reinterpret_cast<const Elem<E>*>(from + r.first);  // may start before the row: not read
#pragma unroll
    for (int j = 0; j < n; ++j) {
      const int64_t b = r.first + int64_t(j) * E;
      if (b >= 0 && b < t.row_bytes) {
        v[k].e[j] = elems[j];
        keep[k] |= 1u << j;
      }
    }
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    const int shift = int(keep[k] >> 16);
    if (shift != 0) {
      const uint4 lo = v[k].bits;
      const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi[k].x, hi[k].y, hi[k].z, hi[k].w};
      layout::shift_out_chunk(w, shift, v[k].words);
    }
    if ((keep[k] & 0xffffu) == all) {
      __stwb(reinterpret_cast<uint4*>(to[k]), whole(v[k]));
    } else if ((keep[k] & 0xffffu) != 0) {
      Elem<E>* out = reinterpret_cast<Elem<E>*>(to[k]);
#pragma unroll
      for (int j = 0; j < n; ++j)
        if (keep[k] >> j & 1u) out[j] = v[k].e[j];
    }
  }
}

Support plan(Plan* p, const Device&, const PlanOptions&) {
  const int64_t E = p->task.form.elem_bytes;
  if (reinterpret_cast<uintptr_t>(p->task.src) % uintptr_t(E) != 0 ||
      reinterpret_cast<uintptr_t>(p->task.dst) % uintptr_t(E) != 0)
    return detail::refused("its bases are not aligned to the element");
  const char* why = nullptr;
  if (!layout::nd_row_vectors(p->task.form, &p->make<NdRowVectors>(), &why)) return detail::refused(why);
  p->block = {uint32_t(layout::nd_row_vectors_threads), 1, 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    const NdRowVectors& t = p.params<NdRowVectors>();
    cudaError_t e = cudaSuccess;
    layout::for_each_rows_chunk(p.task.form, t.granules.divisor, [&](const layout::NdRowsChunk& c) {
      if (e != cudaSuccess) return;
      constexpr int64_t per_block = layout::nd_row_vectors_threads * layout::nd_row_vectors_per_thread;
      const auto blocks = uint32_t(layout::ceil_div(int64_t(c.count()), per_block));
      permute_row_vectors<E><<<blocks, to_dim3(p.block), 0, stream>>>(
          static_cast<const Elem<E>*>(p.task.src), static_cast<Elem<E>*>(p.task.dst), p.task.form, t, c);
      e = cudaGetLastError();
    });
    return e;
  });
}

std::string text(const Plan& p) {
  return layout::text(p.params<NdRowVectors>()) + ", " + std::to_string(layout::nd_row_vectors_per_thread) +
         " granules a thread";
}

}  // namespace

const Engine permute_row_vectors = {
    "permute_row_vectors",
    "rows of an axis fastest and contiguous on both sides, moved as 16-byte dst vectors at any alignment",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text,
    /*takes_tile_order=*/false,
    /*sizes_grid=*/false};

}  // namespace xpose::engines
