// The CPU reference of FP8 quantization (issue 34): a matrix quantized as it is and as its
// transpose, with the recipe's scales and the input's amax (layout/quantize.hpp says how each
// is computed). The quantizing kernels are checked against it bit for bit.
#pragma once

#include <cstdint>

#include "layout/quantize.hpp"

namespace xpose::cpu {

// A rows x cols matrix of fp32 values (bf16 and fp16 inputs widened exactly): element (i, j)
// at x[i * ld + j].
struct QuantizeInput {
  const float* x = nullptr;
  int64_t rows = 0, cols = 0, ld = 0;
};

// What a call writes; each output is optional (null: not written).
//   data     rows x cols FP8 codes, row-major (ld cols)
//   data_t   the transpose: cols x rows, row-major (ld rows)
//   scales, scales_t   the scales of data and of data_t: scale_inv (1 / scale, fp32) for the
//            fp32 recipes, E8M0 codes (uint8_t) for MXFP8. Tensor recipes: one value each.
//            Blocks (MXFP8's are 1 x 32) of an R x C output (data: rows x cols; data_t: cols x
//            rows, blocks in its own coordinates): layout::scale_count entries laid out by the
//            recipe's ScaleLayout (layout::scale_offset).
//   amax     max |x| (NaN ignored)
struct QuantizeOutput {
  uint8_t* data = nullptr;
  uint8_t* data_t = nullptr;
  void* scales = nullptr;
  void* scales_t = nullptr;
  float* amax = nullptr;
};

// Quantizes in.x by recipe r into out; r is one layout::recipe_refusal accepts.
void quantize(const QuantizeInput& in, const layout::QuantizeRecipe& r, const QuantizeOutput& out);

}  // namespace xpose::cpu
