// n / d and n % d for 32-bit n by a multiply-high, an add and a shift: the N-D kernels split
// a linear index into axis indices with these instead of a division per axis per element.
// With p = ceil(log2 d) and m = floor(2^32 (2^p - d) / d) + 1 (which fits 32 bits),
// n / d = (mulhi(n, m) + n) >> p for every 32-bit n, the sum taken in 64 bits.
#pragma once

#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

struct FastDivmod {
  uint32_t divisor = 1, multiplier = 1, shift = 0;

  constexpr FastDivmod() = default;
  constexpr explicit FastDivmod(uint32_t d) : divisor(d) {
    uint32_t p = 0;
    while ((uint64_t(1) << p) < d) ++p;
    shift = p;
    multiplier = uint32_t(((uint64_t(1) << 32) * ((uint64_t(1) << p) - d)) / d + 1);
  }

  XPOSE_HD uint32_t div(uint32_t n) const {
#if defined(__CUDA_ARCH__)
    const uint32_t high = __umulhi(n, multiplier);
#else
    const uint32_t high = uint32_t((uint64_t(n) * multiplier) >> 32);
#endif
    return uint32_t((uint64_t(high) + n) >> shift);
  }
  // Quotient, and n - quotient * divisor in *rem.
  XPOSE_HD uint32_t divmod(uint32_t n, uint32_t* rem) const {
    const uint32_t q = div(n);
    *rem = n - q * divisor;
    return q;
  }
};

}  // namespace xpose::layout
