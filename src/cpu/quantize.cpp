#include "cpu/quantize.hpp"

#include <algorithm>
#include <vector>

#include "cpu/parallel.hpp"

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

// Bands of view rows taken in turn by the cores: a band is `group` block rows (16 view rows or
// more), walked along x's rows (a band of the transposed view: 16 consecutive floats of each
// row of x at a time).
constexpr int64_t kBandRows = 16, kPerThread = int64_t(1) << 18;  // elements a core at least

float amax_of(const View& v) {  // max |x| over the view (NaN ignored): a max, exact in any order
  const int64_t bands = (v.rows + kBandRows - 1) / kBandRows;
  std::vector<float> band_max(size_t(bands), 0.0f);
  for_each_item(bands, v.rows * v.cols, kPerThread, [&](int64_t t) {
    float a = 0.0f;
    for (int64_t i = t * kBandRows; i < std::min(v.rows, (t + 1) * kBandRows); ++i)
      for (int64_t j = 0; j < v.cols; ++j) a = layout::amax_step(a, v.at(i, j));
    band_max[size_t(t)] = a;
  });
  return bands ? *std::max_element(band_max.begin(), band_max.end()) : 0.0f;
}

// One output: the view quantized, with its scales. tensor_scale: the tensor recipes' scale.
void quantize_view(const View& v, const QuantizeRecipe& r, float tensor_scale, uint8_t* data, void* scales) {
  const bool tensor = layout::tensor_scaled(r);
  int64_t br = 1, bc = v.cols;  // tensor recipes: rows of the view, one scale
  if (tensor) {
    if (scales) *static_cast<float*>(scales) = 1.0f / tensor_scale;
    if (!data) return;
  } else {
    layout::block_shape(r, &br, &bc);
    if (scales && layout::scales_padded(r, v.rows, v.cols))
      std::fill_n(static_cast<uint8_t*>(scales), layout::scale_count(r, v.rows, v.cols) * layout::scale_bytes(r),
                  uint8_t(0));
  }
  const int64_t group = std::max<int64_t>(1, kBandRows / br), band = group * br;  // block rows, view rows a band
  const int64_t bands = (v.rows + band - 1) / band;
  // f(g, i, j) over rows i0 .. i1 (block row g of the band) and columns j0 .. j1, along x's rows:
  // row by row for the view as it is, column by column for the transposed one.
  const auto each = [&](int64_t i0, int64_t i1, int64_t j0, int64_t j1, const auto& f) {
    if (v.col_stride == 1) {
      for (int64_t g = 0, i = i0; i < i1; ++g)
        for (const int64_t end = std::min(i1, i + br); i < end; ++i)
          for (int64_t j = j0; j < j1; ++j) f(g, i, j);
    } else {
      for (int64_t j = j0; j < j1; ++j)
        for (int64_t g = 0, i = i0; i < i1; ++g)
          for (const int64_t end = std::min(i1, i + br); i < end; ++i) f(g, i, j);
    }
  };
  for_each_item(bands, v.rows * v.cols, kPerThread, [&](int64_t t) {
    const int64_t i0 = t * band, i1 = std::min(v.rows, i0 + band);
    for (int64_t j0 = 0; j0 < v.cols; j0 += bc) {
      const int64_t j1 = std::min(v.cols, j0 + bc);
      float scale[kBandRows];  // the band's blocks' factors (group <= kBandRows)
      if (tensor) {
        std::fill_n(scale, group, tensor_scale);
      } else {
        float amax[kBandRows] = {};
        each(i0, i1, j0, j1, [&](int64_t g, int64_t i, int64_t j) { amax[g] = layout::amax_step(amax[g], v.at(i, j)); });
        for (int64_t g = 0; g < group && i0 + g * br < i1; ++g) {
          const int64_t at = layout::scale_offset(r, v.rows, v.cols, i0 / br + g, j0 / bc);
          if (r.scaling == Scaling::mx) {
            const uint8_t e = layout::e8m0_from_amax(amax[g], r.out);
            scale[g] = layout::e8m0_data_scale(e);
            if (scales) static_cast<uint8_t*>(scales)[at] = e;
          } else {
            scale[g] = layout::scale_from_amax(amax[g], r.out, r.pow2_scales, r.value_for_inf);
            if (scales) static_cast<float*>(scales)[at] = 1.0f / scale[g];
          }
        }
      }
      if (data)
        each(i0, i1, j0, j1, [&](int64_t g, int64_t i, int64_t j) {
          data[i * v.cols + j] = layout::quantize_value(v.at(i, j), scale[g], r.out);
        });
    }
  });
}

}  // namespace

void quantize(const QuantizeInput& in, const QuantizeRecipe& r, const QuantizeOutput& out) {
  const View as_is{in.x, in.rows, in.cols, in.ld, 1}, transposed{in.x, in.cols, in.rows, 1, in.ld};
  const float amax = amax_of(as_is);
  if (out.amax) *out.amax = amax;
  const float tensor_scale = layout::tensor_scale(r, amax);
  if (out.data || out.scales) quantize_view(as_is, r, tensor_scale, out.data, out.scales);
  if (out.data_t || out.scales_t) quantize_view(transposed, r, tensor_scale, out.data_t, out.scales_t);
}

}  // namespace xpose::cpu
