// One way to check a CUDA call: a failure becomes an Error carrying CUDA's own text.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "problem.hpp"

namespace xpose::detail {

inline Error cuda_error(cudaError_t code, const char* call) {
  cudaGetLastError();  // a failed runtime call must not poison the next launch check
  return fail(XPOSE_ERROR_CUDA, std::string(call) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

}  // namespace xpose::detail

// Evaluates a CUDA call; on failure returns its Error from the enclosing function.
#define XPOSE_TRY_CUDA(call)                                                        \
  do {                                                                              \
    const cudaError_t xpose_code_ = (call);                                         \
    if (xpose_code_ != cudaSuccess) return ::xpose::detail::cuda_error(xpose_code_, #call); \
  } while (0)
