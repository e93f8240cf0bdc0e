// The contract between choosing and launching. An engine (one technique, src/engines/)
// answers three questions: does it serve this problem on this device (a typed answer that
// carries the reason, its text built only when someone reads it), what exactly will it
// launch (an EnginePlan: a plain value the planner, --explain and the tests print and compare),
// and launch that plan, re-deciding nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/device.hpp"
#include "core/problem.hpp"
#include "layout/grid.hpp"
#include "layout/tma_map.hpp"

namespace xpose::detail {

// Why an engine declines a problem. The alignment refusals name who needs the alignment.
enum class Refusal : uint8_t {
  none,
  old_device,       // no code in this build for the device's compute capability
  no_tma_code,      // the copy-engine kernels: no machine code for this device (`text` says for which)
  base_16,          // src and dst must be 16-byte aligned
  pitch_16,         // ld_src and ld_dst must be multiples of 16 bytes
  batch_pitch_16,   // stride_src and stride_dst must be multiples of 16 bytes
  other             // `text` is the whole reason
};

struct Support {
  Refusal refusal = Refusal::none;
  const char* text = nullptr;  // who needs the alignment, or the whole reason (Refusal::other)
  bool served() const { return refusal == Refusal::none; }
};
constexpr Support served() { return {}; }
constexpr Support refused(Refusal r, const char* text = nullptr) { return {r, text}; }

// The one-line reason, for error messages and explanations ("" when served).
std::string why(const Support& s, const Device& d);

// The requirements several engines share.
Support needs_built_device(const Device& d);  // compute capability 8.0 or newer
Support needs_16_byte_rows(const Problem& p, const char* who);  // bases, row pitches, batch pitches

struct Engine;

// Everything a launch needs, decided once. Tile engines walk col_tiles x row_tiles x
// batch tiles of tile_rows x tile_cols, one block each: one launch where the counts fit
// CUDA's grid limits, else several (engines/launch.cuh); `grid` is the first.
struct EnginePlan {
  const Engine* engine = nullptr;  // set by the dispatcher
  int device = 0;                // the device it was planned for (per-device caches)
  Problem problem;               // what the kernel moves: pointers, extents, pitches
  int variant = 0;               // the engine's instantiation beyond the element size
  const char* variant_name = "";  // printable; empty when the engine has one
  layout::TileWalk walk;
  layout::Dims grid, block;
  size_t smem_bytes = 0;         // dynamic shared memory per block
  int64_t chunk_elems = 0;       // tiny_batched: elements per block
  layout::TmaMaps maps;          // the copy engine's tensor maps (TMA engines only)
  bool tiles_by_column = false;  // blocks take the walk's tiles column by column (PlanOptions, engines with takes_tile_order)
};

// What the dispatcher asks of a plan besides the problem and the device: the decisions the
// device's tuning record makes for an engine (so that the plan comes complete from it).
struct PlanOptions {
  bool tiles_by_column = false;  // engines with takes_tile_order: blocks take tiles column by column
};

struct Engine {
  const char* name;         // what xpose_transpose_with takes; the engine's file name
  const char* summary;      // one line: the technique
  const char* launch_text;  // one line: its launch, for the rule table
  Support (*supports)(const Problem& p, const Device& d);
  EnginePlan (*plan)(const Problem& p, const Device& d, const PlanOptions& o);  // only where supports() served; complete
  cudaError_t (*launch)(const EnginePlan& plan, cudaStream_t stream);  // enqueues exactly `plan`
  bool takes_tile_order = false;  // its plan follows PlanOptions::tiles_by_column (the device tuning's choice)
};

// "kernel vec_swizzled, grid 1024x1024x1, block 256x1x1, tile 32x32"
std::string describe(const EnginePlan& plan);

}  // namespace xpose::detail
