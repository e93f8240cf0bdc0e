// Bytes off 16 bytes moved as the aligned 16-byte words around them: loaded within a buffer's
// bytes, shifted, stored in part (the in-place kernels; permute_row_vectors; aligned_stores'
// dst edges of bytes).
#pragma once

#include <cstdint>

#include "engines/common.cuh"
#include "layout/words.hpp"

namespace xpose::engines {

// The aligned 16-byte word at p; its bytes outside [low, high) (the matrices') are not read
// (zeros), so no kernel reads past the caller's buffer.
__device__ __forceinline__ uint4 load_within(const unsigned char* p, const unsigned char* low,
                                             const unsigned char* high) {
  if (p >= low && p + 16 <= high) return __ldcg(reinterpret_cast<const uint4*>(p));
  uint64_t lo = 0, hi = 0;
  for (int i = 0; i < 16; ++i) {
    const uint64_t b = p + i >= low && p + i < high ? uint64_t(p[i]) << (8 * (i % 8)) : 0;
    if (i < 8) lo |= b;
    else hi |= b;
  }
  return make_uint4(uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32));
}

// Bytes s .. s + 15 (s in 0..15) of a followed by b (little-endian): the 16 bytes that start s
// bytes into the aligned word a.
__device__ __forceinline__ uint4 shift_bytes(const uint4& a, const uint4& b, int s) {
  const bool by8 = s & 8, by4 = s & 4;  // words dropped: two where s has 8, one more where it has 4
  const uint32_t u0 = by8 ? a.z : a.x, u1 = by8 ? a.w : a.y, u2 = by8 ? b.x : a.z, u3 = by8 ? b.y : a.w,
                 u4 = by8 ? b.z : b.x, u5 = by8 ? b.w : b.y;
  const uint32_t x0 = by4 ? u1 : u0, x1 = by4 ? u2 : u1, x2 = by4 ? u3 : u2, x3 = by4 ? u4 : u3, x4 = by4 ? u5 : u4;
  const int r = (s & 3) * 8;
  return make_uint4(__funnelshift_r(x0, x1, r), __funnelshift_r(x1, x2, r), __funnelshift_r(x2, x3, r),
                    __funnelshift_r(x3, x4, r));
}

// Bytes [lo, hi) of v into the aligned 16-byte word at `word`, the other bytes left alone: one
// store for the whole word, else layout::word_parts' aligned 8/4/2/1-byte stores.
__device__ __forceinline__ void store_part(unsigned char* word, const uint4& v, int lo, int hi) {
  if (lo == 0 && hi == 16) {
    __stcg(reinterpret_cast<uint4*>(word), v);
    return;
  }
  const uint64_t low = uint64_t(v.x) | uint64_t(v.y) << 32, high = uint64_t(v.z) | uint64_t(v.w) << 32;
  const auto put = [&](int i, int n) {
    const uint64_t bits = (i < 8 ? low : high) >> (8 * (i % 8));
    if (n == 8) __stcg(reinterpret_cast<unsigned long long*>(word + i), (unsigned long long)bits);
    else if (n == 4) __stcg(reinterpret_cast<unsigned*>(word + i), unsigned(bits));
    else if (n == 2) __stcg(reinterpret_cast<unsigned short*>(word + i), (unsigned short)bits);
    else word[i] = (unsigned char)bits;
  };
  layout::word_parts(lo, hi, put);
}

}  // namespace xpose::engines
