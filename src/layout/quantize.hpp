// FP8 quantization recipes (issue 34): a tensor's scales from its amax and its values scaled
// and cast, as __host__ __device__ functions that the CPU reference (cpu/quantize.hpp) and the
// quantizing kernels share. Conventions are TransformerEngine's, which cuBLASLt's FP8 GEMMs
// consume (a scale multiplies before the cast; the GEMM takes its inverse, scale_inv):
//   amax          max |x|, NaN ignored (fmaxf), an infinity kept
//   fp32 scales   fp8_max / amax rounded to nearest (compute_scale_from_amax): 1 where amax is
//                 0, infinite or NaN; the input type's largest finite value where the quotient
//                 overflows; optionally rounded down to a power of two. scale_inv = 1 / scale.
//   E8M0 scales   MXFP8's 2^(e - 127) with e = the exponent of amax * (1 / fp8_max) rounded up
//                 (cvt.rp.satfinite.ue8m0: the data then never needs saturating): 0 for amax 0,
//                 0xFE for an infinite amax, 0xFF (NaN) for a NaN one. The data is scaled by
//                 2^(127 - e) exactly (TransformerEngine scales by 1 where e is 0).
//   the cast      x * scale in fp32, then to FP8 rounding to nearest even and saturating; NaN
//                 to the format's NaN with x's sign.
#pragma once

#include <cstdint>

#include "layout/fp8.hpp"
#include "layout/hd.hpp"

namespace xpose::layout {

// How a tensor is scaled. The transposed output is the same recipe applied to the transpose
// (its blocks in its own coordinates: 1 x K row blocks of the transpose are K x 1 blocks of
// the input; MXFP8's 32-element blocks run along its rows, the input's columns).
enum class Scaling : uint8_t {
  tensor_given,  // one fp32 scale, given (delayed scaling)
  tensor_amax,   // one fp32 scale from the whole tensor's amax (current scaling)
  blocks,        // an fp32 scale for each block_rows x block_cols block (DeepSeek-V3: 1 x 128, 128 x 128)
  mx             // an E8M0 scale for each 1 x 32 block (MXFP8)
};

// Where the block scales of an R x C output go (tensor recipes write one scale). Layouts with
// padding have it written as 0 (E8M0 code 0, fp32 0), so a GEMM reading past the matrix reads
// no NaN.
enum class ScaleLayout : uint8_t {
  row_major,     // [ceil(R / br)][ceil(C / bc)]: K-major for a GEMM operand contracted along C
  column_major,  // [ceil(C / bc)][ceil(R / br) padded to 16 bytes]: MN-major (DeepGEMM's TMA-aligned
                 // activation scales, FlashInfer's scale_major_mode "MN")
  tiled_128x4    // MXFP8: cuBLASLt's "1D block scaling factors layout" (cuBLAS docs 3.1.4.3.2),
                 // 128 rows x 4 scales a 512-byte tile, rows padded to 128 and scales to 4
};

struct QuantizeRecipe {
  Scaling scaling = Scaling::tensor_amax;
  ScaleLayout layout = ScaleLayout::row_major;
  Fp8 out = Fp8::e4m3;
  int block_rows = 1, block_cols = 128;  // Scaling::blocks (Scaling::mx is 1 x 32)
  bool pow2_scales = false;              // tensor_amax, blocks: scales rounded down to a power of two
  float scale = 1.0f;                    // tensor_given
  float value_for_inf = 3.40282347e38f;  // the scale where fp8_max / amax overflows: the input type's max
};

constexpr int mx_block = 32;

XPOSE_HD constexpr bool tensor_scaled(const QuantizeRecipe& r) {
  return r.scaling == Scaling::tensor_given || r.scaling == Scaling::tensor_amax;
}

// Bytes a scale takes: an E8M0 code, or an fp32 scale_inv.
XPOSE_HD constexpr int64_t scale_bytes(const QuantizeRecipe& r) { return r.scaling == Scaling::mx ? 1 : 4; }

// A block's shape in its output's coordinates (rows, columns).
XPOSE_HD inline void block_shape(const QuantizeRecipe& r, int64_t* br, int64_t* bc) {
  *br = r.scaling == Scaling::blocks ? r.block_rows : 1;
  *bc = r.scaling == Scaling::blocks ? r.block_cols : mx_block;
}

// Scales an R x C output of recipe r takes, padding included.
XPOSE_HD inline int64_t scale_count(const QuantizeRecipe& r, int64_t R, int64_t C) {
  if (tensor_scaled(r)) return 1;
  int64_t br, bc;
  block_shape(r, &br, &bc);
  const int64_t n = (R + br - 1) / br, m = (C + bc - 1) / bc;  // blocks down, blocks across
  const int64_t per_16 = 16 / scale_bytes(r);                  // scales in 16 bytes
  switch (r.layout) {
    case ScaleLayout::row_major:
      return n * m;
    case ScaleLayout::column_major:
      return m * ((n + per_16 - 1) / per_16 * per_16);
    case ScaleLayout::tiled_128x4:
      return (n + 127) / 128 * 128 * ((m + 3) / 4 * 4);
  }
  return 0;
}

// Where the scale of block (bi, bj) (bi-th block down, bj-th across) of an R x C output goes:
// the layout's counts worked out once (the kernels make one per output on the host), then
// multiplications, shifts and masks a block.
struct ScaleIndex {
  ScaleLayout layout = ScaleLayout::row_major;
  bool tensor = true;
  int64_t across = 0;  // row-major: blocks across; column-major: blocks down padded to 16 bytes;
                       // tiled: 128 x 4 tiles across
  int64_t low = 0, high = 0, step = 0;  // local's: a place (dr % 32) low + (dr / 32) high + dc step on
  XPOSE_HD int64_t operator()(int64_t bi, int64_t bj) const {
    if (tensor) return 0;
    switch (layout) {
      case ScaleLayout::row_major: return bi * across + bj;
      case ScaleLayout::column_major: return bj * across + bi;
      case ScaleLayout::tiled_128x4:
        return 512 * ((bi >> 7) * across + (bj >> 2)) + (bi & 31) * 16 + ((bi >> 5) & 3) * 4 + (bj & 3);
    }
    return 0;
  }
  // (*this)(bi0 + dr, bj0 + dc) - (*this)(bi0, bj0) where bi0 is a multiple of 128 and bj0 of 4,
  // 0 <= dr < 128 and 0 <= dc < 4 (the tiled layout's bounds; the others take any): a kernel's tile
  // finds its first scale's place once and each of its scales by a small offset, without branches.
  XPOSE_HD int64_t local(int dr, int dc) const { return (dr & 31) * low + (dr >> 5) * high + dc * step; }
};

XPOSE_HD inline ScaleIndex scale_index(const QuantizeRecipe& r, int64_t R, int64_t C) {
  ScaleIndex x;
  x.layout = r.layout, x.tensor = tensor_scaled(r);
  if (x.tensor) return x;
  int64_t br, bc;
  block_shape(r, &br, &bc);
  const int64_t n = (R + br - 1) / br, m = (C + bc - 1) / bc;
  const int64_t per_16 = 16 / scale_bytes(r);
  x.across = r.layout == ScaleLayout::row_major      ? m
             : r.layout == ScaleLayout::column_major ? (n + per_16 - 1) / per_16 * per_16
                                                     : (m + 3) / 4;
  switch (r.layout) {
    case ScaleLayout::row_major: x.low = x.across, x.high = 32 * x.across, x.step = 1; break;
    case ScaleLayout::column_major: x.low = 1, x.high = 32, x.step = x.across; break;
    case ScaleLayout::tiled_128x4: x.low = 16, x.high = 4, x.step = 1; break;  // dr < 128, dc < 4
  }
  return x;
}

XPOSE_HD inline int64_t scale_offset(const QuantizeRecipe& r, int64_t R, int64_t C, int64_t bi, int64_t bj) {
  return scale_index(r, R, C)(bi, bj);
}

// Whether the layout of an R x C output's scales leaves entries no block owns (written as 0).
XPOSE_HD inline bool scales_padded(const QuantizeRecipe& r, int64_t R, int64_t C) {
  if (tensor_scaled(r) || r.layout == ScaleLayout::row_major) return false;
  int64_t br, bc;
  block_shape(r, &br, &bc);
  return scale_count(r, R, C) != (R + br - 1) / br * ((C + bc - 1) / bc);
}

// The row-block quantizing kernel's stage (engines/quantize, 1 x K blocks): a 128 x 128 tile of
// E-byte elements (E = 2 or 4), rows of 128 E bytes in 16-byte chunks, read two ways: a thread
// reads a row segment of 32 elements (chunk by chunk; in a warp, lanes 4j .. 4j + 3 read row
// r + j's four segments), and a warp reads one row's 128 consecutive bytes (a word a lane).
// Chunk c of row r sits at chunk staged_chunk(E, r, c) of its row: a row segment is chunks
// seg_chunks * s .. of the row's 128-byte window s / (8 / seg_chunks), its chunks turned by
// segment and row so that eight lanes (two rows' four segments) reading their chunk i find
// eight different 16-byte bank groups; a window's chunks stay in it, so a warp's 128
// consecutive bytes are one wavefront too. Host-tested (test_quantize).
XPOSE_HD constexpr int staged_chunk(int E, int r, int c) {
  if (E == 2) {  // a segment is 4 chunks, two a window
    const int s = c >> 2, i = c & 3;
    return 8 * (s >> 1) + 4 * ((s + r) & 1) + ((i + (s >> 1) + 2 * (r & 1)) & 3);
  }
  const int s = c >> 3, i = c & 7;  // E = 4: a segment is a window of 8 chunks
  return 8 * s + ((i + s + 4 * (r & 1)) & 7);
}

// Where data_t's 16-byte chunk j (its rows 16 j ..) of tile column c waits in the kernel's
// 128 x 128 code buffer before its row of data_t is stored: byte c * 128 + 16 (j ^ key), the key
// the column's group of P (columns a 32-bit word of the input: 2 for 2-byte inputs, 1 for fp32),
// modulo 8. A warp's lanes, P columns apart, write their chunk j of neighbouring groups: eight
// lanes meet eight 16-byte bank groups (keyed by c % 8, 2-byte inputs put two lanes on each:
// 52% of the shared store wavefronts excess, Nsight Compute, H200, bf16 1x128 both); eight lanes
// reading one column's eight chunks meet them too. Host-tested (test_quantize).
XPOSE_HD constexpr int code_chunk_at(int c, int j, int P) { return c * 128 + 16 * (j ^ ((c / P) % 8)); }
// Byte e (0 .. 127) of column c there: code_chunk_at(c, e / 16, P) + e % 16, in unsigned math (c >= 0), so that
// the kernel's per-byte addresses (store_four_runs' edge bytes) take no signed division's fix-ups.
XPOSE_HD constexpr int code_byte_at(int c, int e, int P) {
  return int(unsigned(c) * 128u + (unsigned(e) ^ (unsigned(c) / unsigned(P) % 8u) << 4));
}

// Why recipe r cannot be served (one line), or null: blocks of 1 to 2^20 a side (the GPU path
// asks more), the 128 x 4 tiles for MXFP8 only.
inline const char* recipe_refusal(const QuantizeRecipe& r) {
  if (r.scaling == Scaling::blocks &&
      (r.block_rows < 1 || r.block_cols < 1 || r.block_rows > (1 << 20) || r.block_cols > (1 << 20)))
    return "quantize: blocks must be 1 to 2^20 elements a side";
  if (r.layout == ScaleLayout::tiled_128x4 && r.scaling != Scaling::mx)
    return "quantize: the 128 x 4 tiled scale layout is MXFP8's";
  return nullptr;
}

XPOSE_HD constexpr float fp8_max(Fp8 kind) { return kind == Fp8::e4m3 ? 448.0f : 57344.0f; }

XPOSE_HD inline bool is_nan(float x) { return (float_bits(x) & 0x7FFFFFFFu) > 0x7F800000u; }
XPOSE_HD inline bool is_inf(float x) { return (float_bits(x) & 0x7FFFFFFFu) == 0x7F800000u; }

// One more element into an amax (which starts at 0): NaN ignored, as fmaxf does.
XPOSE_HD inline float amax_step(float amax, float x) {
  const float a = bits_float(float_bits(x) & 0x7FFFFFFFu);
  return a > amax ? a : amax;
}

// The fp32 scale of a tensor or block whose amax is `amax`.
XPOSE_HD inline float scale_from_amax(float amax, Fp8 kind, bool pow2, float value_for_inf) {
  if (!(amax > 0.0f) || is_inf(amax)) return 1.0f;  // 0, NaN, infinity
  float scale = fp8_max(kind) / amax;
  if (is_inf(scale)) scale = value_for_inf;
  if (pow2) scale = bits_float(float_bits(scale) & 0xFF800000u);
  return scale;
}

// MXFP8's E8M0 scale code for a block whose amax is `amax`.
XPOSE_HD inline uint8_t e8m0_from_amax(float amax, Fp8 kind) {
  const float v = amax * (1.0f / fp8_max(kind));  // as TransformerEngine: times the reciprocal
  const uint32_t bits = float_bits(v);
  if ((bits >> 23) - 1u < 253u) return uint8_t((bits >> 23) + ((bits & 0x7FFFFFu) != 0));  // normal, below 2^127
  if (is_nan(v)) return 0xFF;
  if (is_inf(v)) return 0xFE;
  if (v == 0.0f) return 0x00;
  const uint32_t u = float_bits(v), exp = u >> 23, man = u & 0x7FFFFFu;
  // Up to the next power of two, at most 2^127 (0xFE); subnormals up to 2^-127 are code 0.
  if (man != 0 && exp != 0xFE && !(exp == 0 && man <= 0x400000u)) return uint8_t(exp + 1);
  return uint8_t(exp);
}

// The factor the data of a block with E8M0 code e is multiplied by: 2^(127 - e), exact (a
// subnormal for e = 254); NaN for the NaN code.
XPOSE_HD inline float e8m0_data_scale(uint8_t e) {
  if (e == 0xFF) return bits_float(0x7FC00000u);
  const int k = 127 - int(e);  // -127 .. 127
  return k >= -126 ? bits_float(uint32_t(k + 127) << 23) : bits_float(0x00400000u);
}

// The value E8M0 code e stands for, 2^(e - 127) (what the GEMM multiplies by).
XPOSE_HD inline float e8m0_value(uint8_t e) {
  if (e == 0xFF) return bits_float(0x7FC00000u);
  return e == 0 ? bits_float(0x00400000u) : bits_float(uint32_t(e) << 23);
}

// bf16 and fp16 bits widened to fp32 exactly (subnormals, infinities, NaN with its sign).
XPOSE_HD inline float widen_bf16(uint16_t h) { return bits_float(uint32_t(h) << 16); }
XPOSE_HD inline float widen_fp16(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (man << 13));
  if (exp != 0) return bits_float(sign | ((exp + 112) << 23) | (man << 13));
  const float v = float(man) * (1.0f / 16777216.0f);  // man x 2^-24, exact
  return sign ? -v : v;
}

// The one scale of a tensor recipe (given, or from the tensor's amax); 1 for the others.
XPOSE_HD inline float tensor_scale(const QuantizeRecipe& r, float amax) {
  if (r.scaling == Scaling::tensor_given) return r.scale;
  if (r.scaling == Scaling::tensor_amax) return scale_from_amax(amax, r.out, r.pow2_scales, r.value_for_inf);
  return 1.0f;
}

// x scaled and cast. A NaN product (x NaN, or an infinity times a given scale of 0) is the
// format's NaN with x's sign: the GPU's multiply returns one canonical NaN, the CPU's keeps
// or flips signs, and the code must not depend on which ran.
XPOSE_HD inline uint8_t quantize_value(float x, float scale, Fp8 kind) {
  const float y = x * scale;
  if (is_nan(y)) return uint8_t(((float_bits(x) >> 24) & 0x80u) | fp8_format(kind).nan_code);
  return fp8_from_float(y, kind, Overflow::saturate);
}

}  // namespace xpose::layout
