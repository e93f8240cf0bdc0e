// Host side of the TMA engines: which problems the copy engine can address, the tensor-map
// parameters for each side of a transpose (layout/tma_map.hpp), and their encoding through
// the driver (found at run time with cudaGetDriverEntryPointByVersion, so nothing links
// against libcuda).
#pragma once

#include <cuda.h>

#include <cstdint>

#include "core/engine.hpp"
#include "layout/tma_map.hpp"

namespace xpose::engines::tma {

// The src and dst maps of a transpose through tiles of `edge` x `edge` elements (src:
// boxes of edge columns by `src_rows` rows; 0 means edge).
layout::MapShape src_map(const detail::Problem& p, int edge, bool swizzle128, int src_rows = 0, int l2_promotion = 256);
layout::MapShape dst_map(const detail::Problem& p, int edge, bool swizzle128, int l2_promotion = 256);

// Served when the copy engine can address both sides of `p`: bases, row and batch pitches
// and dst rows (rows x element size) must be multiples of 16 bytes, pitches below 2^40
// bytes, and the coordinates (int32) must reach every element.
detail::Support addressable(const detail::Problem& p);

// What every TMA engine needs: a device this build carries the TMA kernels' machine code for
// (XPOSE_TMA_ARCHITECTURES: sm_90a by default), and a problem the copy engine can address.
detail::Support supports(const detail::Task& t, const detail::Device& d);

// Encodes `shape` over `base`; returns the CUDA error (cudaErrorNotSupported where the
// driver lacks cuTensorMapEncodeTiled, cudaErrorInvalidValue where it refuses the map).
cudaError_t encode(const layout::MapShape& shape, const void* base, CUtensorMap* out);

// Both of a plan's maps, over its src and dst.
cudaError_t encode(const detail::Plan& plan, CUtensorMap* src, CUtensorMap* dst);

}  // namespace xpose::engines::tma
