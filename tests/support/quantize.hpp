// The quantization recipes the CPU and GPU tests run (every scaling, both FP8 formats, block
// shapes the GPU path takes, each scale layout), and a recipe's name for their traces.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "layout/quantize.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {

inline std::vector<layout::QuantizeRecipe> quantize_recipes() {
  using layout::ScaleLayout;
  using layout::Scaling;
  std::vector<layout::QuantizeRecipe> out;
  for (layout::Fp8 k : {layout::Fp8::e4m3, layout::Fp8::e5m2}) {
    layout::QuantizeRecipe r;
    r.out = k;
    r.scaling = Scaling::tensor_given, r.scale = 3.0f;  // large enough to saturate some
    out.push_back(r);
    if (k == layout::Fp8::e4m3) out.push_back((r.scale = 0.0f, r));  // an infinity times 0: NaN
    r.scale = 3.0f;
    r.scaling = Scaling::tensor_amax;
    for (bool pow2 : {false, true}) out.push_back((r.pow2_scales = pow2, r));
    r.scaling = Scaling::blocks;
    for (auto [br, bc] : {std::pair{1, 128}, std::pair{1, 64}, std::pair{128, 128}, std::pair{32, 32}, std::pair{16, 16}, std::pair{8, 32}})
      for (bool pow2 : {false, true}) {
        r.block_rows = br, r.block_cols = bc, r.pow2_scales = pow2;
        r.layout = pow2 ? ScaleLayout::column_major : ScaleLayout::row_major;
        out.push_back(r);
      }
    r = layout::QuantizeRecipe{};
    r.out = k, r.scaling = Scaling::mx;
    for (ScaleLayout l : {ScaleLayout::row_major, ScaleLayout::column_major, ScaleLayout::tiled_128x4})
      out.push_back((r.layout = l, r));
  }
  return out;
}

inline std::string recipe_name(const layout::QuantizeRecipe& r) {
  const char* scaling[] = {"tensor_given", "tensor_amax", "blocks", "mx"};
  const char* layouts[] = {"", " column-major", " tiled 128x4"};
  std::string s = std::string(scaling[int(r.scaling)]) + (r.out == layout::Fp8::e4m3 ? " e4m3" : " e5m2");
  if (r.scaling == layout::Scaling::tensor_given) s += " scale " + std::to_string(r.scale);
  if (r.scaling == layout::Scaling::blocks)
    s += " " + std::to_string(r.block_rows) + "x" + std::to_string(r.block_cols);
  return s + (r.pow2_scales ? " pow2" : "") + layouts[int(r.layout)];
}

// The C ABI's descriptor of recipe r on a rows x cols input of `input` (0 fp32, 1 bf16, 2 fp16).
inline xpose_quantize_desc_t quantize_desc(const layout::QuantizeRecipe& r, int input, int64_t rows, int64_t cols,
                                           int64_t ld) {
  xpose_quantize_desc_t d;
  xpose_quantize_desc_init(&d);
  d.input = input;
  d.rows = rows, d.cols = cols, d.ld = ld;
  d.format = r.out == layout::Fp8::e4m3 ? XPOSE_FP8_E4M3 : XPOSE_FP8_E5M2;
  d.scaling = int(r.scaling);
  d.scale_layout = int(r.layout);
  d.block_rows = r.block_rows, d.block_cols = r.block_cols;
  d.pow2_scales = r.pow2_scales;
  d.scale = r.scale;
  return d;
}

}  // namespace xpose::testing
