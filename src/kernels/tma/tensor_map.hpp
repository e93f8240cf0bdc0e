// Host side of the TMA kernels: which problems the copy engine can address, the tensor-map
// parameters for each side of a transpose, and their encoding through the driver (found at
// run time with cudaGetDriverEntryPointByVersion, so nothing links against libcuda).
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

#include "problem.hpp"
#include "registry.hpp"

namespace xpose::kernels::tma {

// What cuTensorMapEncodeTiled takes for one side: a stack of `dims[2]` matrices of
// `dims[1]` rows of `dims[0]` elements, read or written in boxes of box[0] x box[1].
struct MapShape {
  int elem_bytes = 0;           // TMA's element: 1, 2, 4 or 8 (16-byte elements travel as two of 8)
  uint64_t dims[3] = {};        // inner (elements), outer (rows), batch
  uint64_t strides[2] = {};     // bytes between rows, between matrices
  uint32_t box[3] = {};         // box inner, box outer, 1
  bool swizzle128 = false;      // CU_TENSOR_MAP_SWIZZLE_128B (box rows must be 128 bytes)
  int l2_promotion = 256;       // bytes L2 fetches per request: 0 (none), 64, 128 or 256
};

// One side of the problem: `outer` rows of `inner` elements of `elem_bytes`, rows `ld`
// elements apart, `batch` matrices `batch_stride` elements apart; boxes of box_inner x
// box_outer elements.
MapShape map_shape(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t batch_stride,
                   int64_t elem_bytes, int box_inner, int box_outer, bool swizzle128);

// The src and dst maps of a transpose through square tiles of `edge` elements.
MapShape src_map_shape(const detail::Problem& p, int edge, bool swizzle128);
MapShape dst_map_shape(const detail::Problem& p, int edge, bool swizzle128);

// Empty when the copy engine can address both sides of `p`; else why not: bases, row and
// batch pitches and dst rows (rows x element size) must be multiples of 16 bytes, pitches
// below 2^40 bytes, and the coordinates (int32) must reach every element.
std::string unaddressable(const detail::Problem& p);

// Why a TMA kernel cannot serve `p` on `d` (empty when it can): the device must be
// compute capability 9.0, which this build carries the TMA kernels for as sm_90a code,
// and the problem addressable.
std::string unserved(const detail::Problem& p, const detail::Device& d);

// Encodes `shape` over `base`; returns the CUDA error (cudaErrorNotSupported where the
// driver lacks cuTensorMapEncodeTiled, cudaErrorInvalidValue where it refuses the map).
cudaError_t encode(const MapShape& shape, const void* base, CUtensorMap* out);

}  // namespace xpose::kernels::tma
