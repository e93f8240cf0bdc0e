// The CuTe family's shared-memory tiles, computed with CuTe's layouts on the host and
// replayed through the bank model: a warp reading a column of the swizzled or padded
// tile meets every bank at most once per wavefront, for every element size; the plain
// tile has seed 001's conflict. For fp32 the bank-id table is printed as the seed does.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <vector>

#include "layout/bank_model.hpp"
#include "layout/cute_tiles.hpp"

namespace xpose::layout {
namespace {

template <int E, class Layout>
int column_read_ways(const Layout& tile, int c) {
  std::vector<int64_t> addresses;
  for (int r = 0; r < CuteTile<E>::rows; ++r) addresses.push_back(int64_t(tile(r, c)) * E);
  return conflict_ways(addresses, E);
}

template <int E, class Layout>
int worst_column_ways(const Layout& tile) {
  int worst = 0;
  for (int c = 0; c < CuteTile<E>::cols; ++c) worst = std::max(worst, column_read_ways<E>(tile, c));
  return worst;
}

template <int E, class Layout>
int worst_row_ways(const Layout& tile) {  // 32 consecutive elements of a row per warp
  int worst = 0;
  for (int r = 0; r < CuteTile<E>::rows; ++r)
    for (int c0 = 0; c0 < CuteTile<E>::cols; c0 += 32) {
      std::vector<int64_t> addresses;
      for (int t = 0; t < 32; ++t) addresses.push_back(int64_t(tile(r, c0 + t)) * E);
      worst = std::max(worst, conflict_ways(addresses, E));
    }
  return worst;
}

template <int E>
void check_element_size() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = CuteTile<E>;
  const auto swizzled = T::swizzled();
  std::set<int> offsets;
  for (int r = 0; r < T::rows; ++r)
    for (int c = 0; c < T::cols; ++c) offsets.insert(int(swizzled(r, c)));
  EXPECT_EQ(size_t(T::rows * T::cols), offsets.size());  // a permutation of the plain tile
  EXPECT_EQ(T::rows * T::cols - 1, *offsets.rbegin());

  EXPECT_EQ(1, worst_column_ways<E>(swizzled));
  EXPECT_EQ(1, worst_row_ways<E>(swizzled));
  EXPECT_EQ(1, worst_column_ways<E>(T::padded()));
  EXPECT_EQ(1, worst_row_ways<E>(T::padded()));
  EXPECT_GT(worst_column_ways<E>(T::plain()), 1);  // the conflict the ladder shows
  EXPECT_EQ(1, worst_row_ways<E>(T::plain()));
}

TEST(CuteTiles, ColumnReadsAreConflictFreeExceptOnThePlainTile) {
  check_element_size<1>();
  check_element_size<2>();
  check_element_size<4>();
  check_element_size<8>();
  check_element_size<16>();
}

TEST(CuteTiles, SeedSwizzleForFloatAndDouble) {
  // Seed 001: Swizzle<log2(32 * 4 / sizeof(T)), 0, log2(64)>.
  EXPECT_EQ(5, CuteTile<4>::B);
  EXPECT_EQ(0, CuteTile<4>::M);
  EXPECT_EQ(6, CuteTile<4>::S);
  EXPECT_EQ(4, CuteTile<8>::B);
  EXPECT_EQ(0, CuteTile<8>::M);
  EXPECT_EQ(6, CuteTile<8>::S);
}

TEST(CuteTiles, Fp32BankIdsOfEveryColumnAreAll32Banks) {
  const auto tile = CuteTile<4>::swizzled();
  std::printf("bank ids of the swizzled fp32 tile (32 x 64), seed 001's table:\n");
  for (int r = 0; r < 32; ++r) {
    for (int c = 0; c < 64; ++c) std::printf("%2d ", int(tile(r, c)) % 32);
    std::printf("\n");
  }
  for (int c = 0; c < 64; ++c) {
    std::set<int> banks;
    for (int r = 0; r < 32; ++r) banks.insert(int(tile(r, c)) % 32);
    EXPECT_EQ(32u, banks.size()) << "column " << c;
  }
}

}  // namespace
}  // namespace xpose::layout
