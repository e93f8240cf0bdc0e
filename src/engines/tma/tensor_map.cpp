#include "engines/tma/tensor_map.hpp"

#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <iterator>
#include <mutex>
#include <string>

namespace xpose::engines::tma {

using detail::Device;
using detail::Problem;
using detail::Refusal;
using detail::refused;
using detail::served;
using detail::Support;
using detail::Task;

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

layout::MapShape src_map(const Problem& p, int edge, bool swizzle128, int src_rows, int l2_promotion) {
  return layout::map_shape(p.cols, p.rows, p.ld_src, p.batch, p.stride_src, p.elem_bytes, edge, src_rows ? src_rows : edge,
                           swizzle128, l2_promotion);
}

layout::MapShape dst_map(const Problem& p, int edge, bool swizzle128, int l2_promotion) {
  return layout::map_shape(p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst, p.elem_bytes, edge, edge, swizzle128,
                           l2_promotion);
}

Support addressable(const Problem& p) {
  const int64_t e = p.elem_bytes;
  if (Support s = detail::needs_16_byte_rows(p, "TMA"); !s.served()) return s;
  // Measured on an H100 (2026-11-22): a store box that ends inside a dst row's last
  // 16-byte chunk writes the whole chunk, so the bytes past `rows` in it are overwritten
  // (with the load's zero fill) instead of clipped. Loads of a partial src chunk are exact.
  if ((p.rows * e) % 16)
    return refused(Refusal::other,
                   "TMA stores write whole 16-byte chunks: rows x element size must be a multiple of 16 bytes");
  if (p.ld_src * e >= max_pitch || p.ld_dst * e >= max_pitch || p.stride_src * e >= max_pitch ||
      p.stride_dst * e >= max_pitch || p.rows * p.ld_src * e >= max_pitch || p.cols * p.ld_dst * e >= max_pitch)
    return refused(Refusal::other, "TMA needs row and batch pitches below 2^40 bytes");
  const int64_t split = layout::tma_split(e);
  if (p.rows >= max_coord || p.cols * split >= max_coord || p.rows * split >= max_coord || p.batch >= max_coord)
    return refused(Refusal::other, "TMA addresses at most 2^31 - 1 elements along each dimension");
  return served();
}

// The compute capabilities the TMA engines carry machine code for (CMake's
// XPOSE_TMA_ARCHITECTURES): architecture-specific code runs on its own capability only.
#ifndef XPOSE_TMA_CCS
#define XPOSE_TMA_CCS 90
#endif
constexpr int tma_ccs[] = {XPOSE_TMA_CCS};

// "the TMA kernels are built for compute capability 9.0 (...)": who a refusal names.
const char* built_for() {
  static const std::string text = [] {
    std::string ccs;
    for (const int cc : tma_ccs)
      ccs += (ccs.empty() ? "" : ", ") + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
    return "the TMA kernels are built for compute capability " + ccs + " (XPOSE_TMA_ARCHITECTURES)";
  }();
  return text.c_str();
}

Support supports(const Task& t, const Device& d) {
  if (std::find(std::begin(tma_ccs), std::end(tma_ccs), d.cc) == std::end(tma_ccs))
    return refused(Refusal::no_tma_code, built_for());
  return addressable(t.problem);
}

cudaError_t encode(const layout::MapShape& s, const void* base, CUtensorMap* out) {
  const auto fn = encoder();
  if (!fn) return cudaErrorNotSupported;
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = fn(out, data_type(s.elem_bytes), 3, const_cast<void*>(base), s.dims, s.strides, s.box,
                        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
                        s.swizzle128 ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                        promotion(s.l2_promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

cudaError_t encode(const detail::Plan& plan, CUtensorMap* src, CUtensorMap* dst) {
  const layout::TmaMaps& maps = plan.params<detail::Tiles>().maps;
  if (const cudaError_t e = encode(maps.src, plan.task.src, src); e != cudaSuccess) return e;
  return encode(maps.dst, plan.task.dst, dst);
}

}  // namespace xpose::engines::tma
