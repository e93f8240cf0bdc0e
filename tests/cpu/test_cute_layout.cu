// The CuTe family's shared-memory tiles, computed with CuTe's layouts on the host and
// replayed through the bank model: a warp reading a column of the swizzled or padded
// tile meets every bank at most once per wavefront, for every element size; the plain
// tile has seed 001's conflict. For fp32 the bank-id table is printed as the seed does.
#include <gtest/gtest.h>

#include <cute/tensor.hpp>

#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "layout/bank_model.hpp"
#include "layout/cute_tiles.hpp"

namespace xpose::layout {
namespace {

// The shared-tile kernel's two walks, warp by warp, through a given smem layout: AlongRows
// writes the tile, DownColumns reads it. Returns the worst conflict of each.
template <int E, class Threads, class Smem>
int walk_ways(const Smem& smem) {
  using T = CuteTile<E>;
  const auto ids = cute::make_identity_tensor(typename T::Shape{});
  const int per_thread = T::rows * T::cols / cute_threads;
  int worst = 0;
  for (int warp = 0; warp < cute_threads / 32; ++warp)
    for (int i = 0; i < per_thread; ++i) {
      std::vector<int64_t> addresses;
      for (int lane = 0; lane < 32; ++lane) {
        const auto rc = cute::local_partition(ids, Threads{}, warp * 32 + lane)(i);
        addresses.push_back(int64_t(smem(cute::get<0>(rc), cute::get<1>(rc))) * E);
      }
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

  // DownColumns reads the tile's columns (32 rows of one column per warp), AlongRows
  // writes its rows (32 consecutive elements per warp): the kernels' own walks.
  EXPECT_EQ(1, (walk_ways<E, DownColumns>(swizzled)));  // cute_swizzled
  EXPECT_EQ(1, (walk_ways<E, AlongRows>(swizzled)));
  EXPECT_EQ(1, (walk_ways<E, DownColumns>(T::padded())));  // cute_padded
  EXPECT_EQ(1, (walk_ways<E, AlongRows>(T::padded())));
  EXPECT_GT((walk_ways<E, DownColumns>(T::plain())), 1);  // cute_smem_conflict_read: seed 001's conflict
  EXPECT_EQ(1, (walk_ways<E, AlongRows>(T::plain())));
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

// The kernels' thread partitions, replayed on the host: each thread layout hands every
// element of the tile to exactly one thread, and a warp's consecutive lanes take adjacent
// columns (AlongRows: coalesced src reads) or adjacent rows (DownColumns: coalesced writes
// to dst, whose rows are the tile's columns).
template <int E, class Threads>
void check_partition(bool lanes_along_columns) {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = CuteTile<E>;
  const auto ids = cute::make_identity_tensor(typename T::Shape{});
  std::map<std::pair<int, int>, int> owner;
  for (int t = 0; t < cute_threads; ++t) {
    const auto mine = cute::local_partition(ids, Threads{}, t);
    for (int i = 0; i < int(cute::size(mine)); ++i) {
      const std::pair<int, int> rc{int(cute::get<0>(mine(i))), int(cute::get<1>(mine(i)))};
      EXPECT_TRUE(owner.emplace(rc, t).second) << "element (" << rc.first << ", " << rc.second << ") twice";
    }
  }
  EXPECT_EQ(size_t(T::rows * T::cols), owner.size());
  for (int t = 0; t + 1 < 32; ++t) {  // lanes of warp 0, first element each
    const auto a = cute::local_partition(ids, Threads{}, t)(0), b = cute::local_partition(ids, Threads{}, t + 1)(0);
    if (lanes_along_columns) {
      EXPECT_EQ(int(cute::get<0>(a)), int(cute::get<0>(b)));
      EXPECT_EQ(int(cute::get<1>(a)) + 1, int(cute::get<1>(b)));
    } else {
      EXPECT_EQ(int(cute::get<0>(a)) + 1, int(cute::get<0>(b)));
      EXPECT_EQ(int(cute::get<1>(a)), int(cute::get<1>(b)));
    }
  }
}

template <int E>
void check_kernel_walks() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = CuteTile<E>;
  // (the row-major, padded and swizzled tiles: ColumnReadsAreConflictFreeExceptOnThePlainTile)
  const auto column_major = cute::make_layout(typename T::Shape{}, cute::GenColMajor{});
  EXPECT_GT((walk_ways<E, AlongRows>(column_major)), 1);  // cute_smem_conflict_write
  EXPECT_EQ(1, (walk_ways<E, DownColumns>(column_major)));
}

TEST(CuteTiles, TheSharedTileKernelsConflictWhereTheirNamesSay) {
  check_kernel_walks<1>();
  check_kernel_walks<2>();
  check_kernel_walks<4>();
  check_kernel_walks<8>();
  check_kernel_walks<16>();
}

TEST(CuteTiles, ThreadPartitionsCoverTheTileOnceAndCoalesce) {
  check_partition<1, AlongRows>(true);
  check_partition<1, DownColumns>(false);
  check_partition<4, AlongRows>(true);
  check_partition<4, DownColumns>(false);
  check_partition<16, AlongRows>(true);
  check_partition<16, DownColumns>(false);
}

}  // namespace
}  // namespace xpose::layout
