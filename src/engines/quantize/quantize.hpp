// FP8 quantization on the GPU (issue 34): what cpu::quantize computes (cpu/quantize.hpp, the
// recipes of layout/quantize.hpp), from device memory on a stream. Internal until it has run
// on a GPU against the reference; the C ABI comes then.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "layout/quantize.hpp"

namespace xpose::engines {

enum class QuantizeInputType : uint8_t { fp32, bf16, fp16 };

// A rows x cols matrix x (element (i, j) at x[i * ld + j]) quantized by `recipe`; outputs as
// cpu::QuantizeOutput lays them out, each optional (null), all in device memory. The amax
// output is also where Scaling::tensor_amax reduces the tensor's amax first, so that recipe
// needs it.
struct QuantizeTask {
  layout::QuantizeRecipe recipe;
  QuantizeInputType input = QuantizeInputType::fp32;
  const void* x = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  uint8_t* data = nullptr;
  uint8_t* data_t = nullptr;
  void* scales = nullptr;
  void* scales_t = nullptr;
  float* amax = nullptr;
};

// Why the GPU path cannot take `t` (one line), or null.
const char* quantize_refusal(const QuantizeTask& t);

// Enqueues the quantization (a zeroing of *amax and, for Scaling::tensor_amax, an amax pass
// first); never waits. The task is one quantize_refusal accepts.
cudaError_t quantize(const QuantizeTask& t, cudaStream_t stream);

}  // namespace xpose::engines
