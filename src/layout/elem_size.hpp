// The element sizes xpose moves, as compile-time values: with_elem_bytes(E, f) calls
// f(std::integral_constant<int, E>{}) for E of 1, 2, 4, 8 or 16 (16 for anything else, which
// validation has refused before any caller gets here). Kernels, the CPU path and the planner
// all dispatch through this one switch.
#pragma once

#include <cstdint>
#include <type_traits>

namespace xpose::layout {

template <class F>
constexpr auto with_elem_bytes(int64_t elem_bytes, F&& f) {
  switch (elem_bytes) {
    case 1: return f(std::integral_constant<int, 1>{});
    case 2: return f(std::integral_constant<int, 2>{});
    case 4: return f(std::integral_constant<int, 4>{});
    case 8: return f(std::integral_constant<int, 8>{});
    default: return f(std::integral_constant<int, 16>{});
  }
}

}  // namespace xpose::layout
