// The validated description of one FP8 quantization (issue 34): the recipe, the input matrix
// and the outputs, made only by the API's validation (api/validate.hpp), trusted below it.
#pragma once

#include <cstdint>

#include "layout/quantize.hpp"

namespace xpose::detail {

enum class QuantizeInputType : uint8_t { fp32, bf16, fp16 };

inline int64_t input_bytes(QuantizeInputType t) { return t == QuantizeInputType::fp32 ? 4 : 2; }

// A rows x cols matrix x (element (i, j) at x[i * ld + j]) quantized by `recipe`; outputs as
// cpu::QuantizeOutput lays them out, each optional (null), all in device memory. The amax
// output is also where Scaling::tensor_amax reduces the tensor's amax first, so that recipe
// needs it. Unless empty, rows * ld * input_bytes fits in int64, pointers are aligned, their
// spans apart and reachable from the device.
struct QuantizeProblem {
  layout::QuantizeRecipe recipe;
  QuantizeInputType input = QuantizeInputType::fp32;
  const void* x = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
  uint8_t* data = nullptr;
  uint8_t* data_t = nullptr;
  void* scales = nullptr;
  void* scales_t = nullptr;
  float* amax = nullptr;

  bool empty() const { return rows == 0 || cols == 0; }
};

}  // namespace xpose::detail
