// In-place transposition: the three passes' index math (layout/inplace.hpp) on its own (each
// pass permutes within a column or a row, and together they transpose), and the CPU path
// (cpu/inplace.cpp) bit for bit against a plain out-of-place transpose on random bytes: every
// element size, shapes coprime and not, square, one row or column, batches.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/inplace.hpp"
#include "engines/inplace/inplace.hpp"
#include "layout/inplace.hpp"
#include "support/testing.hpp"

namespace xpose {
namespace {

// Each pass applied to the elements' original linear indices: a bijection within its columns
// or rows, and the last array the transpose.
void check_passes(int64_t m, int64_t n) {
  SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
  const layout::InplaceShape s = layout::inplace_shape(m, n);
  std::vector<int64_t> a(size_t(m * n)), b(a.size(), -1);
  for (int64_t k = 0; k < m * n; ++k) a[size_t(k)] = k;
  for (int64_t j = 0; j < n; ++j)  // 1: gather within column j
    for (int64_t i = 0; i < m; ++i) b[size_t(i * n + j)] = a[size_t(layout::rotated_from(s, i, j) * n + j)];
  a.assign(a.size(), -1);
  for (int64_t i = 0; i < m; ++i)  // 2: scatter within row i
    for (int64_t j = 0; j < n; ++j) {
      const int64_t d = layout::row_destination(s, i, j);
      ASSERT_TRUE(d >= 0 && d < n);
      ASSERT_EQ(-1, a[size_t(i * n + d)]) << "row " << i << ": two columns go to " << d;
      a[size_t(i * n + d)] = b[size_t(i * n + j)];
    }
  for (int64_t j = 0; j < n; ++j) {  // 3: gather within column j
    std::vector<bool> taken(size_t(m), false);
    for (int64_t r = 0; r < m; ++r) {
      const int64_t from = layout::column_from(s, r, j);
      ASSERT_TRUE(from >= 0 && from < m);
      ASSERT_FALSE(taken[size_t(from)]) << "column " << j << ": row " << from << " taken twice";
      taken[size_t(from)] = true;
      b[size_t(r * n + j)] = a[size_t(from * n + j)];
    }
  }
  // Now the buffer is the n x m transpose: position p holds original element (p % m, p / m).
  for (int64_t p = 0; p < m * n; ++p) ASSERT_EQ((p % m) * n + p / m, b[size_t(p)]) << "position " << p;
}

TEST(Inplace, ThreePassesTranspose) {
  for (auto [m, n] : {std::pair{2, 3}, std::pair{3, 2}, std::pair{4, 6}, std::pair{6, 4}, std::pair{12, 18},
                      std::pair{7, 7}, std::pair{1, 9}, std::pair{9, 1}, std::pair{32, 1000}, std::pair{1000, 32},
                      std::pair{96, 60}, std::pair{128, 256}})
    check_passes(m, n);
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 200 && !::testing::Test::HasFailure(); ++t) check_passes(1 + rng() % 60, 1 + rng() % 60);
}

// Pass 3's gather is a rotation of each column by its index, then one permutation of whole rows.
TEST(Inplace, ColumnPassIsARotationThenARowPermutation) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 400; ++t) {
    const int64_t m = 1 + int64_t(rng() % (t < 300 ? 60 : 3000)), n = 1 + int64_t(rng() % (t < 300 ? 60 : 3000));
    const layout::InplaceShape s = layout::inplace_shape(m, n);
    std::vector<bool> taken(size_t(m), false);
    for (int64_t r = 0; r < m; ++r) {
      const int64_t from = layout::row_from(s, r);
      ASSERT_TRUE(from >= 0 && from < m);
      ASSERT_FALSE(taken[size_t(from)]) << m << " x " << n << ": row " << from << " taken twice";
      taken[size_t(from)] = true;
      for (int64_t c = 0; c < n; c += 1 + int64_t(rng() % (t < 300 ? 7 : 97)))
        ASSERT_EQ(layout::column_from(s, r, c), (from + c) % m) << m << " x " << n << " (" << r << ", " << c << ")";
    }
  }
}

// The row walk gives the closed form step by step.
TEST(Inplace, RowWalkFollowsTheClosedForm) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 300; ++t) {
    const int64_t m = 1 + int64_t(rng() % (t < 150 ? 40 : 5000)), n = 1 + int64_t(rng() % (t % 2 ? 40 : 5000));
    const layout::InplaceShape s = layout::inplace_shape(m, n);
    const int64_t i = int64_t(rng() % uint64_t(m));
    layout::RowWalk row(s, i % m);
    for (int64_t j = 0; j < n; ++j, row.next())
      ASSERT_EQ(layout::row_destination(s, i % m, j), row.destination)
          << m << " x " << n << " row " << i % m << " col " << j;
  }
}

TEST(Inplace, CpuPathMatchesAnOutOfPlaceTranspose) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1},     {1, 17, 2},    {17, 1, 1},    {5, 5, 3},
                                                {64, 64, 1},   {33, 65, 2},   {48, 36, 1},   {1000, 24, 1},
                                                {24, 1000, 1}, {257, 255, 1}, {640, 480, 1}, {3, 4096, 2}};
  for (int t = 0; t < 20; ++t)
    shapes.push_back({int64_t(1 + rng() % 300), int64_t(1 + rng() % 300), int64_t(1 + rng() % 3)});
  for (int64_t E : {1, 2, 4, 8, 16})
    for (const auto& [m, n, batch] : shapes) {
      SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(batch) + " x " + std::to_string(m) + " x " +
                   std::to_string(n));
      const size_t bytes = size_t(m * n * batch * E);
      std::vector<uint8_t> data(bytes + 64), want(bytes + 64);
      for (auto& v : data) v = uint8_t(rng());
      want = data;
      for (int64_t k = 0; k < batch; ++k)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j)
            std::memcpy(&want[size_t(((k * m * n) + j * m + i) * E)], &data[size_t(((k * m * n) + i * n + j) * E)],
                        size_t(E));
      cpu::transpose_inplace(data.data(), m, n, E, batch);
      ASSERT_EQ(0, std::memcmp(data.data(), want.data(), data.size()))
          << "first difference at byte " << testing::first_difference(data, want);
    }
}

// The GPU path refuses what it cannot take, with a reason (no GPU needed to say so).
TEST(Inplace, GpuRefusalsNameTheProblem) {
  engines::InplaceTask t;
  t.data = reinterpret_cast<void*>(uintptr_t(4096));
  t.n = 100, t.elem_bytes = 4;
  EXPECT_EQ(nullptr, engines::inplace_refusal(t));
  t.elem_bytes = 3;
  EXPECT_NE(nullptr, engines::inplace_refusal(t));
  t.elem_bytes = 16, t.data = reinterpret_cast<void*>(uintptr_t(4104));  // 8-byte aligned only
  EXPECT_NE(nullptr, engines::inplace_refusal(t));
  t.data = nullptr;
  EXPECT_NE(nullptr, engines::inplace_refusal(t));
  t.n = 0;
  EXPECT_EQ(nullptr, engines::inplace_refusal(t));  // nothing to do: no data needed
  t.n = -1;
  EXPECT_NE(nullptr, engines::inplace_refusal(t));
  t.n = 32 * 65536, t.data = reinterpret_cast<void*>(uintptr_t(4096));
  EXPECT_NE(nullptr, engines::inplace_refusal(t));  // more tiles a side than a grid takes
}

}  // namespace
}  // namespace xpose
