// In-place transposition: the three passes' index math (layout/inplace.hpp) on its own (each
// pass permutes within a column or a row, and together they transpose), and the CPU path
// (cpu/inplace.cpp) bit for bit against a plain out-of-place transpose on random bytes: every
// element size, shapes coprime and not, square, one row or column, batches.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/inplace.hpp"
#include "dispatch/inplace.hpp"
#include "engines/inplace/inplace.hpp"
#include "layout/inplace.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.hpp"

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
    if (s.c == 1 && n > 1) {  // coprime: the gather's source of each destination
      const int64_t inv = layout::inverse_mod(m % n, n), d0 = layout::row_destination(s, i % m, 0);
      for (int64_t x = 0; x < n; ++x)
        ASSERT_EQ(x, layout::row_destination(s, i % m, layout::coprime_row_source(s, inv, d0, x)))
            << m << " x " << n << " row " << i % m << " destination " << x;
    }
  }
}

TEST(Inplace, CpuPathMatchesAnOutOfPlaceTranspose) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1},     {1, 17, 2},    {17, 1, 1},    {5, 5, 3},
                                                {64, 64, 1},   {33, 65, 2},   {48, 36, 1},   {1000, 24, 1},
                                                {24, 1000, 1}, {257, 255, 1}, {640, 480, 1}, {3, 4096, 2},
                                                // narrow past 32 KiB: blocks, pieces, spread, last rows
                                                {20000, 3, 1}, {3, 20001, 2}, {5000, 31, 1}, {31, 5003, 1},
                                                {100003, 2, 1}, {7, 70001, 1}, {4097, 32, 1}, {32, 4096, 2},
                                                {1601, 2003, 1},  // 1- and 2-byte sides past 1536: narrow
                                                // sides sharing 512 bytes or more: blocks, then units
                                                {600, 400, 1}, {400, 600, 2}, {1024, 512, 1}, {512, 1536, 1},
                                                {384, 640, 2}, {990, 660, 1},
                                                // squares: whole tiles and edges of 1 .. 31 past them
                                                {31, 31, 1}, {33, 33, 2}, {100, 100, 1}, {257, 257, 1}, {512, 512, 1},
                                                // the rows-and-columns passes (4-byte elements):
                                                // sharing 100 (column groups), coprime
                                                {1000, 1100, 1}, {1100, 1000, 1}, {1601, 2003, 1}, {2003, 1599, 1}};
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

// The rows-and-columns passes for 1- and 2-byte elements (sides past their narrow limits),
// coprime (pass 2 gathers, four walks, rows not a multiple of four) and sharing a factor.
TEST(Inplace, CpuPathTurnsLargeNarrowElementRectangles) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (auto [E, m, n] : {std::array<int64_t, 3>{1, 6151, 6917}, {1, 6918, 6150}, {2, 3079, 3085}, {2, 3200, 3090}}) {
    SCOPED_TRACE(std::to_string(E) + "-byte elements, " + std::to_string(m) + " x " + std::to_string(n));
    ASSERT_GT(std::min(m, n), layout::narrow_max_side(E));
    std::vector<uint8_t> data(size_t(m * n * E)), want(data.size());
    for (auto& v : data) v = uint8_t(rng());
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        std::memcpy(&want[size_t((j * m + i) * E)], &data[size_t((i * n + j) * E)], size_t(E));
    cpu::transpose_inplace(data.data(), m, n, E, 1);
    ASSERT_EQ(0, std::memcmp(data.data(), want.data(), data.size()))
        << "first difference at byte " << testing::first_difference(data, want);
  }
}

// The GPU's path for sides sharing a factor g: each g x g block turned in place, then the units
// (rows of g elements) moved to unit_destination, gives the transpose; unit_destination is a
// bijection of the units and block_origin finds every block.
void check_blocks_then_units(int64_t m, int64_t n) {
  SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
  const layout::InplaceShape s = layout::inplace_shape(m, n);
  const int64_t g = s.c;
  std::vector<int64_t> a(size_t(m * n)), b(a.size(), -1);
  for (int64_t k = 0; k < m * n; ++k) a[size_t(k)] = k;
  ASSERT_EQ(m * n, layout::unit_count(s) * g);
  for (int64_t blk = 0; blk < s.a * s.b; ++blk) {
    const int64_t o = layout::block_origin(s, blk);
    ASSERT_EQ(o, (blk / s.b) * g * n + (blk % s.b) * g);
    for (int64_t i = 0; i < g; ++i)
      for (int64_t j = 0; j < g; ++j) {
        ASSERT_EQ(-1, b[size_t(o + j * n + i)]) << "block " << blk << " overlaps another";
        b[size_t(o + j * n + i)] = a[size_t(o + i * n + j)];
      }
  }
  a.assign(a.size(), -1);
  const layout::UnitWalk walk(s, 1), in_three(s, 3);
  for (int64_t u = 0; u < layout::unit_count(s); ++u) {
    const int64_t q = layout::unit_destination(s, u);
    ASSERT_EQ(q, int64_t(walk.next(uint32_t(u)))) << "the walk's unit " << u;
    for (uint32_t i = 0; i < 3; ++i)
      ASSERT_EQ(3 * q + i, int64_t(in_three.next(uint32_t(3 * u + i)))) << "unit " << u << "'s piece " << i;
    ASSERT_TRUE(q >= 0 && q < layout::unit_count(s)) << "unit " << u << " goes to " << q;
    ASSERT_EQ(-1, a[size_t(q * g)]) << "two units go to " << q;
    for (int64_t k = 0; k < g; ++k) a[size_t(q * g + k)] = b[size_t(u * g + k)];
  }
  for (int64_t p = 0; p < m * n; ++p) ASSERT_EQ((p % m) * n + p / m, a[size_t(p)]) << "position " << p;
}

TEST(Inplace, BlocksThenUnitsTranspose) {
  for (auto [m, n] : {std::pair{2, 4}, std::pair{4, 2}, std::pair{6, 4}, std::pair{12, 18}, std::pair{7, 7},
                      std::pair{1, 9}, std::pair{9, 1}, std::pair{32, 1000}, std::pair{1000, 32}, std::pair{96, 60},
                      std::pair{5, 7}, std::pair{640, 480}})
    check_blocks_then_units(m, n);
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int t = 0; t < 300 && !::testing::Test::HasFailure(); ++t) {
    const int64_t g = 1 + int64_t(rng() % 12);  // a shared factor, then cofactors
    check_blocks_then_units(g * (1 + int64_t(rng() % 20)), g * (1 + int64_t(rng() % 20)));
  }
  for (int t = 0; t < 3000; ++t) {  // the 32-bit walk on shapes of up to 2^32 units, sampled
    const int64_t g = 1 + int64_t(rng() % 100000), m = g * (1 + int64_t(rng() % 3000)), n = g * (1 + int64_t(rng() % 3000));
    const layout::InplaceShape s = layout::inplace_shape(m, n);
    const int64_t pieces = 1 + int64_t(rng() % 16);
    if (layout::unit_count(s) * pieces >= (int64_t(1) << 32)) continue;
    const layout::UnitWalk walk(s, uint32_t(pieces));
    for (int k = 0; k < 20; ++k) {
      const int64_t p = k == 0 ? layout::unit_count(s) * pieces - 1
                               : int64_t(rng() % uint64_t(layout::unit_count(s) * pieces));
      ASSERT_EQ(layout::unit_destination(s, p / pieces) * pieces + p % pieces, int64_t(walk.next(uint32_t(p))))
          << m << " x " << n << ", piece " << p << " of " << pieces << " a unit";
    }
  }
}

// The square kernels' launch covers every tile pair (ti <= tj) exactly once, for any number of
// tiles a side.
// The GPU's passes for sides sharing under 16 bytes (layout::StripWalk, row_destination_fast),
// applied to original linear indices for a rows x cols matrix: the view M x N of the short
// rows, forward (tall) or undone in reverse order (wide), strips of `width` columns (the last
// one narrower where width does not divide N, a launch of its own).
void check_strip_passes(int64_t rows, int64_t cols, int64_t width) {
  SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", strips of " + std::to_string(width));
  const bool inverse = rows < cols;
  const int64_t M = std::max(rows, cols), N = std::min(rows, cols);
  const layout::InplaceShape s = layout::inplace_shape(M, N);
  const layout::FastDivmod b{uint32_t(s.b)}, n{uint32_t(N)};
  std::vector<int64_t> a(size_t(M * N)), t(a.size());
  for (int64_t k = 0; k < M * N; ++k) a[size_t(k)] = k;
  const auto shift = [&](auto amount, bool up) {  // column k up (or down) by amount(k) rows
    for (int64_t v = 0; v < M; ++v)
      for (int64_t k = 0; k < N; ++k)
        t[size_t(v * N + k)] = a[size_t(((up ? v + amount(k) : v - amount(k)) % M + M) % M * N + k)];
    a.swap(t);
  };
  const auto rotation = [&](int64_t k) { return k / s.b; };
  const auto fine = [&](int64_t k) { return k % width; };
  const auto row_pass = [&] {
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) {
        const int64_t d = layout::row_destination_fast(uint32_t(i), uint32_t(i % N), uint32_t(j), b, n, uint32_t(M),
                                                       uint32_t(M % N), 1.0 / double(N));
        ASSERT_EQ(layout::row_destination(s, i, j), d) << "row " << i << ", column " << j;
        if (inverse)
          t[size_t(i * N + j)] = a[size_t(i * N + d)];
        else
          t[size_t(i * N + d)] = a[size_t(i * N + j)];
      }
    a.swap(t);
  };
  const auto strips = [&] {
    const int64_t full = N / width, count = (N + width - 1) / width;
    t = a;
    for (bool last : {false, true}) {
      const int64_t first = last ? full : 0, launch = last ? count - full : full, w = last ? N - full * width : width;
      if (launch == 0) continue;
      const layout::StripWalk walk(s, uint32_t(first), uint32_t(width), inverse);
      std::vector<bool> reached(size_t(launch * M), false);
      for (uint32_t p = 0; p < uint32_t(launch * M); ++p) {
        const uint32_t q = walk.next(p);
        ASSERT_LT(q, launch * M);
        ASSERT_FALSE(reached[q]) << "piece " << q << " reached twice";
        reached[q] = true;
        for (int64_t x = 0; x < w; ++x) t[size_t(walk.offset(q) + x)] = a[size_t(walk.offset(p) + x)];
        if (walk.jumps) {  // coprime sides: j steps at once
          uint32_t x = p;
          for (int j = 0; j < layout::kStripJumps; x = walk.next(x), ++j) ASSERT_EQ(x, walk.jump(p, j)) << p << ", " << j;
        }
      }
    }
    a.swap(t);
  };
  if (!inverse) {
    if (s.c > 1) shift(rotation, true);
    row_pass();
    shift(fine, true);
    strips();
  } else {
    strips();
    shift(fine, false);
    row_pass();
    if (s.c > 1) shift(rotation, false);
  }
  // The cols x rows transpose: position p holds original element (p % rows, p / rows).
  for (int64_t p = 0; p < M * N; ++p) ASSERT_EQ((p % rows) * cols + p / rows, a[size_t(p)]) << "position " << p;
}

TEST(Inplace, StripPassesTranspose) {
  for (auto [m, n] : {std::pair{3, 2}, std::pair{2, 3}, std::pair{101, 100}, std::pair{100, 101}, std::pair{102, 100},
                      std::pair{7, 1000}, std::pair{1000, 7}, std::pair{999, 33}, std::pair{33, 999},
                      std::pair{96, 66}, std::pair{66, 96}, std::pair{45, 30}})
    for (int64_t width : {128, 64, 32, 8}) check_strip_passes(m, n, width);
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 300 && !::testing::Test::HasFailure(); ++k) {
    const int64_t m = 2 + int64_t(rng() % 200), n = 2 + int64_t(rng() % 200);
    if (m != n) check_strip_passes(m, n, int64_t(8) << (rng() % 5));
  }
}

// The narrow path's passes (layout::NarrowShape, NarrowSpread; engines/inplace/narrow.cu)
// applied to original linear indices, blocks of b rows: forward for a tall matrix, undone in
// reverse order for a wide one. The spread's chunks run in ticket order, each reading its
// elements and then writing them; every chunk whose elements its destination overlaps must
// come no later (on the GPU it waits for their reads).
void check_narrow_passes(int64_t rows, int64_t cols, int64_t b, int64_t chunk) {
  SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols) + ", blocks of " + std::to_string(b) +
               " rows, chunks of " + std::to_string(chunk));
  const bool inverse = rows < cols;
  const layout::NarrowShape s = layout::narrow_shape(rows, cols, 1, b);
  const int64_t m = s.m, k = s.k, q = s.q, r = s.r, whole = q * b * k;
  ASSERT_EQ(m, q * b + r);
  std::vector<int64_t> a(size_t(m * k)), t(a.size()), aside(size_t(r * k));
  for (int64_t p = 0; p < m * k; ++p) a[size_t(p)] = p;
  const auto turn = [&](int64_t R, int64_t C) {  // each block R x C -> C x R
    for (int64_t i = 0; i < q; ++i)
      for (int64_t x = 0; x < R; ++x)
        for (int64_t y = 0; y < C; ++y) t[size_t(i * b * k + y * R + x)] = a[size_t(i * b * k + x * C + y)];
    std::copy(t.begin(), t.begin() + whole, a.begin());
  };
  const auto pieces = [&] {
    if (q == 0) return;
    const layout::InplaceShape p = layout::narrow_pieces(s, inverse);
    ASSERT_EQ(q * k, layout::unit_count(p));
    const layout::UnitWalk walk(p, 1);
    std::vector<bool> reached(size_t(q * k), false);
    for (uint32_t u = 0; u < uint32_t(q * k); ++u) {
      const uint32_t to = walk.next(u);
      ASSERT_LT(to, q * k);
      ASSERT_FALSE(reached[to]) << "piece " << to << " reached twice";
      reached[to] = true;
      for (int64_t x = 0; x < b; ++x) t[size_t(to * b + x)] = a[size_t(u * b + x)];
    }
    std::copy(t.begin(), t.begin() + whole, a.begin());
  };
  const auto spread = [&] {
    if (q == 0 || r == 0) return;
    const layout::NarrowSpread d = layout::narrow_spread(s, inverse, chunk);
    std::vector<bool> read(size_t(d.per_matrix()), false);
    int64_t moved = 0;
    for (int64_t ticket = 0; ticket < d.per_matrix(); ++ticket) {
      const layout::NarrowSpread::Chunk c = d.at(ticket);
      ASSERT_EQ(ticket, d.ticket(c.matrix, c.row, c.index));
      ASSERT_TRUE(c.row >= 1 && c.row < k && c.count > 0 && c.count <= chunk);
      ASSERT_EQ(c.dst, c.row * (inverse ? q * b : m) + c.index * chunk);
      std::vector<int64_t> held(a.begin() + c.src, a.begin() + c.src + c.count);
      read[size_t(ticket)] = true;
      for (int64_t x = c.dst, first, end; x < c.dst + c.count; x = end) {  // the chunks it waits for
        const int64_t u = d.next_read(0, x, &first, &end);
        if (u < 0 || first >= c.dst + c.count) break;
        ASSERT_LE(u, ticket) << "chunk " << ticket << " writes over chunk " << u << " before it reads";
      }
      std::copy(held.begin(), held.end(), a.begin() + c.dst);
      moved += c.count;
    }
    ASSERT_EQ((k - 1) * q * b, moved);
  };
  if (!inverse) {
    std::copy(a.begin() + whole, a.end(), aside.begin());
    turn(b, k);
    pieces();
    spread();
    for (int64_t c = 0; c < k; ++c)
      for (int64_t x = 0; x < r; ++x) a[size_t(c * m + q * b + x)] = aside[size_t(x * k + c)];
  } else {
    for (int64_t c = 0; c < k; ++c)
      for (int64_t x = 0; x < r; ++x) aside[size_t(x * k + c)] = a[size_t(c * m + q * b + x)];
    spread();
    pieces();
    turn(k, b);
    std::copy(aside.begin(), aside.end(), a.begin() + whole);
  }
  for (int64_t p = 0; p < m * k; ++p) ASSERT_EQ((p % rows) * cols + p / rows, a[size_t(p)]) << "position " << p;
}

TEST(Inplace, NarrowPassesTranspose) {
  for (auto [m, n] : {std::pair{100, 3}, std::pair{3, 100}, std::pair{1000, 7}, std::pair{7, 1000}, std::pair{96, 32},
                      std::pair{32, 96}, std::pair{5, 2}, std::pair{2, 5}, std::pair{1001, 31}, std::pair{31, 1001}})
    for (int64_t b : {1, 4, 7, 16, 64})
      for (int64_t chunk : {1, 5, 32, 1000}) check_narrow_passes(m, n, b, chunk);
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int i = 0; i < 400 && !::testing::Test::HasFailure(); ++i) {
    const int64_t k = 2 + int64_t(rng() % 31), m = k + 1 + int64_t(rng() % 3000);
    const int64_t b = 1 + int64_t(rng() % 100), chunk = 1 + int64_t(rng() % 300);
    if (rng() % 2)
      check_narrow_passes(m, k, b, chunk);
    else
      check_narrow_passes(k, m, b, chunk);
  }
  // The engine's blocks: 512 bytes of a column; an eighth of the rows at most; a small matrix whole.
  const layout::NarrowShape big = layout::narrow_shape(22369623, 3, 1), fp32 = layout::narrow_shape(5, 5592407, 4);
  EXPECT_TRUE(big.b == 512 && big.q * big.b + big.r == 22369623 && big.k == 3);
  EXPECT_TRUE(fp32.b == 128 && fp32.m == 5592407 && fp32.k == 5);
  const layout::NarrowShape small = layout::narrow_shape(2000, 3, 8), whole = layout::narrow_shape(7, 1170, 4);
  EXPECT_TRUE(small.b == 64 && small.r * small.k * 8 <= 2000 * 3 * 8 / 8);
  EXPECT_TRUE(whole.b == 1170 && whole.q == 1 && whole.r == 0);
  // Short sides up to where the pieces would be smaller than the strips path's (512 bytes for
  // 4 to 16-byte elements) or than 32 bytes (1) and 64 (2), blocks of at most 192 KiB of whole
  // 16-byte words; sides sharing a piece's bytes or more move as units.
  for (int64_t E : {1, 2, 4, 8, 16}) {
    const int64_t side = layout::narrow_max_side(E);
    EXPECT_EQ(E == 1 ? 6144 : E == 2 ? 3072 : 384, side);
    EXPECT_TRUE(layout::narrow_takes(100003, side, E) && !layout::narrow_takes(100003, side + 1, E)) << E;
    const layout::NarrowShape s = layout::narrow_shape(100003, side, E);
    EXPECT_EQ(s.b * E, E == 1 ? 32 : E == 2 ? 64 : 512) << E;
    EXPECT_LE(s.b * s.k * E, 192 << 10);
    EXPECT_EQ(0, s.b * E % 16);
  }
  EXPECT_EQ(192, layout::narrow_column_bytes(1000));  // 196 bytes of 192 KiB, in 16-byte words
  EXPECT_EQ(192, layout::narrow_column_bytes(955));
  EXPECT_TRUE(layout::narrow_takes(7 * 191, 5 * 191, 1) && !layout::narrow_takes(7 * 192, 5 * 192, 1));  // g 191, 192
  EXPECT_TRUE(layout::narrow_takes(7 * 127, 3 * 127, 4) && !layout::narrow_takes(7 * 128, 3 * 128, 4));  // 508, 512 bytes
}

// mul_mod against 128-bit products, sides up to 2^32; row_to undoes row_from.
TEST(Inplace, ModularHelpersAreExact) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 200000; ++k) {
    const uint64_t m = 1 + (rng() >> (32 + rng() % 32)), x = rng() % m, y = rng() % m;
    ASSERT_EQ(uint64_t((unsigned __int128)x * y % m), layout::mul_mod(x, y, m, 1.0 / double(m))) << x << " " << y << " " << m;
  }
  for (int k = 0; k < 300; ++k) {
    const int64_t m = 2 + int64_t(rng() % 5000), n = 2 + int64_t(rng() % 5000);
    const layout::InplaceShape s = layout::inplace_shape(m, n);
    const int64_t binv = layout::inverse_mod(s.b, s.a);
    const layout::StripWalk walk(s, 0, 1, false);
    for (int64_t r = 0; r < m; r += 1 + int64_t(rng() % 17)) {
      const int64_t x = layout::row_from(s, r);
      ASSERT_EQ(r, layout::row_to(s, binv, x)) << m << " x " << n;
      ASSERT_EQ(uint32_t(x), walk.from_row(uint32_t(r))) << m << " x " << n;
      ASSERT_EQ(uint32_t(r), walk.to_row(uint32_t(x))) << m << " x " << n;
    }
  }
}

TEST(Inplace, FoldedLaunchCoversEveryPairOnce) {
  for (int64_t tiles = 1; tiles <= 67; ++tiles) {
    SCOPED_TRACE(std::to_string(tiles) + " tiles a side");
    std::vector<int> seen(size_t(tiles * tiles), 0);
    for (int64_t y = 0; y < layout::fold_launch_rows(tiles); ++y)
      for (int64_t x = 0; x <= tiles; ++x) {
        const layout::TilePair p = layout::fold_pair(x, y, tiles);
        if (!p.valid) continue;
        ASSERT_TRUE(0 <= p.ti && p.ti <= p.tj && p.tj < tiles) << "(" << p.ti << ", " << p.tj << ")";
        ++seen[size_t(p.ti * tiles + p.tj)];
      }
    for (int64_t i = 0; i < tiles; ++i)
      for (int64_t j = 0; j < tiles; ++j) EXPECT_EQ(j >= i ? 1 : 0, seen[size_t(i * tiles + j)]) << i << ", " << j;
  }
}

// The GPU path's refusals, with a reason (no GPU needed to say so): sides sharing a factor of
// more than 96 KiB, both sides past 160 KiB where they share less than 16 bytes, and grids past
// CUDA's limits; the workspaces of the rectangular paths (a bit a unit; a bit a strip's row
// piece and the rows past bands' ends).
// The narrow path's workspace within its stated bound (a bit a piece, a word a 16 KiB chunk of
// each row, the rows past whole blocks: under 192 KiB and 1/8 of a matrix), at most 1% of
// matrices of 64 MiB or more, over short sides up to each element size's limit.
// narrow_turn_rows' warps (layout::narrow_turn_warp_rows): for every short side from
// narrow_turn_rows_from to the narrow limit, every element size and offsets of the kind the
// kernel takes, a warp's shared accesses of one element of its pieces (lane (r, c): stage element
// (j0 + c P + i) k + rho0 + r, P = 16 / E) meet no bank more than 2E times (each wavefront moves 16
// bytes or more), and the pieces of a row a warp takes span 32 bytes or more (whole sectors).
// Fails with 4 rows a warp for every side (u8 with k a multiple of 8: 8 times).
TEST(Inplace, NarrowTurnWarpsMeetBanksFewTimes) {
  for (int64_t E : {1, 2, 4, 8, 16}) {
    const int64_t P = 16 / E;
    for (int64_t k = layout::narrow_turn_rows_from; k <= layout::narrow_max_side(E); ++k) {
      const int64_t rows = layout::narrow_turn_warp_rows(k, E), across = 32 / rows;
      ASSERT_EQ(32, rows * across) << k;
      ASSERT_GE(across * 16, 32) << E << "-byte elements, k = " << k;
      int worst = 0;
      for (int64_t g : {0, 1, 3})
        for (int64_t h : {0, 1, 2})
          for (int64_t i = 0; i < P; ++i) {
            std::array<std::vector<int64_t>, 32> banks;  // the distinct words each bank serves
            for (int64_t lane = 0; lane < 32; ++lane) {
              const int64_t r = lane % rows, c = lane / rows;
              const int64_t e = (h * across * P + c * P + i) * k + g * rows + r;
              for (int64_t w = e * E / 4; w <= (e * E + E - 1) / 4; ++w) {
                std::vector<int64_t>& b = banks[size_t(w % 32)];
                if (std::find(b.begin(), b.end(), w) == b.end()) b.push_back(w);
              }
            }
            for (const auto& b : banks) worst = std::max(worst, int(b.size()));
          }
      ASSERT_LE(worst, 2 * E) << E << "-byte elements, k = " << k << ", " << rows << " rows a warp";
    }
  }
}

// narrow_turn_rows' words around a block that starts inside one: each element of the block
// comes from exactly one word, at its own place in it, and goes to its place in the block
// turned; a word is called whole exactly where all its elements are the block's.
TEST(Inplace, NarrowTurnFrameCoversEachElementOnce) {
  for (int32_t E : {1, 2, 4, 8}) {
    const int32_t P = 16 / E;
    for (int32_t shift = 0; shift < P; ++shift)
      for (auto [n, l] : {std::pair{1, P}, std::pair{3, P}, std::pair{37, 4 * P}, std::pair{5, 32 * P}}) {
        const layout::TurnFrame f{n, l, P, shift};
        ASSERT_EQ(l / P, f.words_a_row());
        std::vector<int> seen(size_t(n * l), 0);
        for (int32_t rho = 0; rho < f.rows(); ++rho)
          for (int32_t piece = 0; piece < f.words_a_row(); ++piece) {
            bool all = true;
            for (int32_t i = 0; i < P; ++i) {
              const int32_t o = f.element(rho, piece, i);
              ASSERT_EQ((rho * f.words_a_row() + piece) * P + i - shift, o) << "the frame's elements in order";
              if (o < 0 || o >= n * l) {
                all = false;
                continue;
              }
              const int32_t y = o / l, x = o % l;
              ASSERT_EQ(x * n + y, f.stage(rho, piece, i)) << E << " " << shift << " " << rho << " " << piece << " " << i;
              ++seen[size_t(o)];
            }
            ASSERT_EQ(all, f.whole(rho, piece)) << E << " " << shift << " " << rho << " " << piece;
          }
        for (int s : seen) ASSERT_EQ(1, s) << E << "-byte elements, shift " << shift << ", " << n << " x " << l;
      }
  }
}

TEST(Inplace, WordPartsStoreEachByteOnceAligned) {
  for (int lo = 0; lo <= 16; ++lo)
    for (int hi = lo; hi <= 16; ++hi) {
      if (lo == 0 && hi == 16) continue;  // the whole word: one 16-byte store (store_part)
      int seen[16] = {}, stores = 0;
      layout::word_parts(lo, hi, [&](int at, int size) {
        ASSERT_TRUE(size == 1 || size == 2 || size == 4 || size == 8) << size;
        ASSERT_EQ(0, at % size) << "a store of " << size << " bytes at " << at << " is not aligned";
        for (int i = at; i < at + size; ++i) ++seen[i];
        ++stores;
      });
      for (int i = 0; i < 16; ++i) ASSERT_EQ(i >= lo && i < hi ? 1 : 0, seen[i]) << "[" << lo << ", " << hi << ") byte " << i;
      EXPECT_LE(stores, 7);
    }
}

TEST(Inplace, ShiftedRowCoversEachByteOnce) {
  for (int L : {8, 16, 32})
    for (int shift = 0; shift < 16; ++shift) {
      const layout::ShiftedRow r{shift, 16 * L};
      std::vector<int> seen(size_t(16 * L), 0);
      for (int j = 1; j < L; ++j) {
        ASSERT_EQ(0, (shift + r.whole(j)) % 16) << "word " << j << " is not aligned";
        for (int i = 0; i < 16; ++i) ++seen[size_t(r.whole(j) + i)];
      }
      for (int k = 0; k < 16; ++k) {
        const int at = r.shared(k);
        ASSERT_TRUE(at < 16 - shift || at >= 16 * L - shift) << "shared byte " << k << " at " << at << " is in a whole word";
        ++seen[size_t(at)];
      }
      for (int s : seen) ASSERT_EQ(1, s) << L << " words, shift " << shift;
    }
}

TEST(Inplace, NarrowWorkspaceWithinItsBound) {
  int narrow = 0;
  for (int64_t E : {1, 2, 4, 8, 16})
    for (int64_t k : {int64_t(2), int64_t(3), int64_t(31), int64_t(100), int64_t(384), layout::narrow_max_side(E)})
      for (int64_t m : {int64_t(25), int64_t(257), int64_t(5003), int64_t(100003), (int64_t(64) << 20) / (k * E) + 7})
        for (int64_t batch : {int64_t(1), int64_t(3)})
          for (bool wide : {false, true}) {
            if (m <= k || !layout::narrow_takes(m, k, E)) continue;
            detail::InplaceProblem t;
            t.data = reinterpret_cast<void*>(uintptr_t(4096));
            t.rows = wide ? k : m, t.cols = wide ? m : k, t.elem_bytes = E, t.batch = batch;
            detail::InplacePlan plan;
            ASSERT_FALSE(detail::plan_inplace(t, &plan).failed()) << E << ": " << m << " x " << k;
            ASSERT_NE(std::string::npos, plan.text.find("narrow")) << plan.text;
            const int64_t bytes = m * k * E * batch, ws = int64_t(plan.workspace_bytes);
            const layout::NarrowShape s = layout::narrow_shape(m, k, E);
            EXPECT_LE(s.r * s.k * E, std::min<int64_t>(192 << 10, m * k * E / 8)) << E << ": " << m << " x " << k;
            EXPECT_LE(ws, bytes / 8 + bytes / 1024 + bytes / 4096 + 768 + (4 * k + 128) * batch)
                << E << ": " << m << " x " << k << " x " << batch;
            if (m * k * E >= (int64_t(64) << 20)) EXPECT_LE(ws * 100, bytes) << E << ": " << m << " x " << k;
            ++narrow;
          }
  EXPECT_GT(narrow, 300);
}

TEST(Inplace, GpuRefusalsNameTheProblem) {
  detail::InplaceProblem t;
  t.data = reinterpret_cast<void*>(uintptr_t(4096));
  t.rows = t.cols = 100, t.elem_bytes = 4, t.batch = 3;
  const auto planned = [&] {  // the dispatch's plan: whether served, its workspace, its line
    detail::InplacePlan plan;
    const bool served = !detail::plan_inplace(t, &plan).failed();
    return std::pair{served, plan};
  };
  const auto served = [&] { return planned().first; };
  const auto workspace = [&] { return planned().second.workspace_bytes; };
  const auto moved_as = [&](const char* how) { return planned().second.text.find(how) != std::string::npos; };
  EXPECT_TRUE(served());
  EXPECT_EQ(0u, workspace());
  EXPECT_TRUE(moved_as("moved as vectors"));
  t.data = reinterpret_cast<void*>(uintptr_t(4100));
  EXPECT_TRUE(moved_as("moved as elements"));
  t.elem_bytes = 2;  // 1- and 2-byte elements off 16 bytes: packed tiles, as the aligned words around them
  EXPECT_TRUE(moved_as("moved as shifted words"));
  t.elem_bytes = 4;
  // Coprime sides past the narrow path's: the view 501 x 500 (rows of the short side), 3 strips
  // of 128 columns and one of 116, a bit a row piece; one band, so no rows saved past its end.
  const auto bitmap = [](int64_t bits) { return size_t((bits + 31) / 32 * 4 + 255) / 256 * 256; };
  t.rows = 500, t.cols = 501;
  EXPECT_TRUE(served());
  EXPECT_EQ(bitmap(3 * 501 * 3) + bitmap(3 * 501), workspace());
  t.cols = 502;  // a shared factor of 2 x 4 bytes
  EXPECT_TRUE(served());
  t.cols = 504;  // 4 x 4 bytes: 125 x 126 blocks, 63000 units of 4 elements a matrix, 3 matrices
  EXPECT_TRUE(served());
  EXPECT_EQ(size_t((3 * 63000 + 31) / 32 * 4), workspace());
  t.rows = 90, t.cols = 91;  // narrow: a matrix of 32 KiB or less is turned whole, no workspace
  EXPECT_TRUE(served());
  EXPECT_EQ(0u, workspace());
  t.rows = 2 * 32768 + 5, t.cols = 1003, t.batch = 3;  // coprime; 2 bands, each reading 127 rows past its end
  EXPECT_EQ(bitmap(3 * 65541 * 7) + bitmap(3 * 65541) + size_t(3 * 2 * 127 * 1003 * 4), workspace());
  EXPECT_LE(workspace(), size_t(t.rows * t.cols * t.elem_bytes * t.batch / 100));
  t.rows = 500, t.cols = 100 * 1024 + 1;  // the view's rows are the short side: 500 elements
  EXPECT_TRUE(served());
  t.rows = 50000, t.cols = 50001;  // both sides over 160 KiB: too long a row for shared memory
  EXPECT_FALSE(served());
  t.rows = 100 * 1024, t.cols = 50 * 1024, t.elem_bytes = 4, t.batch = 1;  // a factor of 200 KiB
  EXPECT_FALSE(served());
  const auto path = [&] {  // the path the plan names, which its launch runs
    const engines::InplacePath* p = planned().second.path;
    return p ? std::string(p->name) : std::string("none");
  };
  t.rows = 1000, t.cols = 1001;
  EXPECT_EQ("c2r", path());
  t.rows = 100;
  EXPECT_EQ("narrow", path());
  t.rows = 1;  // one row: its own transpose
  EXPECT_TRUE(served());
  EXPECT_EQ("none", path());  // nothing to launch
  t.rows = t.cols = int64_t(1) << 24, t.elem_bytes = 1, t.batch = 1;
  EXPECT_FALSE(served());  // more tiles a side than a grid takes
}

// The C ABI refuses bad requests before anything is touched (no GPU needed), with one line.
TEST(Inplace, BadArgumentsAreRefusedWithoutTouchingData) {
  std::vector<uint8_t> host(4096, testing::poison);
  const std::vector<uint8_t> before = host;
  void* const d = host.data() + 16 - reinterpret_cast<uintptr_t>(host.data()) % 16;
  const struct {
    void* data;
    int64_t rows, cols, elem_bytes, batch;
    xpose_status_t status;
    const char* message;
    bool of_layout;  // the workspace query, which takes no data, refuses it too
  } cases[] = {
      {d, 4, 4, 3, 1, XPOSE_ERROR_INVALID_ARGUMENT, "elem_bytes is 3", true},
      {d, -1, 4, 4, 1, XPOSE_ERROR_INVALID_ARGUMENT, "rows is negative", true},
      {d, 4, -4, 4, 1, XPOSE_ERROR_INVALID_ARGUMENT, "cols is negative", true},
      {d, 4, 4, 4, -1, XPOSE_ERROR_INVALID_ARGUMENT, "batch is negative", true},
      {d, int64_t(1) << 32, int64_t(1) << 32, 1, 1, XPOSE_ERROR_INVALID_ARGUMENT, "overflows int64", true},
      {d, 50000, 50001, 4, 1, XPOSE_ERROR_NOT_SUPPORTED, "short side is over 160 KiB", true},
      {nullptr, 4, 4, 4, 1, XPOSE_ERROR_INVALID_ARGUMENT, "data is a null pointer", false},
      {static_cast<uint8_t*>(d) + 2, 4, 4, 4, 1, XPOSE_ERROR_INVALID_ARGUMENT, "not aligned to its element size of 4", false},
      {static_cast<uint8_t*>(d) + 4, 4, 4, 16, 1, XPOSE_ERROR_INVALID_ARGUMENT, "not aligned to 8 bytes", false},
      {reinterpret_cast<void*>(UINTPTR_MAX - 15), 4, 4, 4, 1, XPOSE_ERROR_INVALID_ARGUMENT, "past the end", false},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.message);
    EXPECT_EQ(c.status, xpose_transpose_inplace(c.data, c.rows, c.cols, c.elem_bytes, c.batch, nullptr, 0, nullptr));
    const std::string message = xpose_last_error();
    EXPECT_NE(std::string::npos, message.find(c.message)) << message;
    EXPECT_EQ(std::string::npos, message.find('\n'));
    if (c.of_layout) {
      size_t bytes = 7;
      EXPECT_EQ(c.status, xpose_transpose_inplace_workspace(c.rows, c.cols, c.elem_bytes, c.batch, &bytes));
      EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(c.message)) << xpose_last_error();
      EXPECT_EQ(7u, bytes);
    }
  }
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_inplace_workspace(4, 4, 4, 1, nullptr));
  EXPECT_STREQ("bytes is a null pointer", xpose_last_error());
  EXPECT_EQ(0, std::memcmp(host.data(), before.data(), host.size()));

  size_t bytes = 7;  // square and trivial layouts need no workspace; empty ones take any data
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace_workspace(1000, 1000, 2, 3, &bytes));
  EXPECT_EQ(0u, bytes);
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace_workspace(1, 1000, 2, 3, &bytes));
  EXPECT_EQ(0u, bytes);
  // 3 x 2000 units (rows of 1000 elements: 2000 bytes, cut into 2 pieces), a bit a piece
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace_workspace(2000, 1000, 2, 3, &bytes));
  EXPECT_EQ(size_t(3 * 2000 * 2 / 8), bytes);
  EXPECT_NE(std::string::npos, xpose::explain_inplace(4, 1024, 512).find("2 x 1 blocks of 512 x 512"))
      << xpose::explain_inplace(4, 1024, 512);
  EXPECT_NE(std::string::npos, xpose::explain_inplace(16, 401, 397).find("no blocks to turn"))
      << xpose::explain_inplace(16, 401, 397);
  EXPECT_NE(std::string::npos, xpose::explain_inplace(4, 480, 432).find("each whole through shared memory"))
      << xpose::explain_inplace(4, 480, 432);
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace(nullptr, 0, 5, 4, 1, nullptr, 0, nullptr));
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_inplace(nullptr, 5, 5, 4, 0, nullptr, 0, nullptr));
  EXPECT_NE(std::string::npos, xpose::explain_inplace(4, 64, 64).find("tile pairs")) << xpose::explain_inplace(4, 64, 64);
  EXPECT_NE(std::string::npos, xpose::explain_inplace(4, 400, 401).find("rows of 400 (rows permuted"))
      << xpose::explain_inplace(4, 400, 401);
  EXPECT_NE(std::string::npos, xpose::explain_inplace(2, 6, 1000).find("the view 1000 x 6's transposition undone"))
      << xpose::explain_inplace(2, 6, 1000);
  EXPECT_THROW(xpose::explain_inplace(4, 50000, 50001), xpose::Error);
}

// The C++ CPU path on host memory: the checks, then cpu::transpose_inplace (any shape).
TEST(Inplace, HostPathTransposesAnyShape) {
  std::mt19937_64 rng(testing::fresh_seed());
  const int64_t m = 37, n = 12, batch = 2;
  std::vector<float> a(size_t(m * n * batch));
  for (float& v : a) v = float(rng() % 1000);
  std::vector<float> want(a.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) want[size_t(b * m * n + j * m + i)] = a[size_t(b * m * n + i * n + j)];
  xpose::transpose_inplace_host(a.data(), sizeof(float), m, n, batch);
  EXPECT_EQ(want, a);
  EXPECT_THROW(xpose::transpose_inplace_host(nullptr, 4, 2, 3), xpose::Error);
}

}  // namespace
}  // namespace xpose
