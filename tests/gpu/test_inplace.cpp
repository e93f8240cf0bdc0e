// In-place transposition on the GPU (engines/inplace), square matrices: bit for bit what the CPU
// path (cpu::transpose_inplace) makes of the same random bytes, every element size, sides one off
// the 32-element tile, batches; guard bands around the matrices untouched.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu/inplace.hpp"
#include "engines/inplace/inplace.hpp"
#include "support/testing.hpp"

namespace xpose::testing {
namespace {

TEST(Inplace, GpuSquareMatchesTheCpuPath) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  constexpr size_t guard = 256;
  for (int64_t E : {1, 2, 4, 8, 16})
    for (int64_t n : {1, 2, 31, 32, 33, 100, 257, 1024})
      for (int64_t batch : {1, 3}) {
        SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(batch) + " x " + std::to_string(n) + "^2");
        const size_t bytes = size_t(n * n * batch * E);
        std::vector<uint8_t> image(bytes + 2 * guard, poison);
        for (size_t i = guard; i < guard + bytes; ++i) image[i] = uint8_t(rng());
        std::vector<uint8_t> want = image;
        cpu::transpose_inplace(want.data() + guard, n, n, E, batch);
        DeviceImage d(image);
        ASSERT_TRUE(d.ok());
        engines::InplaceTask t;
        t.data = d.data() + guard, t.n = n, t.elem_bytes = E, t.batch = batch;
        ASSERT_EQ(nullptr, engines::inplace_refusal(t));
        XPOSE_CUDA_OK(engines::transpose_inplace_square(t, nullptr));
        XPOSE_CUDA_OK(cudaDeviceSynchronize());
        const int64_t at = first_difference(d.read(), want);
        ASSERT_EQ(-1, at) << "first difference at byte " << at << " (the matrices start at " << guard << ")";
      }
}

}  // namespace
}  // namespace xpose::testing
