// In-place transposition on the GPU through the C ABI (xpose_transpose_inplace): bit for bit
// the transpose of the same random bytes (square matrices against the CPU path,
// cpu::transpose_inplace; rectangular ones against a plain out-of-place transpose), every
// element size, sides one off each path's tile, bases on and off 16 bytes (the vector path and
// the element path, each seen), matrices ending where their allocation does, batches past one
// launch's grid; rectangles whose sides share a factor from 16 bytes to units past the default
// shared memory (blocks of one element, small ones turned whole, larger ones by tile pairs;
// units whole and cut into pieces) and sides sharing less (the strips path), tall, wide, odd
// and prime, with a random workspace of exactly the size asked for; guard bands around the
// matrices untouched; refused requests leave the matrix as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cpu/inplace.hpp"
#include "layout/inplace.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

constexpr size_t kGuard = 256;

// One in-place call on random bytes at `offset` bytes past a 16-byte boundary; the image
// (guards included) against the CPU path's. Returns the path the call took. With guard 0 the
// matrix ends where its allocation does (compute-sanitizer sees any read past it).
std::string check_square(std::mt19937_64& rng, int64_t E, int64_t n, int64_t batch, size_t offset, size_t guard = kGuard) {
  SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(batch) + " x " + std::to_string(n) + "^2, base + " +
               std::to_string(offset) + ", guards of " + std::to_string(guard));
  const size_t bytes = size_t(n * n * batch * E), at = guard + offset;
  std::vector<uint8_t> image(bytes + at + guard, poison);
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
    for (int64_t n : {1, 2, 31, 32, 33, 48, 63, 64, 65, 80, 100, 127, 128, 129, 257, 260, 1024, 1026, 1040})
      for (int64_t batch : {1, 3})
        for (size_t offset : {size_t(0), size_t(E < 16 ? E : 8)}) {
          const std::string path = check_square(rng, E, n, batch, offset);
          vectors |= path.find("vectors") != std::string::npos;
          elements |= path.find(E <= 2 ? "shifted words" : "elements") != std::string::npos;
          if (HasFailure()) return;
        }
    EXPECT_TRUE(vectors && elements) << E << "-byte elements: both paths (vectors; shifted words or elements) should have run";
    for (int64_t n : {129, 259})  // matrices that end where their allocation does
      for (size_t offset : {size_t(E < 16 ? E : 8), size_t(3 * E)}) check_square(rng, E, n, 1, offset, 0);
  }
  // More matrices than one launch's grid holds (65535 a launch), on each path.
  check_square(rng, 4, 4, 65539, 0);
  check_square(rng, 2, 3, 65539, 2);
}

// One rectangular call on random bytes at `offset` bytes past a 16-byte boundary, with the
// workspace the query gives (random bytes, guarded too); the image against a plain transpose.
std::string check_rectangle(std::mt19937_64& rng, int64_t E, int64_t m, int64_t n, int64_t batch, size_t offset) {
  SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(batch) + " x " + std::to_string(m) + " x " +
               std::to_string(n) + ", base + " + std::to_string(offset));
  const size_t bytes = size_t(m * n * batch * E), at = kGuard + offset;
  std::vector<uint8_t> image(bytes + at + kGuard, poison);
  for (size_t i = at; i < at + bytes; ++i) image[i] = uint8_t(rng());
  std::vector<uint8_t> want = image;
  for (int64_t k = 0; k < batch; ++k)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(&want[at + size_t((k * m * n + j * m + i) * E)], &image[at + size_t((k * m * n + i * n + j) * E)],
                    size_t(E));
  size_t workspace_bytes = 0;
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace_workspace(m, n, E, batch, &workspace_bytes)) << xpose_last_error();
  // Units: a bit a piece, 1/128 of the matrix at most. Sides sharing under 16 bytes: a bit a row
  // piece of a strip (1/1024 of the matrix at most, and a bit a row of the long side for a
  // narrower last strip) and 127 rows a band of 32768 or more (two bitmaps of 256-byte blocks).
  const int64_t W = E == 8 ? 64 : 128, rows_bits = std::min(m, n) % W ? (std::max(m, n) * batch + 7) / 8 : 0;
  if (layout::narrow_takes(m, n, E))  // narrow: a bit a piece, a word a chunk, an eighth of a matrix
    EXPECT_LE(workspace_bytes, bytes / 8 + bytes / 1024 + 768 + size_t(128 * batch)) << "past the stated bound";
  else if (std::gcd(m, n) * E >= 16)
    EXPECT_LE(workspace_bytes * 128, bytes + 128 * 16) << "more than 1/128 of the matrix";
  else
    EXPECT_LE(workspace_bytes, bytes / 1024 + bytes * 127 / 32768 + size_t(rows_bits) + 512) << "past the stated bound";
  std::vector<uint8_t> scratch(workspace_bytes + 2 * kGuard);
  for (auto& v : scratch) v = uint8_t(rng());
  DeviceImage d(image), w(scratch);
  EXPECT_TRUE(d.ok() && w.ok());
  if (!d.ok() || !w.ok()) return "";
  const std::string path = explain_inplace(E, m, n, batch, d.data() + at);
  EXPECT_EQ(XPOSE_SUCCESS,
            xpose_transpose_inplace(d.data() + at, m, n, E, batch, w.data() + kGuard, workspace_bytes, nullptr))
      << xpose_last_error();
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
  const int64_t first = first_difference(d.read(), want);
  EXPECT_EQ(-1, first) << "first difference at byte " << first << " (the matrices start at " << at << "; " << path << ")";
  const std::vector<uint8_t> after = w.read();
  EXPECT_TRUE(std::equal(after.begin(), after.begin() + kGuard, scratch.begin()) &&
              std::equal(after.end() - kGuard, after.end(), scratch.end() - kGuard))
      << "the workspace's guard bands changed";
  return path;
}

TEST(Inplace, GpuRectangleMatchesATranspose) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int64_t E : {1, 2, 4, 8, 16}) {
    const int64_t g0 = (16 + E - 1) / E;  // the smallest shared factor served
    bool vectors = false, elements = false;
    const std::vector<std::array<int64_t, 3>> shapes = {
        {2 * g0, g0, 1},      {g0, 2 * g0, 2},      {3 * 64, 2 * 64, 1},   {2 * 33, 3 * 33, 1},
        {1000 * g0, g0, 1},   {g0, 1000 * g0, 1},   {7 * 97, 5 * 97, 2},   {2 * 1031, 1031, 1},
        {40 * 48, 3 * 48, 3}, {2 * 31, 31, 1},      {3 * 32, 2 * 32, 2},   {97 * 5, 61 * 5, 1},
        {97, 61, 2},          {3 * 512, 2 * 512, 1}, {3, 5, 1}};
    for (auto [m, n, batch] : shapes) {
      for (size_t offset : {size_t(0), size_t(E < 16 ? E : 8)}) {
        const std::string path = check_rectangle(rng, E, m, n, batch, offset);
        vectors |= path.find("as vectors") != std::string::npos;
        elements |= path.find(E <= 2 ? "as shifted words" : "as elements") != std::string::npos;
        if (HasFailure()) return;
      }
    }
    for (int t = 0; t < 12; ++t) {  // random shared factors and cofactors, tall and wide
      const int64_t g = g0 + int64_t(rng() % 100), a = 1 + int64_t(rng() % 12), b = 1 + int64_t(rng() % 12);
      check_rectangle(rng, E, a * g, b * g, 1 + int64_t(rng() % 3), rng() % 2 ? 0 : size_t(E < 16 ? E : 8));
      if (HasFailure()) return;
    }
    EXPECT_TRUE(vectors && elements) << E << "-byte elements: both tile paths should have run";
  }
  // Units of 51 KiB (past the default 48 KiB of shared memory a block), and more blocks than one
  // launch's grid holds.
  check_rectangle(rng, 16, 2 * 3200, 3200, 1, 0);
  check_rectangle(rng, 1, 263 * 16, 257 * 16, 1, 0);  // 67591 blocks of 16 x 16 (both sides past the narrow path's)
}

// Sides sharing fewer than 16 bytes (the strips path): coprime and sharing 2 or 3, tall and wide,
// short sides under a strip, one off it and past shared memory's default, rows of odd bytes,
// one band in parts (a cluster) and several (rows read past a band's end from the workspace),
// batches, bases on and off 16 bytes; then random shapes.
TEST(Inplace, GpuRectangleSharingLittleMatchesATranspose) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int64_t E : {1, 2, 4, 8}) {
    const int64_t W = E == 8 ? 64 : 128;  // the strip width
    const std::vector<std::array<int64_t, 3>> shapes = {
        {3, 2, 1}, {2, 3, 1}, {101, 100, 3}, {100, 101, 1}, {1000, 7, 2}, {7, 1000, 1}, {999, W + 1, 1},
        {W - 1, 1001, 1}, {2 * 97, 3 * 61, 1}, {3 * 61, 2 * 97, 2}, {2 * 3001, 2 * 1999, 1}, {W, 1001, 1},
        {1001, 2 * W, 1}, {1001, 3 * W + 5, 1}, {300, 257, 1},  // parts of 256 rows and a short last one
        {2 * 32768 + 5, 37, 1}, {37, 2 * 32768 + 5, 2}, {3 * 32768 + 1, 21, 1}, {21, 3 * 32768 + 1, 1},  // bands
        {8193, 2, 1}, {5, 2 * 32768 + 3, 1},
        E == 8 ? std::array<int64_t, 3>{6151, 6152, 1} : std::array<int64_t, 3>{7919, 7907, 1}};  // 48 KiB rows
    for (auto [m, n, batch] : shapes) {
      if (std::gcd(m, n) * E >= 16) continue;
      for (size_t offset : {size_t(0), size_t(E)}) {
        check_rectangle(rng, E, m, n, batch, offset);
        if (HasFailure()) return;
      }
    }
    // Past the narrow path's short sides: two bands of rows, each reading rows past its end;
    // random sides past it, tall and wide (1- and 2-byte sides up to 3000 are all narrow).
    check_rectangle(rng, E, 2 * 32768 + 5, layout::narrow_max_side(E) + 13, 1, 0);
    if (HasFailure()) return;
    for (int t = 0; t < 4; ++t) {
      const int64_t side = layout::narrow_max_side(E) + 1, m = side + int64_t(rng() % 1500), n = side + int64_t(rng() % 1500);
      if (m == n || std::gcd(m, n) * E >= 16) continue;
      check_rectangle(rng, E, m, n, 1 + int64_t(rng() % 2), rng() % 2 ? 0 : size_t(E));
      if (HasFailure()) return;
    }
    for (int t = 0; t < 16; ++t) {  // random sides up to 3000, coprime or sharing a little
      const int64_t g = 1 + int64_t(rng() % 3), m = g * (1 + int64_t(rng() % 3000)), n = g * (1 + int64_t(rng() % 3000));
      if (m == n || std::gcd(m, n) * E >= 16) continue;
      check_rectangle(rng, E, m, n, 1 + int64_t(rng() % 2), rng() % 2 ? 0 : size_t(E));
      if (HasFailure()) return;
    }
  }
}

// Narrow rectangles (a side of 384 to 3072 or fewer, sides sharing less than a piece): whole in shared
// memory (32 KiB or less), blocks of 512 bytes of a column with the last rows through the
// workspace or none left, blocks of an eighth of the rows, one spread chunk a row and many,
// tall and wide, batches (of matrices whose bytes are a multiple of 16 and not), bases on and
// off 16 bytes; then random shapes.
TEST(Inplace, GpuNarrowRectangleMatchesATranspose) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int narrow = 0;
  for (int64_t E : {1, 2, 4, 8, 16}) {
    const int64_t b = 512 / E;
    const std::vector<std::array<int64_t, 3>> shapes = {
        {1000, 3, 2},      {3, 1000, 1},       {40 * b, 3, 1},     {3, 40 * b + 1, 2},  {9 * b - 1, 31, 1},
        {31, 9 * b + 7, 1}, {33 * b + 5, 2, 3}, {2, 33 * b + 5, 1}, {300001, 5, 1},      {7, 200003, 1},
        {12345, 32, 1},    {32, 12347, 2},     {5000, 17, 1},      {17, 5000, 1},
        {1000 * 16, 16, 1}, {8, 4096 * 8 + 8, 2}, {30000 * 32, 32, 1}, {24, 24 * 5001, 1},  // sides sharing g
        {20011, 33, 1},    {100, 30001, 1},    {4099, 192, 2},     {383, 7001, 1},      {12000, 384, 1},
        {257, 3 * b + 1, 1},  // sides of 33-384: blocks of up to 96 / 192 KiB in shared memory
        {4099, 191, 2}, {191, 4099, 3}, {2001, 45, 3}, {37, 5003, 2}, {1915, 1763, 2},  // matrices off 16 bytes
        {7001, layout::narrow_max_side(E), 1}, {layout::narrow_max_side(E) - 1, 5003, 1}, {3001, 1000, 1}};  // pieces under 512 bytes
    for (auto [m, n, batch] : shapes) {
      if (!layout::narrow_takes(m, n, E)) continue;
      for (size_t offset : {size_t(0), size_t(E < 16 ? E : 8)}) {
        const std::string path = check_rectangle(rng, E, m, n, batch, offset);
        narrow += path.find("narrow") != std::string::npos;
        if (HasFailure()) return;
      }
    }
    for (int t = 0; t < 12; ++t) {
      const int64_t k = 2 + int64_t(rng() % (t % 3 ? 31 : layout::narrow_max_side(E) - 1));
      const int64_t most = std::min<int64_t>(100000, 4000000 / k);
      const int64_t m = t % 2 ? k * (1 + int64_t(rng() % (most / k + 1))) : 1 + int64_t(rng() % most);
      if (m == k || !layout::narrow_takes(m, k, E)) continue;
      const bool wide = rng() % 2;
      check_rectangle(rng, E, wide ? k : m, wide ? m : k, 1 + int64_t(rng() % 3), rng() % 2 ? 0 : size_t(E < 16 ? E : 8));
      if (HasFailure()) return;
    }
  }
  EXPECT_GT(narrow, 60) << "the narrow path should have taken these";
}

TEST(Inplace, RefusedRequestsLeaveTheMatrixAlone) {
  XPOSE_REQUIRE_GPU();
  std::vector<uint8_t> image(65536);
  fill_random(image, fresh_seed());
  DeviceImage d(image);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, xpose_transpose_inplace(d.data(), 50000, 50001, 4, 1, nullptr, 0, nullptr));
  size_t bytes = 0;  // u8 20000 x 3: served (narrow, past 32 KiB), with a workspace
  ASSERT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace_workspace(20000, 3, 1, 1, &bytes));
  ASSERT_GT(bytes, 0u);
  ASSERT_LT(bytes, 4096u);
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace(d.data(), 20000, 3, 1, 1, nullptr, 0, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
            xpose_transpose_inplace(d.data(), 20000, 3, 1, 1, d.data() + 61440, bytes - 1, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace(d.data() + 1, 16, 16, 4, 1, nullptr, 0, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace(d.data(), 16, 16, 3, 1, nullptr, 0, nullptr));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(-1, first_difference(d.read(), image));
}

}  // namespace
}  // namespace xpose::testing
