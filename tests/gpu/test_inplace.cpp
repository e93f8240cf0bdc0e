// In-place transposition on the GPU through the C ABI (xpose_transpose_inplace), square
// matrices: bit for bit what the CPU path (cpu::transpose_inplace) makes of the same random
// bytes, every element size, sides one off each path's tile, bases on and off 16 bytes (the
// vector path and the element path, each seen), batches past one launch's grid; guard bands
// around the matrices untouched; refused requests leave the matrix as it was.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cpu/inplace.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

constexpr size_t kGuard = 256;

// One in-place call on random bytes at `offset` bytes past a 16-byte boundary; the image
// (guards included) against the CPU path's. Returns the path the call took.
std::string check_square(std::mt19937_64& rng, int64_t E, int64_t n, int64_t batch, size_t offset) {
  SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(batch) + " x " + std::to_string(n) + "^2, base + " +
               std::to_string(offset));
  const size_t bytes = size_t(n * n * batch * E), at = kGuard + offset;
  std::vector<uint8_t> image(bytes + at + kGuard, poison);
  for (size_t i = at; i < at + bytes; ++i) image[i] = uint8_t(rng());
  std::vector<uint8_t> want = image;
  cpu::transpose_inplace(want.data() + at, n, n, E, batch);
  DeviceImage d(image);
  EXPECT_TRUE(d.ok());
  if (!d.ok()) return "";
  const std::string path = explain_inplace(E, n, n, batch, d.data() + at);
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace(d.data() + at, n, n, E, batch, nullptr, 0, nullptr))
      << xpose_last_error();
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const int64_t first = first_difference(d.read(), want);
  EXPECT_EQ(-1, first) << "first difference at byte " << first << " (the matrices start at " << at << ")";
  return path;
}

TEST(Inplace, GpuSquareMatchesTheCpuPath) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int64_t E : {1, 2, 4, 8, 16}) {
    bool vectors = false, elements = false;
    for (int64_t n : {1, 2, 31, 32, 33, 48, 63, 64, 65, 80, 100, 257, 1024, 1040})
      for (int64_t batch : {1, 3})
        for (size_t offset : {size_t(0), size_t(E < 16 ? E : 8)}) {
          const std::string path = check_square(rng, E, n, batch, offset);
          vectors |= path.find("vectors") != std::string::npos;
          elements |= path.find("elements") != std::string::npos;
          if (HasFailure()) return;
        }
    EXPECT_TRUE(vectors && elements) << E << "-byte elements: both paths should have run";
  }
  // More matrices than one launch's grid holds (65535 a launch), on each path.
  check_square(rng, 4, 4, 65539, 0);
  check_square(rng, 2, 3, 65539, 2);
}

TEST(Inplace, RefusedRequestsLeaveTheMatrixAlone) {
  XPOSE_REQUIRE_GPU();
  std::vector<uint8_t> image(4096);
  fill_random(image, fresh_seed());
  DeviceImage d(image);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, xpose_transpose_inplace(d.data(), 16, 32, 4, 1, nullptr, 0, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace(d.data() + 1, 16, 16, 4, 1, nullptr, 0, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace(d.data(), 16, 16, 3, 1, nullptr, 0, nullptr));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(-1, first_difference(d.read(), image));
}

}  // namespace
}  // namespace xpose::testing
