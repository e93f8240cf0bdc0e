// In-place transposition of narrow rectangles (a short side of at most 32 elements whose sides
// share fewer than 16 bytes: arrays of small structs to structs of arrays, and back): blocks of
// rows turned, pieces of a block's column moved along their cycles, rows spread apart
// (layout::NarrowShape; narrow.cu says how).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/problem.hpp"

namespace xpose::engines::narrow {

using detail::InplaceProblem;

// Whether `t` (a checked rectangle) is this path's.
bool takes(const InplaceProblem& t);

// Why this path cannot take `t` (one line), or null.
const char* refusal(const InplaceProblem& t);

// Bytes of device workspace: a bit a piece (512 bytes of a column), a word a 16 KiB chunk of
// the spread, and each matrix's last m mod b rows (under 16 KiB and an eighth of the matrix):
// about 1/4000 of a matrix of 64 MiB; none for a matrix of 32 KiB or less (turned whole).
size_t workspace_bytes(const InplaceProblem& t);

// One line for --explain: the view, the passes, the workspace.
std::string describe(const InplaceProblem& t);

// Enqueues the passes; never waits, never allocates.
cudaError_t transpose(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream);

}  // namespace xpose::engines::narrow
