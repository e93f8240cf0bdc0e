// Errors as values: a status for the caller and a one-line message saying why, and the one
// way a CUDA call is checked (its failure becomes an Error carrying CUDA's own text).
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "xpose/xpose.h"

namespace xpose::detail {

struct Error {
  xpose_status_t status = XPOSE_SUCCESS;
  std::string message;
  bool failed() const { return status != XPOSE_SUCCESS; }
};
inline Error ok() { return {}; }
inline Error fail(xpose_status_t status, std::string message) { return {status, std::move(message)}; }

inline Error cuda_error(cudaError_t code, const char* call) {
  cudaGetLastError();  // a failed runtime call must not poison the next launch check
  return fail(XPOSE_ERROR_CUDA, std::string(call) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

}  // namespace xpose::detail

// Evaluates a CUDA call; on failure returns its Error from the enclosing function.
#define XPOSE_TRY_CUDA(call)                                                                \
  do {                                                                                      \
    const cudaError_t xpose_code_ = (call);                                                 \
    if (xpose_code_ != cudaSuccess) return ::xpose::detail::cuda_error(xpose_code_, #call); \
  } while (0)
