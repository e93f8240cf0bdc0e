#include "cpu/quantize.hpp"

#include <algorithm>
#include <vector>

namespace xpose::cpu {
namespace {

using layout::QuantizeRecipe;
using layout::Scaling;

// An R x C view of the input: the matrix as it is (row stride ld, column stride 1) or its
// transpose (row stride 1, column stride ld).
struct View {
  const float* x;
  int64_t rows, cols, row_stride, col_stride;
  float at(int64_t i, int64_t j) const { return x[i * row_stride + j * col_stride]; }
};

float amax_of(const View& v, int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  float a = 0.0f;
  for (int64_t i = i0; i < i1; ++i)
    for (int64_t j = j0; j < j1; ++j) a = layout::amax_step(a, v.at(i, j));
  return a;
}

// One output: the view quantized, with its scales. tensor_scale: the tensor recipes' scale.
void quantize_view(const View& v, const QuantizeRecipe& r, float tensor_scale, uint8_t* data, void* scales) {
  if (layout::tensor_scaled(r)) {
    if (data)
      for (int64_t i = 0; i < v.rows; ++i)
        for (int64_t j = 0; j < v.cols; ++j)
          data[i * v.cols + j] = layout::quantize_value(v.at(i, j), tensor_scale, r.out);
    if (scales) *static_cast<float*>(scales) = 1.0f / tensor_scale;
    return;
  }
  int64_t br, bc;
  layout::block_shape(r, &br, &bc);
  if (scales && layout::scales_padded(r))
    std::fill_n(static_cast<uint8_t*>(scales), layout::scale_count(r, v.rows, v.cols) * layout::scale_bytes(r),
                uint8_t(0));
  for (int64_t i0 = 0; i0 < v.rows; i0 += br)
    for (int64_t j0 = 0; j0 < v.cols; j0 += bc) {
      const int64_t i1 = std::min(v.rows, i0 + br), j1 = std::min(v.cols, j0 + bc);
      const float amax = amax_of(v, i0, i1, j0, j1);
      const int64_t b = layout::scale_offset(r, v.rows, v.cols, i0 / br, j0 / bc);
      float scale;
      if (r.scaling == Scaling::mx) {
        const uint8_t e = layout::e8m0_from_amax(amax, r.out);
        scale = layout::e8m0_data_scale(e);
        if (scales) static_cast<uint8_t*>(scales)[b] = e;
      } else {
        scale = layout::scale_from_amax(amax, r.out, r.pow2_scales, r.value_for_inf);
        if (scales) static_cast<float*>(scales)[b] = 1.0f / scale;
      }
      if (data)
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j) data[i * v.cols + j] = layout::quantize_value(v.at(i, j), scale, r.out);
    }
}

}  // namespace

void quantize(const QuantizeInput& in, const QuantizeRecipe& r, const QuantizeOutput& out) {
  const View as_is{in.x, in.rows, in.cols, in.ld, 1}, transposed{in.x, in.cols, in.rows, 1, in.ld};
  const float amax = amax_of(as_is, 0, in.rows, 0, in.cols);
  if (out.amax) *out.amax = amax;
  const float tensor_scale = layout::tensor_scale(r, amax);
  if (out.data || out.scales) quantize_view(as_is, r, tensor_scale, out.data, out.scales);
  if (out.data_t || out.scales_t) quantize_view(transposed, r, tensor_scale, out.data_t, out.scales_t);
}

}  // namespace xpose::cpu
