// FP8 quantization on the GPU (issue 34): what cpu::quantize computes (cpu/quantize.hpp, the
// recipes of layout/quantize.hpp), from device memory on a stream; xpose_quantize's engine.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/device.hpp"
#include "core/quantize.hpp"

namespace xpose::engines {

using detail::QuantizeInputType;
using QuantizeTask = detail::QuantizeProblem;  // a checked request (api/validate)

// Why the GPU path cannot run on a device of compute capability `cc` (one line), or null.
const char* quantize_device_refusal(int cc);

// Why the GPU path cannot take `t` (one line), or null.
const char* quantize_refusal(const QuantizeTask& t);

// Enqueues the quantization on `device`, the current one (a zeroing of *amax and of the scales'
// padding where there is any and, for Scaling::tensor_amax, an amax pass first); never waits.
// The task is one quantize_refusal accepts.
cudaError_t quantize(const QuantizeTask& t, const detail::Device& device, cudaStream_t stream);

// quantize's kernel for tensor scales and blocks of 1 x K or K x K, K = 32, 64 or 128
// (staged.cu): whether it serves t (its recipe on its input, and for fp32 tensor scales its
// alignment), and the quantization alone, after quantize has zeroed *amax and the scales'
// padding and, for current scaling, reduced x's amax.
bool quantize_staged_serves(const QuantizeTask& t);
cudaError_t quantize_staged(const QuantizeTask& t, int device, cudaStream_t stream);

}  // namespace xpose::engines
