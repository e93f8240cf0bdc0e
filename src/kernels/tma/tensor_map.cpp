#include "kernels/tma/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>

#include "layout/tma_tile.hpp"

namespace xpose::kernels::tma {
namespace {

constexpr int64_t max_pitch = int64_t(1) << 40;  // the copy engine's limit on strides
constexpr int64_t max_coord = int64_t(1) << 31;  // coordinates are signed 32-bit

CUtensorMapDataType data_type(int elem_bytes) {
  switch (elem_bytes) {
    case 1: return CU_TENSOR_MAP_DATA_TYPE_UINT8;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_UINT16;
    case 4: return CU_TENSOR_MAP_DATA_TYPE_UINT32;
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
}

CUtensorMapL2promotion promotion(int bytes) {
  switch (bytes) {
    case 64: return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
    case 128: return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    case 256: return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    default: return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  }
}

PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &ptr, 12000, cudaEnableDefault, &found) ==
            cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(ptr);
  });
  return fn;
}

}  // namespace

MapShape map_shape(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t batch_stride, int64_t elem_bytes,
                   int box_inner, int box_outer, bool swizzle128) {
  const int64_t split = layout::tma_split(elem_bytes);
  const int64_t e = elem_bytes / split;
  MapShape m;
  m.elem_bytes = int(e);
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
  return m;
}

MapShape src_map_shape(const detail::Problem& p, int edge, bool swizzle128) {
  return map_shape(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes, edge, edge, swizzle128);
}

MapShape dst_map_shape(const detail::Problem& p, int edge, bool swizzle128) {
  return map_shape(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, p.elem_bytes, edge, edge, swizzle128);
}

std::string unaddressable(const detail::Problem& p) {
  const int64_t e = p.elem_bytes;
  if (std::string why = detail::unaligned_16(p, "TMA"); !why.empty()) return why;
  // Measured on an H100 (2026-11-22): a store box that ends inside a dst row's last
  // 16-byte chunk writes the whole chunk, so the bytes past `rows` in it are overwritten
  // (with the load's zero fill) instead of clipped. Loads of a partial src chunk are exact.
  if ((p.rows * e) % 16)
    return "TMA stores write whole 16-byte chunks: rows x element size must be a multiple of 16 bytes";
  if (p.ld_src * e >= max_pitch || p.ld_dst * e >= max_pitch || p.stride_src * e >= max_pitch ||
      p.stride_dst * e >= max_pitch || p.rows * p.ld_src * e >= max_pitch || p.cols * p.ld_dst * e >= max_pitch)
    return "TMA needs row and batch pitches below 2^40 bytes";
  const int64_t split = layout::tma_split(e);
  if (p.rows >= max_coord || p.cols * split >= max_coord || p.rows * split >= max_coord || p.batch >= max_coord)
    return "TMA addresses at most 2^31 - 1 elements along each dimension";
  return {};
}

std::string unserved(const detail::Problem& p, const detail::Device& d) {
  if (d.cc != 90)
    return "the TMA kernels are built for compute capability 9.0 (sm_90a); the device is " +
           std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10);
  return unaddressable(p);
}

cudaError_t encode(const MapShape& s, const void* base, CUtensorMap* out) {
  const auto fn = encoder();
  if (!fn) return cudaErrorNotSupported;
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = fn(out, data_type(s.elem_bytes), 3, const_cast<void*>(base), s.dims, s.strides, s.box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        s.swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                        promotion(s.l2_promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

}  // namespace xpose::kernels::tma
