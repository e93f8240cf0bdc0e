// The N-D half of the engine contract (core/engine.hpp is the transpose engines'). An N-D
// engine (one technique, src/engines/permute/) plans a permutation's N-D form
// (layout/permute_nd.hpp) with its bases, or refuses with the reason, and launches exactly
// its plan. Which engine a permutation takes is the N-D rule table's (dispatch/nd_rules.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "layout/grid.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::detail {

struct NdEngine;

// Everything an N-D launch needs, decided once: the form (an engine may re-order its outer
// axes or fuse some into its blocks), the engine's own parameters (its tiles, blocks, tables:
// a value of a type of its own layout header, in `params`), the bases and the launch.
struct NdPlan {
  const NdEngine* engine = nullptr;  // null: not planned
  layout::NdForm form;
  const void* src = nullptr;
  void* dst = nullptr;
  layout::Dims grid, block;  // permute_rows sizes each chunk's grid itself

  // The engine's parameters: make<T>() starts a fresh T there (in the engine's plan), params<T>()
  // is it (in its launch, its text and its rule). Plans compare and copy as bytes.
  template <class T>
  T& make() {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(bytes) && alignof(T) <= 16,
                  "an engine's parameters: trivially copyable, at most 512 bytes");
    std::memset(bytes, 0, sizeof(bytes));
    return *new (bytes) T{};
  }
  template <class T>
  const T& params() const {
    return *std::launder(reinterpret_cast<const T*>(bytes));
  }
  alignas(16) unsigned char bytes[512] = {};
};

struct NdEngine {
  const char* name;     // what xpose_permute_with takes; the engine's file name
  const char* summary;  // one line: the technique
  // Fills `plan` (its form and bases set, the rest default) where the engine serves the form
  // with those bases; else false with *why.
  bool (*plan)(NdPlan* plan, const char** why);
  cudaError_t (*launch)(const NdPlan& plan, cudaStream_t stream);  // enqueues exactly `plan`
  std::string (*blocks)(const NdPlan& plan);                       // its blocks, in words
  bool sizes_grid = true;  // false: the launch sizes its grids itself (plan.grid unused)
};

// `engine`'s plan for `form` with bases src and dst, or false with *why.
bool plan_nd(const NdEngine& engine, const layout::NdForm& form, const void* src, void* dst, NdPlan* out,
             const char** why);

// "permute_tiled: <its blocks>; the form: ...; grid 4x16, block 32x8, 4-byte elements"
std::string describe(const NdPlan& plan);

}  // namespace xpose::detail
