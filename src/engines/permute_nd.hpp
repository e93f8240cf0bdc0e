// The N-D permutation kernels: what xpose_permute runs where the normalized permutation is
// not a batched 2-D transpose (layout/permute_nd.hpp says how they walk it).
//   permute_tiled  32x32 tiles of src's and dst's fastest axes through shared memory
//   permute_rows   rows of an axis fastest on both sides, copied as they are
#pragma once

#include <cuda_runtime_api.h>

#include <string>

#include "layout/grid.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::detail {

struct NdPlan {
  const char* kernel = nullptr;  // "permute_tiled" or "permute_rows"
  layout::NdForm form;
  const void* src = nullptr;
  void* dst = nullptr;
  layout::Dims grid, block;
};

constexpr const char* nd_kernel_names[] = {"permute_tiled", "permute_rows"};
bool is_nd_kernel(const char* name);

// The plan for a normalized permutation, by `kernel` (null: the one its form calls for); false
// with *why where that kernel cannot serve it.
bool plan_nd(const layout::PermuteShape& reduced, const void* src, void* dst, const char* kernel, NdPlan* out,
             std::string* why);
cudaError_t launch_nd(const NdPlan& plan, cudaStream_t stream);
std::string describe(const NdPlan& plan);

}  // namespace xpose::detail
