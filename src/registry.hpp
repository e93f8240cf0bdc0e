// The kernel registry: every named kernel, what it needs, how it is shaped and launched.
// Tests and the benchmark iterate over it, so a kernel is tested the day it is listed.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>
#include <vector>

#include "layout/grid.hpp"
#include "problem.hpp"

namespace xpose::detail {

// The facts about the current GPU that kernels and the planner depend on.
struct Device {
  int id = 0;
  int cc = 0;        // compute capability, major * 10 + minor
  int sm_count = 0;
};
Error current_device(Device* out);  // cached per device after the first call

// A launch configuration: the grid, the block and the tile edge the kernel walks.
struct Launch {
  layout::Dims grid, block;
  int tile_rows = 0, tile_cols = 0;
};

struct Kernel {
  const char* name;
  const char* summary;
  // Empty when the kernel can serve `p` on `d`; otherwise the one-line reason why not.
  std::string (*unsupported)(const Problem& p, const Device& d);
  Launch (*shape)(const Problem& p, const Device& d);
  // Enqueues the kernel; returns the launch error, if any.
  cudaError_t (*launch)(const Problem& p, const Launch& l, cudaStream_t stream);
};

// The transposing kernels, in ladder order (slowest technique first).
const std::vector<const Kernel*>& transpose_kernels();
const Kernel* find_kernel(std::string_view name);  // nullptr when unknown

// Names that are kernels but not transposes (the benchmark's copy ceiling).
constexpr std::string_view copy_kernel_name = "copy";

// Every name the registry knows, comma-separated, for error messages.
std::string kernel_names();

// Common requirement: a GPU this build carries code for.
std::string unsupported_device(const Device& d);

}  // namespace xpose::detail
