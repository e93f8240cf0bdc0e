// In-place transposition of rectangles whose sides share fewer than 16 bytes (gcd(rows, cols)
// x elem_bytes < 16), where rows of the shared factor are too small to move as units: the
// passes of layout/inplace.hpp (Catanzaro, Keller and Garland's decomposition) on a view of
// rows of the short side, each pass coalesced (c2r.cu says how).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/problem.hpp"

namespace xpose::engines::c2r {

using detail::InplaceProblem;

// Whether `t` (a checked rectangle) is this path's: its sides share fewer than 16 bytes.
bool takes(const InplaceProblem& t);

// Why this path cannot take `t` (one line), or null.
const char* refusal(const InplaceProblem& t);

// Bytes of device workspace: a bit a row piece of a strip of 128 columns (64 of 8-byte
// elements; at most 1/1024 of the matrix, and a bit a row of the long side for a narrower last
// strip), and the 127 rows past their end that bands of 32768 rows or more read where there are
// several (under 0.4% of the matrix). Under 1% of the matrix where the short side is 16 bytes
// or more.
size_t workspace_bytes(const InplaceProblem& t);

// One line for --explain: the view, the passes, the workspace.
std::string describe(const InplaceProblem& t);

// Enqueues the passes; never waits, never allocates.
cudaError_t transpose(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream);

}  // namespace xpose::engines::c2r
