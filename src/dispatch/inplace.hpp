// The in-place transposition's plan: which GPU path a checked request takes, the workspace it
// needs, and one line saying so; and the CPU path for host memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "core/problem.hpp"
#include "core/status.hpp"

namespace xpose::engines {
struct InplacePath;
}

namespace xpose::detail {

struct InplacePlan {
  InplaceProblem problem;
  const engines::InplacePath* path = nullptr;  // the GPU path; null where there is nothing to move
  size_t workspace_bytes = 0;
  std::string text;  // one line: the path, its launch, the workspace
};

// The plan for a checked request (data may be null: the layout alone). NOT_SUPPORTED, saying
// why, where the GPU path cannot take it.
Result plan_inplace(const InplaceProblem& p, InplacePlan* out);

// Enqueues the plan on `stream` for `data` (the plan's layout) with a checked workspace.
Result launch_inplace(const InplacePlan& plan, void* data, void* workspace, cudaStream_t stream);

// The CPU path for a checked request on host memory, on all cores.
void run_inplace_on_host(const InplaceProblem& p);

}  // namespace xpose::detail
