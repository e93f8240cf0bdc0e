// The FP8 kernels' element steps (quantize.cu, staged.cu): 2-byte inputs widened, |x|
// maxima, a block's factor and scale, and the scaled cast, each as layout/quantize.hpp's
// reference computes it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "layout/quantize.hpp"

namespace xpose::engines {
namespace {

// Half `i` of a word of 2-byte elements as fp32: bf16 (Brain) or fp16. cvt.f32.f16 gives NaNs
// one canonical (positive) NaN; where the sign matters (Nans: the NaN's code carries it) it is
// put back, as the reference keeps it.
template <bool Brain, bool Nans = false>
__device__ __forceinline__ float widen(uint32_t word, int i) {
  const uint16_t h = uint16_t(word >> (16 * i));
  if constexpr (Brain) return __uint_as_float(uint32_t(h) << 16);
  const float v = __half2float(__ushort_as_half(h));
  if constexpr (!Nans) return v;
  return v == v ? v : __uint_as_float((uint32_t(h & 0x8000u) << 16) | 0x7FC00000u);
}

// Two values scaled and cast to FP8 codes (a in the low byte), as layout::quantize_value. A NaN
// product comes out of cvt as one NaN code whatever the sign: Nans (a tile with a NaN in x, or
// a given scale that makes one of an infinity) gives it x's sign and the format's NaN.
template <bool Nans, layout::Fp8 kind>
__device__ __forceinline__ uint32_t quantize_pair(float a, float sa, float b, float sb) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const float ya = a * sa, yb = b * sb;
  uint32_t codes = __nv_cvt_float2_to_fp8x2(make_float2(ya, yb), __NV_SATFINITE,
                                            kind == layout::Fp8::e4m3 ? __NV_E4M3 : __NV_E5M2);
  if constexpr (Nans) {
    const uint32_t nan = layout::fp8_format(kind).nan_code;
    if (ya != ya) codes = (codes & 0xFF00u) | ((__float_as_uint(a) >> 24) & 0x80u) | nan;
    if (yb != yb) codes = (codes & 0x00FFu) | (((__float_as_uint(b) >> 24) & 0x80u) | nan) << 8;
  }
  return codes;
#else
  return layout::quantize_value(a, sa, kind) | uint32_t(layout::quantize_value(b, sb, kind)) << 8;
#endif
}

// max |x| with NaN ignored (fmaxf returns the other operand), infinities kept.
__device__ __forceinline__ float amax_of(float m, float x) { return fmaxf(m, fabsf(x)); }

// max with NaN kept (max.NaN): a running value that turns NaN where any operand was.
__device__ __forceinline__ float max_keeping_nan(float m, float x) {
  float out;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(out) : "f"(m), "f"(x));
  return out;
}

// Packed |x| maxima of 2-byte inputs: two elements a word, NaN ignored (__hmax2), and a running
// NaN detector (__hmax2_nan).
template <bool Brain>
__device__ __forceinline__ uint32_t hmax2(uint32_t a, uint32_t b, bool keep_nan) {
  if constexpr (Brain) {
    const __nv_bfloat162 x = *reinterpret_cast<const __nv_bfloat162*>(&a), y = *reinterpret_cast<const __nv_bfloat162*>(&b);
    const __nv_bfloat162 m = keep_nan ? __hmax2_nan(x, y) : __hmax2(x, y);
    return *reinterpret_cast<const uint32_t*>(&m);
  } else {
    const __half2 x = *reinterpret_cast<const __half2*>(&a), y = *reinterpret_cast<const __half2*>(&b);
    const __half2 m = keep_nan ? __hmax2_nan(x, y) : __hmax2(x, y);
    return *reinterpret_cast<const uint32_t*>(&m);
  }
}

// The factor a block whose amax is m multiplies its data by, and its scale's bits: an E8M0
// code, or the fp32 scale_inv's.
__device__ __forceinline__ float block_factor(const layout::QuantizeRecipe& r, float m, uint32_t* bits) {
  if (r.scaling == layout::Scaling::mx) {
    const uint8_t code = layout::e8m0_from_amax(m, r.out);
    *bits = code;
    return layout::e8m0_data_scale(code);
  }
  const float s = layout::scale_from_amax(m, r.out, r.pow2_scales, r.value_for_inf);
  *bits = __float_as_uint(1.0f / s);
  return s;
}

// Scale bits to out[at]: a byte (E8M0) or a word.
__device__ __forceinline__ void store_scale(const layout::QuantizeRecipe& r, void* out, int64_t at, uint32_t bits) {
  if (r.scaling == layout::Scaling::mx)
    static_cast<uint8_t*>(out)[at] = uint8_t(bits);
  else
    static_cast<uint32_t*>(out)[at] = bits;
}

// block_factor, its scale written to out[at] where `write` (spelled out: through the bits,
// quantize.cu's fp32 kernel spilled 32 bytes where it spilled 8).
__device__ __forceinline__ float block_factor(const layout::QuantizeRecipe& r, float m, void* out, int64_t at,
                                              bool write) {
  if (r.scaling == layout::Scaling::mx) {
    const uint8_t code = layout::e8m0_from_amax(m, r.out);
    if (write) static_cast<uint8_t*>(out)[at] = code;
    return layout::e8m0_data_scale(code);
  }
  const float s = layout::scale_from_amax(m, r.out, r.pow2_scales, r.value_for_inf);
  if (write) static_cast<float*>(out)[at] = 1.0f / s;
  return s;
}

}  // namespace
}  // namespace xpose::engines
