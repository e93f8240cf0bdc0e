// A 16-byte vector of elements, for the kernels that move rows as whole 16-byte pieces.
#pragma once

#include <cuda_runtime.h>

#include "engines/common.cuh"

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

}  // namespace xpose::engines
