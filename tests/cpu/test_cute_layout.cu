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
#include "layout/micro_block.hpp"

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

// A swizzled layout of a rows x cols tile maps its elements onto 0 .. rows x cols - 1 once
// each: a permutation of the plain tile, no space lost.
template <class Layout>
void expect_permutation(const Layout& layout, int rows, int cols) {
  std::set<int> offsets;
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) offsets.insert(int(layout(r, c)));
  EXPECT_EQ(size_t(rows * cols), offsets.size());
  EXPECT_EQ(rows * cols - 1, *offsets.rbegin());
}

template <int E>
void check_element_size() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = CuteTile<E>;
  const auto swizzled = T::swizzled();
  expect_permutation(swizzled, T::rows, T::cols);

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

// One side's TiledCopy of the vectorized pair, as the kernels build it (the atom's
// operation does not change the partitions).
template <int E, bool StoreSide>
auto vec_side_copy() {
  using Atom = cute::Copy_Atom<cute::UniversalCopy<cute::uint128_t>, cute::uint_byte_t<E>>;
  if constexpr (StoreSide) return CuteVecTile<E>::template store_copy<Atom>();
  else return CuteVecTile<E>::template load_copy<Atom>();
}

// The vectorized pair's walks, replayed with the kernels' own TiledCopy partitions: each
// register-fragment index i is one warp instruction (element i of every thread's vectors
// stored to, or gathered from, shared memory on its own).
template <int E, bool StoreSide, class Smem>
int vec_walk_ways(const Smem& smem) {
  using T = CuteVecTile<E>;
  const auto ids = cute::make_identity_tensor(typename T::Shape{});
  const auto copy = vec_side_copy<E, StoreSide>();
  const auto mine = [&](int thread) {
    auto slice = copy.get_thread_slice(thread);
    if constexpr (StoreSide) return slice.partition_S(ids);
    else return slice.partition_D(ids);
  };
  int worst = 0;
  for (int warp = 0; warp < T::threads / 32; ++warp)
    for (int i = 0; i < int(cute::size(mine(0))); ++i) {
      std::vector<int64_t> addresses;
      for (int lane = 0; lane < 32; ++lane) {
        const auto rc = mine(warp * 32 + lane)(i);
        addresses.push_back(int64_t(smem(cute::get<0>(rc), cute::get<1>(rc))) * E);
      }
      worst = std::max(worst, conflict_ways(addresses, E));
    }
  return worst;
}

// Every tile element belongs to one thread's vector; a vector is `vec` adjacent elements
// of a src row (load side) or of a tile column, a dst row (store side); a warp's lanes take
// adjacent vectors, so each global access is a coalesced run of 16-byte pieces.
template <int E, bool StoreSide>
void check_vec_partition() {
  using T = CuteVecTile<E>;
  SCOPED_TRACE("element size " + std::to_string(E) + (StoreSide ? ", store side" : ", load side"));
  const auto ids = cute::make_identity_tensor(typename T::Shape{});
  const auto copy = vec_side_copy<E, StoreSide>();
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < T::threads; ++t) {
    const auto part = copy.get_thread_slice(t).partition_S(ids);  // (vector, m, n)
    ASSERT_EQ(T::vec, int(cute::size<0>(part)));
    for (int i = 0; i < int(cute::size(part)); ++i)
      EXPECT_TRUE(seen.emplace(int(cute::get<0>(part(i))), int(cute::get<1>(part(i)))).second);
    for (int k = 0; k < T::vec; ++k) {  // the first vector: adjacent along the access direction
      const auto a = part(k, 0, 0), first = part(0, 0, 0);
      EXPECT_EQ(int(cute::get<0>(first)) + (StoreSide ? k : 0), int(cute::get<0>(a)));
      EXPECT_EQ(int(cute::get<1>(first)) + (StoreSide ? 0 : k), int(cute::get<1>(a)));
    }
    if (t % 32 != 31 && (t + 1) % (T::tile / T::vec) != 0) {  // the next lane takes the next vector
      const auto next = copy.get_thread_slice(t + 1).partition_S(ids)(0, 0, 0), first = part(0, 0, 0);
      EXPECT_EQ(int(cute::get<0>(first)) + (StoreSide ? T::vec : 0), int(cute::get<0>(next)));
      EXPECT_EQ(int(cute::get<1>(first)) + (StoreSide ? 0 : T::vec), int(cute::get<1>(next)));
    }
  }
  EXPECT_EQ(size_t(T::tile * T::tile), seen.size());
}

template <int E>
void check_vec_tile() {
  SCOPED_TRACE("element size " + std::to_string(E));
  using T = CuteVecTile<E>;
  const auto swizzled = T::swizzled();
  expect_permutation(swizzled, T::tile, T::tile);
  EXPECT_EQ(1, (vec_walk_ways<E, false>(swizzled)));  // cute_vectorized_swizzled: both walks conflict-free
  EXPECT_EQ(1, (vec_walk_ways<E, true>(swizzled)));
  if (E < 16) EXPECT_GT((vec_walk_ways<E, true>(T::plain())), 1);  // cute_vectorized: the column gather conflicts
  check_vec_partition<E, false>();
  check_vec_partition<E, true>();
}

TEST(CuteVecTiles, BothWalksOfTheSwizzledTileAreConflictFree) {
  check_vec_tile<1>();
  check_vec_tile<2>();
  check_vec_tile<4>();
  check_vec_tile<8>();
  check_vec_tile<16>();
}

// cute_tma's turn, replayed on CuTe's own swizzled tiles (both layouts): every micro-block
// once, each word whole inside one 16-byte chunk, and the worst conflict of its shared-
// memory reads and writes (m words per micro-block, one warp instruction per word index).
// An element's offset in cute_tma's tile, found as the kernel finds it: through a tensor
// over a shared-memory pointer (here a 1024-byte-aligned host array). The layouts carry
// their swizzle on the pointer (smem_ptr_flag), so the layout alone gives the unswizzled
// offset.
template <class Tile>
int swizzled_offset(int r, int c) {
  using T = typename Tile::T;
  alignas(1024) static T tile[Tile::edge * Tile::edge];
  const auto t = cute::make_tensor(cute::make_smem_ptr(tile), typename Tile::Smem{});
  return int(&t(r, c) - tile);
}

// cute_tma's in-place turn, replayed on the host: the owners of the diagonal walk (blocks
// on or above the diagonal) read and write their block and its mirror; returns the worst
// conflict of the two access sets (each warp instruction: word k of every active lane's
// block, or of its mirror), and checks each word lies whole inside one 16-byte chunk.
template <class Tile>
std::pair<int, int> tma_turn_ways() {
  constexpr int E = sizeof(typename Tile::T), m = MicroTraits<E>::m, side = Tile::edge / m, word = m * E;
  // A warp's accesses of `word` bytes are served in phases of lanes (all 32 up to 4 bytes,
  // 128 / word lanes above), by lane number: idle lanes leave gaps, not shifts.
  constexpr int phase = word <= 4 ? 32 : 128 / word;
  static_assert(walk_width(word) == phase, "the walk's width is the phase");
  int upper_ways = 0, lower_ways = 0, owners = 0;
  for (int first = 0; first < side * side; first += phase)
    for (int k = 0; k < m; ++k) {
      std::vector<int64_t> upper, lower;
      for (int t = first; t < first + phase; ++t) {
        const auto b = diagonal_micro_block<phase>(t, side);
        if (b.row > b.col) continue;
        if (k == 0) ++owners;
        const int r = b.row * m, c = b.col * m;
        const int64_t up = int64_t(swizzled_offset<Tile>(r + k, c)) * E;
        const int64_t low = int64_t(swizzled_offset<Tile>(c + k, r)) * E;
        EXPECT_EQ(up / 16, (up + word - 1) / 16);  // a word never straddles a chunk
        for (int i = 1; i < m; ++i) EXPECT_EQ(int64_t(swizzled_offset<Tile>(r + k, c + i)) * E, up + i * E);
        upper.push_back(up);
        lower.push_back(low);
      }
      if (upper.empty()) continue;
      upper_ways = std::max(upper_ways, conflict_ways(upper, word));
      lower_ways = std::max(lower_ways, conflict_ways(lower, word));
    }
  EXPECT_EQ(side * (side + 1) / 2, owners);  // every pair (and diagonal block) has one owner
  return {upper_ways, lower_ways};
}

// The kernel's in-place turn itself, run on the host over a tile of distinct values laid out
// through the swizzle: afterwards element (c, r) holds what (r, c) held.
template <class Tile>
void check_turn_in_place() {
  constexpr int E = sizeof(typename Tile::T), n = Tile::edge;
  SCOPED_TRACE("element size " + std::to_string(E));
  using Word = typename WordOf<MicroTraits<E>::m * E>::type;
  std::vector<uint8_t> bytes(size_t(n) * n * E);
  const auto value = [](int r, int c, int byte) { return uint8_t((r * 131 + c * 7 + byte * 59) % 251); };
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int i = 0; i < E; ++i) bytes[size_t(swizzled_offset<Tile>(r, c)) * E + i] = value(r, c, i);
  const auto word = [&](int r, int c) -> Word& {
    return *reinterpret_cast<Word*>(bytes.data() + size_t(swizzled_offset<Tile>(r, c)) * E);
  };
  turn_in_place<E, n>(word, 0, 1);  // the kernel's turn, one thread doing every owner's part
  int wrong = 0;
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c)
      for (int i = 0; i < E; ++i) wrong += bytes[size_t(swizzled_offset<Tile>(c, r)) * E + i] != value(r, c, i);
  EXPECT_EQ(0, wrong);
}

template <int E, bool WholeRows>
void check_tma_tile() {
  using Tile = CuteTmaTile<E, WholeRows>;
  SCOPED_TRACE(std::string(WholeRows ? "whole rows" : "slabs") + ", element size " + std::to_string(E));
  // A tile's offsets are a permutation of the buffer (the swizzle loses nothing).
  std::vector<int> seen(size_t(Tile::edge) * Tile::edge, 0);
  for (int r = 0; r < Tile::edge; ++r)
    for (int c = 0; c < Tile::edge; ++c) ++seen.at(size_t(swizzled_offset<Tile>(r, c)));
  EXPECT_EQ(seen.size(), size_t(std::count(seen.begin(), seen.end(), 1)));
  const std::pair<int, int> ways = tma_turn_ways<Tile>();
  EXPECT_EQ(std::make_pair(1, 1), ways);
  check_turn_in_place<Tile>();
}

TEST(CuteTmaTile, TheInPlaceTurnIsConflictFree) {
  check_tma_tile<1, false>();
  check_tma_tile<2, false>();
  check_tma_tile<4, false>();
  check_tma_tile<8, false>();
  check_tma_tile<1, true>();
  check_tma_tile<2, true>();
  check_tma_tile<4, true>();
  check_tma_tile<8, true>();
}

// Both layouts are CuTe's 128-byte swizzle: 16-byte chunk q of a 128-byte row lands at
// q ^ (that row's index % 8), fp32 here. In slabs a tile row is two 128-byte rows 64 apart;
// in whole rows it is two consecutive ones, each row's 256 bytes contiguous.
TEST(CuteTmaTile, BothLayoutsAreThe128ByteSwizzle) {
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c) {
      const int half = c / 32, chunk = (c % 32) / 4;
      EXPECT_EQ(half * 64 * 32 + r * 32 + ((chunk ^ (r % 8)) * 4) + c % 4, (swizzled_offset<CuteTmaTile<4, false>>(r, c)));
      const int row128 = 2 * r + half;
      EXPECT_EQ(row128 * 32 + ((chunk ^ (row128 % 8)) * 4) + c % 4, (swizzled_offset<CuteTmaTile<4, true>>(r, c)));
    }
}

// Whole rows need both sides' rows in whole 128-byte segments.
TEST(CuteTmaTile, WholeRowsNeedWhole128ByteSegmentsOnBothSides) {
  EXPECT_TRUE(cute_tma_whole_rows(4, 32768, 32768));
  EXPECT_TRUE(cute_tma_whole_rows(4, 96, 160));   // partial tiles, whole segments
  EXPECT_FALSE(cute_tma_whole_rows(4, 112, 160)); // dst rows of 112 floats: 3.5 segments
  EXPECT_FALSE(cute_tma_whole_rows(4, 96, 208));
  EXPECT_TRUE(cute_tma_whole_rows(2, 64, 192));
  EXPECT_FALSE(cute_tma_whole_rows(2, 64, 96));
  EXPECT_TRUE(cute_tma_whole_rows(8, 16, 48));
  EXPECT_FALSE(cute_tma_whole_rows(8, 16, 40));
  EXPECT_TRUE(cute_tma_whole_rows(1, 32768, 32768));
  EXPECT_TRUE(cute_tma_whole_rows(1, 384, 128));   // bytes: 256x256 tiles, odd segment counts
  EXPECT_FALSE(cute_tma_whole_rows(1, 32768, 32752));
  EXPECT_FALSE(cute_tma_whole_rows(16, 4096, 4096));
  // every tile row is 256 bytes in whole-row tiles; bytes' tiles double their edge there
  EXPECT_EQ(256, (CuteTmaTile<1, true>::edge));
  EXPECT_EQ(128, (CuteTmaTile<1, false>::edge));
  EXPECT_EQ(64, (CuteTmaTile<4, true>::edge));
  EXPECT_EQ(64, (CuteTmaTile<4, false>::edge));
}

}  // namespace
}  // namespace xpose::layout
