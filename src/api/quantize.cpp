// The C ABI's FP8 quantization: the descriptor and pointers -> a checked QuantizeProblem
// (api/validate) -> the GPU path's plan (dispatch/quantize) -> launch.
#include <cfloat>

#include "api/boundary.hpp"
#include "api/validate.hpp"
#include "core/device.hpp"
#include "dispatch/quantize.hpp"

extern "C" {

void xpose_quantize_desc_init(xpose_quantize_desc_t* desc) {
  if (!desc) return;
  *desc = xpose_quantize_desc_t{};
  desc->struct_size = sizeof(xpose_quantize_desc_t);
  desc->input = XPOSE_QUANTIZE_FP32;
  desc->format = XPOSE_FP8_E4M3;
  desc->scaling = XPOSE_SCALING_TENSOR_AMAX;
  desc->scale_layout = XPOSE_SCALES_ROW_MAJOR;
  desc->block_rows = 1, desc->block_cols = 128;
  desc->scale = 1.0f;
}

xpose_status_t xpose_quantize_scales_bytes(const xpose_quantize_desc_t* desc, int transposed, size_t* bytes) {
  using namespace xpose::detail;
  if (!bytes) return report(fail(XPOSE_ERROR_INVALID_ARGUMENT, "bytes is a null pointer"));
  return guarded([&] {
    QuantizeProblem p;
    if (Result e = resolve_quantize({desc}, false, &p); e.failed()) return e;
    const int64_t R = transposed ? p.cols : p.rows, C = transposed ? p.rows : p.cols;
    *bytes = size_t(xpose::layout::scale_count(p.recipe, R, C) * xpose::layout::scale_bytes(p.recipe));
    return ok();
  });
}

xpose_status_t xpose_quantize(const xpose_quantize_desc_t* desc, const void* x, void* data, void* data_t, void* scales,
                              void* scales_t, float* amax, cudaStream_t stream) {
  using namespace xpose::detail;
  return guarded([&] {
    QuantizeProblem p;
    if (Result e = resolve_quantize({desc, x, data, data_t, scales, scales_t, amax}, true, &p); e.failed()) return e;
    if (Result e = plan_quantize(p); e.failed()) return e;
    if (p.empty()) return ok();
    Device device;
    if (Result e = current_device(&device); e.failed()) return e;
    if (Result e = quantize_on(device); e.failed()) return e;
    const std::pair<const char*, const void*> pointers[] = {
        {"x", p.x}, {"data", p.data}, {"data_t", p.data_t}, {"scales", p.scales}, {"scales_t", p.scales_t}, {"amax", p.amax}};
    for (const auto& [name, ptr] : pointers)
      if (ptr)
        if (Result e = check_device_pointer(name, ptr, device); e.failed()) return e;
    return launch_quantize(p, device, stream);
  });
}

}  // extern "C"

namespace xpose {

void quantize_host(const xpose_quantize_desc_t& desc, const void* x, const QuantizeOutputs& out) {
  detail::QuantizeProblem p;
  detail::throw_if_failed(
      detail::resolve_quantize({&desc, x, out.data, out.data_t, out.scales, out.scales_t, out.amax}, true, &p));
  detail::throw_if_failed(detail::plan_quantize(p));  // the same answers as the GPU path
  detail::run_quantize_on_host(p);
}

}  // namespace xpose
