// The element types of the in-place kernels (16-byte elements may sit on an 8-byte boundary,
// NumPy's complex128, so they move as two 8-byte words); engines/words.cuh the aligned 16-byte
// words they move bytes off 16 bytes as.
#pragma once

#include <type_traits>

#include "engines/common.cuh"
#include "engines/words.cuh"
#include "layout/inplace.hpp"

namespace xpose::engines {

struct alignas(8) Words8x2 {
  uint2 lo, hi;
};
template <int E>
using InplaceElem = std::conditional_t<E == 16, Words8x2, Elem<E>>;

}  // namespace xpose::engines
