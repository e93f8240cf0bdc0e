// The CPU reference transpose: the same semantics as the GPU path, cache-blocked and
// spread over all cores. The tests compare every GPU result with it bit for bit, and
// `xpose-bench --device cpu` and xpose::transpose_host run it.
#pragma once

#include "core/permutation.hpp"
#include "core/problem.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::cpu {

// dst[b*stride_dst + j*ld_dst + i] = src[b*stride_src + i*ld_src + j] on host memory.
void transpose(const detail::Problem& p);

// dst[sum x_i * dst_stride_i] = src[sum x_i * src_stride_i] for every index x, on host memory.
void permute(const detail::Permutation& p);

// The same for a normalized permutation in the N-D kernels' form, in cache-sized tiles on
// every core: the CPU path for permutations that are no transpose.
void permute_form(const layout::NdForm& f, const void* src, void* dst);

}  // namespace xpose::cpu
