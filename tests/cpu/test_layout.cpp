// The shared-memory layouts, replayed through the CPU bank model exactly as the
// kernels walk them, for every element size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/distinct.hpp"
#include "layout/aligned_dst.hpp"
#include "layout/bank_model.hpp"
#include "layout/micro_block.hpp"
#include "layout/grid.hpp"
#include "layout/skinny.hpp"
#include "layout/tiny_batch.hpp"

namespace xpose::layout {
namespace {

// distinct_elements against counting every offset, on random small layouts of up to five axes
// (strides 0 to 40, nested or not), each with a fresh seed; a disproof's two indices are checked
// to be valid, different and at one element.
TEST(DistinctElements, AgreesWithCountingEveryOffset) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int yes = 0, no = 0, unnested_yes = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const int rank = 1 + int(rng() % 5);
    int64_t extents[5], strides[5];
    for (int i = 0; i < rank; ++i) {
      extents[i] = 1 + int64_t(rng() % 5);
      strides[i] = int64_t(rng() % 41);
    }
    std::set<int64_t> seen;
    int64_t count = 1;
    for (int i = 0; i < rank; ++i) count *= extents[i];
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t offset = 0, rest = flat;
      for (int i = 0; i < rank; ++i) offset += (rest % extents[i]) * strides[i], rest /= extents[i];
      seen.insert(offset);
    }
    const bool truth = int64_t(seen.size()) == count;
    const detail::DistinctAnswer a = detail::distinct_elements(rank, extents, strides);
    ASSERT_EQ(truth ? detail::Distinct::yes : detail::Distinct::no, a.verdict) << "trial " << trial;
    if (truth) {
      ++yes;
      std::vector<std::pair<int64_t, int64_t>> axes;
      for (int i = 0; i < rank; ++i)
        if (extents[i] > 1) axes.push_back({strides[i], extents[i]});
      std::sort(axes.begin(), axes.end());
      int64_t span = 1;
      bool nested = true;
      for (const auto& [s, n] : axes) nested = nested && s >= span, span += (n - 1) * s;
      unnested_yes += !nested;
      continue;
    }
    ++no;
    int64_t first = 0, second = 0;
    bool differ = false;
    for (int i = 0; i < rank; ++i) {
      ASSERT_TRUE(a.first[i] >= 0 && a.first[i] < extents[i] && a.second[i] >= 0 && a.second[i] < extents[i]);
      first += a.first[i] * strides[i];
      second += a.second[i] * strides[i];
      differ = differ || a.first[i] != a.second[i];
    }
    ASSERT_TRUE(differ && first == second) << "trial " << trial;
  }
  EXPECT_GT(yes, 1000);
  EXPECT_GT(no, 1000);
  EXPECT_GT(unnested_yes, 100) << "too few distinct layouts that do not nest";
}

// Out of steps, a layout that does not nest is unproven, never called overlapping; one that
// nests needs no search.
TEST(DistinctElements, AnExhaustedSearchIsUnknown) {
  const int64_t extents[] = {2, 24, 3}, interleaved[] = {39, 6, 1}, nested[] = {72, 3, 1};
  EXPECT_EQ(detail::Distinct::yes, detail::distinct_elements(3, extents, interleaved).verdict);
  EXPECT_EQ(detail::Distinct::unknown, detail::distinct_elements(3, extents, interleaved, 2).verdict);
  EXPECT_EQ(detail::Distinct::yes, detail::distinct_elements(3, extents, nested, 0).verdict);
  // Huge extents that do not nest: the search is bounded, whatever its answer.
  const int64_t big[] = {int64_t(1) << 20, int64_t(1) << 20, 7}, odd[] = {1000003, 999983, 1};
  EXPECT_NE(detail::Distinct::yes, detail::distinct_elements(3, big, odd, 1000).verdict);
}

TEST(Grid, ColumnMajorTilesVisitEveryTileOnceColumnByColumn) {
  for (uint32_t gx : {1u, 2u, 7u, 64u})
    for (uint32_t gy : {1u, 3u, 8u, 65u}) {
      std::vector<int> seen(size_t(gx) * gy, 0);
      int64_t last_x = 0, last_y = -1;
      for (uint32_t by = 0; by < gy; ++by)
        for (uint32_t bx = 0; bx < gx; ++bx) {  // CUDA's numbering: x fastest
          const layout::TilePos t = layout::column_major_tile(bx, by, gx, gy);
          ASSERT_TRUE(t.x >= 0 && t.x < gx && t.y >= 0 && t.y < gy) << gx << "x" << gy;
          ++seen[size_t(t.y) * gx + size_t(t.x)];
          // Consecutive blocks go down a column, then on to the next one's top.
          EXPECT_TRUE((t.x == last_x && t.y == last_y + 1) || (t.x == last_x + 1 && t.y == 0 && last_y == gy - 1))
              << gx << "x" << gy << " block " << bx << "," << by;
          last_x = t.x, last_y = t.y;
        }
      for (int n : seen) EXPECT_EQ(1, n) << gx << "x" << gy;
    }
}

TEST(BankModel, CountsWaysAndBroadcasts) {
  std::vector<int64_t> same_bank, distinct, same_word;
  for (int t = 0; t < 32; ++t) {
    same_bank.push_back(t * 128);
    distinct.push_back(t * 4);
    same_word.push_back(8);
  }
  EXPECT_EQ(32, conflict_ways(same_bank, 4));
  EXPECT_EQ(1, conflict_ways(distinct, 4));
  EXPECT_EQ(1, conflict_ways(same_word, 4));
  // 16-byte accesses: four phases of 8 threads; 32 consecutive vectors are conflict-free.
  std::vector<int64_t> vectors;
  for (int t = 0; t < 32; ++t) vectors.push_back(t * 16);
  EXPECT_EQ(4, wavefronts(vectors, 16));
  EXPECT_EQ(1, conflict_ways(vectors, 16));
  // Bytes of one word from several threads are one access.
  std::vector<int64_t> bytes;
  for (int t = 0; t < 32; ++t) bytes.push_back(t);
  EXPECT_EQ(1, conflict_ways(bytes, 1));
}

template <class Tile>
void expect_bijection() {
  std::set<int> seen;
  for (int r = 0; r < Tile::rows; ++r)
    for (int c = 0; c < Tile::cols; ++c) {
      const int at = Tile::at(r, c);
      EXPECT_GE(at, 0);
      EXPECT_LT(at, Tile::size);
      seen.insert(at);
    }
  EXPECT_EQ(size_t(Tile::rows) * Tile::cols, seen.size());
}

template <int E>
void check_element_size() {
  SCOPED_TRACE("element size " + std::to_string(E));
  expect_bijection<classic::Plain<E>>();
  expect_bijection<classic::Padded<E>>();
  expect_bijection<classic::Swizzled<E>>();
  expect_bijection<typename VecTile<E>::Layout>();

  const Ways plain = classic_tile_ways<E, classic::Plain<E>>();
  EXPECT_EQ(1, plain.store);  // rows are written whole
  EXPECT_GT(plain.load, 1);   // and read down a column: the conflict the ladder shows
  for (const Ways w : {classic_tile_ways<E, classic::Padded<E>>(), classic_tile_ways<E, classic::Swizzled<E>>(),
                       vec_tile_ways<E>()}) {
    EXPECT_EQ(1, w.store);
    EXPECT_EQ(1, w.load);
  }
}

TEST(Layouts, ConflictFreeExceptThePlainTileForEveryElementSize) {
  check_element_size<1>();
  check_element_size<2>();
  check_element_size<4>();
  check_element_size<8>();
  check_element_size<16>();
}

TEST(Layouts, PlainTileHasTheClassic32WayConflictFor4ByteElements) {
  EXPECT_EQ(32, (classic_tile_ways<4, classic::Plain<4>>().load));
}

TEST(Layouts, SeedSwizzleIsColumnXorRow) {
  for (int r = 0; r < 32; ++r)
    for (int c = 0; c < 32; ++c) EXPECT_EQ(r * 32 + (c ^ r), classic::Swizzled<4>::at(r, c));
}

template <int E>
void expect_vector_walks_cover_the_tile() {
  using V = VecTile<E>;
  std::set<std::pair<int, int>> loaded, stored;
  for (int v = 0; v < V::threads * V::per_thread; ++v)
    for (int k = 0; k < V::vec; ++k) {
      const auto l = V::load_coord(v, k), s = V::store_coord(v, k);
      loaded.insert({l.r, l.c});
      stored.insert({s.r, s.c});
    }
  EXPECT_EQ(size_t(V::tile * V::tile), loaded.size()) << E;
  EXPECT_EQ(loaded, stored) << E;
  EXPECT_EQ(V::vecs, V::threads * V::per_thread) << E;
  EXPECT_EQ(0, V::threads % 32) << E;
}

TEST(Layouts, VectorWalksCoverEveryElementOnceOnEachSide) {
  expect_vector_walks_cover_the_tile<1>();
  expect_vector_walks_cover_the_tile<2>();
  expect_vector_walks_cover_the_tile<4>();
  expect_vector_walks_cover_the_tile<8>();
  expect_vector_walks_cover_the_tile<16>();
}

// The in-place pairs' packed tiles (1- and 2-byte elements): every word slot used once, the
// loads and the turned rows cover the same elements once, a turned row's 16 bytes are 4
// consecutive staged words, and neither the word stores nor the 16-byte loads meet a conflict.
template <int E>
void expect_packed_pair_tile() {
  SCOPED_TRACE(std::to_string(E) + "-byte elements");
  using T = PackedPairTile<E>;
  std::set<int> slots;
  for (int c = 0; c < T::side; ++c)
    for (int g = 0; g < T::groups; ++g) slots.insert(T::at(c, g));
  EXPECT_EQ(size_t(T::size), slots.size());
  EXPECT_EQ(T::size - 1, *slots.rbegin());
  std::set<std::pair<int, int>> loaded, stored;
  for (int t = 0; t < T::threads; ++t)
    for (int i = 0; i < T::K; ++i)
      for (int k = 0; k < T::vec; ++k) loaded.insert({T::load_coord(t).r + i, T::load_coord(t).c + k});
  for (int i = 0; i < T::threads * T::stores; ++i) {
    const auto e = T::store_coord(i);
    for (int k = 0; k < T::vec; ++k) stored.insert({e.r + k, e.c});
    const int first = T::at(e.c, e.r / T::K);
    EXPECT_EQ(0, first % 4);
    for (int j = 1; j < 4; ++j) EXPECT_EQ(first + j, T::at(e.c, e.r / T::K + j));
  }
  EXPECT_EQ(size_t(T::side * T::side), loaded.size());
  EXPECT_EQ(loaded, stored);
  const Ways w = packed_pair_ways<E>();
  EXPECT_EQ(1, w.store);
  EXPECT_EQ(1, w.load);
}

TEST(Layouts, InplacePackedTilesAreConflictFree) {
  expect_packed_pair_tile<1>();
  expect_packed_pair_tile<2>();
}

TEST(TileGrid, CapsYAndZAtTheirLimits) {
  const TileWalk w = tile_walk(int64_t(3) << 30, 64, 100000, 32, 32);
  EXPECT_EQ(2, w.col_tiles);
  EXPECT_EQ(int64_t(3) << 25, w.row_tiles);  // the walk keeps the whole count ...
  const Dims d = first_grid(w);              // ... its first grid is capped
  EXPECT_EQ(2u, d.x);
  EXPECT_EQ(65535u, d.y);
  EXPECT_EQ(65535u, d.z);
  const Dims small = first_grid(tile_walk(33, 65, 1, 32, 32));
  EXPECT_EQ(3u, small.x);
  EXPECT_EQ(2u, small.y);
  EXPECT_EQ(1u, small.z);
}

// Tile counts for any extent resolve_transpose() accepts, up to INT64_MAX, without overflow.
template <int E, bool Wide = false>
void check_row_blocks_up_to_int64_max() {
  using A = AlignedDstTile<E, Wide>;
  for (int64_t rows : {int64_t(1), int64_t(A::piece - 1), int64_t(A::piece), int64_t(A::piece + 1), int64_t(1000),
                       INT64_MAX - 300, INT64_MAX})
    EXPECT_EQ(int64_t((__int128(rows) + A::max_shift + A::piece - 1) / A::piece), A::row_blocks(rows)) << E << " " << rows;
}

TEST(TileGrid, CountsTilesUpToInt64Max) {
  const auto exact = [](int64_t a, int64_t b) { return int64_t((__int128(a) + b - 1) / b); };
  for (int64_t a : {int64_t(0), int64_t(1), int64_t(63), int64_t(64), int64_t(65), INT64_MAX - 64, INT64_MAX - 1, INT64_MAX})
    for (int64_t b : {1, 7, 64, 256, 4096}) EXPECT_EQ(exact(a, b), ceil_div(a, b)) << a << " " << b;
  check_row_blocks_up_to_int64_max<1>();
  check_row_blocks_up_to_int64_max<2>();
  check_row_blocks_up_to_int64_max<4>();
  check_row_blocks_up_to_int64_max<8>();
  check_row_blocks_up_to_int64_max<1, true>();
}

// The skinny maps: element k of line i lands at dense position k * S + i of the span, every
// slot of the S dense vectors is filled once, and line_of undoes dense_slot.
template <int S, int V>
void check_skinny_span() {
  using Span = SkinnySpan<S, V>;
  std::vector<int> filled(S * V, 0);
  for (int i = 0; i < S; ++i)
    for (int k = 0; k < V; ++k) {
      const auto slot = Span::dense_slot(i, k);
      ASSERT_LT(slot.vector, S);
      EXPECT_EQ(k * S + i, slot.vector * V + slot.element);
      ++filled[slot.vector * V + slot.element];
      const auto back = Span::line_of(slot.vector, slot.element);
      EXPECT_EQ(i, back.line);
      EXPECT_EQ(k, back.k);
    }
  for (int f : filled) EXPECT_EQ(1, f);
}

TEST(Skinny, SpansMapLinesOntoTheDenseRunOnce) {
  check_skinny_span<1, 16>();
  check_skinny_span<2, 4>();
  check_skinny_span<3, 4>();
  check_skinny_span<3, 16>();
  check_skinny_span<5, 8>();
  check_skinny_span<7, 2>();
  check_skinny_span<8, 1>();
  check_skinny_span<8, 16>();
}

// skinny's staging: every dense vector has its own place within skinny_staged(S * threads), a
// thread's S vectors follow each other, the 8 threads of a quarter-warp storing their vector q
// reach 8 different bank groups of 16 bytes (S = 6: at least 4), and so do 8 consecutive dense
// vectors where S divides 8; a multiple of 8 dense vectors on adds its own offset.
template <int S>
void check_skinny_staged() {
  constexpr int threads = 256;
  std::set<int> places;
  for (int d = 0; d < S * threads; ++d) {
    const int at = skinny_staged<S>(d);
    EXPECT_LT(at, skinny_staged<S>(S * threads));
    places.insert(at);
    if (d % S) EXPECT_EQ(skinny_staged<S>(d - 1) + 1, at) << "S " << S << ", d " << d;
    for (int m : {8, 64, 256, 8 * S})
      if (m + d < S * threads) EXPECT_EQ(skinny_staged<S>(m) + at, skinny_staged<S>(m + d)) << "S " << S << ", d " << d;
  }
  EXPECT_EQ(size_t(S * threads), places.size());
  for (int quarter = 0; quarter < threads; quarter += 8)
    for (int q = 0; q < S; ++q) {
      std::set<int> groups;
      for (int t = quarter; t < quarter + 8; ++t) groups.insert(skinny_staged<S>(t * S + q) % 8);
      EXPECT_GE(groups.size(), S == 6 ? 4u : 8u) << "S " << S << ", threads " << quarter << "+, vector " << q;
    }
  if (8 % S == 0)
    for (int d = 0; d < S * threads; d += 8) {
      std::set<int> groups;
      for (int k = d; k < d + 8; ++k) groups.insert(skinny_staged<S>(k) % 8);
      EXPECT_EQ(8u, groups.size()) << "S " << S << ", dense vectors " << d << "+";
    }
}

TEST(Skinny, StagingReachesEveryBankGroupOnce) {
  check_skinny_staged<1>();
  check_skinny_staged<2>();
  check_skinny_staged<3>();
  check_skinny_staged<4>();
  check_skinny_staged<5>();
  check_skinny_staged<6>();
  check_skinny_staged<7>();
  check_skinny_staged<8>();
}

// short_lines' span: for every short side it takes, the items' elements (interleaving, item q
// is vector q / S of line q % S) land on every dense position of the span once, element k of
// line i at k * S + i.
template <int E>
void check_short_lines() {
  using L = ShortLines<E>;
  for (int S = skinny_max + 1; S <= L::max_short; ++S) {
    const int items = S * L::line_vectors;
    ASSERT_LE(items, L::max_items);
    std::vector<int> seen(size_t(S) * L::J, 0);
    for (int q = 0; q < items; ++q)
      for (int u = 0; u < L::V; ++u) {
        const int i = q % S, k = q / S * L::V + u;
        ASSERT_LT(k, L::J) << "E " << E << ", S " << S << ", q " << q << ", u " << u;
        ++seen[size_t(k * S + i)];
      }
    for (size_t at = 0; at < seen.size(); ++at) ASSERT_EQ(1, seen[at]) << "E " << E << ", S " << S << ", position " << at;
    EXPECT_EQ(size_t(items) * 16, seen.size() * E);  // the dense side's vectors are the same count
    // The staged run: dense position d = k * S + i at its vector's staged place, inside the
    // array, no two elements on one place.
    std::vector<int> staged(size_t(L::max_staged) * L::V, 0);
    for (int i = 0; i < S; ++i)
      for (int k = 0; k < L::J; ++k) {
        const int d = k * S + i, at = L::staged_at(S, i, k / L::V, k % L::V);
        ASSERT_EQ(L::staged_vector(S, d / L::V / S, d / L::V % S) * L::V + d % L::V, at)
            << "E " << E << ", S " << S << ", line " << i << ", k " << k;
        ASSERT_LT(at, int(staged.size()));
        ASSERT_EQ(0, staged[size_t(at)]++);
      }
    // De-interleaving, lanes along a line (item n: vector n % line_vectors of line n /
    // line_vectors): a warp's 32 lanes reading element u of their vectors meet at most two
    // distinct words on a bank.
    for (int warp = 0; warp * 32 < items; ++warp)
      for (int u = 0; u < L::V; ++u) {
        std::vector<std::set<int>> words(32);
        for (int n = warp * 32; n < std::min(items, warp * 32 + 32); ++n) {
          const int word = L::staged_at(S, n / L::line_vectors, n % L::line_vectors, u) * E / 4;
          words[size_t(word % 32)].insert(word);
        }
        for (const auto& w : words) ASSERT_LE(w.size(), 2u) << "E " << E << ", S " << S << ", warp " << warp << ", u " << u;
      }
    // Windows: for every skew of a line's span, the whole ones aligned, and every element of
    // the span in one window.
    ASSERT_LE(S * L::windows, L::window_per_thread * short_lines_threads);
    for (int skew = 0; skew < L::V; ++skew) {
      std::vector<int> in(size_t(L::J), 0);
      for (int j = 0; j < L::windows; ++j) {
        const int k0 = L::window_first(j, skew);
        ASSERT_EQ(0, (skew + k0) * E % 16);
        for (int u = 0; u < L::V; ++u)
          if (k0 + u >= 0 && k0 + u < L::J) {
            ++in[size_t(k0 + u)];
            for (int i : {0, S - 1})
              ASSERT_EQ(L::staged_at(S, i, (k0 + u) / L::V, (k0 + u) % L::V),
                        L::window_low(S, i, j, skew) + u * S + (u >= skew ? L::window_gap(S) : 0))
                  << "E " << E << ", S " << S << ", skew " << skew << ", window " << j << ", u " << u;
          }
      }
      for (int k = 0; k < L::J; ++k) ASSERT_EQ(1, in[size_t(k)]) << "E " << E << ", skew " << skew << ", element " << k;
    }
  }
}

TEST(Skinny, ShortLinesSpansCoverTheDenseRunOnce) {
  check_short_lines<1>();
  check_short_lines<2>();
  check_short_lines<4>();
  check_short_lines<8>();
}

// aligned_stores: for any start of a dst row (E-aligned) and any row length, the blocks'
// shifted pieces cover the row once, each starts on a 32-byte sector (the first is cut at
// row 0), every vector is 16-byte aligned, and the staged rows hold every element a piece needs.
template <int E, bool Wide = false>
void check_aligned_pieces() {
  using A = AlignedDstTile<E, Wide>;
  for (uintptr_t start = 4096; start < 4096 + 32; start += E)
    for (int64_t n : {1, 7, 31, A::piece - 1, A::piece, A::piece + 1, 1000, 4099}) {
      SCOPED_TRACE("E " + std::to_string(E) + ", row start " + std::to_string(start % 32) + ", length " + std::to_string(n));
      std::vector<int> covered(size_t(n), 0);
      for (int64_t block = 0; block < A::row_blocks(n); ++block) {
        const int64_t first_staged = block * A::piece - A::max_shift, unshifted = block * A::piece;
        const int s = A::shift(start + uintptr_t(unshifted) * E);
        ASSERT_LE(s, A::max_shift);
        EXPECT_EQ(0u, (start + uintptr_t(unshifted - s) * E) % 32);
        for (int v = 0; v < A::vecs_per_piece; ++v)
          for (int k = 0; k < A::vec; ++k) {
            const int64_t r = unshifted - s + v * A::vec + k;
            EXPECT_EQ(r, first_staged + A::tile_row(s, v, k));
            EXPECT_GE(A::tile_row(s, v, k), 0);
            EXPECT_LT(A::tile_row(s, v, k), A::rows);
            if (r >= 0 && r < n) ++covered[size_t(r)];
          }
      }
      for (int64_t r = 0; r < n; ++r) ASSERT_EQ(1, covered[size_t(r)]) << "row element " << r;
    }
}

TEST(TinyBatch, GathersEachDstElementFromItsTransposedSrcElement) {
  // Every dst index of a whole chunk of byte matrices (the most elements a chunk holds), by
  // the kernel's multiply-high divisions, against plain division.
  std::vector<std::pair<int, int>> shapes{{1, 1}, {3, 5}, {13, 11}, {32, 32}, {1, 40}, {40, 1}, {64, 64}, {1, 4096},
                                          {4096, 1}, {63, 65}, {7, 585}, {20, 30}};
  std::mt19937 rng(7);
  for (int k = 0; k < 20; ++k) {
    const int rows = 1 + int(rng() % 200);
    shapes.emplace_back(rows, 1 + int(rng() % uint32_t(4096 / rows)));
  }
  for (auto [rows, cols] : shapes) {
    const int n = rows * cols, matrices = int(TinyBatch::matrices_per_chunk(n, 1));
    const layout::FastDivmod n_div{uint32_t(n)}, rows_div{uint32_t(rows)};
    std::vector<int> seen(size_t(n) * size_t(matrices), 0);
    for (int t = 0; t < n * matrices; ++t) {
      const int q = t / n, i = t % n / rows, j = t % n % rows;  // dst element (i, j) of matrix q
      const uint32_t s = TinyBatch::src_of_dst(uint32_t(t), n_div, rows_div, uint32_t(cols));
      ASSERT_EQ(uint32_t(q * n + j * cols + i), s) << rows << "x" << cols << " t " << t;  // src element (j, i)
      ++seen[s];
    }
    for (int c : seen) ASSERT_EQ(1, c) << rows << "x" << cols;
  }
}

// The fill of the 32x64-element tiles over a matrix, against a count of the tiles' elements.
// The swizzled staging (8- and 16-byte elements in even rows) is a permutation of each 128-byte
// row that keeps every 16-byte vector whole (its elements permuted by vector_mask), and spreads
// the gather of rows of 2 elements over the banks: a warp's read of fp64 N x 2 matrices is at
// most 2-way conflicted, where in place it was 3-way or worse (layout/bank_model.hpp).
TEST(TinyBatch, SwizzledStagingPermutesRowsKeepsVectorsAndSpreadsTheGather) {
  for (int E : {1, 2, 4}) EXPECT_EQ(0u, TinyBatch::swizzle(E, 2)) << E;
  for (int E : {8, 16}) {
    SCOPED_TRACE(E);
    const uint32_t w = 128u / uint32_t(E), V = 16u / uint32_t(E), chunk = uint32_t(TinyBatch::chunk_bytes / E);
    const uint32_t on = TinyBatch::swizzle(E, 2);
    EXPECT_EQ(w - 1, on);
    EXPECT_EQ(0u, TinyBatch::swizzle(E, 3));
    std::vector<int> seen(chunk, 0);
    for (uint32_t s = 0; s < chunk; ++s) {
      const uint32_t at = TinyBatch::staged_at(s, E, on);
      ASSERT_LT(at, chunk);
      EXPECT_EQ(s / w, at / w) << s;  // within its 128-byte row
      ++seen[at];
      const uint32_t first = s - s % V;  // its vector: one aligned vector, the element at k ^ mask
      EXPECT_EQ(TinyBatch::staged_at(first, E, on) / V * V + ((s % V) ^ TinyBatch::vector_mask(first, E, on)), at);
      EXPECT_EQ(s, TinyBatch::staged_at(s, E, 0));
    }
    EXPECT_EQ(std::vector<int>(chunk, 1), seen);
    if (E == 16) continue;
    // The gather's reads of element k of each lane's vector, the worst of them.
    const auto ways = [&](int rows, int cols, uint32_t first_dst, uint32_t swizzle) {
      const FastDivmod n_div{uint32_t(rows * cols)}, rows_div{uint32_t(rows)};
      int worst = 0;
      for (uint32_t k = 0; k < V; ++k) {
        std::vector<int64_t> at;
        for (uint32_t lane = 0; lane < 32; ++lane) {
          const uint32_t s = TinyBatch::src_of_dst(first_dst + lane * V + k, n_div, rows_div, uint32_t(cols));
          at.push_back(int64_t(TinyBatch::staged_at(s, E, swizzle)) * E);
        }
        worst = std::max(worst, conflict_ways(at, E));
      }
      return worst;
    };
    for (int rows : {189, 46, 4096 / E / 2}) {
      SCOPED_TRACE(rows);
      int in_place = 0;
      for (uint32_t first = 0; first < 4096 / uint32_t(E); first += 32 * V) {
        EXPECT_LE(ways(rows, 2, first, on), 2) << first;
        in_place = std::max(in_place, ways(rows, 2, first, 0));
      }
      EXPECT_GE(in_place, 3);
    }
  }
}

TEST(TinyBatch, TilesMostlyEmptyMeansUnderThreeQuartersFull) {
  for (int64_t rows = 1; rows <= 130; ++rows)
    for (int64_t cols = 1; cols <= 200; ++cols) {
      int64_t tile_elements = 0;
      for (int64_t r = 0; r < rows; r += 32)
        for (int64_t c = 0; c < cols; c += 64) tile_elements += 32 * 64;
      EXPECT_EQ(double(rows * cols) < 0.75 * double(tile_elements), TinyBatch::tiles_mostly_empty(rows, cols))
          << rows << "x" << cols;
    }
  EXPECT_TRUE(TinyBatch::tiles_mostly_empty(33, 33));
  EXPECT_FALSE(TinyBatch::tiles_mostly_empty(32, 63));
  EXPECT_FALSE(TinyBatch::tiles_mostly_empty(INT64_MAX / 2, 3));  // huge extents: no overflow, not tiny
  EXPECT_FALSE(TinyBatch::tiles_mostly_empty(3, INT64_MAX));
}

// Walk gives src_of_dst of every consecutive dst index, across rows and matrices.
TEST(TinyBatch, WalkStepsAsSrcOfDst) {
  for (const auto& [rows, cols] : std::vector<std::pair<int, int>>{{1, 1}, {1, 7}, {7, 1}, {3, 5}, {33, 33}, {16, 16}, {9, 100}})
    for (uint32_t start : {0u, 1u, 5u, 31u}) {
      const uint32_t n = uint32_t(rows * cols);
      const FastDivmod n_div{n}, rows_div{uint32_t(rows)};
      TinyBatch::Walk walk(start, n_div, rows_div, uint32_t(cols));
      for (uint32_t t = start; t < start + 3 * n + 17; ++t, walk.next())
        ASSERT_EQ(TinyBatch::src_of_dst(t, n_div, rows_div, uint32_t(cols)), walk.src()) << rows << "x" << cols << " " << t;
    }
}

TEST(TinyBatch, ChunksHoldWholeMatricesAndWholeVectorsWherePossible) {
  EXPECT_EQ(4, TinyBatch::matrices_per_chunk(1024, 4));       // 32x32 fp32: 4 KiB each
  EXPECT_EQ(112, TinyBatch::matrices_per_chunk(143, 1));      // 13x11 bytes: 114 fit, a multiple of 16
  EXPECT_EQ(7, TinyBatch::matrices_per_chunk(143, 16));       // 16-byte elements: any count
  EXPECT_EQ(4, TinyBatch::matrices_per_chunk(4095, 1));       // fewer than 16 fit: keep them
  EXPECT_EQ(2, TinyBatch::matrices_per_chunk(2025, 4));       // 45x45 fp32 (8100 bytes): two, off a vector
  EXPECT_EQ(2, TinyBatch::matrices_per_chunk(2048, 4));       // 8 KiB: two, the whole chunk
  for (int64_t n : {1, 2, 3, 7, 143, 1000, 1024})
    for (int e : {1, 2, 4, 8, 16}) {
      if (n * e > TinyBatch::max_bytes) continue;
      const int64_t m = TinyBatch::matrices_per_chunk(n, e);
      EXPECT_GE(m, 1);
      EXPECT_LE(m * n * e, TinyBatch::chunk_bytes);
      if (m * n * e >= 16 * 16) EXPECT_EQ(0, m * n * e % 16) << n << " " << e;  // whole vectors
    }
}

TEST(AlignedDst, ShiftedPiecesCoverEachDstRowOnceOnWholeSectors) {
  check_aligned_pieces<1>();
  check_aligned_pieces<2>();
  check_aligned_pieces<4>();
  check_aligned_pieces<8>();
  check_aligned_pieces<1, true>();
}

// aligned_stores' column tile (1- and 2-byte elements): every (row, column) has its own place
// inside the tile and the fifth word of a gather stays inside it. Bank wavefronts a word, at
// most: a warp's gather of dst vectors (vecs_per_piece lanes a column, 16 bytes apart, each
// column at any shift; 5 words a lane) 4 (2 within a column: the columns' shifts can put them
// on the same banks); staging 2: words of K = 4 / E rows of a column a lane from aligned src
// rows, elements one a store from shifted ones. The wide tile (bytes from aligned rows only)
// stages with 4: 8 chunks a row put lanes 16 words apart whatever the pitch; measured faster
// all the same (layout/aligned_dst.hpp).
template <class A>
void check_column_tile(int most_gather, int most_staging) {
  using T = AlignedDstColumnTile<A>;
  constexpr int E = A::elem_bytes;
  SCOPED_TRACE("E " + std::to_string(E) + (A::wide ? ", wide" : ""));
  std::vector<int> hits(T::size, 0);
  for (int r = 0; r < T::rows; ++r)
    for (int c = 0; c < T::cols; ++c) {
      ASSERT_GE(T::at(r, c), 0);
      ASSERT_LT(T::at(r, c), T::size);
      ++hits[T::at(r, c)];
    }
  for (int h : hits) ASSERT_LE(h, 1);
  EXPECT_EQ(1, (T::pitch * E / 4) % 2);
  EXPECT_EQ(0, T::pitch * E % 4);
  constexpr int columns = 32 / A::vecs_per_piece;  // a warp's, in a gather
  std::mt19937 rng(11);
  int worst_gather = 0;
  constexpr int shifts = A::max_shift + 1, draws = columns == 2 ? shifts * shifts : 4096;
  for (int draw = 0; draw < draws; ++draw) {  // every pair of shifts where a warp holds two columns
    int shift[columns];
    for (int k = 0; k < columns; ++k)
      shift[k] = columns == 2 ? (k ? draw / shifts : draw % shifts) : int(rng() % uint32_t(shifts));
    for (int c = 0; c + columns <= T::cols; c += columns)
      for (int i = 0; i < 5; ++i) {
        std::vector<int64_t> lanes;
        for (int lane = 0; lane < 32; ++lane) {
          const int col = c + lane / A::vecs_per_piece, v = lane % A::vecs_per_piece;
          const int at = T::at(A::tile_row(shift[lane / A::vecs_per_piece], v, 0), col) * E;
          ASSERT_LE((at / 4 + i + 1) * 4, T::size * E);
          lanes.push_back(int64_t(at / 4 + i) * 4);
        }
        worst_gather = std::max(worst_gather, wavefronts(lanes, 4));
      }
  }
  EXPECT_LE(worst_gather, most_gather);
  // Staging: of 16-byte aligned src rows (stage_words), lane l stages chunk l % chunks of
  // group g0 + l / chunks (rows K g .. K g + K - 1), word t of it in column
  // (l % chunks) * 16 / E + t; of shifted rows (stage_shifted), 16 / E elements a lane.
  constexpr int chunks = T::cols * E / 16, K = 4 / E;
  int worst_staging = 0;
  for (int g0 = 0; K * (g0 + 32 / chunks) <= T::rows; g0 += 32 / chunks)
    for (int t = 0; t < 16 / E; ++t) {
      std::vector<int64_t> lanes;
      for (int lane = 0; lane < 32; ++lane)
        lanes.push_back(int64_t(T::at(K * (g0 + lane / chunks), (lane % chunks) * (16 / E) + t)) * E);
      worst_staging = std::max(worst_staging, wavefronts(lanes, 4));
    }
  if (!A::wide)
    for (int first_row = 0; first_row + 32 / chunks <= T::rows; first_row += 32 / chunks)
      for (int e = 0; e < 16 / E; ++e) {
        std::vector<int64_t> lanes;
        for (int lane = 0; lane < 32; ++lane)
          lanes.push_back(int64_t(T::at(first_row + lane / chunks, (lane % chunks) * (16 / E) + e)) * E);
        worst_staging = std::max(worst_staging, wavefronts(lanes, E));
      }
  EXPECT_LE(worst_staging, most_staging);
}

TEST(AlignedDst, ColumnTileHasRoomForEveryElementAndFewConflicts) {
  check_column_tile<AlignedDstTile<1>>(4, 2);
  check_column_tile<AlignedDstTile<2>>(4, 2);
  check_column_tile<AlignedDstTile<1, true>>(4, 4);
}

// chunk_columns: word t of the result holds element t of each of the K = 4 / E rows of a
// 16-byte chunk, row i at byte i * E (aligned_stores stages it as rows K g .. K g + K - 1 of
// column t).
template <int E>
void check_chunk_columns(std::mt19937& rng) {
  constexpr int K = 4 / E;
  uint8_t in[K][16];
  for (auto& row : in)
    for (auto& b : row) b = uint8_t(rng());
  uint32_t rows[K][4], columns[16 / E];
  std::memcpy(rows, in, sizeof rows);
  std::memset(columns, 0xA5, sizeof columns);
  chunk_columns<E>(rows, columns);
  uint8_t out[16 / E][4];
  std::memcpy(out, columns, sizeof out);
  for (int t = 0; t < 16 / E; ++t)
    for (int i = 0; i < K; ++i) ASSERT_EQ(0, std::memcmp(&out[t][i * E], &in[i][t * E], E)) << E << " " << t << " " << i;
}

TEST(AlignedDst, ChunkColumnsHoldEachColumnsRows) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 16; ++round) {
    check_chunk_columns<1>(rng);
    check_chunk_columns<2>(rng);
  }
}

// chunk_byte_pairs: column t holds byte t of row 0, then byte t of row 1.
TEST(AlignedDst, ChunkBytePairsHoldEachColumnsTwoRows) {
  std::mt19937 rng(std::random_device{}());
  for (int round = 0; round < 16; ++round) {
    uint8_t in[2][16];
    for (auto& row : in)
      for (auto& b : row) b = uint8_t(rng());
    uint32_t rows[2][4];
    uint16_t columns[16];
    std::memcpy(rows, in, sizeof rows);
    std::memset(columns, 0xA5, sizeof columns);
    chunk_byte_pairs(rows, columns);
    for (int t = 0; t < 16; ++t) ASSERT_EQ(columns[t], in[0][t] | in[1][t] << 8) << t;
  }
}

// shift_out_words: the 16 bytes at any offset 0..3 into five words.
TEST(AlignedDst, ShiftOutWordsGivesTheBytesAtTheOffset) {
  uint8_t bytes[20];
  for (int i = 0; i < 20; ++i) bytes[i] = uint8_t(37 * i + 11);
  uint32_t w[5];
  std::memcpy(w, bytes, 20);
  for (int offset = 0; offset < 4; ++offset) {
    uint32_t out[4];
    shift_out_words(w, offset, out);
    EXPECT_EQ(0, std::memcmp(out, bytes + offset, 16)) << offset;
  }
}

// A chunk that is not 16-byte aligned: where shifted_chunk calls it whole, its vectors lie
// inside the row and shift_out_chunk returns its 16 bytes; it is whole wherever they fit.
TEST(AlignedDst, ShiftedChunksReadOnlyTheRowAndGiveItsBytes) {
  std::mt19937 rng(7);
  std::vector<uint8_t> memory(256);
  for (auto& b : memory) b = uint8_t(rng());
  const uintptr_t base = 4096;  // memory[i] sits at address base + i
  int whole = 0, cut = 0;
  for (int begin = 0; begin < 48; ++begin)
    for (int length = 16; length < 96; length += 5)
      for (int at = begin; at + 16 <= begin + length; ++at) {
        const ShiftedChunk s = shifted_chunk(base + at, base + begin, base + begin + length);
        const int first = int(s.first - base), span = s.offset ? 32 : 16;
        ASSERT_EQ(0u, s.first % 16);
        ASSERT_EQ(at, first + s.offset);
        ASSERT_EQ(first >= begin && first + span <= begin + length, s.whole);
        if (!s.whole) {
          ++cut;
          continue;
        }
        ++whole;
        uint32_t w[8] = {}, out[4];
        std::memcpy(w, &memory[first], span);
        shift_out_chunk(w, s.offset, out);
        ASSERT_EQ(0, std::memcmp(out, &memory[at], 16)) << begin << " " << length << " " << at;
      }
  EXPECT_GT(whole, 1000);
  EXPECT_GT(cut, 100);
}

// AlignedDstTile::interior's promise, on random matrices at any alignment: a block it calls
// interior stages only rows of the matrix and columns inside it, and (shifted rows) every
// chunk's aligned vectors lie inside their row; random matrices have such blocks.
template <class A>
void check_interior(std::mt19937_64& rng, bool shifted, int* interior_blocks) {
  constexpr int E = A::elem_bytes;
  const int64_t rows = 1 + int64_t(rng() % 700), cols = 1 + int64_t(rng() % 400);
  const int64_t ld = cols + int64_t(rng() % 5);
  const uintptr_t base = (uintptr_t(1) << 20) + (shifted ? E * (rng() % 16) : 0);
  const auto row_start = [&](int64_t r) { return base + uintptr_t(r * ld * E); };
  for (int64_t k = 0; k < A::row_blocks(rows); ++k)
    for (int64_t c0 = 0; c0 < cols; c0 += A::cols) {
      const int64_t r0 = k * A::piece - A::max_shift;
      if (!A::interior(rows, cols, r0, c0, shifted)) continue;
      ++*interior_blocks;
      for (int j = 0; j < A::rows; ++j) {
        const int64_t r = r0 + j;
        ASSERT_TRUE(r >= 0 && r < rows) << "staged row " << r << " of " << rows;
        for (int64_t c = c0; c < c0 + A::cols; c += A::vec) {
          ASSERT_LE(c + A::vec, cols) << "chunk at column " << c << " of " << cols;
          if (shifted)
            ASSERT_TRUE(shifted_chunk(row_start(r) + uintptr_t(c * E), row_start(r), row_start(r) + uintptr_t(cols * E)).whole)
                << "row " << r << ", column " << c;
        }
      }
    }
}

TEST(AlignedDst, InteriorBlocksNeedNoEdgeTests) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int interior_blocks = 0;
  for (int trial = 0; trial < 300 && !::testing::Test::HasFatalFailure(); ++trial) {
    check_interior<AlignedDstTile<1>>(rng, true, &interior_blocks);
    check_interior<AlignedDstTile<1, true>>(rng, false, &interior_blocks);
    check_interior<AlignedDstTile<2>>(rng, true, &interior_blocks);
    check_interior<AlignedDstTile<2>>(rng, false, &interior_blocks);
    check_interior<AlignedDstTile<4>>(rng, true, &interior_blocks);
    check_interior<AlignedDstTile<8>>(rng, false, &interior_blocks);
  }
  EXPECT_GT(interior_blocks, 1000);
}

// AlignedDstTile::held: the 32-bit tile rows a block's dst vectors test against say what the
// 64-bit src rows say, for every block row of random matrices and every vector of a piece.
template <class A>
void check_held(std::mt19937_64& rng) {
  const int64_t m_rows = 1 + int64_t(rng() % 3000) + (rng() % 4 == 0 ? (int64_t(1) << 32) : 0);
  const int64_t blocks = A::row_blocks(m_rows);
  for (int64_t k : {int64_t(0), int64_t(1), blocks / 2, blocks - 2, blocks - 1}) {
    if (k < 0 || k >= blocks) continue;
    const int64_t r0 = k * A::piece - A::max_shift;
    const auto [lowest, highest] = A::held(m_rows, r0);
    for (int s = 0; s <= A::max_shift; ++s)
      for (int v = 0; v < A::vecs_per_piece; ++v) {
        const int at = A::tile_row(s, v, 0);
        const int64_t first = r0 + at;
        ASSERT_EQ(first >= 0 && first + A::vec <= m_rows, at >= lowest && at + A::vec <= highest)
            << m_rows << " rows, block row " << k << ", shift " << s << ", vector " << v;
        for (int e = 0; e < A::vec; ++e)
          ASSERT_EQ(first + e >= 0 && first + e < m_rows, e >= lowest - at && e < highest - at)
              << m_rows << " rows, block row " << k << ", shift " << s << ", vector " << v << ", element " << e;
      }
  }
}

TEST(AlignedDst, HeldRowsAreTheMatrixsRows) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 200 && !::testing::Test::HasFatalFailure(); ++trial) {
    check_held<AlignedDstTile<1>>(rng);
    check_held<AlignedDstTile<1, true>>(rng);
    check_held<AlignedDstTile<2>>(rng);
    check_held<AlignedDstTile<4>>(rng);
    check_held<AlignedDstTile<8>>(rng);
  }
}

// A run stored from any element-aligned address as ShiftedRun's vectors, simulated byte for
// byte: whole vectors start on 16-byte boundaries and take their bytes from the two staged
// pieces around them, partial ones only the run's bytes; every byte of the run is written once
// and none around it.
TEST(AlignedDst, ShiftedRunsStoreEveryByteOnceAndNoneAround) {
  std::mt19937 rng(11);
  int whole = 0, partial = 0;
  for (int e : {1, 2, 4, 8}) {
    for (int skew = 0; skew < 16; skew += e) {
      for (int bytes = e; bytes <= 200; bytes += e * (1 + int(rng() % 3))) {
        std::vector<uint8_t> run(size_t(bytes) + 32);  // the staged run, readable a piece past it
        for (auto& b : run) b = uint8_t(rng());
        std::vector<int> writes(size_t(skew + bytes + 32), 0);  // dst bytes from the aligned base
        std::vector<uint8_t> dst(writes.size(), 0);
        const ShiftedRun r{skew, bytes};
        for (int j = 0; j < r.vectors(); ++j) {
          if (r.whole(j)) {
            ++whole;
            ASSERT_EQ(0, r.at(j) % e);
            uint32_t w[8], out[4];
            std::memcpy(w, &run[size_t(r.at(j) / 16 * 16)], 32);
            shift_out_chunk(w, r.at(j) % 16, out);
            std::memcpy(&dst[size_t(16 * j)], out, 16);
            for (int b = 0; b < 16; ++b) ++writes[size_t(16 * j + b)];
          } else {
            ++partial;
            ASSERT_EQ(0, r.first(j) % e);
            ASSERT_EQ(0, r.last(j) % e);
            for (int b = r.first(j); b < r.last(j); ++b) {
              dst[size_t(skew + b)] = run[size_t(b)];
              ++writes[size_t(skew + b)];
            }
          }
        }
        for (size_t b = 0; b < writes.size(); ++b) {
          const bool inside = int(b) >= skew && int(b) < skew + bytes;
          ASSERT_EQ(inside ? 1 : 0, writes[b]) << "e " << e << " skew " << skew << " bytes " << bytes << " at " << b;
          if (inside) ASSERT_EQ(run[b - size_t(skew)], dst[b]);
        }
      }
    }
  }
  EXPECT_GT(whole, 1000);
  EXPECT_GT(partial, 100);
}

// SectorRun's pieces, from every offset in a sector: the whole vectors start on 32-byte sector
// boundaries (pairs of them fill sectors) and the edge bytes lie in at most two sectors, the
// first and the last the run touches; together every byte of the run once and none around it.
TEST(AlignedDst, SectorRunsCoverEveryByteOnceWithWholeSectorsBetween) {
  int edges = 0;
  for (int offset = 0; offset < 32; ++offset) {
    for (int bytes = 0; bytes <= 300; ++bytes) {
      const SectorRun r(offset, bytes);
      ASSERT_GE(r.head, 0);
      ASSERT_LT(r.head, 32);
      ASSERT_LT(r.tail, 32);
      ASSERT_EQ(0, r.mid % 32);
      std::vector<int> writes(size_t(offset + bytes + 64), 0);  // from the sector's start
      for (int m = 0; m < r.mid / 16; ++m) {
        const int at = offset + r.head + 16 * m;
        ASSERT_EQ(0, (at - 16 * (m % 2)) % 32) << offset << " " << bytes;
        for (int b = 0; b < 16; ++b) ++writes[size_t(at + b)];
      }
      std::vector<int> sectors;
      for (int b = 0; b < r.edges(); ++b) {
        const int at = offset + r.edge(b);
        ++writes[size_t(at)];
        if (sectors.empty() || sectors.back() != at / 32) sectors.push_back(at / 32);
        ++edges;
      }
      ASSERT_LE(sectors.size(), 2u);
      if (r.head) ASSERT_EQ(0, sectors.front());
      if (r.tail) ASSERT_EQ((offset + bytes - 1) / 32, sectors.back());
      for (size_t b = 0; b < writes.size(); ++b)
        ASSERT_EQ(int(b) >= offset && int(b) < offset + bytes ? 1 : 0, writes[b])
            << "offset " << offset << " bytes " << bytes << " at " << b;
    }
  }
  EXPECT_GT(edges, 100000);
}

}  // namespace
}  // namespace xpose::layout
