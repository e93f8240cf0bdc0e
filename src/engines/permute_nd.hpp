// The N-D permutation kernels: what xpose_permute runs where the normalized permutation is
// not a batched 2-D transpose (layout/permute_nd.hpp says how they walk it).
//   permute_vec_regs   V x V blocks of src's and dst's fastest axes turned in registers, 16-byte
//                      vectors on both sides (V = 16 / element size), where both axes are short
//   permute_vec_tiled  tiles of src's and dst's fastest axes through swizzled shared memory,
//                      16-byte vectors on both sides, short axes packed several to a tile
//   permute_aligned_stores  aligned_stores' blocks where src's fastest axis is contiguous in src and
//                      dst's in dst, at any alignment: 16-byte loads (shifted where src rows are
//                      not 16-byte aligned), 16-byte stores shifted onto 32-byte sectors
//   permute_tiled      32x32 tiles of the same, element by element: any strides, any alignment
//   permute_rows       rows of an axis fastest on both sides, copied as they are
#pragma once

#include <cuda_runtime_api.h>

#include <iterator>
#include <string>

#include "layout/grid.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::detail {

// The N-D kernels: nd_kernel_names[int(k)] names kernel k (the N-D rule table's order is
// dispatch/nd_rules.cpp's).
enum class NdKernel { vec_regs, vec_tiled, aligned_stores, tiled, rows };
inline constexpr const char* nd_kernel_names[] = {"permute_vec_regs", "permute_vec_tiled", "permute_aligned_stores",
                                                  "permute_tiled", "permute_rows"};
inline constexpr const char* nd_kernel_summaries[] = {
    "V x V blocks of src's and dst's fastest axes turned in registers, 16-byte vectors on both sides",
    "tiles of src's and dst's fastest axes through swizzled shared memory, 16-byte vectors on both sides",
    "aligned_stores' tiles of src's and dst's fastest axes, each contiguous on its side, at any alignment: 16-byte "
    "loads (shifted where rows are not aligned) and 16-byte stores on 32-byte sectors",
    "32x32 tiles of src's and dst's fastest axes through shared memory, element by element",
    "rows of an axis fastest on both sides, copied as they are"};
static_assert(std::size(nd_kernel_names) == std::size(nd_kernel_summaries), "a summary for each N-D kernel");
bool is_nd_kernel(const char* name);

struct NdPlan {
  NdKernel kind = NdKernel::rows;
  const char* kernel = nullptr;  // kind's name; null: not planned
  layout::NdForm form;
  layout::NdVecTiles vec;  // permute_vec_tiled's tiles
  layout::NdVecRegs regs;  // permute_vec_regs' blocks
  layout::NdAlignedStores stores;  // permute_aligned_stores' blocks
  const void* src = nullptr;
  void* dst = nullptr;
  layout::Dims grid, block;  // the tiled kernels' launch; permute_rows sizes each chunk's own
};

// The kernel of that name, or false.
bool nd_kernel_of(const char* name, NdKernel* out);

// `kernel`'s plan for a permutation's N-D form (layout::nd_form) with bases src and dst, or
// false with *why where that kernel cannot serve it. Which kernel the automatic choice takes
// is the N-D rule table's (dispatch/nd_rules.hpp).
bool plan_nd(NdKernel kernel, const layout::NdForm& form, const void* src, void* dst, NdPlan* out, const char** why);
cudaError_t launch_nd(const NdPlan& plan, cudaStream_t stream);
std::string describe(const NdPlan& plan);

}  // namespace xpose::detail

namespace xpose::engines {
// permute_aligned_stores' launch (aligned_stores.cu, beside the 2-D kernel whose blocks it runs).
cudaError_t launch_permute_aligned_stores(const void* src, void* dst, const layout::NdForm& f,
                                          const layout::NdAlignedStores& t, cudaStream_t s);
}  // namespace xpose::engines
