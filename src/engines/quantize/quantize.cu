// FP8 quantization: one block a 128 x 128 tile of the input, staged in shared memory as fp32;
// each output (the data as it is, its transpose) read out of the tile in its own orientation,
// its blocks' amaxes reduced in shared memory, each output row written as 4-code words by the
// lanes of one warp. A first version, correct before fast: element-wise loads, shared-memory
// atomics for the block amaxes.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <tuple>

#include "engines/quantize/quantize.hpp"

namespace xpose::engines {
namespace {

using layout::QuantizeRecipe;
using layout::Scaling;

constexpr int kTile = 128, kThreads = 256, kPitch = kTile + 1;  // floats a staged row
constexpr int kMostBlocks = kTile * kTile / 32;                 // a block holds 32 elements at least

// Element `at` of x as fp32: E = 4 fp32, E = 2 bf16 (Brain) or fp16.
template <int E, bool Brain>
__device__ __forceinline__ float load(const void* x, int64_t at) {
  if constexpr (E == 4)
    return static_cast<const float*>(x)[at];
  else if constexpr (Brain)
    return __bfloat162float(static_cast<const __nv_bfloat16*>(x)[at]);
  else {
    // cvt.f32.f16 gives NaNs one canonical (positive) NaN; the reference keeps x's sign,
    // which the cast's NaN code carries.
    const __half h = static_cast<const __half*>(x)[at];
    const float v = __half2float(h);
    return v == v ? v : __uint_as_float((uint32_t(__half_as_ushort(h) & 0x8000u) << 16) | 0x7FC00000u);
  }
}

// amax as its bits (non-negative floats order as their bits), NaN skipped.
__device__ __forceinline__ void amax_into(unsigned* target, float v) {
  const float a = fabsf(v);
  if (a == a) atomicMax(target, __float_as_uint(a));
}

// One output of the tile at (r0, c0) in the output's coordinates: R x C valid elements of
// an output of out_rows x out_cols; `transposed`: output (r, c) is staged element (c, r).
__device__ void write_output(const float* tile, bool transposed, const QuantizeRecipe& r, float tensor_scale,
                             int64_t r0, int64_t c0, int R, int C, int64_t out_rows, int64_t out_cols, uint8_t* data,
                             void* scales, unsigned* block_amax, float* block_scale) {
  const bool tensor = layout::tensor_scaled(r);
  const auto at = [&](int i, int j) { return transposed ? tile[j * kPitch + i] : tile[i * kPitch + j]; };
  int br = 1, bc = 1, blocks_c = 1;
  if (!tensor) {
    int64_t shape_r, shape_c;
    layout::block_shape(r, &shape_r, &shape_c);
    br = int(shape_r), bc = int(shape_c);
    blocks_c = kTile / bc;
    for (int b = threadIdx.x; b < (kTile / br) * blocks_c; b += kThreads) block_amax[b] = 0;
    __syncthreads();
    for (int e = threadIdx.x; e < kTile * kTile; e += kThreads) {
      const int i = e / kTile, j = e % kTile;
      if (i < R && j < C) amax_into(&block_amax[(i / br) * blocks_c + j / bc], at(i, j));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < (kTile / br) * blocks_c; b += kThreads) {
      const int bi = b / blocks_c, bj = b % blocks_c;
      if (bi * br >= R || bj * bc >= C) continue;
      const float amax = __uint_as_float(block_amax[b]);
      const int64_t at_global = layout::scale_offset(r, out_rows, out_cols, r0 / br + bi, c0 / bc + bj);
      if (r.scaling == Scaling::mx) {
        const uint8_t code = layout::e8m0_from_amax(amax, r.out);
        block_scale[b] = layout::e8m0_data_scale(code);
        if (scales) static_cast<uint8_t*>(scales)[at_global] = code;
      } else {
        const float s = layout::scale_from_amax(amax, r.out, r.pow2_scales, r.value_for_inf);
        block_scale[b] = s;
        if (scales) static_cast<float*>(scales)[at_global] = 1.0f / s;
      }
    }
    __syncthreads();
  }
  if (!data) return;
  // A warp's 32 lanes write one output row's 128 codes, 4 a lane.
  for (int w = threadIdx.x; w < kTile * kTile / 4; w += kThreads) {
    const int i = w / (kTile / 4), j = (w % (kTile / 4)) * 4;
    if (i >= R || j >= C) continue;
    uint32_t word = 0;
    const int n = min(4, C - j);
    for (int k = 0; k < n; ++k) {
      const float s = tensor ? tensor_scale : block_scale[(i / br) * blocks_c + (j + k) / bc];
      word |= uint32_t(layout::quantize_value(at(i, j + k), s, r.out)) << (8 * k);
    }
    uint8_t* out = data + (r0 + i) * out_cols + c0 + j;
    if (n == 4 && reinterpret_cast<uintptr_t>(out) % 4 == 0) {
      *reinterpret_cast<uint32_t*>(out) = word;
    } else {
      for (int k = 0; k < n; ++k) out[k] = uint8_t(word >> (8 * k));
    }
  }
}

template <int E, bool Brain>
__global__ void __launch_bounds__(kThreads)
    quantize_tiles(const QuantizeRecipe r, const void* x, int64_t rows, int64_t cols, int64_t ld, uint8_t* data,
                   uint8_t* data_t, void* scales, void* scales_t, float* amax) {
  extern __shared__ float tile[];  // kTile x kPitch
  __shared__ unsigned block_amax[kMostBlocks];
  __shared__ float block_scale[kMostBlocks];
  __shared__ unsigned tile_amax;
  const int64_t tiles_c = (cols + kTile - 1) / kTile;
  const int64_t i0 = int64_t(blockIdx.x) / tiles_c * kTile, j0 = int64_t(blockIdx.x) % tiles_c * kTile;
  const int R = int(rows - i0 < kTile ? rows - i0 : kTile), C = int(cols - j0 < kTile ? cols - j0 : kTile);
  if (threadIdx.x == 0) tile_amax = 0;
  __syncthreads();
  for (int e = threadIdx.x; e < kTile * kTile; e += kThreads) {
    const int i = e / kTile, j = e % kTile;
    if (i < R && j < C) {
      const float v = load<E, Brain>(x, (i0 + i) * ld + j0 + j);
      tile[i * kPitch + j] = v;
      if (amax && r.scaling != Scaling::tensor_amax) amax_into(&tile_amax, v);
    }
  }
  __syncthreads();
  if (amax && r.scaling != Scaling::tensor_amax && threadIdx.x == 0)
    atomicMax(reinterpret_cast<unsigned*>(amax), tile_amax);
  // Current scaling reads the amax its first pass reduced; the others need none.
  const float tensor_scale = layout::tensor_scale(r, r.scaling == Scaling::tensor_amax ? *amax : 0.0f);
  const bool tensor = layout::tensor_scaled(r);
  if (tensor && blockIdx.x == 0 && threadIdx.x == 0) {
    if (scales) *static_cast<float*>(scales) = 1.0f / tensor_scale;
    if (scales_t) *static_cast<float*>(scales_t) = 1.0f / tensor_scale;
  }
  if (data || scales)
    write_output(tile, false, r, tensor_scale, i0, j0, R, C, rows, cols, data, tensor ? nullptr : scales, block_amax,
                 block_scale);
  __syncthreads();
  if (data_t || scales_t)
    write_output(tile, true, r, tensor_scale, j0, i0, C, R, cols, rows, data_t, tensor ? nullptr : scales_t, block_amax,
                 block_scale);
}

// The tensor's amax, for Scaling::tensor_amax, before any block scales with it.
template <int E, bool Brain>
__global__ void __launch_bounds__(kThreads)
    quantize_amax_pass(const void* x, int64_t rows, int64_t cols, int64_t ld, float* amax) {
  __shared__ unsigned block;
  if (threadIdx.x == 0) block = 0;
  __syncthreads();
  float a = 0.0f;
  const int64_t n = rows * cols;
  for (int64_t e = int64_t(blockIdx.x) * kThreads + threadIdx.x; e < n; e += int64_t(gridDim.x) * kThreads)
    a = layout::amax_step(a, load<E, Brain>(x, e / cols * ld + e % cols));
  atomicMax(&block, __float_as_uint(a));
  __syncthreads();
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<unsigned*>(amax), block);
}

bool power_of_two_up_to_tile(int v) { return v >= 1 && v <= kTile && (v & (v - 1)) == 0; }

}  // namespace

const char* quantize_refusal(const QuantizeTask& t) {
  const QuantizeRecipe& r = t.recipe;
  if ((t.rows - 1) / kTile + 1 > INT32_MAX / ((t.cols - 1) / kTile + 1))
    return "the matrix has more than 2^31 tiles of 128 x 128 (one launch's grid)";
  if (r.scaling == Scaling::blocks &&
      (!power_of_two_up_to_tile(r.block_rows) || !power_of_two_up_to_tile(r.block_cols) ||
       r.block_rows * r.block_cols < 32))
    return "the GPU path takes blocks of powers of two up to 128 a side and of 32 elements or more";
  return nullptr;
}

cudaError_t quantize(const QuantizeTask& t, cudaStream_t stream) {
  if (t.amax) {
    if (cudaError_t e = cudaMemsetAsync(t.amax, 0, sizeof(float), stream); e != cudaSuccess) return e;
  }
  if (t.rows == 0 || t.cols == 0) return cudaSuccess;
  if (layout::scales_padded(t.recipe)) {  // entries no block owns are 0; the blocks' are written over
    const size_t bytes = size_t(layout::scale_bytes(t.recipe));
    for (const auto& [scales, R, C] : {std::tuple{t.scales, t.rows, t.cols}, std::tuple{t.scales_t, t.cols, t.rows}})
      if (scales)
        if (cudaError_t e = cudaMemsetAsync(scales, 0, size_t(layout::scale_count(t.recipe, R, C)) * bytes, stream);
            e != cudaSuccess)
          return e;
  }
  const auto run = [&](auto kernel, auto pass) -> cudaError_t {
    if (t.recipe.scaling == Scaling::tensor_amax) {
      const int64_t n = t.rows * t.cols;
      pass<<<unsigned(std::min<int64_t>((n + kThreads - 1) / kThreads, 4096)), kThreads, 0, stream>>>(
          t.x, t.rows, t.cols, t.ld, t.amax);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    const int smem = kTile * kPitch * int(sizeof(float));
    if (cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
        e != cudaSuccess)
      return e;
    const int64_t tiles = ((t.rows - 1) / kTile + 1) * ((t.cols - 1) / kTile + 1);
    kernel<<<unsigned(tiles), kThreads, smem, stream>>>(t.recipe, t.x, t.rows, t.cols, t.ld, t.data, t.data_t, t.scales,
                                                        t.scales_t, t.amax);
    return cudaGetLastError();
  };
  switch (t.input) {
    case QuantizeInputType::fp32:
      return run(quantize_tiles<4, false>, quantize_amax_pass<4, false>);
    case QuantizeInputType::bf16:
      return run(quantize_tiles<2, true>, quantize_amax_pass<2, true>);
    case QuantizeInputType::fp16:
      return run(quantize_tiles<2, false>, quantize_amax_pass<2, false>);
  }
  return cudaErrorInvalidValue;
}

}  // namespace xpose::engines
