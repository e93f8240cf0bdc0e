#include "dispatch/quantize.hpp"

#include <cstring>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/quantize.hpp"
#include "engines/quantize/quantize.hpp"

namespace xpose::detail {

Result plan_quantize(const QuantizeProblem& p) {
  if (p.empty()) return ok();
  if (const char* why = engines::quantize_refusal(p)) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  return ok();
}

Result quantize_on(const Device& d) {
  if (const char* why = engines::quantize_device_refusal(d.cc)) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  return ok();
}

Result launch_quantize(const QuantizeProblem& p, const Device& device, cudaStream_t stream) {
  if (p.empty()) return ok();
  XPOSE_TRY_CUDA(engines::quantize(p, device, stream));
  return ok();
}

void run_quantize_on_host(const QuantizeProblem& p) {
  if (p.empty()) return;
  cpu::QuantizeInput in{static_cast<const float*>(p.x), p.rows, p.cols, p.ld};
  std::vector<float> wide;
  if (p.input != QuantizeInputType::fp32) {  // widened on every core, a row an item
    wide.resize(size_t(p.rows * p.cols));
    const uint16_t* x = static_cast<const uint16_t*>(p.x);
    cpu::for_each_item(p.rows, p.rows * p.cols, int64_t(1) << 18, [&](int64_t i) {
      for (int64_t j = 0; j < p.cols; ++j) {
        const uint16_t h = x[i * p.ld + j];
        wide[size_t(i * p.cols + j)] = p.input == QuantizeInputType::bf16 ? layout::widen_bf16(h) : layout::widen_fp16(h);
      }
    });
    in = {wide.data(), p.rows, p.cols, p.cols};
  }
  cpu::quantize(in, p.recipe, {p.data, p.data_t, p.scales, p.scales_t, p.amax});
}

}  // namespace xpose::detail
