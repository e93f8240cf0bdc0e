// In-place transposition on the GPU (issue 35): square matrices first, by tile pairs swapped
// across the diagonal (each element read and written once). Internal until it has run against
// cpu::transpose_inplace on a GPU; rectangular matrices (layout/inplace.hpp's passes) next.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace xpose::engines {

// `batch` n x n row-major matrices at data (n * n elements apart), each transposed in place.
struct InplaceTask {
  void* data = nullptr;
  int64_t n = 0, elem_bytes = 0, batch = 1;
};

// Why the GPU path cannot take `t` (one line), or null.
const char* inplace_refusal(const InplaceTask& t);

// Enqueues the transposition; never waits. The task is one inplace_refusal accepts.
cudaError_t transpose_inplace_square(const InplaceTask& t, cudaStream_t stream);

}  // namespace xpose::engines
