// FP8 quantization's plan: whether the GPU path takes a checked request (NOT_SUPPORTED, saying
// why, where not), and its launch.
#pragma once

#include <cuda_runtime_api.h>

#include "core/device.hpp"
#include "core/quantize.hpp"
#include "core/status.hpp"

namespace xpose::detail {

Result plan_quantize(const QuantizeProblem& p);
// Whether device `d` runs the GPU path (NOT_SUPPORTED, saying why, where not).
Result quantize_on(const Device& d);
Result launch_quantize(const QuantizeProblem& p, const Device& device, cudaStream_t stream);

// The CPU path (the reference) for a checked request on host memory: bf16 and fp16 widened a row
// at a time, then cpu::quantize.
void run_quantize_on_host(const QuantizeProblem& p);

}  // namespace xpose::detail
