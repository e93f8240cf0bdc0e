// FP8 casts (layout/fp8.hpp) against an oracle that knows nothing of their bit tricks: the
// nearest of the 256 decoded codes, ties to the even code, beyond the largest finite value
// the rule of the overflow mode; over every fp16 and bf16 value, fp32 edges, and random fp32
// bit patterns. Decoding is checked against the OCP tables' anchors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "layout/fp8.hpp"
#include "support/testing.hpp"

namespace xpose::layout {
namespace {

// The oracle: codes of non-negative finite values in increasing order, and the value a
// virtual code one past the largest would have (the next binade step), for ties at the top.
struct Oracle {
  Fp8 kind;
  std::vector<std::pair<double, uint8_t>> finite;  // (value, code), 0 .. max
  double past_max = 0;

  explicit Oracle(Fp8 k) : kind(k) {
    for (int c = 0; c < 128; ++c) {
      const float v = fp8_to_float(uint8_t(c), k);
      if (std::isfinite(v)) finite.push_back({double(v), uint8_t(c)});
    }
    const double max = finite.back().first, below = finite[finite.size() - 2].first;
    past_max = max + (max - below);
  }

  uint8_t encode(float x, Overflow overflow) const {
    const Fp8Format f = fp8_format(kind);
    const uint8_t sign = std::signbit(x) ? 0x80 : 0x00;
    if (std::isnan(x)) return uint8_t(sign | f.nan_code);
    const uint8_t too_large = overflow == Overflow::saturate ? f.max_code : f.has_inf ? uint8_t(0x7C) : f.nan_code;
    const double a = std::fabs(double(x));
    if (std::isinf(x)) return uint8_t(sign | too_large);
    const double max = finite.back().first;
    if (a > max) {  // between max and the virtual next code: nearest, ties to even
      const double mid = (max + past_max) / 2;
      const bool up = a > mid || (a == mid && (finite.back().second & 1));
      return uint8_t(sign | (up ? too_large : finite.back().second));
    }
    size_t best = 0;
    for (size_t i = 1; i < finite.size(); ++i) {
      const double d = std::fabs(finite[i].first - a), e = std::fabs(finite[best].first - a);
      if (d < e || (d == e && !(finite[i].second & 1))) best = i;
    }
    return uint8_t(sign | finite[best].second);
  }
};

float from_half_bits(uint16_t h) {  // IEEE binary16 to fp32, exactly
  const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (man << 13));
  if (exp == 0) return (h & 0x8000 ? -1.0f : 1.0f) * std::ldexp(float(man), -24);
  return bits_float(sign | ((exp - 15 + 127) << 23) | (man << 13));
}

void expect_matches(const Oracle& o, float x, Overflow overflow, const std::string& what) {
  const uint8_t got = fp8_from_float(x, o.kind, overflow), want = o.encode(x, overflow);
  if (got != want)
    ADD_FAILURE() << what << ": " << (o.kind == Fp8::e4m3 ? "e4m3" : "e5m2") << " of " << x << " (bits 0x" << std::hex
                  << float_bits(x) << ") is 0x" << int(got) << ", the oracle says 0x" << int(want);
}

TEST(Fp8, DecodingHitsTheFormatsAnchors) {
  EXPECT_EQ(448.0f, fp8_to_float(0x7E, Fp8::e4m3));
  EXPECT_TRUE(std::isnan(fp8_to_float(0x7F, Fp8::e4m3)));
  EXPECT_EQ(std::ldexp(1.0f, -9), fp8_to_float(0x01, Fp8::e4m3));
  EXPECT_EQ(std::ldexp(1.0f, -6), fp8_to_float(0x08, Fp8::e4m3));
  EXPECT_EQ(57344.0f, fp8_to_float(0x7B, Fp8::e5m2));
  EXPECT_TRUE(std::isinf(fp8_to_float(0x7C, Fp8::e5m2)));
  EXPECT_TRUE(std::isnan(fp8_to_float(0x7E, Fp8::e5m2)));
  EXPECT_EQ(std::ldexp(1.0f, -16), fp8_to_float(0x01, Fp8::e5m2));
  EXPECT_EQ(-2.0f, fp8_to_float(0xC0, Fp8::e4m3));
  EXPECT_TRUE(std::signbit(fp8_to_float(0x80, Fp8::e5m2)));
  for (Fp8 k : {Fp8::e4m3, Fp8::e5m2})  // every finite code decodes and encodes back to itself
    for (int c = 0; c < 256; ++c) {
      const float v = fp8_to_float(uint8_t(c), k);
      if (std::isfinite(v)) EXPECT_EQ(c, fp8_from_float(v, k, Overflow::ieee)) << c;
    }
}

TEST(Fp8, EdgesAsMlDtypesCastsThem) {  // the values checked against ml_dtypes 0.6.0 by hand
  EXPECT_EQ(0x7E, fp8_from_float(464.0f, Fp8::e4m3, Overflow::ieee));   // a tie: to 448
  EXPECT_EQ(0x7F, fp8_from_float(480.0f, Fp8::e4m3, Overflow::ieee));   // NaN
  EXPECT_EQ(0x7E, fp8_from_float(480.0f, Fp8::e4m3, Overflow::saturate));
  EXPECT_EQ(0xFF, fp8_from_float(-INFINITY, Fp8::e4m3, Overflow::ieee));
  EXPECT_EQ(0xFE, fp8_from_float(-INFINITY, Fp8::e4m3, Overflow::saturate));
  EXPECT_EQ(0x7C, fp8_from_float(61440.0f, Fp8::e5m2, Overflow::ieee));  // a tie: up to infinity
  EXPECT_EQ(0x7B, fp8_from_float(61440.0f, Fp8::e5m2, Overflow::saturate));
  EXPECT_EQ(0x7E, fp8_from_float(NAN, Fp8::e5m2, Overflow::saturate));
  EXPECT_EQ(0x00, fp8_from_float(std::ldexp(1.0f, -10), Fp8::e4m3, Overflow::ieee));  // half the smallest: to 0
  EXPECT_EQ(0x01, fp8_from_float(1.5f * std::ldexp(1.0f, -10), Fp8::e4m3, Overflow::ieee));
  EXPECT_EQ(0x80, fp8_from_float(-0.0f, Fp8::e4m3, Overflow::ieee));
  EXPECT_EQ(0x01, fp8_from_float(0.75f * std::ldexp(1.0f, -16), Fp8::e5m2, Overflow::ieee));
}

TEST(Fp8, EveryHalfAndBfloat16AndRandomFloatsMatchTheOracle) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (Fp8 k : {Fp8::e4m3, Fp8::e5m2}) {
    const Oracle o(k);
    for (Overflow overflow : {Overflow::ieee, Overflow::saturate}) {
      for (uint32_t h = 0; h < 65536 && !::testing::Test::HasFailure(); ++h) {
        expect_matches(o, from_half_bits(uint16_t(h)), overflow, "fp16");
        expect_matches(o, bits_float(h << 16), overflow, "bf16");
      }
      for (int i = 0; i < testing::trials(200000) && !::testing::Test::HasFailure(); ++i)
        expect_matches(o, bits_float(uint32_t(rng())), overflow, "random fp32");
      for (float x : {0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f, 3.4028235e38f, -3.4028235e38f})
        expect_matches(o, x, overflow, "fp32 edge");
    }
  }
}

}  // namespace
}  // namespace xpose::layout
