// In-place transposition on the GPU (issue 35): each of a batch of dense rows x cols matrices
// becomes its dense cols x rows transpose in the same memory, by one of three paths, each an
// InplacePath, asked in turn (the first that takes a request serves it):
//   narrow (narrow.cu): a short side of up to 384-6144 elements (layout::narrow_takes):
//     blocks of rows turned, their columns' pieces moved along their cycles, rows spread apart;
//   c2r (c2r.cu): the other rectangles whose sides share under 16 bytes: four passes over the
//     rows of the short side (Catanzaro, Keller and Garland's decomposition);
//   tiles (inplace.cu): square matrices, tile pairs swapped across the diagonal (each element
//     read and written once, no workspace); rectangles whose sides share a factor g with g x
//     elem_bytes >= 16, the g x g blocks turned so, then rows of g elements moved along their
//     permutation's cycles (a bit of workspace a row of g or a piece of one: at most 1/128 of
//     the matrix).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "core/problem.hpp"

namespace xpose::engines {

using detail::InplaceProblem;  // a checked request (api/validate) with something to move

struct InplacePath {
  const char* name;
  bool (*takes)(const InplaceProblem& t);             // whether t is this path's
  const char* (*refusal)(const InplaceProblem& t);    // why the path cannot serve t (one line), or null
  size_t (*workspace_bytes)(const InplaceProblem& t);  // device workspace t needs
  std::string (*describe)(const InplaceProblem& t);   // one line for --explain: the passes, the workspace
  // Enqueues the transposition; never waits, never allocates. `workspace`: workspace_bytes(t)
  // bytes of device memory at least (cleared here); sm_count: the current device's.
  cudaError_t (*transpose)(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream);
};

namespace narrow {
extern const InplacePath path;
}
namespace c2r {
extern const InplacePath path;
}
extern const InplacePath tiles_path;  // takes every request

// The path that serves `t`.
const InplacePath& inplace_path_of(const InplaceProblem& t);

}  // namespace xpose::engines
