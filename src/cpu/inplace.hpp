// In-place transposition on the CPU (issue 35): the three passes of layout/inplace.hpp over
// every core, the reference the GPU path will be checked against and the CPU path's own.
#pragma once

#include <cstdint>

namespace xpose::cpu {

// Each of the `batch` rows x cols row-major matrices at data (rows * cols elements apart)
// becomes its cols x rows transpose in the same memory. Scratch on the heap: one row or 16
// columns (at most 16 max(rows, cols) elements) a thread, and rows bytes to find the row
// permutation's cycles. Elements of 1, 2, 4, 8 or 16 bytes.
void transpose_inplace(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch);

}  // namespace xpose::cpu
