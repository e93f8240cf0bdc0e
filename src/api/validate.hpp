// Raw arguments -> one validated Problem. Every check of a request lives here, at the
// boundary; nothing below (dispatch, engines, kernels) validates again.
#pragma once

#include <cstdint>

#include "core/device.hpp"
#include "core/permutation.hpp"
#include "core/problem.hpp"
#include "core/quantize.hpp"
#include "core/status.hpp"

namespace xpose::detail {

// The arguments as the C ABI receives them (0 still means "the default").
struct Args {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

// The checks that need no GPU: element size, signs, leading dimensions, strides, int64
// overflow, null and misaligned pointers, dst batches that overlap, src and dst that
// overlap. An empty request (a zero extent) passes with pointers unchecked.
Result resolve_transpose(const Args& args, Problem* out);

// The same without the pointers (args.src and args.dst are ignored and left null): the
// layout alone, for callers that want the resolved pitches and spans before allocating.
Result resolve_shape(const Args& args, Problem* out);

// The checks of the bases alone, for a layout resolved without them (a plan's): null,
// misaligned for the element, running past the end of the address space, src and dst
// overlapping. On success they are set in the layout; an empty one takes any.
Result check_bases(Problem& layout, const void* src, void* dst);
Result check_bases(Permutation& layout, const void* src, void* dst);

// Each base on its element's alignment (the element size; 8 bytes for 16-byte elements).
Result check_alignment(const void* src, const void* dst, int64_t elem_bytes);

// The checks that ask the driver: each pointer must be reachable from device `d`.
Result check_device_access(const void* src, const void* dst, const Device& d);

// One pointer (named `name` in messages) reachable from device `d`.
Result check_device_pointer(const char* name, const void* ptr, const Device& d);

// xpose_transpose_inplace's arguments as the C ABI receives them.
struct InplaceArgs {
  void* data = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0, batch = 1;
};

// Every check of an in-place request that needs no GPU: element size, signs, int64 overflow
// of its bytes, and, where `with_data`, data null, misaligned for its element or running past
// the end of the address space (an empty request takes any data; without data, the layout alone).
Result resolve_inplace(const InplaceArgs& args, bool with_data, InplaceProblem* out);

// A caller's workspace for `p` that needs `needed` bytes: large enough, and where it is needed
// non-null, 16-byte aligned and apart from the matrices.
Result check_workspace(const InplaceProblem& p, const void* workspace, size_t bytes, size_t needed);

// xpose_quantize's arguments as the C ABI receives them.
struct QuantizeArgs {
  const xpose_quantize_desc_t* desc = nullptr;
  const void* x = nullptr;
  void* data = nullptr;
  void* data_t = nullptr;
  void* scales = nullptr;
  void* scales_t = nullptr;
  float* amax = nullptr;
};

// Every check of a quantization that needs no GPU: the descriptor (its size, enums, counts,
// int64 overflow, the recipe) and, where `with_pointers`, x and the outputs (null, aligned, at
// least one output, the amax output where current scaling needs it, no two spans overlapping);
// an empty matrix takes any pointers. Without pointers, the layout alone.
Result resolve_quantize(const QuantizeArgs& args, bool with_pointers, QuantizeProblem* out);

// xpose_permute's arguments as the C ABI receives them (null strides: dense).
struct PermuteArgs {
  const void* src = nullptr;
  void* dst = nullptr;
  int rank = 0;
  const int64_t* extents = nullptr;
  const int* perm = nullptr;
  int64_t elem_bytes = 0;
  const int64_t* src_strides = nullptr;
  const int64_t* dst_strides = nullptr;
};

// Every check of a permutation that needs no GPU: rank, perm, element size, signs, int64
// overflow, dst strides under which elements share memory (or, for layouts that do not nest,
// could not be proven not to within kDistinctBudget steps), null and misaligned pointers, src and dst that overlap.
// An empty request (an extent of 0) passes with strides and pointers unchecked. Strides of
// axes with one index address nothing and become 0.
Result resolve_permute(const PermuteArgs& args, Permutation* out);

// The same without the pointers (args.src and args.dst are ignored; out's are left null).
Result resolve_permute_layout(const PermuteArgs& args, Permutation* out);

// How many steps the search for two dst indices at one element may take (core/distinct.hpp)
// before a layout that does not nest is refused as unproven.
constexpr int64_t kDistinctBudget = int64_t(1) << 16;

}  // namespace xpose::detail
