// permute_row_vectors: rows of an axis fastest and contiguous on both sides, moved as 16-byte
// dst vectors at any alignment (layout::NdRowVectors).
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"
#include "engines/words.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/nd_row_vectors.hpp"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdRowVectors;

// Granule g (with c.a_base) of the launch's item i (outer index, granule): its dst word in *to,
// its row's bytes [lo, hi) of it, and the src address of the word's first byte; false: none.
template <int E>
__device__ __forceinline__ bool locate(const Elem<E>* src, Elem<E>* dst, const NdForm& f, const NdRowVectors& t,
                                       const layout::NdRowsChunk& c, uint32_t i, unsigned char** to, int* lo, int* hi,
                                       const unsigned char** from) {
  uint32_t g;
  const uint32_t outer = c.length.divmod(i, &g);
  int64_t s, d;
  f.outer_offsets(c.outer_base + outer, &s, &d);
  unsigned char* const row = reinterpret_cast<unsigned char*>(dst + d);
  const layout::RowGranule r = layout::row_granule(reinterpret_cast<uintptr_t>(row), t.row_bytes, g + uint32_t(c.a_base));
  *to = row + r.first;
  *lo = int(r.begin - r.first), *hi = int(r.end - r.first);
  *from = reinterpret_cast<const unsigned char*>(src + s) + r.first;
  return r.begin < r.end;
}

// Each thread moves nd_row_vectors_per_thread granules (items first + k threads), every load out
// before the first is shifted or stored. A granule's bytes come as the aligned src vector around
// its first byte and, off 16, the next, shifted into dst's alignment (layout::shifted_chunk
// within src's span), and go out in one 16-byte store, or for a row's first and last granule as
// store_part's aligned 8/4/2/1-byte stores of the row's bytes alone; the partial granules of 4-
// to 16-byte elements go element by element instead (a few elements: vectors would read more
// sectors). A granule whose vectors reach past src's span (at its ends) is located again after
// the others and copied a byte at a time.
template <int E>
__global__ void __launch_bounds__(layout::nd_row_vectors_threads, layout::nd_row_vectors_min_blocks)
    permute_row_vectors(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f,
                        const NdRowVectors t, const layout::NdRowsChunk c) {
  constexpr int threads = layout::nd_row_vectors_threads, per_thread = layout::nd_row_vectors_per_thread;
  constexpr bool partial_vectors = E <= 2;
  constexpr uint32_t kVectors = 1u << 15, kElements = 1u << 16, kNear = 1u << 17;  // keep: lo | hi << 5 | shift << 10 | one of these
  const uint32_t count = uint32_t(c.count()), first = blockIdx.x * (threads * per_thread) + threadIdx.x;
  const uintptr_t low = reinterpret_cast<uintptr_t>(src), high = low + uintptr_t(t.src_bytes);
  Vector<E> a[per_thread];
  uint4 b[per_thread];
  unsigned char* to[per_thread];
  uint32_t keep[per_thread];
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    keep[k] = 0;
    const uint32_t i = first + k * threads;
    int lo, hi;
    const unsigned char* from;
    if (i >= count || !locate<E>(src, dst, f, t, c, i, &to[k], &lo, &hi, &from)) continue;
    keep[k] = uint32_t(lo) | uint32_t(hi) << 5;
    if (!partial_vectors && (lo != 0 || hi != 16)) {
      const Elem<E>* const elems = reinterpret_cast<const Elem<E>*>(from);  // its elements in [lo, hi) only
#pragma unroll
      for (int e = 0; e < 16 / E; ++e)
        if (e * E >= lo && e * E < hi) a[k].e[e] = elems[e];
      keep[k] |= kElements;
      continue;
    }
    const layout::ShiftedChunk sc = layout::shifted_chunk(reinterpret_cast<uintptr_t>(from), low, high);
    if (sc.whole) {
      a[k].bits = __ldg(reinterpret_cast<const uint4*>(sc.first));
      if (sc.offset) b[k] = __ldg(reinterpret_cast<const uint4*>(sc.first) + 1);
      keep[k] |= uint32_t(sc.offset) << 10 | kVectors;
    } else {
      keep[k] |= kNear;
    }
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    const int lo = int(keep[k] & 31), hi = int(keep[k] >> 5 & 31), shift = int(keep[k] >> 10 & 15);
    if (keep[k] & kVectors) {
      const uint4 v = shift ? shift_bytes(a[k].bits, b[k], shift) : a[k].bits;
      if (lo == 0 && hi == 16)
        __stwb(reinterpret_cast<uint4*>(to[k]), v);
      else
        store_part(to[k], v, lo, hi);
    } else if (keep[k] & kElements) {
      Elem<E>* const out = reinterpret_cast<Elem<E>*>(to[k]);
#pragma unroll
      for (int e = 0; e < 16 / E; ++e)
        if (e * E >= lo && e * E < hi) out[e] = a[k].e[e];
    } else if (keep[k] & kNear) {
      unsigned char* row_to;
      const unsigned char* from;
      int row_lo, row_hi;
      locate<E>(src, dst, f, t, c, first + k * threads, &row_to, &row_lo, &row_hi, &from);
      for (int x = row_lo; x < row_hi; ++x) row_to[x] = from[x];
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
