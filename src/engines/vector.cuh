// A 16-byte vector of elements, for the kernels that move rows as whole 16-byte pieces.
#pragma once

#include <cuda_runtime.h>

#include "engines/common.cuh"
#include "layout/aligned_dst.hpp"

namespace xpose::engines {

template <int E>
union Vector {
  uint4 bits;
  uint32_t words[4];
  Elem<E> e[16 / E];
};

// The vector as one 16-byte value, for __stwb (st.global.wb.v4, the default write-back
// policy): a plain uint4 store of the union, filled element by element, was split by the
// compiler into per-element stores (st.global.u32 x4 for fp32, v2.u16 x4 for fp16, v2.u32
// x2 for 8-byte elements): four times the store sectors of a 16-byte store in Nsight
// Compute, and far more instructions than a kernel storing float4 directly
// (docs/experiments.md, 2).
template <int E>
__device__ __forceinline__ uint4 whole(const Vector<E>& v) {
  return make_uint4(v.words[0], v.words[1], v.words[2], v.words[3]);
}

__device__ __forceinline__ bool aligned_16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Elements from..from + count - 1 (count <= 16 / E) as a vector, the rest zero: the one or two
// aligned 16-byte vectors around them shifted where they lie within [begin, end) (the row or
// dense run they belong to in the matrix; no byte outside it is read), else one by one.
template <int E>
__device__ __forceinline__ Vector<E> load_shifted(const Elem<E>* from, int count, const Elem<E>* begin,
                                                  const Elem<E>* end) {
  const auto address = [](const Elem<E>* e) { return reinterpret_cast<uintptr_t>(e); };
  Vector<E> v;
  v.bits = make_uint4(0, 0, 0, 0);
  const layout::ShiftedChunk c = layout::shifted_chunk(address(from), address(begin), address(end));
  if (count == 16 / E && c.whole) {
    const uint4* at = reinterpret_cast<const uint4*>(c.first);  // global loads, not generic ones
    const uint4 lo = __ldca(at), hi = c.offset ? __ldca(at + 1) : make_uint4(0, 0, 0, 0);
    const uint32_t w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
    layout::shift_out_chunk(w, c.offset, v.words);
  } else {
#pragma unroll
    for (int e = 0; e < 16 / E; ++e)  // a constant index: v stays in registers
      if (e < count) v.e[e] = from[e];
  }
  return v;
}

}  // namespace xpose::engines
