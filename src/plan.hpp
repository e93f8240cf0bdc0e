// Problem -> Plan: which kernel, which launch shape, and why. A Plan is a plain value,
// so the dispatcher, `xpose-bench --explain` and the planner's tests read the same thing.
#pragma once

#include <string>

#include "problem.hpp"
#include "registry.hpp"

namespace xpose::detail {

struct Plan {
  const Kernel* kernel = nullptr;
  Launch launch;
  std::string reason;  // one line: why this kernel
};

// The automatic choice: the fastest kernel that can serve the problem on this device.
Error plan_auto(const Problem& p, const Device& d, Plan* out);

// One named kernel, or NOT_SUPPORTED with the kernel's own reason.
Error plan_named(const Kernel& k, const Problem& p, const Device& d, Plan* out);

// "kernel vec_swizzled, grid 1024x1024x1, block 256x1x1, tile 32x32: <reason>"
std::string describe(const Plan& plan);

}  // namespace xpose::detail
