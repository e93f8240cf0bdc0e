// In-place transposition on the GPU (issue 35): each of a batch of dense rows x cols matrices
// becomes its dense cols x rows transpose in the same memory. Square matrices: tile pairs
// swapped across the diagonal, every element read and written once. Rectangular matrices whose
// sides share a factor g with g x elem_bytes >= 16: the g x g blocks turned so, then rows of g
// elements moved along their permutation's cycles (each read and written once more), a bit of
// workspace a row of g or a piece of one (at most 1/128 of the matrix's bytes). Others through
// the passes of c2r.hpp.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/problem.hpp"

namespace xpose::engines {

using detail::InplaceProblem;  // a checked request (api/validate)

// Why the GPU path cannot take `t` (one line), or null.
const char* inplace_refusal(const InplaceProblem& t);

// Bytes of device workspace the GPU path needs for `t`.
size_t inplace_workspace_bytes(const InplaceProblem& t);

// How `t`'s tiles move, for --explain and the bench: "vectors" (rows and the base 16-byte
// aligned), "elements", or "small blocks" (a rectangle's blocks turned whole in shared memory).
const char* inplace_path(const InplaceProblem& t);

// Enqueues the transposition; never waits, never allocates. `t` is one inplace_refusal accepts,
// `workspace` at least inplace_workspace_bytes(t) bytes of device memory (cleared here),
// sm_count the current device's.
cudaError_t transpose_inplace(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream);

}  // namespace xpose::engines
