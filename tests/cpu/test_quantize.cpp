// FP8 quantization recipes (layout/quantize.hpp) and their CPU reference (cpu/quantize.hpp):
// the scale rules on their edges (TransformerEngine's compute_scale_from_amax and float_to_e8m0,
// read from its source), and the reference against an oracle that finds each element's block
// by its own bookkeeping, on random matrices with the edge values mixed in: every code, scale
// and amax bit for bit, the transpose as the recipe applied to the transpose, and every
// finite value back within FP8's rounding error once dequantized.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cpu/quantize.hpp"
#include "engines/quantize/quantize.hpp"
#include "layout/bank_model.hpp"
#include "support/quantize.hpp"
#include "support/testing.hpp"
#include "api/validate.hpp"
#include "xpose/xpose.hpp"

namespace xpose::layout {
namespace {

constexpr float kFloatMax = 3.40282347e38f;

TEST(Quantize, TensorScalesFollowTransformerEngine) {
  for (float amax : {0.0f, NAN, INFINITY}) EXPECT_EQ(1.0f, scale_from_amax(amax, Fp8::e4m3, false, kFloatMax));
  EXPECT_EQ(224.0f, scale_from_amax(2.0f, Fp8::e4m3, false, kFloatMax));
  EXPECT_EQ(28672.0f, scale_from_amax(2.0f, Fp8::e5m2, false, kFloatMax));
  EXPECT_EQ(448.0f / 3.0f, scale_from_amax(3.0f, Fp8::e4m3, false, kFloatMax));
  EXPECT_EQ(128.0f, scale_from_amax(3.0f, Fp8::e4m3, true, kFloatMax));   // 149.3 down to a power of two
  EXPECT_EQ(256.0f, scale_from_amax(1.75f, Fp8::e4m3, true, kFloatMax));  // 256 exactly stays
  // The quotient overflows: the input type's largest value.
  EXPECT_EQ(kFloatMax, scale_from_amax(1e-38f, Fp8::e4m3, false, kFloatMax));
  EXPECT_EQ(65504.0f, scale_from_amax(1e-45f, Fp8::e4m3, false, 65504.0f));
  EXPECT_EQ(std::ldexp(1.0f, 127), scale_from_amax(1e-45f, Fp8::e4m3, true, kFloatMax));
}

TEST(Quantize, E8m0ScalesRoundUpToAPowerOfTwo) {
  EXPECT_EQ(127, e8m0_from_amax(448.0f, Fp8::e4m3));  // 448 times the rounded 1/448 is 1 exactly
  EXPECT_EQ(128, e8m0_from_amax(449.0f, Fp8::e4m3));
  EXPECT_EQ(126, e8m0_from_amax(224.0f, Fp8::e4m3));
  EXPECT_EQ(127, e8m0_from_amax(57344.0f, Fp8::e5m2));
  EXPECT_EQ(0x00, e8m0_from_amax(0.0f, Fp8::e4m3));
  EXPECT_EQ(0xFF, e8m0_from_amax(NAN, Fp8::e4m3));
  EXPECT_EQ(0xFE, e8m0_from_amax(INFINITY, Fp8::e5m2));
  EXPECT_EQ(0x00, e8m0_from_amax(std::ldexp(1.0f, -127) * 448.0f, Fp8::e4m3));  // 2^-127 is code 0
  EXPECT_EQ(0x01, e8m0_from_amax(std::ldexp(1.0f, -126) * 448.0f, Fp8::e4m3));
  EXPECT_EQ(127 + 120, e8m0_from_amax(kFloatMax, Fp8::e4m3));  // 2^128 / 448 is 2^119.2: up to 2^120
  // Everywhere else: the smallest power of two at or above amax * (1 / fp8_max).
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng{uint32_t(seed)};
  for (int n = 0; n < testing::trials(100000); ++n) {
    const float amax = bits_float(rng() & 0x7F7FFFFFu);  // positive, finite
    for (Fp8 k : {Fp8::e4m3, Fp8::e5m2}) {
      const float v = amax * (1.0f / fp8_max(k));
      const uint8_t e = e8m0_from_amax(amax, k);
      ASSERT_LE(e, 0xFE);
      if (v > std::ldexp(1.0f, -127)) {
        ASSERT_GE(e8m0_value(e), v) << amax;
        if (e < 0xFE) ASSERT_LT(e8m0_value(e) / 2, v) << amax;
      } else {
        ASSERT_EQ(0, e) << amax;
      }
    }
  }
}

TEST(Quantize, E8m0DataScaleIsTheExactInverse) {
  for (int e = 0; e < 255; ++e) EXPECT_EQ(1.0f, e8m0_data_scale(uint8_t(e)) * e8m0_value(uint8_t(e))) << e;
  EXPECT_TRUE(std::isnan(e8m0_data_scale(0xFF)));
  EXPECT_TRUE(std::isnan(e8m0_value(0xFF)));
  EXPECT_EQ(std::ldexp(1.0f, -127), e8m0_value(0));
  EXPECT_EQ(1.0f, e8m0_value(127));
}

TEST(Quantize, OneValueAsMlDtypesCastsIt) {  // checked against ml_dtypes 0.6.0 by hand (saturating: clipped first)
  // amax 3, current scaling: 1 * (448 / 3) = 149.33 lies between 144 and 160: 144 (0x71).
  EXPECT_EQ(0x71, quantize_value(1.0f, scale_from_amax(3.0f, Fp8::e4m3, false, kFloatMax), Fp8::e4m3));
  EXPECT_EQ(0xF1, quantize_value(-1.0f, scale_from_amax(3.0f, Fp8::e4m3, false, kFloatMax), Fp8::e4m3));
  EXPECT_EQ(0x7E, quantize_value(3.0f, scale_from_amax(3.0f, Fp8::e4m3, false, kFloatMax), Fp8::e4m3));  // 448
  EXPECT_EQ(0x7E, quantize_value(1e30f, 1.0f, Fp8::e4m3));                                               // saturates
  EXPECT_EQ(0x7B, quantize_value(1e30f, 1.0f, Fp8::e5m2));
  EXPECT_EQ(0x80, quantize_value(-0.0f, 7.0f, Fp8::e4m3));
  // NaN products: the format's NaN with x's sign, whatever the multiply made of the sign.
  EXPECT_EQ(0xFF, quantize_value(-NAN, 2.0f, Fp8::e4m3));
  EXPECT_EQ(0x7E, quantize_value(NAN, 2.0f, Fp8::e5m2));
  EXPECT_EQ(0x7F, quantize_value(INFINITY, 0.0f, Fp8::e4m3));
  EXPECT_EQ(0xFE, quantize_value(-INFINITY, 0.0f, Fp8::e5m2));
}

// ---------------------------------------------------------------------------------------
// The reference against an oracle.

struct Matrix {
  int64_t rows, cols, ld;
  std::vector<float> x;
};

// Random normal-ish values over several binades, with the edge values mixed in.
Matrix random_matrix(std::mt19937& rng, int64_t rows, int64_t cols, bool edges) {
  Matrix m{rows, cols, cols + int64_t(rng() % 5), {}};
  m.x.assign(size_t(rows * m.ld), 1234.5f);  // the padding: never read as an element
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const float edge[] = {0.0f,   -0.0f,  NAN,    -NAN,     INFINITY, -INFINITY, 1e-45f,   -1e-40f,
                        448.0f, 464.0f, 480.0f, 57344.0f, 61440.0f, 1e-8f,     kFloatMax};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      float v = normal(rng) * std::ldexp(1.0f, int(rng() % 24) - 12);
      if (edges && rng() % 97 == 0) v = edge[rng() % (sizeof edge / sizeof edge[0])];
      m.x[size_t(i * m.ld + j)] = v;
    }
  return m;
}

// What the oracle expects of one output (the matrix as it is, or its transpose): codes and
// scales from block amaxes it keeps in a map keyed by block coordinates.
struct Expected {
  std::vector<uint8_t> data;
  std::vector<float> scales;  // scale_inv, fp32 recipes
  std::vector<uint8_t> e8m0;  // MXFP8
};

Expected oracle(const Matrix& m, bool transposed, const QuantizeRecipe& r) {
  const int64_t R = transposed ? m.cols : m.rows, C = transposed ? m.rows : m.cols;
  const auto at = [&](int64_t i, int64_t j) {
    return transposed ? m.x[size_t(j * m.ld + i)] : m.x[size_t(i * m.ld + j)];
  };
  float tensor_amax = 0;
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) {
      const float a = std::fabs(m.x[size_t(i * m.ld + j)]);
      if (!std::isnan(a) && a > tensor_amax) tensor_amax = a;
    }
  const bool tensor = r.scaling == Scaling::tensor_given || r.scaling == Scaling::tensor_amax;
  const int64_t br = r.scaling == Scaling::blocks ? r.block_rows : 1;
  const int64_t bc = r.scaling == Scaling::blocks ? r.block_cols : r.scaling == Scaling::mx ? 32 : C;
  std::map<std::pair<int64_t, int64_t>, float> amax;
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j) {
      float& a = amax[{i / br, j / bc}];
      const float v = std::fabs(at(i, j));
      if (!std::isnan(v) && v > a) a = v;
    }
  Expected e;
  const float given = r.scaling == Scaling::tensor_given
                          ? r.scale
                          : scale_from_amax(tensor_amax, r.out, r.pow2_scales, r.value_for_inf);
  const auto scale_of = [&](int64_t i, int64_t j) {
    if (tensor) return given;
    const float a = amax.at({i / br, j / bc});
    return r.scaling == Scaling::mx ? e8m0_data_scale(e8m0_from_amax(a, r.out))
                                    : scale_from_amax(a, r.out, r.pow2_scales, r.value_for_inf);
  };
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      e.data.push_back(std::isnan(at(i, j) * scale_of(i, j))  // x NaN, or an infinity times 0: x's sign
                           ? uint8_t((std::signbit(at(i, j)) ? 0x80 : 0) | fp8_format(r.out).nan_code)
                           : fp8_from_float(at(i, j) * scale_of(i, j), r.out, Overflow::saturate));
  if (tensor) {
    e.scales.push_back(1.0f / given);
    return e;
  }
  // Where block (bi, bj) of down x across blocks goes, worked out as the layouts' documents draw them.
  const int64_t down = (R + br - 1) / br, across = (C + bc - 1) / bc;
  int64_t count = down * across;
  std::function<int64_t(int64_t, int64_t)> place = [&](int64_t bi, int64_t bj) { return bi * across + bj; };
  if (r.layout == ScaleLayout::column_major) {  // columns of `down` scales, each padded to 16 bytes
    const int64_t column =
        (down * (r.scaling == Scaling::mx ? 1 : 4) + 15) / 16 * 16 / (r.scaling == Scaling::mx ? 1 : 4);
    count = across * column;
    place = [=](int64_t bi, int64_t bj) { return bj * column + bi; };
  } else if (r.layout == ScaleLayout::tiled_128x4) {
    // torchao's to_blocked: the padded (128 a, 4 b) matrix viewed as (a, 128, b, 4), permuted to
    // (a, b, 128, 4), each 128 rows as (4, 32) transposed to (32, 4): 32 x 16 bytes a tile.
    const int64_t a = (down + 127) / 128, b = (across + 3) / 4;
    count = a * 128 * b * 4;
    place = [=](int64_t bi, int64_t bj) {
      const int64_t tile = (bi / 128) * b + bj / 4, group = (bi % 128) / 32, t = bi % 32;
      return ((tile * 32 + t) * 4 + group) * 4 + bj % 4;
    };
  }
  e.scales.assign(r.scaling == Scaling::mx ? 0 : size_t(count), 0.0f);
  e.e8m0.assign(r.scaling == Scaling::mx ? size_t(count) : 0, 0);
  for (int64_t bi = 0; bi < down; ++bi)
    for (int64_t bj = 0; bj < across; ++bj) {
      const float a = amax.at({bi, bj});
      if (r.scaling == Scaling::mx)
        e.e8m0[size_t(place(bi, bj))] = e8m0_from_amax(a, r.out);
      else
        e.scales[size_t(place(bi, bj))] = 1.0f / scale_from_amax(a, r.out, r.pow2_scales, r.value_for_inf);
    }
  return e;
}

using testing::quantize_recipes;
using testing::recipe_name;

void check(const Matrix& m, const QuantizeRecipe& r) {
  SCOPED_TRACE(recipe_name(r) + ", " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " ld " +
               std::to_string(m.ld));
  const int64_t n = m.rows * m.cols;
  const bool e8m0 = r.scaling == Scaling::mx;
  std::vector<uint8_t> data(size_t(n) + 16, 0xA5), data_t(size_t(n) + 16, 0xA5);
  const int64_t s = scale_count(r, m.rows, m.cols), st = scale_count(r, m.cols, m.rows);
  std::vector<float> scales(size_t(s) + 4, -7.0f), scales_t(size_t(st) + 4, -7.0f);
  std::vector<uint8_t> codes(size_t(s) + 4, 0xA5), codes_t(size_t(st) + 4, 0xA5);
  float amax = -1;
  cpu::QuantizeOutput out;
  out.data = data.data(), out.data_t = data_t.data(), out.amax = &amax;
  out.scales = e8m0 ? static_cast<void*>(codes.data()) : scales.data();
  out.scales_t = e8m0 ? static_cast<void*>(codes_t.data()) : scales_t.data();
  cpu::quantize({m.x.data(), m.rows, m.cols, m.ld}, r, out);

  for (bool transposed : {false, true}) {
    const Expected want = oracle(m, transposed, r);
    const std::vector<uint8_t>& got = transposed ? data_t : data;
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(want.data[size_t(i)], got[size_t(i)]) << "element " << i << (transposed ? " of the transpose" : "");
    for (int64_t i = n; i < n + 16; ++i) ASSERT_EQ(0xA5, got[size_t(i)]) << "past the output";
    const int64_t count = transposed ? st : s;
    if (e8m0) {
      const std::vector<uint8_t>& c = transposed ? codes_t : codes;
      ASSERT_EQ(size_t(count), want.e8m0.size());
      for (int64_t i = 0; i < count; ++i) ASSERT_EQ(want.e8m0[size_t(i)], c[size_t(i)]) << "scale " << i;
      for (int64_t i = count; i < count + 4; ++i) ASSERT_EQ(0xA5, c[size_t(i)]);
    } else {
      const std::vector<float>& f = transposed ? scales_t : scales;
      ASSERT_EQ(size_t(count), want.scales.size());
      for (int64_t i = 0; i < count; ++i)
        ASSERT_EQ(float_bits(want.scales[size_t(i)]), float_bits(f[size_t(i)])) << "scale " << i;
      for (int64_t i = count; i < count + 4; ++i) ASSERT_EQ(-7.0f, f[size_t(i)]);
    }
  }
  float want_amax = 0;
  for (int64_t i = 0; i < m.rows; ++i)
    for (int64_t j = 0; j < m.cols; ++j) {
      const float a = std::fabs(m.x[size_t(i * m.ld + j)]);
      if (!std::isnan(a)) want_amax = std::max(want_amax, a);
    }
  EXPECT_EQ(want_amax, amax);

  // Square blocks and tensor scales: the transpose holds the same codes, turned.
  const bool square = r.scaling != Scaling::mx && (r.scaling != Scaling::blocks || r.block_rows == r.block_cols);
  if (square)
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j) ASSERT_EQ(data[size_t(i * m.cols + j)], data_t[size_t(j * m.rows + i)]);
}

TEST(Quantize, ReferenceMatchesTheOracleOnEveryRecipe) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng{uint32_t(seed)};
  for (const QuantizeRecipe& r : quantize_recipes())
    for (auto [rows, cols] : {std::pair{1, 1}, std::pair{1, 300}, std::pair{129, 1}, std::pair{33, 65},
                              std::pair{257, 130}, std::pair{128, 256}})
      for (bool edges : {false, true}) {
        check(random_matrix(rng, rows, cols, edges), r);
        if (::testing::Test::HasFailure()) return;
      }
}

// Dequantized, every finite element comes back within FP8's rounding error (relative, or
// half the smallest subnormal where the scaled value is that small), unless its block holds
// an infinity or the scaled value saturated.
TEST(Quantize, DequantizedValuesComeBackWithinRounding) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng{uint32_t(seed)};
  for (const QuantizeRecipe& r : quantize_recipes()) {
    if (r.scaling == Scaling::tensor_given) continue;  // a given scale may saturate anything
    SCOPED_TRACE(recipe_name(r));
    const Matrix m = random_matrix(rng, 96, 200, false);
    std::vector<uint8_t> data(size_t(m.rows * m.cols));
    const bool e8m0 = r.scaling == Scaling::mx;
    std::vector<float> scales(size_t(scale_count(r, m.rows, m.cols)));
    std::vector<uint8_t> codes(scales.size());
    cpu::QuantizeOutput out;
    out.data = data.data();
    out.scales = e8m0 ? static_cast<void*>(codes.data()) : scales.data();
    cpu::quantize({m.x.data(), m.rows, m.cols, m.ld}, r, out);
    const int64_t br = r.scaling == Scaling::blocks ? r.block_rows : 1;
    const int64_t bc = r.scaling == Scaling::blocks ? r.block_cols : e8m0 ? 32 : m.cols;
    const int mantissa = r.out == Fp8::e4m3 ? 3 : 2;
    const float smallest = fp8_to_float(0x01, r.out);
    for (int64_t i = 0; i < m.rows; ++i)
      for (int64_t j = 0; j < m.cols; ++j) {
        const int64_t b = scale_offset(r, m.rows, m.cols, i / br, j / bc);
        const float inv = e8m0 ? e8m0_value(codes[size_t(b)]) : scales[size_t(b)];
        const float x = m.x[size_t(i * m.ld + j)], back = fp8_to_float(data[size_t(i * m.cols + j)], r.out) * inv;
        const float bound = std::max(std::fabs(x) * std::ldexp(1.0f, -mantissa - 1), smallest / 2 * inv);
        ASSERT_LE(std::fabs(back - x), bound * 1.0001f) << i << " " << j << ": " << x << " came back " << back;
      }
  }
}

// Every block of every layout has its own place among scale_count's entries.
TEST(Quantize, ScaleLayoutsGiveEachBlockItsOwnPlace) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng{uint32_t(seed)};
  for (const QuantizeRecipe& r : quantize_recipes()) {
    if (r.scaling == Scaling::tensor_given || r.scaling == Scaling::tensor_amax) continue;
    for (int trial = 0; trial < 20; ++trial) {
      // Multiples of 128 and 4 blocks too: the tiled layout without padding.
      const auto side = [&] { return trial % 4 ? 1 + int64_t(rng() % 700) : 128 * (1 + int64_t(rng() % 5)); };
      const int64_t R = side(), C = side();
      const int64_t br = r.scaling == Scaling::blocks ? r.block_rows : 1;
      const int64_t bc = r.scaling == Scaling::blocks ? r.block_cols : 32;
      std::vector<int> hits(size_t(scale_count(r, R, C)), 0);
      for (int64_t bi = 0; bi * br < R; ++bi)
        for (int64_t bj = 0; bj * bc < C; ++bj) {
          const int64_t at = scale_offset(r, R, C, bi, bj);
          ASSERT_GE(at, 0);
          ASSERT_LT(at, int64_t(hits.size())) << recipe_name(r) << " " << R << " x " << C;
          ASSERT_EQ(0, hits[size_t(at)]++) << recipe_name(r);
        }
      // Padded (the kernels zero it first) exactly where some entry has no block.
      EXPECT_EQ(std::count(hits.begin(), hits.end(), 0) > 0, scales_padded(r, R, C))
          << recipe_name(r) << " " << R << " x " << C;
    }
  }
  // A tile's scales as the staged kernel finds them: its first scale's place, then a small
  // offset each (ScaleIndex::local), for bases a multiple of 128 down and of 4 across (the tiled
  // layout's condition; the linear ones take any base across, as 1 x 64 and 1 x 128 blocks give).
  for (const QuantizeRecipe& r : quantize_recipes()) {
    if (r.scaling == Scaling::tensor_given || r.scaling == Scaling::tensor_amax) continue;
    for (int trial = 0; trial < 20; ++trial) {
      const int64_t R = 1 + rng() % 100000, C = 1 + rng() % 100000;
      const ScaleIndex index = scale_index(r, R, C);
      const int64_t bi0 = 128 * int64_t(rng() % 1000),
                    bj0 = r.layout == ScaleLayout::tiled_128x4 ? 4 * int64_t(rng() % 1000) : int64_t(rng() % 4000);
      for (int dr = 0; dr < 128; ++dr)
        for (int dc = 0; dc < 4; ++dc)
          ASSERT_EQ(index(bi0 + dr, bj0 + dc), index(bi0, bj0) + index.local(dr, dc))
              << recipe_name(r) << " " << R << " x " << C << " block " << bi0 + dr << ", " << bj0 + dc;
    }
  }
  QuantizeRecipe blocks;
  blocks.scaling = Scaling::blocks, blocks.layout = ScaleLayout::tiled_128x4;
  EXPECT_NE(nullptr, recipe_refusal(blocks));  // 128 x 4 tiles are MXFP8's
  blocks.layout = ScaleLayout::row_major, blocks.block_rows = 0;
  EXPECT_NE(nullptr, recipe_refusal(blocks));
}

// The row-block kernel's stage (staged_chunk) keeps each row's chunks a permutation, each
// 128-byte window's chunks in that window, and its two reads conflict-free in the bank model:
// eight lanes (two rows' four segments) reading their segments' chunk i meet eight 16-byte
// bank groups; a warp's 32 words of one row's window are one 128-byte line.
TEST(Quantize, RowBlockStageReadsMeetInNoBank) {
  for (int E : {2, 4}) {
    SCOPED_TRACE("element bytes " + std::to_string(E));
    const int chunks = 128 * E / 16, seg_chunks = 32 * E / 16;
    for (int r = 0; r < 8; ++r) {
      std::vector<int> seen(size_t(chunks), 0);
      for (int c = 0; c < chunks; ++c) {
        const int p = staged_chunk(E, r, c);
        ASSERT_TRUE(p >= 0 && p < chunks) << "row " << r << " chunk " << c;
        ++seen[size_t(p)];
        EXPECT_EQ(c / 8, p / 8) << "row " << r << " chunk " << c << " leaves its 128-byte window";
      }
      for (int p = 0; p < chunks; ++p) EXPECT_EQ(1, seen[size_t(p)]) << "row " << r << " place " << p;
    }
    for (int r = 0; r < 64; ++r)  // a thread's two row segments, 64 rows apart, at the same places
      for (int c = 0; c < chunks; ++c)
        ASSERT_EQ(staged_chunk(E, r, c), staged_chunk(E, r + 64, c)) << r << " " << c;
    for (int r = 0; r < 8; r += 2)  // lanes 0-3: row r's segments 0-3; lanes 4-7: row r + 1's
      for (int i = 0; i < seg_chunks; ++i) {
        std::vector<int> group(8, 0);
        for (int lane = 0; lane < 8; ++lane) {
          const int row = r + lane / 4, s = lane % 4;
          ++group[size_t(staged_chunk(E, row, s * seg_chunks + i) % 8)];
        }
        for (int g = 0; g < 8; ++g) EXPECT_EQ(1, group[size_t(g)]) << "rows " << r << ", chunk " << i << ", group " << g;
      }
  }
}

// data_t's code buffer (code_chunk_at): each column's 8 chunks a permutation of its 128 bytes,
// and both of the kernel's accesses conflict-free in the bank model (layout/bank_model.hpp): a
// warp's 32 lanes writing chunk j of columns P apart (one column of each lane's group of P), and
// its lanes reading 4 columns' 8 chunks in order. Keyed by the column alone (the layout before),
// the writes of 2-byte inputs were 2-way conflicted.
TEST(Quantize, CodeBufferAccessesMeetInNoBank) {
  for (int P : {1, 2}) {
    SCOPED_TRACE("columns a word " + std::to_string(P));
    for (int c = 0; c < 128; ++c) {
      std::vector<int> seen(8, 0);
      for (int j = 0; j < 8; ++j) {
        const int at = code_chunk_at(c, j, P);
        ASSERT_TRUE(at >= c * 128 && at < (c + 1) * 128 && at % 16 == 0) << c << " " << j;
        ++seen[size_t(at % 128 / 16)];
      }
      EXPECT_EQ(std::vector<int>(8, 1), seen) << "column " << c;
    }
    for (int c = 0; c < 128; ++c)  // code_byte_at: the same places, a byte at a time
      for (int e = 0; e < 128; ++e)
        ASSERT_EQ(code_chunk_at(c, e / 16, P) + e % 16, code_byte_at(c, e, P)) << c << " " << e;
    for (int c = 0; c < 32; ++c)  // the stores' thread: chunk j of columns c + 32 k, 32 x 128 bytes apart
      for (int j = 0; j < 8; ++j)
        for (int k = 0; k < 4; ++k)
          ASSERT_EQ(code_chunk_at(c, j, P) + k * 32 * 128, code_chunk_at(c + 32 * k, j, P)) << c << " " << j;
    const int groups = 128 / P;
    for (int first = 0; first < groups; first += 32)  // a warp's groups
      for (int p = 0; p < P; ++p)
        for (int j = 0; j < 8; ++j) {
          std::vector<int64_t> at, keyed_by_column;
          for (int lane = 0; lane < 32; ++lane) {
            const int c = (first + lane) * P + p;
            at.push_back(code_chunk_at(c, j, P));
            keyed_by_column.push_back(c * 128 + 16 * (j ^ (c % 8)));
          }
          EXPECT_EQ(1, conflict_ways(at, 16)) << "groups " << first << ", column " << p << ", chunk " << j;
          if (P == 2) EXPECT_EQ(2, conflict_ways(keyed_by_column, 16));
        }
    for (int q0 = 0; q0 < 128 * 8; q0 += 32) {  // lanes q: column q / 8, chunk q % 8
      std::vector<int64_t> at;
      for (int q = q0; q < q0 + 32; ++q) at.push_back(code_chunk_at(q / 8, q % 8, P));
      EXPECT_EQ(1, conflict_ways(at, 16)) << q0;
    }
  }
}

// The GPU path refuses what it cannot serve, with a reason (it needs no GPU to say so): block
// shapes it does not tile.
TEST(Quantize, GpuRefusalsNameTheProblem) {
  engines::QuantizeTask t;
  t.rows = 4, t.cols = 4, t.ld = 4;
  t.recipe.scaling = Scaling::blocks, t.recipe.block_rows = 3, t.recipe.block_cols = 128;
  EXPECT_NE(nullptr, engines::quantize_refusal(t));
  t.recipe.block_rows = 1, t.recipe.block_cols = 16;  // 16 elements: fewer than 32
  EXPECT_NE(nullptr, engines::quantize_refusal(t));
  t.recipe.block_cols = 256;
  EXPECT_NE(nullptr, engines::quantize_refusal(t));
  t.recipe.block_cols = 32;
  EXPECT_EQ(nullptr, engines::quantize_refusal(t));
}

// Which kernel serves a recipe (engines/quantize): the staged one for tensor scales of 2-byte
// inputs, of fp32 where a row (x's, data's or data_t's) is off 16 bytes, and blocks of 1 x K or
// K x K with K = 32, 64, 128; quantize.cu's for the rest.
TEST(Quantize, StagedKernelServesTheRecipesMeasuredForIt) {
  using engines::QuantizeInputType;
  alignas(16) static unsigned char buffer[64];
  for (QuantizeInputType in : {QuantizeInputType::fp32, QuantizeInputType::bf16, QuantizeInputType::fp16}) {
    SCOPED_TRACE("input " + std::to_string(int(in)));
    engines::QuantizeTask t;
    t.input = in, t.x = buffer, t.rows = 4096, t.cols = 1024, t.ld = 1024, t.data = buffer, t.data_t = buffer;
    QuantizeRecipe& r = t.recipe;
    for (Scaling s : {Scaling::tensor_given, Scaling::tensor_amax}) {
      r.scaling = s;
      EXPECT_EQ(in != QuantizeInputType::fp32, engines::quantize_staged_serves(t));
      for (auto [rows, cols, ld, at] : {std::tuple{4095, 1024, 1024, 0}, std::tuple{4096, 1023, 1023, 0},
                                        std::tuple{4096, 1024, 1025, 0}, std::tuple{4096, 1024, 1024, 4}}) {
        engines::QuantizeTask odd = t;
        odd.rows = rows, odd.cols = cols, odd.ld = ld, odd.x = buffer + at;
        EXPECT_TRUE(engines::quantize_staged_serves(odd)) << rows << " x " << cols << " ld " << ld << " at " << at;
      }
    }
    r.scaling = Scaling::mx;
    EXPECT_TRUE(engines::quantize_staged_serves(t));
    r.scaling = Scaling::blocks;
    for (int k : {32, 64, 128}) {
      r.block_rows = 1, r.block_cols = k;
      EXPECT_TRUE(engines::quantize_staged_serves(t)) << "1 x " << k;
      r.block_rows = k;
      EXPECT_TRUE(engines::quantize_staged_serves(t)) << k << " x " << k;
    }
    for (auto [br, bc] : {std::pair{8, 8}, std::pair{16, 16}, std::pair{8, 32}, std::pair{32, 64}, std::pair{2, 128}}) {
      r.block_rows = br, r.block_cols = bc;
      EXPECT_FALSE(engines::quantize_staged_serves(t)) << br << " x " << bc;
    }
  }
}

}  // namespace
}  // namespace xpose::layout

namespace xpose::testing {
namespace {

// The C ABI refuses a bad quantization before anything is touched (no GPU needed), in one line;
// a layout's errors are the scale-size query's too.
TEST(Quantize, BadArgumentsAreRefusedWithoutTouchingAnything) {
  std::vector<uint8_t> host(1 << 16, poison);
  const std::vector<uint8_t> before = host;
  uint8_t* const base = host.data() + 64 - reinterpret_cast<uintptr_t>(host.data()) % 64;
  void* const x = base;                 // 16 x 16 fp32: 1024 bytes
  uint8_t* const data = base + 4096;    // 256 codes
  uint8_t* const data_t = base + 8192;  // 256 codes
  void* const scales = base + 12288;
  float* const amax = reinterpret_cast<float*>(base + 16384);
  struct Case {
    const char* message;
    xpose_status_t status;
    std::function<void(xpose_quantize_desc_t&)> desc;
    std::function<void(detail::QuantizeArgs&)> args;
    bool of_layout;
  };
  const auto none = [](detail::QuantizeArgs&) {};
  const auto keep = [](xpose_quantize_desc_t&) {};
  const Case cases[] = {
      {"struct_size is 7", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.struct_size = 7; }, none, true},
      {"desc->input is 9", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.input = 9; }, none, true},
      {"desc->format is 2", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.format = 2; }, none, true},
      {"desc->scaling is -1", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.scaling = -1; }, none, true},
      {"desc->scale_layout is 3", XPOSE_ERROR_INVALID_ARGUMENT,
       [](auto& d) { d.scale_layout = 3; }, none, true},
      {"desc->rows is negative", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.rows = -1; }, none, true},
      {"desc->ld (15) is smaller than cols", XPOSE_ERROR_INVALID_ARGUMENT, [](auto& d) { d.ld = 15; }, none, true},
      {"overflows int64", XPOSE_ERROR_INVALID_ARGUMENT,
       [](auto& d) { d.rows = d.cols = d.ld = int64_t(1) << 40; }, none, true},
      {"blocks must be 1 to 2^20", XPOSE_ERROR_INVALID_ARGUMENT,
       [](auto& d) { d.scaling = XPOSE_SCALING_BLOCKS, d.block_rows = 0; }, none, true},
      {"tiled scale layout is MXFP8's", XPOSE_ERROR_INVALID_ARGUMENT,
       [](auto& d) { d.scale_layout = XPOSE_SCALES_TILED_128X4; }, none, true},
      {"powers of two", XPOSE_ERROR_NOT_SUPPORTED,
       [](auto& d) { d.scaling = XPOSE_SCALING_BLOCKS, d.block_rows = 3; }, none, false},
      {"x is a null pointer", XPOSE_ERROR_INVALID_ARGUMENT, keep, [](auto& a) { a.x = nullptr; }, false},
      {"x is not aligned", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.x = static_cast<const uint8_t*>(a.x) + 2; }, false},
      {"no output", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.data = a.data_t = a.scales = nullptr, a.amax = nullptr; }, false},
      {"needs the amax output", XPOSE_ERROR_INVALID_ARGUMENT, keep, [](auto& a) { a.amax = nullptr; }, false},
      {"amax is not aligned", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.amax = reinterpret_cast<float*>(reinterpret_cast<uint8_t*>(a.amax) + 2); }, false},
      {"scales is not aligned", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.scales = static_cast<uint8_t*>(a.scales) + 1; }, false},
      {"x and data overlap", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.data = static_cast<uint8_t*>(const_cast<void*>(a.x)) + 1000; }, false},
      {"data and data_t overlap", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.data_t = static_cast<uint8_t*>(a.data) + 255; }, false},
      {"past the end of the address space", XPOSE_ERROR_INVALID_ARGUMENT, keep,
       [](auto& a) { a.data_t = reinterpret_cast<uint8_t*>(UINTPTR_MAX - 100); }, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    xpose_quantize_desc_t d;
    xpose_quantize_desc_init(&d);
    d.rows = d.cols = 16;
    c.desc(d);
    detail::QuantizeArgs a{&d, x, data, data_t, scales, nullptr, amax};
    c.args(a);
    EXPECT_EQ(c.status, xpose_quantize(a.desc, a.x, a.data, a.data_t, a.scales, a.scales_t, a.amax, nullptr));
    EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(c.message)) << xpose_last_error();
    EXPECT_EQ(std::string::npos, std::string(xpose_last_error()).find('\n'));
    if (c.of_layout) {
      size_t bytes = 3;
      EXPECT_EQ(c.status, xpose_quantize_scales_bytes(&d, 0, &bytes));
      EXPECT_EQ(3u, bytes);
    }
  }
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_quantize(nullptr, x, data, nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_STREQ("desc is a null pointer", xpose_last_error());
  EXPECT_EQ(0, std::memcmp(host.data(), before.data(), host.size())) << "a refused call wrote something";
}

// Every fp16 and bf16 bit pattern widens exactly (NaN keeping its sign), as an independent
// definition computes it.
TEST(Quantize, HalvesWidenExactly) {
  for (uint32_t h = 0; h < 65536; ++h) {
    const uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    float want;
    if (exp == 0x1F) {
      const uint32_t bits = sign | 0x7F800000u | (man << 13);
      std::memcpy(&want, &bits, 4);
    } else {
      want = exp ? std::ldexp(float(man | 0x400), int(exp) - 25) : std::ldexp(float(man), -24);
      if (sign) want = -want;
    }
    const float got = layout::widen_fp16(uint16_t(h));
    ASSERT_EQ(0, std::memcmp(&got, &want, 4)) << "fp16 0x" << std::hex << h;
    const float b = layout::widen_bf16(uint16_t(h));
    uint32_t bits;
    std::memcpy(&bits, &b, 4);
    ASSERT_EQ(h << 16, bits);
  }
}

// The C++ CPU path: the reference on host memory, bf16 widened, with the C ABI's checks.
TEST(Quantize, HostPathIsTheReference) {
  std::mt19937_64 rng(fresh_seed());
  const int64_t rows = 70, cols = 150;
  std::vector<uint16_t> x(size_t(rows * cols));
  std::vector<float> wide(x.size());
  for (size_t k = 0; k < x.size(); ++k) wide[k] = layout::widen_bf16(x[k] = uint16_t(rng()));
  xpose_quantize_desc_t d;
  xpose_quantize_desc_init(&d);
  d.input = XPOSE_QUANTIZE_BF16, d.rows = rows, d.cols = cols;
  d.scaling = XPOSE_SCALING_MX, d.scale_layout = XPOSE_SCALES_TILED_128X4;
  std::vector<uint8_t> data(x.size()), data_t(x.size()), want(x.size()), want_t(x.size());
  std::vector<uint8_t> scales(xpose::quantize_scales_bytes(d, false)), want_scales(scales.size());
  float amax = -1, want_amax = -2;
  xpose::quantize_host(d, x.data(), {data.data(), data_t.data(), scales.data(), nullptr, &amax});
  layout::QuantizeRecipe r;
  r.scaling = layout::Scaling::mx, r.layout = layout::ScaleLayout::tiled_128x4;
  cpu::quantize({wide.data(), rows, cols, cols}, r, {want.data(), want_t.data(), want_scales.data(), nullptr, &want_amax});
  EXPECT_EQ(want, data);
  EXPECT_EQ(want_t, data_t);
  EXPECT_EQ(want_scales, scales);
  EXPECT_EQ(want_amax, amax);
  d.scaling = XPOSE_SCALING_TENSOR_AMAX;
  EXPECT_THROW(xpose::quantize_host(d, x.data(), {data.data()}), xpose::Error);  // current scaling needs amax
}

// The scale outputs' sizes as the layouts lay them out; an empty matrix is a call that writes nothing.
TEST(Quantize, ScaleBytesFollowTheLayouts) {
  xpose_quantize_desc_t d;
  xpose_quantize_desc_init(&d);
  d.rows = 300, d.cols = 1000;
  size_t bytes = 0;
  ASSERT_EQ(XPOSE_SUCCESS, xpose_quantize_scales_bytes(&d, 0, &bytes));
  EXPECT_EQ(4u, bytes);  // one scale_inv
  d.scaling = XPOSE_SCALING_BLOCKS, d.block_rows = 1, d.block_cols = 128;
  ASSERT_EQ(XPOSE_SUCCESS, xpose_quantize_scales_bytes(&d, 0, &bytes));
  EXPECT_EQ(size_t(300 * 8 * 4), bytes);
  ASSERT_EQ(XPOSE_SUCCESS, xpose_quantize_scales_bytes(&d, 1, &bytes));
  EXPECT_EQ(size_t(1000 * 3 * 4), bytes);
  d.scaling = XPOSE_SCALING_MX, d.scale_layout = XPOSE_SCALES_TILED_128X4;
  ASSERT_EQ(XPOSE_SUCCESS, xpose_quantize_scales_bytes(&d, 0, &bytes));
  EXPECT_EQ(size_t(384 * 32), bytes);  // rows padded to 128, ceil(1000 / 32) = 32 scales a row
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_quantize_scales_bytes(&d, 0, nullptr));
  d.rows = 0;
  EXPECT_EQ(XPOSE_SUCCESS, xpose_quantize(&d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr));
}

}  // namespace
}  // namespace xpose::testing
