// The contract between choosing and launching, one for every engine. An engine (one
// technique, src/engines/) moves one kind of input (a checked transpose, or a permutation's
// N-D form) and answers three questions: does it serve this task on this device (a typed
// answer that carries the reason, its text built only when someone reads it), what exactly
// will it launch (a Plan: a plain value the planner, --explain and the tests print and
// compare), and launch that plan, re-deciding nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <type_traits>

#include "core/device.hpp"
#include "core/problem.hpp"
#include "layout/grid.hpp"
#include "layout/permute_nd.hpp"
#include "layout/tma_map.hpp"

namespace xpose::detail {

// Why an engine declines a task. The alignment refusals name who needs the alignment.
enum class Refusal : uint8_t {
  none,
  old_device,      // no code in this build for the device's compute capability
  no_tma_code,     // the copy-engine kernels: no machine code for this device (`text` says for which)
  base_16,         // src and dst must be 16-byte aligned
  pitch_16,        // ld_src and ld_dst must be multiples of 16 bytes
  batch_pitch_16,  // stride_src and stride_dst must be multiples of 16 bytes
  other            // `text` is the whole reason
};

struct Support {
  Refusal refusal = Refusal::none;
  const char* text = nullptr;  // who needs the alignment, or the whole reason (Refusal::other)
  bool served() const { return refusal == Refusal::none; }
};
constexpr Support served() { return {}; }
constexpr Support refused(Refusal r, const char* text = nullptr) { return {r, text}; }
constexpr Support refused(const char* text) { return {Refusal::other, text}; }

// The one-line reason, for error messages and explanations ("" when served).
std::string why(const Support& s, const Device& d);

// The requirements several engines share.
Support needs_built_device(const Device& d);  // compute capability 8.0 or newer
Support needs_16_byte_rows(const Problem& p, const char* who);  // bases, row pitches, batch pitches

// What an engine moves.
enum class Input : uint8_t {
  transpose,  // a checked (batched) 2-D transpose: a Problem
  nd_form     // a normalized permutation's N-D form (layout/permute_nd.hpp) and its bases
};

// What a plan is asked for: the input the engine moves, with its bases. The two makers set one
// input; rebase() moves either to other bases.
struct Task {
  Input input = Input::transpose;
  Problem problem;            // Input::transpose, bases included
  layout::NdForm form;        // Input::nd_form (an engine's plan may re-order its outer axes) ...
  const void* src = nullptr;  // ... and its bases
  void* dst = nullptr;

  static Task of(const Problem& p) {
    Task t;
    t.problem = p;
    t.src = p.src;
    t.dst = p.dst;
    return t;
  }
  static Task of(const layout::NdForm& f, const void* src, void* dst) {
    Task t;
    t.input = Input::nd_form;
    t.form = f;
    t.src = src;
    t.dst = dst;
    return t;
  }
  void rebase(const void* new_src, void* new_dst) {
    src = problem.src = new_src;
    dst = problem.dst = new_dst;
  }
};

struct Engine;

// Everything a launch needs, decided once: the task, the launch (grid, block, dynamic shared
// memory; an engine whose walk exceeds CUDA's grid limits launches in chunks and `grid` is the
// first, or sizes each chunk's grid itself: Engine::sizes_grid), the engine's instantiation
// beyond the element size, and the engine's own parameters: a value of a type of its own, in
// `bytes` (make<T>() starts a fresh T there in the engine's plan; params<T>() is it in its
// launch, its text and its rule). Plans copy and compare as plain values.
struct Plan {
  const Engine* engine = nullptr;  // set with the task before the engine plans; null: not planned
  int device = 0;                  // the device it was planned for (per-device caches)
  Task task;
  layout::Dims grid, block;
  size_t smem_bytes = 0;          // dynamic shared memory per block
  int variant = 0;                // the engine's instantiation beyond the element size
  const char* variant_name = "";  // printable; empty when the engine has one

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

// The transpose engines' parameters (Plan::params<Tiles>()): col_tiles x row_tiles x batch
// tiles of tile_rows x tile_cols, one block each (engines/launch.cuh launches them in chunks
// within CUDA's grid limits).
struct Tiles {
  layout::TileWalk walk;
  bool by_column = false;   // blocks take the walk's tiles column by column (PlanOptions)
  int64_t chunk_elems = 0;  // tiny_batched: elements per block
  layout::TmaMaps maps;     // the copy engine's tensor maps (TMA engines)
};

// What the dispatcher asks of a plan besides the task and the device: the decisions the
// device's tuning record makes for an engine (so that the plan comes complete from it).
struct PlanOptions {
  bool tiles_by_column = false;  // engines with takes_tile_order: blocks take tiles column by column
};

struct Engine {
  const char* name;         // what xpose_transpose_with / xpose_permute_with take; the engine's file name
  const char* summary;      // one line: the technique
  const char* launch_text;  // one line: its launch, for the rule table
  Input input;              // what it moves
  // Served, or why not: the checks that need no plan (device, alignment, the form's kind).
  Support (*supports)(const Task& t, const Device& d);
  // Where supports() served: completes *plan (its engine, device and task set) and returns
  // served, or returns what only planning finds (an N-D form whose blocks or tables do not fit).
  Support (*plan)(Plan* plan, const Device& d, const PlanOptions& o);
  cudaError_t (*launch)(const Plan& plan, cudaStream_t stream);  // enqueues exactly `plan`
  std::string (*text)(const Plan& plan);                         // its tiles or blocks, in words
  bool takes_tile_order = false;  // its plan follows PlanOptions::tiles_by_column (the device tuning's choice)
  bool sizes_grid = true;         // false: its launch sizes each chunk's grid itself (plan.grid unused)
};

// `e`'s plan for `t` on `d` into *out: supports(), then plan(); the refusal where either
// declines (then out->engine is null).
Support plan_engine(const Engine& e, const Task& t, const Device& d, const PlanOptions& o, Plan* out);

// "kernel vec_swizzled, grid 1024x1024x1, block 256x1x1, tile 32x32" (transpose engines);
// "permute_tiled: <its blocks>; the form: ...; grid 4x16, block 32x8, 4-byte elements" (N-D).
std::string describe(const Plan& plan);

}  // namespace xpose::detail
