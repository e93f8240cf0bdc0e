// FP8 quantization on the GPU through the C ABI (xpose_quantize) against the CPU reference
// (cpu/quantize), bit for bit: every recipe, fp32, bf16 and fp16 inputs of random bits (NaN, infinities and
// subnormals among them) and of normal values, shapes one off the 128 x 128 tile, padded
// rows; every output poisoned with guard bands first, each output alone and all together.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/quantize.hpp"
#include "core/quantize.hpp"
#include "support/quantize.hpp"
#include "support/testing.hpp"

namespace xpose::testing {
namespace {

using detail::QuantizeInputType;
using layout::Fp8;
using layout::QuantizeRecipe;
using layout::Scaling;

float half_to_float(uint16_t h) {  // exact
  const uint32_t sign = uint32_t(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF;
  float v;
  if (exp == 0x1F) {
    const uint32_t bits = sign | 0x7F800000u | (man << 13);
    std::memcpy(&v, &bits, 4);
    return v;
  }
  v = exp ? std::ldexp(float(man | 0x400), int(exp) - 25) : std::ldexp(float(man), -24);
  return sign ? -v : v;
}

struct Input {
  QuantizeInputType type;
  int64_t rows, cols, ld;
  std::vector<uint8_t> bytes;  // as the GPU reads it
  std::vector<float> values;   // widened, as the reference reads it
};

// ld: 0 for cols plus 0 to 2 at random.
Input make_input(std::mt19937_64& rng, QuantizeInputType type, int64_t rows, int64_t cols, bool random_bits,
                 int64_t ld = 0) {
  Input in{type, rows, cols, ld ? ld : cols + int64_t(rng() % 3), {}, {}};
  const size_t E = type == QuantizeInputType::fp32 ? 4 : 2, n = size_t(rows * in.ld);
  in.bytes.resize(n * E);
  in.values.resize(n);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (size_t k = 0; k < n; ++k) {
    float v = normal(rng) * std::ldexp(1.0f, int(rng() % 20) - 10);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    if (random_bits) bits = uint32_t(rng());
    if (type == QuantizeInputType::fp32) {
      std::memcpy(&in.bytes[k * 4], &bits, 4);
      std::memcpy(&in.values[k], &bits, 4);
    } else if (type == QuantizeInputType::bf16) {
      const uint16_t h = uint16_t(bits >> 16);
      std::memcpy(&in.bytes[k * 2], &h, 2);
      const uint32_t wide = uint32_t(h) << 16;
      std::memcpy(&in.values[k], &wide, 4);
    } else {
      uint16_t h = uint16_t(bits);
      if (!random_bits) {  // a normal value as fp16: through its float value, truncated
        const float w = std::fmax(std::fmin(v, 60000.0f), -60000.0f);
        const int e = std::ilogb(w == 0 ? 1.0f : w);
        h = w == 0 || e < -14
                ? 0
                : uint16_t((w < 0 ? 0x8000 : 0) | ((e + 15) << 10) | (int(std::ldexp(std::fabs(w), 10 - e)) & 0x3FF));
      }
      std::memcpy(&in.bytes[k * 2], &h, 2);
      in.values[k] = half_to_float(h);
    }
  }
  return in;
}

// The outputs' images: each output with guard bands of poison around it.
struct Images {
  std::vector<uint8_t> data, data_t, scales, scales_t, amax;
};

constexpr size_t kGuard = 64;

Images poisoned(const QuantizeRecipe& r, int64_t rows, int64_t cols) {
  const size_t scale_bytes = size_t(layout::scale_bytes(r));
  Images im;
  im.data.assign(size_t(rows * cols) + 2 * kGuard, poison);
  im.data_t.assign(size_t(rows * cols) + 2 * kGuard, poison);
  im.scales.assign(size_t(layout::scale_count(r, rows, cols)) * scale_bytes + 2 * kGuard, poison);
  im.scales_t.assign(size_t(layout::scale_count(r, cols, rows)) * scale_bytes + 2 * kGuard, poison);
  im.amax.assign(4 + 2 * kGuard, poison);
  return im;
}

// x_shift: x starts that many elements past an aligned address (a view into a larger buffer).
void check(const Input& in, const QuantizeRecipe& r, bool all_outputs, int which, int x_shift = 0) {
  // The reference into poisoned images.
  Images want = poisoned(r, in.rows, in.cols);
  const bool wants[5] = {all_outputs || which == 0, all_outputs || which == 1, all_outputs || which == 2,
                         all_outputs || which == 3, all_outputs || which == 4 || r.scaling == Scaling::tensor_amax};
  cpu::QuantizeOutput ref;
  if (wants[0]) ref.data = want.data.data() + kGuard;
  if (wants[1]) ref.data_t = want.data_t.data() + kGuard;
  if (wants[2]) ref.scales = want.scales.data() + kGuard;
  if (wants[3]) ref.scales_t = want.scales_t.data() + kGuard;
  if (wants[4]) ref.amax = reinterpret_cast<float*>(want.amax.data() + kGuard);
  cpu::quantize({in.values.data(), in.rows, in.cols, in.ld}, r, ref);

  const Images start = poisoned(r, in.rows, in.cols);
  const size_t shift_bytes = size_t(x_shift) * (in.type == QuantizeInputType::fp32 ? 4 : 2);
  std::vector<uint8_t> x_bytes(shift_bytes, poison);
  x_bytes.insert(x_bytes.end(), in.bytes.begin(), in.bytes.end());
  DeviceImage x(x_bytes), data(start.data), data_t(start.data_t), scales(start.scales), scales_t(start.scales_t),
      amax(start.amax);
  ASSERT_TRUE(x.ok() && data.ok() && data_t.ok() && scales.ok() && scales_t.ok() && amax.ok());
  const xpose_quantize_desc_t desc = quantize_desc(r, int(in.type), in.rows, in.cols, in.ld);
  const auto at = [&](bool wanted, const DeviceImage& image) { return wanted ? image.data() + kGuard : nullptr; };
  ASSERT_EQ(XPOSE_SUCCESS, xpose_quantize(&desc, x.data() + shift_bytes, at(wants[0], data), at(wants[1], data_t),
                                          at(wants[2], scales), at(wants[3], scales_t),
                                          reinterpret_cast<float*>(at(wants[4], amax)), nullptr))
      << xpose_last_error();
  XPOSE_CUDA_OK(cudaDeviceSynchronize());
  const std::pair<const char*, std::pair<const DeviceImage*, const std::vector<uint8_t>*>> outputs[] = {
      {"data", {&data, &want.data}},
      {"data_t", {&data_t, &want.data_t}},
      {"scales", {&scales, &want.scales}},
      {"scales_t", {&scales_t, &want.scales_t}},
      {"amax", {&amax, &want.amax}}};
  for (const auto& [name, images] : outputs) {
    const int64_t at = first_difference(images.first->read(), *images.second);
    ASSERT_EQ(-1, at) << name << " differs at byte " << at << " (the output starts at " << kGuard << ")";
  }
}

TEST(Quantize, GpuMatchesTheReferenceBitForBit) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int failed_cases = 0;
  const ::testing::TestResult* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
  for (const QuantizeRecipe& r : quantize_recipes())
    for (QuantizeInputType type : {QuantizeInputType::fp32, QuantizeInputType::bf16, QuantizeInputType::fp16})
      for (auto [rows, cols] : {std::pair{1, 1}, std::pair{127, 129}, std::pair{256, 128}, std::pair{300, 33},
                                 std::pair{272, 656}, std::pair{261, 389}})  // 261 x 389: whole tiles off 16 bytes
        for (bool random_bits : {false, true}) {
          const Input in = make_input(rng, type, rows, cols, random_bits);
          SCOPED_TRACE(recipe_name(r) + ", input " + std::to_string(int(type)) + ", " + std::to_string(rows) + " x " +
                       std::to_string(cols) + " ld " + std::to_string(in.ld) +
                       (random_bits ? ", random bits, x one element off" : ""));
          const int parts = result->total_part_count();  // failures recorded so far
          check(in, r, true, 0, random_bits);  // x one element off its aligned place half the time
          for (int which = 0; which < 5; ++which) check(in, r, false, which, random_bits);
          if (result->total_part_count() > parts && ++failed_cases == 10) return;  // enough to see the pattern
        }
}

// x's rows as each load path of the staged kernel sees them, 2-byte inputs: on 4 bytes but not 16
// (ld 390: 4-byte words, the edge tiles' last word cut to 2 bytes), on 16 (ld 392: 16-byte words
// at the edges), alternating (ld 389) and all off 4 bytes (ld 390, x one element off): shifted.
TEST(Quantize, GpuEveryRowAlignmentOfTwoByteInputs) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (const auto [ld, shift] : {std::pair{390, 0}, std::pair{392, 0}, std::pair{389, 0}, std::pair{390, 1}})
    for (QuantizeInputType type : {QuantizeInputType::bf16, QuantizeInputType::fp16})
      for (const QuantizeRecipe& r : quantize_recipes()) {
        const Input in = make_input(rng, type, 261, 389, false, ld);
        SCOPED_TRACE(recipe_name(r) + ", input " + std::to_string(int(type)) + ", 261 x 389, ld " +
                     std::to_string(ld) + (shift ? ", x one element off" : ""));
        check(in, r, true, 0, shift);
        if (::testing::Test::HasFailure()) return;
      }
}

// More tiles than the SMs hold blocks at once (a 132-SM GPU holds 528), whole ones and ragged ones
// (the last row and column), x's rows 16-byte aligned and not, and sides whose output rows (data's,
// data_t's) are off 16 bytes: every recipe, every output at once.
TEST(Quantize, GpuManyTilesMatchTheReference) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  // 22 x 31 tiles: 21 x 128 + 16 (rows a multiple of 16: data_t's whole tiles go out as such),
  // 30 x 128 + 64; then one fewer of each (every output row off 16 bytes).
  int n = 0;
  for (const auto [rows, cols] : {std::pair{int64_t(2704), int64_t(3904)}, std::pair{int64_t(2703), int64_t(3903)}})
    for (const QuantizeRecipe& r : quantize_recipes()) {  // the inputs and row alignments in turn
      const QuantizeInputType type = n % 2 ? QuantizeInputType::bf16 : QuantizeInputType::fp32;
      const int64_t ld = n++ / 2 % 2 ? cols + 1 : cols;
      const Input in = make_input(rng, type, rows, cols, false, ld);
      SCOPED_TRACE(recipe_name(r) + ", input " + std::to_string(int(type)) + ", " + std::to_string(rows) + " x " +
                   std::to_string(cols) + ", ld " + std::to_string(ld));
      check(in, r, true, 0);
      if (::testing::Test::HasFailure()) return;
    }
}

}  // namespace
}  // namespace xpose::testing
