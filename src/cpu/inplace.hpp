// In-place transposition on the CPU (issue 35): the passes of layout/inplace.hpp over every
// core (the three of rows and columns; the GPU's narrow ones for narrow matrices, and its
// blocks and units where the sides share 512 bytes or more): the CPU path's own, and the
// reference of the GPU's square tests.
#pragma once

#include <cstdint>

namespace xpose::cpu {

// Each of the `batch` rows x cols row-major matrices at data (rows * cols elements apart)
// becomes its cols x rows transpose in the same memory. Scratch on the heap: two rows or a
// strip of 64 bytes of columns (16 columns at least) a thread, and a byte a row to claim the row
// permutation's cycles with; for a short side of up to 384-6144 elements (the GPU's narrow
// passes, in blocks of its own: pieces of 512 bytes to 8 KiB), a block of 3 MiB at most and two
// column pieces a thread, the last rows past whole blocks (under 1/8 of the matrix), and a byte a
// column piece; for units, two a thread and a byte a unit.
// Elements of 1, 2, 4, 8 or 16 bytes.
void transpose_inplace(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch);

}  // namespace xpose::cpu
