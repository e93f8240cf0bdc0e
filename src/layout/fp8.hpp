// FP8 numbers (OCP 8-bit floating point: E4M3FN and E5M2) to and from fp32, bit for bit, as
// __host__ __device__ functions: the one definition the quantizing kernels and the CPU
// reference will share (issue 34). Rounding is to nearest, ties to even. Out of range:
//   Overflow::ieee      E4M3FN gives NaN and E5M2 infinity, as ml_dtypes' casts do (PyTorch's
//                       are meant to match; not yet checked against torch here)
//                       (448 rounds up to NaN past 464 in E4M3FN; 57344 to infinity from 61440 in E5M2);
//   Overflow::saturate  the largest finite value of the sign (infinities too), as training casts
//                       do (cuda_fp8.h's __NV_SATFINITE).
// NaN stays NaN with its sign (E4M3FN 0x7F, E5M2 0x7E), in both modes.
#pragma once

#include <cstdint>
#include <cstring>

#include "layout/hd.hpp"

namespace xpose::layout {

enum class Fp8 : uint8_t { e4m3, e5m2 };
enum class Overflow : uint8_t { ieee, saturate };

struct Fp8Format {
  int mantissa_bits, bias;
  uint8_t max_code;  // the largest finite magnitude's code
  uint8_t nan_code;  // the NaN ml_dtypes writes (sign bit clear)
  bool has_inf;      // E5M2: 0x7C is infinity
};

XPOSE_HD constexpr Fp8Format fp8_format(Fp8 kind) {
  return kind == Fp8::e4m3 ? Fp8Format{3, 7, 0x7E, 0x7F, false} : Fp8Format{2, 15, 0x7B, 0x7E, true};
}

XPOSE_HD inline uint32_t float_bits(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

XPOSE_HD inline float bits_float(uint32_t u) {
  float x;
  memcpy(&x, &u, sizeof x);
  return x;
}

// `x` as the FP8 code of `kind` (sign in bit 7).
XPOSE_HD inline uint8_t fp8_from_float(float x, Fp8 kind, Overflow overflow) {
  const Fp8Format f = fp8_format(kind);
  const uint32_t u = float_bits(x);
  const uint8_t sign = uint8_t((u >> 24) & 0x80);
  const uint32_t exp = (u >> 23) & 0xFF, man = u & 0x7FFFFF;
  if (exp == 0xFF && man) return uint8_t(sign | f.nan_code);  // NaN
  const uint8_t too_large = overflow == Overflow::saturate ? f.max_code
                            : f.has_inf                     ? uint8_t(0x7C)
                                                            : f.nan_code;
  if (exp == 0xFF) return uint8_t(sign | too_large);  // infinity
  // The magnitude's code with the exponent field unbounded above: normal where the FP8
  // exponent field is at least 1, else subnormal; the dropped bits rounded to nearest even.
  const int field = int(exp) - 127 + f.bias;  // the FP8 exponent field of a normal result
  uint32_t kept, shift;
  if (field >= 1) {
    shift = uint32_t(23 - f.mantissa_bits);
    kept = (uint32_t(field) << f.mantissa_bits) | (man >> shift);
  } else {
    const uint32_t full = exp ? (man | 0x800000u) : man;  // fp32 subnormals: no implicit 1
    shift = uint32_t(23 - f.mantissa_bits + 1 - field) - (exp ? 0u : 1u);
    if (shift > 31) return sign;  // far below half of the smallest subnormal
    kept = full >> shift;
  }
  const uint32_t rest = (field >= 1 ? man : (exp ? (man | 0x800000u) : man)) & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  if (rest > half || (rest == half && (kept & 1u))) ++kept;  // a carry moves into the exponent
  if (kept > f.max_code) return uint8_t(sign | too_large);
  return uint8_t(sign | kept);
}

// The fp32 value of FP8 code `v` of `kind` (exact: every FP8 value is an fp32 value).
XPOSE_HD inline float fp8_to_float(uint8_t v, Fp8 kind) {
  const Fp8Format f = fp8_format(kind);
  const uint32_t sign = uint32_t(v & 0x80) << 24, mag = v & 0x7Fu;
  const uint32_t field = mag >> f.mantissa_bits, man = mag & ((1u << f.mantissa_bits) - 1u);
  if (f.has_inf && field == 0x1Fu) return bits_float(sign | (man ? 0x7FC00000u : 0x7F800000u));
  if (!f.has_inf && mag == 0x7Fu) return bits_float(sign | 0x7FC00000u);
  if (field == 0) {  // subnormal: man x 2^(1 - bias - mantissa_bits)
    const float scale = bits_float(uint32_t(127 + 1 - f.bias - f.mantissa_bits) << 23);
    return bits_float(sign | float_bits(float(man) * scale));
  }
  return bits_float(sign | ((field - f.bias + 127) << 23) | (man << (23 - f.mantissa_bits)));
}

}  // namespace xpose::layout
