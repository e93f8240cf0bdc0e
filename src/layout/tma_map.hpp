// What the copy engine (TMA) is told about one side of a transpose: the parameters of
// cuTensorMapEncodeTiled as a plain value, computed on the host, printed by explanations
// and encoded by the TMA engines at launch (engines/tma/tensor_map.hpp).
#pragma once

#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

// The copy engine has no 16-byte element type: 16-byte elements travel as two 8-byte ones,
// so their inner extents, boxes and coordinates count twice.
XPOSE_HD constexpr int tma_split(int64_t elem_bytes) { return elem_bytes == 16 ? 2 : 1; }

// A stack of `dims[2]` matrices of `dims[1]` rows of `dims[0]` elements, read or written
// in boxes of box[0] x box[1].
struct MapShape {
  int elem_bytes = 0;           // TMA's element: 1, 2, 4 or 8 (16-byte elements travel as two of 8)
  uint64_t dims[3] = {};        // inner (elements), outer (rows), batch
  uint64_t strides[2] = {};     // bytes between rows, between matrices
  uint32_t box[3] = {};         // box inner, box outer, 1
  bool swizzle128 = false;      // CU_TENSOR_MAP_SWIZZLE_128B (box rows must be 128 bytes)
  int l2_promotion = 256;       // bytes L2 fetches per request: 0 (none), 64, 128 or 256
};

// Both sides of one transpose.
struct TmaMaps {
  MapShape src, dst;
};

// One side: `outer` rows of `inner` elements of `elem_bytes`, rows `ld` elements apart,
// `batch` matrices `batch_stride` elements apart; boxes of box_inner x box_outer elements.
inline MapShape map_shape(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t batch_stride,
                          int64_t elem_bytes, int box_inner, int box_outer, bool swizzle128, int l2_promotion = 256) {
  const int64_t split = tma_split(elem_bytes);
  MapShape m;
  m.elem_bytes = int(elem_bytes / split);
  m.dims[0] = uint64_t(inner * split);
  m.dims[1] = uint64_t(outer);
  m.dims[2] = uint64_t(batch);
  m.strides[0] = uint64_t(ld * elem_bytes);
  // A single matrix still needs a valid batch pitch: its own size, rounded up to 16 bytes.
  m.strides[1] = batch > 1 ? uint64_t(batch_stride * elem_bytes) : (uint64_t(outer * ld * elem_bytes) + 15) / 16 * 16;
  m.box[0] = uint32_t(box_inner * split);
  m.box[1] = uint32_t(box_outer);
  m.box[2] = 1;
  m.swizzle128 = swizzle128;
  m.l2_promotion = l2_promotion;
  return m;
}

}  // namespace xpose::layout
