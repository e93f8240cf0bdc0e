// N-D permutations on the host: xpose_permute's argument checks, the normalization and the
// transpose form (layout/permute.hpp), and the CPU reference, checked against an
// independent element-by-element model on random permutations of rank 1-8 with odd
// extents, every element size, dense, padded and broadcast src strides and padded dst
// strides: the normalized permutation and the transpose it maps to (run through the 2-D
// reference) must write exactly what the model writes, gaps untouched.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "api/validate.hpp"
#include "core/distinct.hpp"
#include "cpu/reference.hpp"
#include "dispatch/nd_rules.hpp"
#include "dispatch/registry.hpp"
#include "layout/aligned_dst.hpp"
#include "layout/fast_divmod.hpp"
#include "layout/nd_packed.hpp"
#include "layout/nd_row_vectors.hpp"
#include "layout/permute.hpp"
#include "layout/permute_nd.hpp"
#include "support/devices.hpp"
#include "support/permutations.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::detail {
namespace {

const void* at(uintptr_t a) { return reinterpret_cast<const void*>(a); }
void* at_mut(uintptr_t a) { return reinterpret_cast<void*>(a); }

struct Bad {
  const char* what;
  PermuteArgs args;
  const char* message;  // a substring of the refusal
};

TEST(ResolvePermute, RefusesBadRequestsWithOneLine) {
  static const int64_t ext2[] = {4, 6}, ext2neg[] = {4, -6}, big[] = {int64_t(1) << 40, int64_t(1) << 40};
  static const int64_t ext22[] = {2, 2}, ext3[] = {3, 4, 5};
  static const int p01[] = {0, 1}, p10[] = {1, 0}, p00[] = {0, 0}, p02[] = {0, 2}, p021[] = {0, 2, 1};
  static const int64_t neg[] = {-1, 1}, zero_stride[] = {0, 1}, share[] = {1, 1};
  const uintptr_t s = 1 << 20, d = uintptr_t(1) << 40;
  const std::vector<Bad> bad = {
      {"rank below 0", {at(s), at_mut(d), -1, ext2, p01, 4}, "rank is -1; it must be 0 to 16"},
      {"rank past 16", {at(s), at_mut(d), 17, ext2, p01, 4}, "rank is 17; it must be 0 to 16"},
      {"null extents", {at(s), at_mut(d), 2, nullptr, p01, 4}, "extents is a null pointer"},
      {"null perm", {at(s), at_mut(d), 2, ext2, nullptr, 4}, "perm is a null pointer"},
      {"element size", {at(s), at_mut(d), 2, ext2, p01, 3}, "elem_bytes is 3"},
      {"negative extent", {at(s), at_mut(d), 2, ext2neg, p01, 4}, "extents[1] is negative (-6)"},
      {"perm out of range", {at(s), at_mut(d), 2, ext2, p02, 4}, "perm[1] is 2; perm must be a permutation of 0 to 1"},
      {"perm repeats", {at(s), at_mut(d), 2, ext2, p00, 4}, "perm[1] repeats axis 0"},
      {"negative src stride", {at(s), at_mut(d), 2, ext2, p10, 4, neg}, "src_strides[0] is negative (-1)"},
      {"negative dst stride", {at(s), at_mut(d), 2, ext2, p10, 4, nullptr, neg}, "dst_strides[0] is negative (-1)"},
      {"overflow", {at(s), at_mut(d), 2, big, p10, 4}, "overflows int64"},
      {"dst broadcast", {at(s), at_mut(d), 2, ext22, p10, 4, nullptr, zero_stride}, "dst strides let elements share memory"},
      {"dst interleaved", {at(s), at_mut(d), 2, ext22, p10, 4, nullptr, share}, "dst strides let elements share memory"},
      {"null src", {nullptr, at_mut(d), 3, ext3, p021, 4}, "src is a null pointer"},
      {"null dst", {at(s), nullptr, 3, ext3, p021, 4}, "dst is a null pointer"},
      {"misaligned src", {at(s + 2), at_mut(d), 3, ext3, p021, 4}, "src is not aligned to its element size of 4 bytes"},
      {"overlap", {at(s), at_mut(s + 16), 3, ext3, p021, 4}, "src and dst overlap"},
      {"end of the address space", {at(s), at_mut((UINTPTR_MAX - 64) & ~uintptr_t(15)), 3, ext3, p021, 4}, "past the end of the address space"},
  };
  for (const Bad& b : bad) {
    SCOPED_TRACE(b.what);
    Permutation p;
    const Result e = resolve_permute(b.args, &p);
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status);
    EXPECT_NE(std::string::npos, e.message.find(b.message)) << e.message;
    EXPECT_EQ(std::string::npos, e.message.find('\n'));
    // The C ABI says the same, before it asks any GPU.
    const PermuteArgs& a = b.args;
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
              xpose_permute(a.src, a.dst, a.rank, a.extents, a.perm, a.elem_bytes, a.src_strides, a.dst_strides, nullptr));
    EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(b.message)) << xpose_last_error();
  }
}

TEST(ResolvePermute, AcceptsEmptyAndRankZeroAndResolvesDefaults) {
  static const int64_t ext[] = {3, 0, 5};
  static const int perm[] = {2, 0, 1};
  Permutation p;
  EXPECT_FALSE(resolve_permute({nullptr, nullptr, 3, ext, perm, 4}, &p).failed());  // empty: pointers unchecked
  EXPECT_TRUE(p.empty());
  EXPECT_EQ(XPOSE_SUCCESS, xpose_permute(nullptr, nullptr, 3, ext, perm, 4, nullptr, nullptr, nullptr));
  EXPECT_FALSE(resolve_permute({at(1 << 20), at_mut(uintptr_t(1) << 40), 0, nullptr, nullptr, 8}, &p).failed());
  EXPECT_EQ(1, p.elements());
  static const int64_t ext3[] = {3, 4, 5};
  ASSERT_FALSE(resolve_permute({at(1 << 20), at_mut(uintptr_t(1) << 40), 3, ext3, perm, 2}, &p).failed());
  // src dense: strides 20, 5, 1; dst shape (5, 3, 4) dense: strides 12, 4, 1 for src axes 2, 0, 1.
  EXPECT_EQ(20, p.axes[0].src_stride);
  EXPECT_EQ(1, p.axes[2].src_stride);
  EXPECT_EQ(4, p.axes[0].dst_stride);
  EXPECT_EQ(1, p.axes[1].dst_stride);
  EXPECT_EQ(12, p.axes[2].dst_stride);
  EXPECT_EQ(60 * 2, p.dst_span_bytes());
}

TEST(ResolvePermute, DstElementsMustBeDistinct) {
  const auto distinct = [](const int64_t* e, const int64_t* s) {
    return detail::distinct_elements(2, e, s).verdict == detail::Distinct::yes;
  };
  const int64_t e[] = {4, 3}, nested[] = {1, 4}, padded[] = {1, 5}, tight[] = {1, 3}, transposed[] = {3, 1};
  EXPECT_TRUE(distinct(e, nested));
  EXPECT_TRUE(distinct(e, padded));
  EXPECT_FALSE(distinct(e, tight));      // axis 1 starts inside axis 0's 4 elements
  EXPECT_TRUE(distinct(e, transposed));  // axis 1 inner: 3 elements, axis 0 strides 3
  const int64_t one[] = {1, 7}, any[] = {0, 1};
  EXPECT_TRUE(distinct(one, any));  // an axis of one index takes no room
  const int64_t e3[] = {2, 24, 3}, interleaved[] = {39, 6, 1};  // not nested, yet distinct
  EXPECT_EQ(detail::Distinct::yes, detail::distinct_elements(3, e3, interleaved).verdict);
}

layout::PermuteAxes shape_of(std::vector<int64_t> extents, std::vector<int> perm, int64_t elem_bytes) {
  Permutation p;
  const Result e = resolve_permute({at(1 << 20), at_mut(uintptr_t(1) << 40), int(extents.size()), extents.data(),
                                   perm.data(), elem_bytes},
                                  &p);
  EXPECT_FALSE(e.failed()) << e.message;
  return p.shape();
}

// The N-D form prints as one line, the same text --explain shows (NCHW -> NHWC, fp16).
TEST(NdForm, PrintsAsOneLine) {
  layout::NdForm f;
  const char* why = nullptr;
  ASSERT_TRUE(layout::nd_form(layout::normalize(shape_of({2, 3, 4, 5}, {0, 2, 3, 1}, 2)), &f, &why)) << why;
  EXPECT_EQ("2-byte elements, a 20 (src 1, dst 3), b 3 (src 20, dst 1), 2 outer indices: 2 (src 60, dst 60)",
            layout::text(f));
}


TEST(NormalizePermute, LayoutChangesOfModelsBecomeTransposes) {
  layout::TransposeForm t;
  // NCHW -> NHWC, fp16: a batch of N transposes of C x (H*W).
  auto n = layout::normalize(shape_of({2, 64, 7, 9}, {0, 2, 3, 1}, 2));
  EXPECT_EQ(3, n.rank);
  ASSERT_TRUE(layout::as_transpose(n, &t));
  EXPECT_EQ(64, t.rows);
  EXPECT_EQ(63, t.cols);
  EXPECT_EQ(2, t.batch);
  EXPECT_EQ(2, t.elem_bytes);
  // NHWC -> NCHW
  ASSERT_TRUE(layout::as_transpose(layout::normalize(shape_of({2, 7, 9, 64}, {0, 3, 1, 2}, 4)), &t));
  EXPECT_EQ(63, t.rows);
  EXPECT_EQ(64, t.cols);
  // (B, S, H, D) -> (B, H, S, D), bf16 D = 8: D folds into 16-byte elements, a batch of S x H transposes.
  n = layout::normalize(shape_of({4, 100, 12, 8}, {0, 2, 1, 3}, 2));
  EXPECT_EQ(16, n.elem_bytes);
  ASSERT_TRUE(layout::as_transpose(n, &t));
  EXPECT_EQ(100, t.rows);
  EXPECT_EQ(12, t.cols);
  EXPECT_EQ(4, t.batch);
  // D = 64: 128-byte rows move whole; 16-byte elements, 8 of them a row, stay an axis: N-D.
  n = layout::normalize(shape_of({4, 100, 12, 64}, {0, 2, 1, 3}, 2));
  EXPECT_EQ(16, n.elem_bytes);
  EXPECT_EQ(4, n.rank);
  EXPECT_FALSE(layout::as_transpose(n, &t));
  // A volume reversed, (2, 1, 0): a batch of transposes whose batches interleave.
  n = layout::normalize(shape_of({5, 6, 7}, {2, 1, 0}, 4));
  ASSERT_TRUE(layout::as_transpose(n, &t));
  EXPECT_EQ(5, t.rows);
  EXPECT_EQ(7, t.cols);
  EXPECT_EQ(6, t.batch);
  EXPECT_EQ(42, t.ld_src);
  EXPECT_EQ(7, t.stride_src);
  EXPECT_EQ(30, t.ld_dst);
  EXPECT_EQ(5, t.stride_dst);
  // Nothing moves: one axis, a copy (the transpose of one row).
  n = layout::normalize(shape_of({3, 5, 7}, {0, 1, 2}, 4));
  EXPECT_EQ(1, n.rank);
  ASSERT_TRUE(layout::as_transpose(n, &t));
  EXPECT_EQ(105, t.rows * t.cols * t.batch);
  // Unit axes disappear; a rank-6 permutation of them is still a 2-D transpose.
  n = layout::normalize(shape_of({1, 30, 1, 40, 1, 1}, {5, 3, 2, 0, 1, 4}, 8));
  ASSERT_TRUE(layout::as_transpose(n, &t));
  EXPECT_EQ(30, t.rows);
  EXPECT_EQ(40, t.cols);
  // Rank 4 with every axis moved: no 2-D form.
  EXPECT_FALSE(layout::as_transpose(layout::normalize(shape_of({3, 4, 5, 6}, {3, 1, 0, 2}, 4)), &t));
}

TEST(NormalizePermute, FoldsOnlyWhatTheBasesAllow) {
  const auto s = shape_of({4, 100, 12, 8}, {0, 2, 1, 3}, 2);
  EXPECT_EQ(16, layout::normalize(s, 16).elem_bytes);
  EXPECT_EQ(4, layout::normalize(s, 4).elem_bytes);  // bases aligned to 4 bytes only
  EXPECT_EQ(2, layout::normalize(s, 2).elem_bytes);
}

// The N-D kernels' mapping on the host: each outer index (by the kernels' own fast-divisor
// split) and each (a, b) position, with the kernels' index expressions.
void run_nd_form(const layout::NdForm& f, const uint8_t* src, uint8_t* dst) {
  const size_t E = size_t(f.elem_bytes);
  for (uint32_t outer = 0; outer < f.outer_count; ++outer) {
    int64_t s, d;
    f.outer_offsets(outer, &s, &d);
    for (int64_t a = 0; a < f.extent_a; ++a)
      for (int64_t b = 0; b < f.extent_b; ++b)
        std::memcpy(dst + size_t(d + a * f.dst_a + b * f.dst_b) * E, src + size_t(s + a * f.src_a + b * f.src_b) * E, E);
  }
}

// permute_vec_tiled's walk on the host: every tile, every group of outer indices, every slab
// and every position in it, with the kernel's expressions for a slab's place in the tile and
// the sub, b and a of a tile row and column. Every vector the kernel moves must lie whole
// inside the problem and start on 16 bytes at both ends, and a store vector's rows must lie
// in one slab.
::testing::AssertionResult run_vec_tiles(const layout::NdForm& f, const layout::NdVecTiles& t, const uint8_t* src,
                                         uint8_t* dst) {
  const int64_t E = f.elem_bytes;
  const auto aligned = [](const uint8_t* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  for (uint32_t tile = 0; tile < t.tiles_a * t.tiles_b; ++tile) {
    const int64_t a0 = int64_t(tile % t.tiles_a) * t.cols(), b0 = int64_t(tile / t.tiles_a) << t.sub_shift;
    for (uint32_t group = 0; group < t.groups; ++group) {
      const uint32_t first = group * t.subs, live = std::min(t.subs, f.outer_count - first);
      std::vector<int64_t> s_at(live), d_at(live);
      for (uint32_t k = 0; k < live; ++k) f.outer_offsets(first + k, &s_at[k], &d_at[k]);
      const int slabs = (t.rows / t.tile) << t.col_shift;
      for (int j = 0; j < slabs; ++j)
        for (int cell = 0; cell < t.tile * t.tile; ++cell) {
          const int r = t.slab_row(j) + cell / t.tile, c = t.slab_col(j) + cell % t.tile;
          const uint32_t sub = t.sub_of(r);
          const int64_t b = b0 + t.b_of(r), a = a0 + c;
          if (sub >= live || b >= f.extent_b || a >= f.extent_a) continue;
          const uint8_t* from = src + (s_at[sub] + b * f.src_b + a * f.src_a) * E;
          uint8_t* to = dst + (d_at[sub] + a * f.dst_a + b * f.dst_b) * E;
          if (c % t.vec == 0 && (a + t.vec > f.extent_a || !aligned(from)))
            return ::testing::AssertionFailure() << "a load vector at a " << a << ", b " << b << " is cut or unaligned";
          const bool one_slab = r / t.tile == (r + t.vec - 1) / t.tile;
          if (t.b_of(r) % t.vec == 0 && (b + t.vec > f.extent_b || !aligned(to) || !one_slab))
            return ::testing::AssertionFailure() << "a store vector at a " << a << ", b " << b
                                                 << " is cut, unaligned or across slabs";
          std::memcpy(to, from, size_t(E));
        }
    }
  }
  return ::testing::AssertionSuccess();
}

// permute_vec_regs' walk on the host: every unit of every thread of every block, split as
// the kernel splits it. Each live unit's V loads and V stores must be whole vectors inside
// the problem on 16 bytes; the unit's element (i, j) goes from load i's element j to store
// j's element i.
::testing::AssertionResult run_vec_regs(const layout::NdForm& f, const layout::NdVecRegs& t, const uint8_t* src,
                                        uint8_t* dst) {
  const int64_t E = f.elem_bytes, V = t.vec;
  const auto aligned = [](const uint8_t* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  const int threads = layout::nd_regs_threads;
  for (int64_t block = 0; block < t.blocks(); ++block)
    for (int k = 0; k < t.per_thread; ++k)
      for (int x = 0; x < threads; ++x) {
        const uint64_t u64 = uint64_t(block) * uint64_t(threads * t.per_thread) + uint64_t(k) * threads + uint64_t(x);
        if (u64 >= t.units) continue;
        const auto blk = t.block(uint32_t(u64));
        if (!blk.live) continue;
        if (blk.outer >= f.outer_count || int64_t(blk.ib) * V >= f.extent_b)
          return ::testing::AssertionFailure() << "unit " << u64 << " lies outside the problem";
        int64_t s, d;
        f.outer_offsets(blk.outer, &s, &d);
        const int64_t a = int64_t(blk.ia) * V, b = int64_t(blk.ib) * V;
        for (int64_t i = 0; i < V; ++i)
          for (int64_t j = 0; j < V; ++j) {
            const uint8_t* from = src + (s + (b + i) * f.src_b + (a + j) * f.src_a) * E;
            uint8_t* to = dst + (d + (a + j) * f.dst_a + (b + i) * f.dst_b) * E;
            if ((j == 0 && !aligned(from)) || (i == 0 && !aligned(to)))
              return ::testing::AssertionFailure() << "a vector of unit " << u64 << " is unaligned";
            std::memcpy(to, from, size_t(E));
          }
      }
  return ::testing::AssertionSuccess();
}

// permute_aligned_stores' walk on the host: every block, outer index and dst row (column) of
// it, each row piece shifted onto 32-byte sectors by its dst address as the kernel shifts it,
// through the plan's row and column maps. Every element a piece stores must have been staged
// by its block (rows r0 .. r0 + the tile's rows). Where the plan says an outer index's dst rows
// share one shift (dst_cols_one_shift, on which the kernel returns early from a block whose
// pieces all start past the last row), each of its rows must start where its first does,
// modulo 32 bytes.
template <class Rows, class Cols>
::testing::AssertionResult run_aligned_stores(const layout::NdForm& f, const layout::NdAlignedStores& t,
                                              const Rows& rows, const Cols& cols, const uint8_t* src, uint8_t* dst) {
  const int64_t E = f.elem_bytes;
  return layout::with_aligned_dst_tile(E, t.src_rows_aligned, [&](auto a) -> ::testing::AssertionResult {
    using A = decltype(a);
    for (uint32_t x = 0; x < t.blocks(); ++x) {
      const int64_t r0 = t.first_row(x, A::piece, A::max_shift), c0 = t.first_col(x, A::cols);
      for (uint32_t o = 0; o < f.outer_count; ++o) {
        int64_t s, d;
        f.outer_offsets(o, &s, &d);
        for (int64_t c = c0; c < std::min(c0 + A::cols, t.cols); ++c) {
          uint8_t* row = dst + (d + cols(c)) * E;
          const int shift = A::shift(reinterpret_cast<uintptr_t>(row) + uintptr_t(r0 + A::max_shift) * E);
          const uintptr_t first_row = reinterpret_cast<uintptr_t>(dst + (d + cols(c0)) * E);
          if (t.dst_cols_one_shift && (reinterpret_cast<uintptr_t>(row) - first_row) % 32 != 0)
            return ::testing::AssertionFailure() << "dst row " << c << " starts elsewhere mod 32 bytes than row " << c0;
          for (int k = 0; k < A::piece; ++k) {
            const int64_t r = r0 + A::max_shift - shift + k;
            if (r < 0 || r >= t.rows) continue;
            if (t.src_rows_aligned && reinterpret_cast<uintptr_t>(src + (s + rows(r)) * E) % 16 != 0)
              return ::testing::AssertionFailure() << "row " << r << " is taken for 16-byte aligned and is not";
            if (r < r0 || r >= r0 + A::rows)
              return ::testing::AssertionFailure() << "row " << r << " stored by a block that staged " << r0 << "..";
            std::memcpy(row + r * E, src + (s + rows(r) + c) * E, size_t(E));
          }
        }
      }
    }
    return ::testing::AssertionSuccess();
  });
}

::testing::AssertionResult run_aligned_stores(const layout::NdForm& f, const layout::NdAlignedStores& t,
                                              const uint8_t* src, uint8_t* dst) {
  const auto pitched = [](int64_t ld) { return [ld](int64_t i) { return i * ld; }; };
  if (t.row_fused > 1 && t.col_fused > 1) return run_aligned_stores(f, t, t.src_rows, t.dst_cols, src, dst);
  if (t.row_fused > 1) return run_aligned_stores(f, t, t.src_rows, pitched(f.dst_a), src, dst);
  if (t.col_fused > 1) return run_aligned_stores(f, t, pitched(f.src_b), t.dst_cols, src, dst);
  return run_aligned_stores(f, t, pitched(f.src_b), pitched(f.dst_a), src, dst);
}

// The tiles of permute_packed's blocks in the kernel's order (the H100's grid's into *walks),
// for a grid of one block, of three and of an H100's: each must move every tile exactly once.
::testing::AssertionResult packed_walks(const layout::NdPacked& t, std::vector<uint32_t>* walks) {
  for (const uint32_t grid : {uint32_t(1), std::min(t.items, uint32_t(3)), layout::nd_packed_grid(t, 1, 132)}) {
    walks->clear();
    for (uint32_t block = 0; block < grid; ++block)
      for (uint32_t j = 0; j < layout::nd_packed_block_tiles(t.items, grid, block); ++j)
        walks->push_back(block + j * grid);
    std::vector<uint32_t> sorted = *walks;
    std::sort(sorted.begin(), sorted.end());
    for (uint32_t item = 0; item < t.items; ++item)
      if (item >= sorted.size() || sorted[item] != item)
        return ::testing::AssertionFailure() << grid << " blocks do not move each of the " << t.items << " tiles once";
    if (sorted.size() != t.items)
      return ::testing::AssertionFailure() << grid << " blocks move " << sorted.size() << " tiles of " << t.items;
  }
  return ::testing::AssertionSuccess();
}

// permute_packed_lines' stores of one tile of bytes on the host: every word slot placed for a
// dst origin `d` at an address of `d_low` modulo 4 and a stage shifted from `shift`, its bytes
// read from the stage and stored at d.
::testing::AssertionResult store_packed_words(const layout::NdPacked& t, const std::vector<uint8_t>& stage,
                                              const std::vector<char>& copied, uint32_t shift, uint32_t d_low,
                                              uint8_t* d) {
  if (t.line_count * t.line_elems != t.volume || (t.inner_words + 1) * 4 > t.line_elems ||
      (t.line_elems + 2) / 4 + 1 != t.inner_words + t.edge_words)
    return ::testing::AssertionFailure() << "the lines' words do not cover their elements";
  std::vector<int> writes(t.volume);
  for (const bool edge : {false, true})
    for (uint32_t n = 0; n < t.line_count * (edge ? t.edge_words : t.inner_words); ++n) {
      const layout::NdPacked::Word w = t.word(n, edge);
      const layout::NdPacked::PlacedWord p = t.place(w, d_low, shift);
      if ((d_low + uint32_t(p.to)) % 4)
        return ::testing::AssertionFailure() << "word " << n << " lies off a 4-byte boundary";
      const uint32_t line = (edge ? t.by_edge : t.by_inner).div(n);
      for (int64_t q = 0; q < 4; ++q) {
        const int64_t j = w.first - int64_t(p.lead) + q, place = uint32_t(p.place + uint32_t(q) * t.line_step);
        if (j < 0 || j >= int64_t(t.line_elems)) {
          if (!edge) return ::testing::AssertionFailure() << "interior word " << n << " holds a byte of no line";
          continue;
        }
        if (place >= int64_t(stage.size()))
          return ::testing::AssertionFailure() << "word " << n << " reads place " << place << " of " << stage.size();
        if (!copied[size_t(place)])
          return ::testing::AssertionFailure() << "word " << n << " stores byte " << place << ", never copied";
        ++writes[size_t(line) * t.line_elems + size_t(j)];
        d[p.to + q] = stage[size_t(place)];
      }
    }
  for (const int n : writes)
    if (n != 1) return ::testing::AssertionFailure() << "the words write an element of the tile " << n << " times";
  return ::testing::AssertionSuccess();
}

// permute_packed by chunks on the host: each thread's chunk slots and each row's chunks as the
// kernel copies them into a stage (the bytes of a chunk past src's span left out), then each
// element stored from the place the kernel works out from its packed staged place and the
// tile origin's address; or (t.lines) each word slot placed as the kernel places it for dst's
// base at an address of `dst_low` modulo 16. Every chunk must fit its stage and lie inside
// src; every element a store reads must lie inside the stage, at a multiple of its size,
// every byte of it copied; every word must be aligned, an interior one whole, and the words
// must write each element of a tile once.
::testing::AssertionResult run_packed_chunks(const layout::NdForm& f, const layout::NdPacked& t,
                                             const std::vector<int32_t>& load_rest,
                                             const std::vector<layout::NdPacked::Offsets>& store_row,
                                             const std::vector<layout::NdPacked::Offsets>& store_rest, const uint8_t* src,
                                             size_t src_size, uint8_t* dst, uint32_t dst_low) {
  const int64_t E = f.elem_bytes, row_bytes = int64_t(t.load_row) * E;
  if (uint64_t(t.load_rest) * t.seg_chunks > uint64_t(layout::nd_packed_threads) * layout::nd_packed_chunk_slots)
    return ::testing::AssertionFailure() << "more chunks a tile than the block's threads have slots for";
  if (t.stages < 2 || t.stages > uint32_t(layout::nd_packed_max_stages) || t.seg_pitch % 16 || t.stage_bytes % 16 ||
      t.seg_pitch < 16 * t.seg_chunks || uint64_t(t.stage_bytes) != uint64_t(t.seg_pitch) * t.load_rest ||
      t.stage_bytes > 0xffff || t.src_bytes > int64_t(src_size))
    return ::testing::AssertionFailure() << "the stages' sizes do not hold together";
  const int64_t base = 4096 + int64_t(t.src_low);  // where src's element 0 stands
  std::vector<uint8_t> stage(t.stage_bytes);
  std::vector<char> copied(t.stage_bytes);
  std::vector<uint32_t> walks;
  if (auto walked = packed_walks(t, &walks); !walked) return walked;
  for (const uint32_t item : walks) {
    int64_t s, d;
    layout::nd_packed_origin(f, t, item, &s, &d);
    std::fill(copied.begin(), copied.end(), 0);
    for (uint32_t q = 0; q < t.load_rest * t.seg_chunks; ++q) {  // the kernel's slots
      uint32_t c;
      const uint32_t k = t.by_seg_chunks.divmod(q, &c);
      const int64_t at = base + (s + load_rest[k]) * E, shift = at & 15;
      if (16 * int64_t(c) >= shift + row_bytes) continue;
      const int64_t chunk = at - shift + 16 * int64_t(c), place = int64_t(k) * t.seg_pitch + 16 * int64_t(c);
      if (place + 16 > t.seg_pitch * int64_t(k + 1))
        return ::testing::AssertionFailure() << "tile " << item << ": chunk " << c << " of row " << k << " past its row";
      for (int b = 0; b < 16; ++b) {
        if (chunk + b < base || chunk + b >= base + t.src_bytes) continue;  // the kernel copies byte by byte there
        stage[size_t(place + b)] = src[size_t(chunk + b - base)];
        copied[size_t(place + b)] = 1;
      }
    }
    const uint32_t shift = uint32_t(int64_t(t.src_low) + s * E) & 15;
    if (t.lines) {
      if (auto stored = store_packed_words(t, stage, copied, shift, uint32_t(dst_low + d), dst + d); !stored)
        return stored << " (tile " << item << ")";
      continue;
    }
    for (uint32_t l = 0; l < t.volume; ++l) {
      uint32_t j;
      const uint32_t m = t.store_div.divmod(l, &j);
      const uint32_t packed = store_row[j].staged + store_rest[m].staged;
      const int64_t place = (packed & 0xfffff) + ((shift + (packed >> 20)) & 15);
      if (place + E > t.stage_bytes || place % std::min<int64_t>(E, 16))
        return ::testing::AssertionFailure() << "tile " << item << " reads place " << place << " of " << t.stage_bytes;
      for (int64_t b = 0; b < E; ++b)
        if (!copied[size_t(place + b)])
          return ::testing::AssertionFailure() << "tile " << item << " stores byte " << place + b << ", never copied";
      std::memcpy(dst + (d + store_row[j].dst + store_rest[m].dst) * E, &stage[size_t(place)], size_t(E));
    }
  }
  return ::testing::AssertionSuccess();
}

// permute_packed's walk on the host: the block's tables, each thread's elements read from them
// as the kernel reads them, then every tile: loads staged, stores from the staged tile. Every
// staged place must lie inside the tile's shared memory, and every place a store reads must
// have been staged by the same tile.
// By chunks (t.chunks), src's element 0 stands at an address of t.src_low modulo 16 and every
// chunk the kernel copies must lie inside src's span, which must lie inside `src_size`.
::testing::AssertionResult run_packed(const layout::NdForm& f, const layout::NdPacked& t, const uint8_t* src,
                                      size_t src_size, uint8_t* dst, uint32_t dst_low = 0) {
  const int64_t E = f.elem_bytes;
  if (t.volume > uint32_t(layout::nd_packed_most(E, t.chunks)) || t.load_row * t.load_rest != t.volume ||
      t.store_row * t.store_rest != t.volume)
    return ::testing::AssertionFailure() << "the tile's sides do not multiply to its " << t.volume << " elements";
  const int64_t tiles_bytes = t.chunks ? int64_t(t.stages) * t.stage_bytes : int64_t(t.ld) * t.load_rest * E;
  if (tiles_bytes > t.ring_at || layout::nd_packed_table_bytes(t) > t.ring_at)
    return ::testing::AssertionFailure() << "the block's tile or tables reach into its origin ring";
  if (t.ring_at % 16 || t.ring_at + 2 * layout::nd_packed_ring * 16 > t.smem_bytes)
    return ::testing::AssertionFailure() << "the origin ring is unaligned or past the block's shared memory";
  std::vector<int32_t> load_row(t.load_row), load_rest(t.load_rest);
  std::vector<layout::NdPacked::Offsets> store_row(t.store_row), store_rest(t.store_rest);
  for (uint32_t n = 0; n < t.load_row; ++n) load_row[n] = t.load_row_at(n).src;
  for (uint32_t n = 0; n < t.load_rest; ++n) load_rest[n] = t.load_rest_at(n).src;
  for (uint32_t n = 0; n < t.store_row; ++n) store_row[n] = t.store_row_at(n);
  for (uint32_t n = 0; n < t.store_rest; ++n) store_rest[n] = t.store_rest_at(n);
  if (t.chunks) return run_packed_chunks(f, t, load_rest, store_row, store_rest, src, src_size, dst, dst_low);
  struct Element {
    int32_t from, to;
    uint32_t load_at, store_at;
  };
  std::vector<Element> elements;  // every thread's, in the order of l
  for (uint32_t l = 0; l < t.volume; ++l) {
    uint32_t i, j;
    const uint32_t k = t.load_div.divmod(l, &i), m = t.store_div.divmod(l, &j);
    elements.push_back({load_row[i] + load_rest[k], store_row[j].dst + store_rest[m].dst, i + t.ld * k,
                        uint32_t(store_row[j].staged + store_rest[m].staged)});
  }
  const uint32_t places = t.ld * t.load_rest;
  for (const Element& e : elements)
    if (e.load_at >= places || e.store_at >= places || e.load_at > 0xffff || e.store_at > 0xffff)
      return ::testing::AssertionFailure() << "a staged place lies outside the tile's " << places;
  std::vector<uint8_t> tile(size_t(places) * size_t(E));
  std::vector<char> staged(places);
  std::vector<uint32_t> walks;
  if (auto walked = packed_walks(t, &walks); !walked) return walked;
  for (const uint32_t item : walks) {
    int64_t s, d;
    layout::nd_packed_origin(f, t, item, &s, &d);
    std::fill(staged.begin(), staged.end(), 0);
    for (const Element& e : elements) {
      std::memcpy(&tile[size_t(e.load_at) * size_t(E)], src + (s + e.from) * E, size_t(E));
      staged[e.load_at] = 1;
    }
    for (const Element& e : elements) {
      if (!staged[e.store_at])
        return ::testing::AssertionFailure() << "tile " << item << " stores place " << e.store_at << ", never staged";
      std::memcpy(dst + (d + e.to) * E, &tile[size_t(e.store_at) * size_t(E)], size_t(E));
    }
  }
  return ::testing::AssertionSuccess();
}

// permute_rows' launches on the host, each chunk's linear index split as the kernel splits it;
// `gather`: permute_gather's (a tiled form's a x b elements an outer index, b fastest).
void run_rows_chunks(const layout::NdForm& f, const uint8_t* src, uint8_t* dst, int64_t max_count,
                     bool gather = false) {
  const size_t E = size_t(f.elem_bytes);
  const layout::FastDivmod by_b(uint32_t(gather ? f.extent_b : 1));
  layout::for_each_rows_chunk(
      f, gather ? f.extent_a * f.extent_b : f.extent_a,
      [&](const layout::NdRowsChunk& c) {
        ASSERT_LE(int64_t(c.count()), max_count);
        for (uint32_t i = 0; i < uint32_t(c.count()); ++i) {
          uint32_t pos;
          const uint32_t outer = c.length.divmod(i, &pos);
          int64_t s, d;
          f.outer_offsets(c.outer_base + outer, &s, &d);
          if (gather) {
            layout::nd_gather_offsets(f, by_b, uint32_t(c.a_base + pos), &s, &d);
          } else {
            s += (c.a_base + pos) * f.src_a;
            d += (c.a_base + pos) * f.dst_a;
          }
          std::memcpy(dst + size_t(d) * E, src + size_t(s) * E, E);
        }
      },
      max_count);
}

// permute_row_vectors' walk on the host, as its kernel takes it: each launch's linear index
// split into (outer index, granule), the granule's bytes from layout::row_granule at dst's
// addresses; its src bytes read as the aligned vectors around them (layout::shifted_chunk
// within src's span, t.src_bytes, which must hold every src byte) and shifted out, stored whole
// (one aligned 16-byte store) or in part (the row's bytes alone); a partial granule of 4- to
// 16-byte elements, or one whose vectors reach past the span, element by element. `src_at` and
// `dst_at` are the addresses the bases stand for (their alignment is what the walk reads);
// `src` holds the `src_size` bytes of src's span; every dst byte written is counted in `writes`.
::testing::AssertionResult run_row_vectors(const layout::NdForm& f, const layout::NdRowVectors& t, const uint8_t* src,
                                           size_t src_size, uintptr_t src_at, uint8_t* dst, uintptr_t dst_at,
                                           std::vector<int>* writes, int64_t max_count) {
  const int64_t E = f.elem_bytes;
  if (t.src_bytes != int64_t(src_size))
    return ::testing::AssertionFailure() << "src's span is " << t.src_bytes << " bytes, not its " << src_size;
  ::testing::AssertionResult result = ::testing::AssertionSuccess();
  uint64_t outers = 0;
  layout::for_each_rows_chunk(
      f, t.granules.divisor,
      [&](const layout::NdRowsChunk& c) {
        if (!result) return;
        if (c.outer_base != outers || c.outers == 0 || c.a_base != 0 || c.length.divisor != t.granules.divisor ||
            c.count() > uint64_t(max_count)) {
          result = ::testing::AssertionFailure() << "chunk at outer " << c.outer_base << " of " << c.outers;
          return;
        }
        outers += c.outers;
        for (uint32_t i = 0; i < uint32_t(c.count()); ++i) {
          uint32_t g;
          const uint32_t outer = c.length.divmod(i, &g);
          g += uint32_t(c.a_base);
          int64_t s, d;
          f.outer_offsets(c.outer_base + outer, &s, &d);
          const uintptr_t row = dst_at + uintptr_t(d * E);
          const layout::RowGranule r = layout::row_granule(row, t.row_bytes, g);
          if (r.begin >= r.end) continue;
          if ((row + uintptr_t(r.first)) % 16 != 0) {
            result = ::testing::AssertionFailure() << "a granule's dst word is not 16-byte aligned";
            return;
          }
          uint8_t bytes[16];
          bool have = false;
          if (E <= 2 || r.whole) {
            const layout::ShiftedChunk sc = layout::shifted_chunk(src_at + uintptr_t(s * E + r.first), src_at, src_at + uintptr_t(t.src_bytes));
            if (sc.whole) {
              uint32_t w[8] = {};
              std::memcpy(w, src + (sc.first - src_at), sc.offset ? 32 : 16);
              uint32_t out[4];
              layout::shift_out_chunk(w, sc.offset, out);
              std::memcpy(bytes, out, 16);
              have = true;
            }
          }
          for (int64_t b = r.begin; b < r.end; ++b) {
            const uint8_t v = have ? bytes[b - r.first] : src[s * E + b];
            dst[d * E + b] = v;
            ++(*writes)[size_t(d * E + b)];
          }
        }
      },
      max_count);
  if (result && outers != f.outer_count) return ::testing::AssertionFailure() << "the launches cover " << outers << " outer indices";
  return result;
}

// One draw's bytes: src filled at random (its first element `offset` bytes in), the model's
// dst in `want` and a dst for the walk under test in `got` (both 0xA5 where nothing is
// written), and the request resolved with `got` as its dst.
struct DrawnBytes {
  std::vector<uint8_t> src, want, got;
  size_t offset = 0;
  Permutation p;
  layout::NdForm form;  // p's N-D form, normalized with elements of at most `widest` bytes
  const uint8_t* from() const { return src.data() + offset; }
};

::testing::AssertionResult draw_bytes(const testing::RandomPermutation& r, size_t offset, int64_t widest,
                                      std::mt19937_64& rng, DrawnBytes* d) {
  const int64_t E = r.elem_bytes;
  d->offset = offset;
  d->src.assign(offset + size_t(r.src_span_elements() * E), 0);
  for (auto& b : d->src) b = uint8_t(rng());
  d->want.assign(size_t(r.dst_span_elements() * E), 0xA5);
  d->got = d->want;
  r.model(d->from(), d->want.data());
  const PermuteArgs args{d->from(), d->got.data(), int(r.extents.size()), r.extents.data(), r.perm.data(), E,
                         r.src_or_null(), r.dst_or_null()};
  const Result e = resolve_permute(args, &d->p);
  if (e.failed()) return ::testing::AssertionFailure() << e.message;
  const char* why = nullptr;
  if (!layout::nd_form(layout::normalize(d->p.shape(), widest), &d->form, &why))
    return ::testing::AssertionFailure() << "no N-D form: " << (why ? why : "");
  return ::testing::AssertionSuccess();
}

// Draws whose shapes permute_vec_tiled serves about half the time (whole vectors, vector
// pads, 16-byte bases): its walk (in dst's and in src's block order), permute_vec_regs' walk,
// the rows kernel's chunks and permute_gather's (cut small) write what the model writes.
TEST(PermuteNdKernels, VectorTilesAndRowChunksMatchTheModel) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int vector_tiles = 0, packed = 0, reordered = 0, rows = 0, regs = 0, gathered = 0;
  // 1000 draws, and more until one reorders its outer axes (4-10 of the 1000 do; seed
  // 4017359156 drew none).
  for (int trial = 0; trial < 1000 || (reordered == 0 && trial < 20000); ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 14, true);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, 0, 16, rng, &d));  // the vectors' bases are 16-byte aligned
    layout::NdForm f = d.form;
    const char* why = nullptr;
    layout::NdVecRegs g;
    const uintptr_t from = reinterpret_cast<uintptr_t>(d.src.data()), to = reinterpret_cast<uintptr_t>(d.got.data());
    if (layout::nd_vec_regs(f, from, to, &g, &why)) {
      std::vector<uint8_t> by_regs(d.got.size(), 0xA5);
      ASSERT_TRUE(run_vec_regs(f, g, d.src.data(), by_regs.data()));
      ASSERT_EQ(d.want, by_regs) << "the register blocks (" << g.lanes_a.divisor << " lanes along a) write otherwise; "
                                 << layout::text(f);
      ++regs;
    }
    if (f.tiled) {  // permute_gather, on the form as planned (before the vector tiles reorder it)
      std::vector<uint8_t> by_gather(d.got.size(), 0xA5);
      run_rows_chunks(f, d.src.data(), by_gather.data(), 1 + int64_t(rng() % 40), true);
      ASSERT_EQ(d.want, by_gather) << "permute_gather's chunks write otherwise; " << layout::text(f);
      ++gathered;
    }
    layout::NdVecTiles t;
    if (layout::nd_vec_tiles(f, from, to, &t, &why)) {
      const int64_t second = f.outer_rank > 1 ? f.outer_src[1] : 0;
      layout::order_outer_for_tiles(t, &f);  // may visit the outer axes in src's order
      reordered += f.outer_rank > 1 && f.outer_src[1] != second;
      ASSERT_TRUE(run_vec_tiles(f, t, d.src.data(), d.got.data()));
      ASSERT_EQ(d.want, d.got) << "the vector tiles (" << t.subs << " outer indices a tile) write otherwise";
      ++vector_tiles;
      packed += t.subs > 1;
    } else if (!f.tiled) {
      run_rows_chunks(f, d.src.data(), d.got.data(), 1 + int64_t(rng() % 40));
      ASSERT_EQ(d.want, d.got) << "the rows kernel's chunks write otherwise";
      ++rows;
    }
  }
  EXPECT_GT(vector_tiles, 200);
  EXPECT_EQ(vector_tiles, regs);  // the two vector kernels serve the same forms
  EXPECT_GT(packed, 100);
  EXPECT_GT(reordered, 0);  // about 1 in 30 of the vector tiles
  EXPECT_GT(rows, 200);
  EXPECT_GT(gathered, 400);
}

// Draws at any alignment (element-aligned bases off 16 bytes): permute_aligned_stores' walk,
// with the outer axes it fuses into its rows and columns, writes what the model writes.
TEST(PermuteNdKernels, AlignedStoresMatchTheModel) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int served = 0, row_fused = 0, col_fused = 0, both = 0, unaligned = 0, one_shift = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 14, false);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const int64_t E = r.elem_bytes;
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, size_t(E) * (rng() % 2), E, rng, &d));  // off 16 bytes half the time
    layout::NdForm f = d.form;
    const char* why = nullptr;
    layout::NdAlignedStores t;
    if (!layout::nd_aligned_stores(&f, reinterpret_cast<uintptr_t>(d.from()), &t, &why)) continue;
    ASSERT_EQ(t.rows, f.extent_b * t.row_fused);
    ASSERT_EQ(t.cols, f.extent_a * t.col_fused);
    // The blocks walk the row blocks first where they are fewer than many column tiles, and
    // take each (row block, column tile) once either way.
    ASSERT_EQ(t.rows_first, t.row_blocks < t.col_tiles && t.col_tiles >= layout::nd_stores_rows_first_tiles);
    std::set<std::pair<int64_t, int64_t>> blocks;
    for (uint32_t x = 0; x < t.blocks(); ++x) blocks.emplace(t.first_row(x, 1, 0), t.first_col(x, 1));
    ASSERT_EQ(size_t(t.blocks()), blocks.size());
    ASSERT_EQ(std::make_pair(int64_t(t.row_blocks - 1), int64_t(t.col_tiles - 1)), *blocks.rbegin());
    ASSERT_TRUE(run_aligned_stores(f, t, d.from(), d.got.data()));
    ASSERT_EQ(d.want, d.got) << "the aligned stores (rows x" << t.row_fused << ", columns x" << t.col_fused
                             << ") write otherwise";
    ++served;
    row_fused += t.row_fused > 1;
    col_fused += t.col_fused > 1;
    both += t.row_fused > 1 && t.col_fused > 1;
    unaligned += !t.src_rows_aligned;
    one_shift += t.dst_cols_one_shift;
  }
  EXPECT_GT(served, 180);  // 250-340 in 2000 draws
  EXPECT_GT(one_shift, 20);  // 45-60
  EXPECT_GT(row_fused, 30);
  EXPECT_GT(col_fused, 60);
  EXPECT_GT(both, 6);
  EXPECT_GT(unaligned, 150);
}

// Shapes of a few row blocks by many column tiles (more than the random draws above reach):
// permute_aligned_stores walks their row blocks first and writes what the model writes.
TEST(PermuteNdKernels, AlignedStoresWalkRowBlocksFirstAcrossManyColumnTiles) {
  std::mt19937_64 rng(7);
  struct Case {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    int64_t elem_bytes;
    size_t offset;  // bytes off src's allocation
  };
  const Case cases[] = {
      {{225, 520, 130}, {2, 1, 0}, 1, 0},  // aligned rows: the wide tile, src's axes 130 x 520 fused
      {{481, 521, 65}, {2, 1, 0}, 1, 3},   // shifted rows
      {{161, 40000}, {1, 0}, 4, 4},        // one long src row axis, no fusion
  };
  for (const Case& c : cases) {
    testing::RandomPermutation r;
    r.extents = c.extents, r.perm = c.perm, r.elem_bytes = c.elem_bytes;
    SCOPED_TRACE(r.text());
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, c.offset, c.elem_bytes, rng, &d));
    layout::NdForm f = d.form;
    const char* why = nullptr;
    layout::NdAlignedStores t;
    ASSERT_TRUE(layout::nd_aligned_stores(&f, reinterpret_cast<uintptr_t>(d.from()), &t, &why)) << why;
    EXPECT_TRUE(t.rows_first) << t.row_blocks << " row blocks, " << t.col_tiles << " column tiles";
    EXPECT_GT(t.row_blocks, 1u);
    ASSERT_TRUE(run_aligned_stores(f, t, d.from(), d.got.data()));
    ASSERT_EQ(d.want, d.got);
  }
}

// The fill of permute_aligned_stores' blocks is that of the tile the kernel runs: bytes from
// aligned src rows the wide one (128 rows a block), others the shifted one (256).
TEST(PermuteNdKernels, AlignedStoresFillIsThatOfItsTile) {
  EXPECT_DOUBLE_EQ(97.0 / 128, layout::nd_stores_fill(97, 128, 1, true));
  EXPECT_DOUBLE_EQ(97.0 / 256, layout::nd_stores_fill(97, 128, 1, false));
  EXPECT_DOUBLE_EQ(97.0 / 128 * 100 / 128, layout::nd_stores_fill(97, 100, 2, true));  // no wide tile
  EXPECT_DOUBLE_EQ(97.0 / 128 * 100 / 128, layout::nd_stores_fill(97, 100, 2, false));
}

// The share of permute_aligned_stores' blocks without edge tests, against the tile's own test
// block by block.
template <int E, bool Aligned>
void check_interior_share(std::mt19937_64& rng) {
  using A = layout::AlignedDstTileFor<E, Aligned>;
  for (int trial = 0; trial < 300; ++trial) {
    const int64_t rows = 1 + int64_t(rng() % 3000), cols = 1 + int64_t(rng() % 3000);
    const int64_t row_blocks = A::row_blocks(rows), col_tiles = layout::ceil_div(cols, int64_t(A::cols));
    int64_t inside = 0;
    for (int64_t k = 0; k < row_blocks; ++k)
      for (int64_t j = 0; j < col_tiles; ++j)
        inside += A::interior(rows, cols, k * A::piece - A::max_shift, j * A::cols, !Aligned);
    ASSERT_NEAR(double(inside) / double(row_blocks * col_tiles), layout::nd_stores_interior(rows, cols, E, Aligned),
                1e-12)
        << E << "-byte elements, " << rows << " x " << cols << (Aligned ? ", aligned" : ", shifted");
  }
}

TEST(PermuteNdKernels, AlignedStoresInteriorShareIsTheTilesOwn) {
  std::mt19937_64 rng(11);
  check_interior_share<1, true>(rng);
  check_interior_share<1, false>(rng);
  check_interior_share<2, true>(rng);
  check_interior_share<2, false>(rng);
  check_interior_share<4, false>(rng);
  check_interior_share<8, true>(rng);
}

// Draws at any alignment and strides: permute_packed's walk writes what the model writes, with
// the kernel's tile size and with smaller ones (so that the small shapes of the draws are cut
// into several tiles along one, two or three axes).
TEST(PermuteNdKernels, PackedTilesMatchTheModel) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int served = 0, cut[4] = {}, overlapping = 0, chunked = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 13, false);
    const int most = trial % 3 ? 4 << (rng() % 9) : 0;  // 4 .. 1024 elements; 0: the kernel's
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text() + ", tiles of at most " + std::to_string(most));
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, 0, r.elem_bytes, rng, &d));
    layout::NdForm f = d.form;
    const char* why = nullptr;
    layout::NdPacked t;
    // src's base address modulo 16: element by element, or by chunks where that serves
    const int src_low = trial % 4 == 0 ? -1 : int(rng() % 16) / int(std::min<int64_t>(r.elem_bytes, 16)) * int(std::min<int64_t>(r.elem_bytes, 16));
    if (!layout::nd_packed(&f, &t, &why, most, src_low)) continue;
    const uint32_t dst_low = uint32_t(r.elem_bytes * (rng() % 16));  // dst's base address modulo 16 (and more)
    ASSERT_TRUE(run_packed(f, t, d.src.data(), d.src.size(), d.got.data(), dst_low)) << layout::text(t);
    ASSERT_EQ(d.want, d.got) << "the packed tiles write otherwise: " << layout::text(t);
    ++served;
    ++cut[t.split_rank];
    overlapping += t.load_rank + t.store_rank > t.rank;
    chunked += t.chunks;
  }
  EXPECT_GT(served, 1400);
  EXPECT_GT(chunked, 100);
  EXPECT_GT(cut[1], 100);
  EXPECT_GT(cut[2], 100);
  EXPECT_GT(cut[3], 5);
  EXPECT_GT(overlapping, 100);  // an axis in both runs
}

// layout::src_span_bytes (what the kernels that read aligned vectors around src's bytes stay
// inside) is the span of src's elements, tiled forms and not, every element size.
TEST(PermuteNdKernels, SrcSpanIsTheDrawnSpan) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int tiled = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 13, false);
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, 0, r.elem_bytes, rng, &d));
    ASSERT_EQ(layout::src_span_bytes(d.form), int64_t(d.src.size())) << r.text() << "; " << layout::text(d.form);
    tiled += d.form.tiled;
  }
  EXPECT_GT(tiled, 100);
}

// permute_row_vectors' walk on rows of every alignment (the bases stand for addresses at every
// element-aligned offset from 16 bytes, on each side), in launches cut short at random: every
// dst byte is written once, with what the model writes.
TEST(PermuteNdKernels, RowVectorsMatchTheModel) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int served = 0, shifted = 0, chunked = 0;
  for (int trial = 0; trial < 3000 && served < 400; ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 13, false);
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, 0, r.elem_bytes, rng, &d));
    const layout::NdForm& f = d.form;
    layout::NdRowVectors t;
    const char* why = nullptr;
    if (!layout::nd_row_vectors(f, &t, &why)) {
      ASSERT_TRUE(f.tiled || f.src_a != 1 || f.dst_a != 1) << why;
      continue;
    }
    const int64_t E = f.elem_bytes, slots = 16 / std::min<int64_t>(E, 16);
    const uintptr_t src_at = (uintptr_t(1) << 20) + uintptr_t(E * int64_t(rng() % uint64_t(slots)));
    const uintptr_t dst_at = (uintptr_t(1) << 30) + uintptr_t(E * int64_t(rng() % uint64_t(slots)));
    const int64_t max_count = rng() % 2 ? layout::nd_rows_max_count : int64_t(t.granules.divisor) * (1 + int64_t(rng() % 5));
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text() + "; " + layout::text(f) + "; src at " +
                 std::to_string(src_at % 16) + ", dst at " + std::to_string(dst_at % 16) + " mod 16");
    std::vector<int> writes(d.got.size(), 0);
    ASSERT_TRUE(run_row_vectors(f, t, d.src.data(), d.src.size(), src_at, d.got.data(), dst_at, &writes, max_count));
    ASSERT_EQ(d.want, d.got) << "the row vectors write otherwise";
    for (size_t b = 0; b < writes.size(); ++b) ASSERT_LE(writes[b], 1) << "dst byte " << b << " written twice";
    ++served;
    shifted += (src_at - dst_at) % 16 != 0 && t.row_bytes >= 48;
    chunked += max_count < int64_t(f.outer_count) * int64_t(t.granules.divisor);
  }
  EXPECT_GT(served, 100);
  EXPECT_GT(shifted, 20);
  EXPECT_GT(chunked, 20);
}

// permute_packed_lines (NdPacked::lines): byte draws whose dst lines lie in src's run (src
// (outer, B, A) to dst (..., A, B) with A short and odd: deinterleaves, batched or padded), at
// every src and dst address modulo 16: the words write what the model writes, each element
// once, each word aligned.
TEST(PermuteNdKernels, PackedLinesMatchTheModel) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int lines = 0, edges3 = 0, skewed = 0;
  for (int trial = 0; trial < 300; ++trial) {
    testing::RandomPermutation r;
    r.elem_bytes = 1;
    const int64_t a = 1 + 2 * int64_t(rng() % 7), b = 150 + int64_t(rng() % 700), outer = 1 + int64_t(rng() % 5);
    r.extents = {outer, b, a};
    r.perm = rng() % 2 ? std::vector<int>{0, 2, 1} : std::vector<int>{2, 0, 1};
    if (rng() % 3 == 0) r.src_strides = {b * a + int64_t(rng() % 7), a, 1};  // a padded batch
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    DrawnBytes d;
    ASSERT_TRUE(draw_bytes(r, 0, r.elem_bytes, rng, &d));
    layout::NdForm f = d.form;
    const char* why = nullptr;
    layout::NdPacked t;
    const int src_low = int(rng() % 16);
    const int most = trial % 2 ? 0 : 1024 << (rng() % 3);
    if (!layout::nd_packed(&f, &t, &why, most, src_low)) continue;
    const uint32_t dst_low = uint32_t(rng() % 16);
    ASSERT_TRUE(run_packed(f, t, d.src.data(), d.src.size(), d.got.data(), dst_low)) << layout::text(t);
    ASSERT_EQ(d.want, d.got) << "the packed tiles write otherwise: " << layout::text(t);
    lines += t.lines;
    edges3 += t.lines && t.edge_words == 3;
    skewed += t.lines && dst_low % 4;
  }
  EXPECT_GT(lines, 100);
  EXPECT_GT(edges3, 20);
  EXPECT_GT(skewed, 50);
}

// permute_packed's tiles of short fastest axes: both runs reach about the longest length the
// tile holds, and a tile fills at least half of the kernel's block.
TEST(PermuteNdKernels, PackedTilesOfShortAxes) {
  struct Case {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    int64_t elem_bytes;
    int run_bytes;  // the run both sides reach: the longest whose tile fits
  };
  const Case cases[] = {
      {{4096, 64, 64, 3}, {3, 1, 2, 0}, 2, 64},  // channels-last to -first, 3 channels: 33 x 32 tiles
      {{4096, 3, 64, 64}, {0, 2, 3, 1}, 2, 512},  // and back: dst's run takes src's 3 x 256 whole
      {{64, 224, 224, 3}, {0, 3, 1, 2}, 1, 512},
      {{33, 2, 1617, 19, 5}, {0, 3, 2, 4, 1}, 2, 128},
      {{8, 8, 8, 8, 8, 8}, {5, 4, 3, 2, 1, 0}, 4, 128},
      {{1024, 1024, 2}, {2, 1, 0}, 16, 256},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.extents) + " " + ::testing::PrintToString(c.perm));
    const PermuteArgs args{at(1 << 20), at_mut(uintptr_t(1) << 40), int(c.extents.size()), c.extents.data(),
                           c.perm.data(), c.elem_bytes, nullptr, nullptr};
    Permutation p;
    ASSERT_FALSE(resolve_permute(args, &p).failed());
    layout::NdForm f;
    const char* why = nullptr;
    ASSERT_TRUE(layout::nd_form(layout::normalize(p.shape(), c.elem_bytes), &f, &why)) << why;
    layout::NdPacked t;
    ASSERT_TRUE(layout::nd_packed(&f, &t, &why)) << why;
    SCOPED_TRACE(layout::text(t));
    EXPECT_EQ(t.run_bytes, c.run_bytes);
    EXPECT_GE(2 * t.load_row * c.elem_bytes, c.run_bytes);  // a cut into equal tiles halves a run at worst
    EXPECT_GE(2 * t.store_row * c.elem_bytes, c.run_bytes);
    EXPECT_GE(2 * t.volume, uint32_t(layout::nd_packed_most(c.elem_bytes)));
  }
}

// permute_vec_tiled's decisions on the case list's shapes (docs/performance.md measured
// them): what it refuses, how tiles pack, and the block order.
TEST(PermuteNdKernels, VectorTilesOfTheCaseList) {
  const auto plan = [](std::vector<int64_t> extents, std::vector<int> perm, int64_t e, layout::NdForm* f,
                       layout::NdVecTiles* t, uintptr_t src = 1 << 20, uintptr_t dst = uintptr_t(1) << 40) {
    const char* why = nullptr;
    EXPECT_TRUE(layout::nd_form(layout::normalize(shape_of(extents, perm, e)), f, &why)) << why;
    why = nullptr;
    const bool ok = layout::nd_vec_tiles(*f, src, dst, t, &why);
    if (ok) layout::order_outer_for_tiles(*t, f);
    return ok ? std::string() : std::string(why);
  };
  layout::NdForm f;
  layout::NdVecTiles t;
  // fp16 rank 6: dst's fastest axis holds 16: 4 outer indices a tile, two slabs side by side
  // along src's 64 (32-element slabs are 64-byte rows), blocks in dst's order (a tile reads
  // and writes 128-byte runs).
  ASSERT_EQ("", plan({16, 8, 16, 16, 8, 64}, {5, 3, 1, 4, 2, 0}, 2, &f, &t));
  EXPECT_EQ(1, t.col_shift);
  EXPECT_EQ(64, t.rows);
  EXPECT_EQ(16, t.sub_rows());
  EXPECT_EQ(4u, t.subs);
  EXPECT_EQ(1u, t.tiles_a);
  EXPECT_EQ(4096u, t.groups);
  EXPECT_EQ(16, f.outer_dst[0]);  // src axis 2 (dst stride 16), then the others by dst stride:
  EXPECT_EQ(256, f.outer_dst[1]);  // axis 4,
  EXPECT_EQ(2048, f.outer_dst[2]);  // axis 1 (src's order would take axis 3 first)
  // fp32 rank 5: a tile reads 4 outer indices' 64-element rows end to end (1 KiB) and writes
  // 256-byte runs: blocks in src's order.
  ASSERT_EQ("", plan({32, 16, 64, 16, 64}, {4, 2, 0, 3, 1}, 4, &f, &t));
  EXPECT_EQ(0, t.col_shift);
  EXPECT_EQ(4u, t.subs);
  EXPECT_EQ(64, f.outer_src[0]);    // axis 3, a tile's own
  EXPECT_EQ(1024, f.outer_src[1]);  // then axis 2 (src's order) before axis 0
  EXPECT_EQ(65536 * 16, f.outer_src[2]);
  // u8 rank 4: 128x128 tiles (four 64x64 slabs, two side by side), one outer index each.
  ASSERT_EQ("", plan({64, 128, 128, 128}, {3, 1, 0, 2}, 1, &f, &t));
  EXPECT_EQ(1, t.col_shift);
  EXPECT_EQ(128, t.rows);
  EXPECT_EQ(1u, t.subs);
  // Refusals, each with its reason: a base off 16 bytes, dense rows of 130 fp32 (rows that
  // start off 16 bytes), rows (the random draws above reach the rest).
  EXPECT_NE(std::string::npos, plan({64, 64, 128, 128}, {3, 1, 0, 2}, 4, &f, &t, 1 << 20 | 4).find("16-byte"));
  EXPECT_NE(std::string::npos, plan({64, 64, 128, 130}, {3, 1, 0, 2}, 4, &f, &t).find("16-byte"));
  EXPECT_NE(std::string::npos, plan({8, 2048, 32, 64}, {0, 2, 1, 3}, 4, &f, &t).find("permute_rows"));
}

// The automatic choice between the two vector kernels on the shapes that measured it
// (docs/performance.md, "N-D permutations"): the register blocks where both fastest runs are
// short, the tiles elsewhere; both serve every one of them when named.
TEST(PermuteNdKernels, RegisterBlocksWhereBothRunsAreShort) {
  struct Row {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    int64_t e;
    const char* chosen;
  };
  const Row rows[] = {
      {{16, 8, 16, 16, 8, 64}, {5, 3, 1, 4, 2, 0}, 2, "permute_vec_regs"},   // 128 and 32 bytes
      {{64, 64, 64, 32}, {3, 1, 0, 2}, 2, "permute_vec_regs"},               // 64 and 128
      {{64, 32, 64, 32, 32}, {4, 2, 0, 3, 1}, 4, "permute_vec_regs"},        // 128 and 128
      {{16, 8, 16, 16, 8, 8}, {5, 3, 1, 4, 2, 0}, 16, "permute_vec_regs"},   // 128 and 256, 16-byte elements
      {{64, 128, 128, 128}, {3, 1, 0, 2}, 1, "permute_vec_regs"},            // bytes, 128 and 128
      {{64, 64, 64, 64, 64}, {4, 2, 0, 3, 1}, 1, "permute_vec_tiled"},       // bytes, 64 and 64
      {{64, 64, 128, 128}, {3, 1, 0, 2}, 2, "permute_vec_tiled"},            // 256 and 256
      {{32, 16, 64, 16, 64}, {4, 2, 0, 3, 1}, 4, "permute_vec_tiled"},       // 256 and 64
      {{128, 128, 64, 32}, {1, 0, 3, 2}, 8, "permute_vec_tiled"},            // 256 and 512
      {{32, 16, 8, 8, 8, 16}, {5, 3, 1, 4, 2, 0}, 16, "permute_vec_tiled"},  // 256 and 512, 16-byte elements
  };
  const void* src = at(uintptr_t(1) << 20);
  void* dst = at_mut(uintptr_t(1) << 40);
  for (const Row& r : rows) {
    const layout::PermuteAxes n = layout::normalize(shape_of(r.extents, r.perm, r.e), 16);
    SCOPED_TRACE(std::string(r.chosen) + ", " + std::to_string(r.e) + "-byte elements, extent " +
                 std::to_string(r.extents.back()));
    detail::Choice choice;
    std::string why;
    ASSERT_TRUE(detail::choose_nd(n, src, dst, nullptr, testing::h100, &choice, &why)) << why;
    EXPECT_STREQ(r.chosen, choice.plan.engine->name);
    EXPECT_STREQ(std::string(r.chosen) == "permute_vec_regs" ? "short_runs" : "whole_vectors", choice.nd_rule->id);
    for (const char* named : {"permute_vec_regs", "permute_vec_tiled"})
      EXPECT_TRUE(detail::choose_nd(n, src, dst, named, testing::h100, &choice, &why)) << named << ": " << why;
  }
  // The register blocks' unit indices are 32-bit up to the end of the last block: fp32, 8
  // vectors along a, one along b, so 8 units an outer index; served just below the bound.
  layout::NdForm f;
  f.elem_bytes = 4;
  f.tiled = true;
  f.extent_a = 32, f.extent_b = 4, f.src_a = 1, f.src_b = 32, f.dst_a = 4, f.dst_b = 1;
  f.outer_rank = 1;
  f.outer_src[0] = f.outer_dst[0] = 128;
  const uint64_t per_block = uint64_t(layout::nd_regs_threads) * layout::NdVecRegsOf<4>::per_thread;
  layout::NdVecRegs g;
  const char* reason = nullptr;
  f.outer_count = uint32_t(((uint64_t(1) << 32) - per_block) / 8);
  f.outer_extent[0] = layout::FastDivmod(f.outer_count);
  EXPECT_TRUE(layout::nd_vec_regs(f, 1 << 20, uint64_t(1) << 40, &g, &reason)) << reason;
  f.outer_count += 1;
  f.outer_extent[0] = layout::FastDivmod(f.outer_count);
  EXPECT_FALSE(layout::nd_vec_regs(f, 1 << 20, uint64_t(1) << 40, &g, &reason));
}

TEST(FastDivmod, DividesEvery32BitNumerator) {
  const uint64_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const uint32_t divisors[] = {1, 2, 3, 5, 7, 31, 32, 33, 1000, 65535, 65536, 65537, 1u << 31, (1u << 31) + 1, 0xFFFFFFFFu};
  for (uint32_t d : divisors) {
    const layout::FastDivmod f(d);
    const uint32_t edges[] = {0, 1, d - 1, d, d + 1, 2 * d - 1, 0x7FFFFFFFu, 0xFFFFFFFEu, 0xFFFFFFFFu};
    for (uint32_t n : edges) {
      uint32_t r;
      ASSERT_EQ(n / d, f.divmod(n, &r)) << n << " / " << d;
      ASSERT_EQ(n % d, r) << n << " % " << d;
    }
  }
  for (int i = 0; i < 2000000; ++i) {
    uint32_t d = uint32_t(rng() >> (32 + rng() % 32)) | 1u;  // odd divisors of every width, and their successors
    if ((rng() & 1) && d != 0xFFFFFFFFu) ++d;
    const uint32_t n = uint32_t(rng() >> (rng() % 8 ? 32 : 32 + rng() % 32));
    const layout::FastDivmod f(d);
    ASSERT_EQ(n / f.divisor, f.div(n)) << n << " / " << f.divisor;
  }
}

TEST(PermuteReference, MatchesTheModelAndSoDoNormalizedAndTransposeForms) {
  std::mt19937_64 rng(20261123);
  int mapped = 0, unmapped = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const int rank = int(r.extents.size());
    const int64_t E = r.elem_bytes;
    std::vector<uint8_t> src(size_t(r.src_span_elements() * E));
    for (auto& b : src) b = uint8_t(rng());
    const size_t dst_bytes = size_t(r.dst_span_elements() * E);
    std::vector<uint8_t> want(dst_bytes, 0xA5), got(dst_bytes, 0xA5), normal(dst_bytes, 0xA5), as2d(dst_bytes, 0xA5);
    r.model(src.data(), want.data());

    const PermuteArgs args{src.data(), got.data(), rank, r.extents.data(), r.perm.data(), E, r.src_or_null(),
                           r.dst_or_null()};
    Permutation p;
    const Result e = resolve_permute(args, &p);
    ASSERT_FALSE(e.failed()) << e.message;
    cpu::permute(p);
    ASSERT_EQ(want, got) << "the CPU reference differs from the model";

    // The normalized permutation, run by the reference over the same bases, writes the same.
    const layout::PermuteAxes s = p.shape();
    const uintptr_t bases = reinterpret_cast<uintptr_t>(src.data()) | reinterpret_cast<uintptr_t>(normal.data());
    int64_t widest = 16;
    while (widest > 1 && bases % uintptr_t(widest)) widest /= 2;
    const layout::PermuteAxes n = layout::normalize(s, widest);
    Permutation q;
    q.src = src.data();
    q.dst = normal.data();
    q.elem_bytes = n.elem_bytes;
    q.rank = n.rank;
    for (int i = 0; i < n.rank; ++i) q.axes[i] = n.axes[i];
    ASSERT_EQ(p.elements() * E, q.elements() * n.elem_bytes);
    cpu::permute(q);
    ASSERT_EQ(want, normal) << "the normalized permutation writes otherwise";

    // The N-D kernels' form of it writes the same.
    layout::NdForm f;
    const char* why = nullptr;
    ASSERT_TRUE(layout::nd_form(n, &f, &why)) << why;
    std::vector<uint8_t> nd(dst_bytes, 0xA5);
    run_nd_form(f, src.data(), nd.data());
    ASSERT_EQ(want, nd) << "the N-D form (" << layout::text(f) << ") writes otherwise";
    std::vector<uint8_t> tiles(dst_bytes, 0xA5);
    cpu::permute_form(f, src.data(), tiles.data());
    ASSERT_EQ(want, tiles) << "the CPU path's tiles of the N-D form write otherwise; " << layout::text(f);

    // Where it is a transpose, the 2-D reference through xpose_transpose's own checks writes the same.
    layout::TransposeForm t;
    if (!layout::as_transpose(n, &t)) {
      ++unmapped;
      continue;
    }
    ++mapped;
    Problem problem;
    const Result te = resolve_transpose(Args{src.data(), as2d.data(), t.rows, t.cols, t.elem_bytes, t.ld_src, t.ld_dst, t.batch,
                                  t.stride_src, t.stride_dst},
                             &problem);
    ASSERT_FALSE(te.failed()) << te.message;
    cpu::transpose(problem);
    ASSERT_EQ(want, as2d) << "the transpose form writes otherwise";
  }
  EXPECT_GT(mapped, 300);
  EXPECT_GT(unmapped, 300);
}

// What the N-D planner makes of an accepted request (its bases moved to 16 bytes, so that the
// vector tiles are in play): each kernel, named or chosen, either refuses with a reason or
// plans a launch inside CUDA's limits whose walk covers every outer index and row once.
const int nd_kernels = int(detail::engines(detail::Input::nd_form).size());
constexpr int max_nd_kernels = 16;

void check_nd_plans(const Permutation& p, int (*planned)[max_nd_kernels + 1]) {
  const layout::PermuteAxes n = layout::normalize(p.shape(), 16);
  const void* src = at(reinterpret_cast<uintptr_t>(p.src) & ~uintptr_t(15));
  void* dst = at_mut(reinterpret_cast<uintptr_t>(p.dst) & ~uintptr_t(15));
  for (int k = 0; k <= nd_kernels; ++k) {
    const char* name = k < nd_kernels ? detail::engines(detail::Input::nd_form)[size_t(k)]->name : nullptr;
    SCOPED_TRACE(name ? name : "auto");
    detail::Choice choice;
    std::string why;
    if (!detail::choose_nd(n, src, dst, name, testing::h100, &choice, &why)) {
      ASSERT_FALSE(why.empty());
      ASSERT_EQ(std::string::npos, why.find('\n'));
      continue;
    }
    const detail::Plan& plan = choice.plan;
    ++(*planned)[k];
    const layout::NdForm& f = plan.task.form;
    int64_t elements = 1;  // what the rules' size bounds count, whatever outer axes a plan took in
    for (int i = 0; i < n.rank; ++i) elements *= n.axes[i].extent;
    ASSERT_EQ(elements, f.elements);
    ASSERT_GE(plan.block.x * plan.block.y * plan.block.z, 32u);
    ASSERT_LE(plan.block.x * plan.block.y * plan.block.z, 1024u);
    const std::string kernel = plan.engine->name;
    if (kernel == "permute_rows") {
      uint64_t covered = 0, chunks = 0;
      if (f.extent_a / layout::nd_rows_max_count + f.outer_count / 64 > 100000) continue;  // too many to list
      layout::for_each_rows_chunk(f, f.extent_a, [&](const layout::NdRowsChunk& c) {
        ASSERT_GE(c.outers, 1u);
        ASSERT_LE(c.count(), uint64_t(layout::nd_rows_max_count));
        ASSERT_LE(uint64_t(c.outer_base) + c.outers, uint64_t(f.outer_count));
        ASSERT_LE(c.a_base + c.length.divisor, f.extent_a);
        covered += c.count();
        ++chunks;
      });
      ASSERT_EQ(uint64_t(f.outer_count) * uint64_t(f.extent_a), covered);
      continue;
    }
    if (kernel == "permute_gather") {
      ASSERT_TRUE(f.tiled);
      ASSERT_LT(f.extent_a * f.extent_b, layout::nd_gather_max_items);
      uint64_t covered = 0;
      if (f.extent_a * f.extent_b / layout::nd_rows_max_count + f.outer_count / 64 > 100000) continue;
      layout::for_each_rows_chunk(f, f.extent_a * f.extent_b, [&](const layout::NdRowsChunk& c) {
        ASSERT_GE(c.outers, 1u);
        ASSERT_LE(c.count(), uint64_t(layout::nd_rows_max_count));
        ASSERT_LE(c.a_base + c.length.divisor, f.extent_a * f.extent_b);
        covered += c.count();
      });
      ASSERT_EQ(uint64_t(f.outer_count) * uint64_t(f.extent_a * f.extent_b), covered);
      continue;
    }
    if (kernel == "permute_row_vectors") {
      const layout::NdRowVectors& t = plan.params<layout::NdRowVectors>();
      ASSERT_FALSE(f.tiled);
      ASSERT_EQ(1, f.src_a);
      ASSERT_EQ(1, f.dst_a);
      ASSERT_EQ(t.row_bytes, f.extent_a * f.elem_bytes);
      ASSERT_GE(int64_t(t.granules.divisor) * 16, t.row_bytes + 15);  // a row at any alignment
      uint64_t outers = 0;
      layout::for_each_rows_chunk(f, t.granules.divisor, [&](const layout::NdRowsChunk& c) {
        ASSERT_EQ(uint64_t(c.outer_base), outers);
        ASSERT_GE(c.outers, 1u);
        ASSERT_EQ(0, c.a_base);
        ASSERT_LE(c.count(), uint64_t(layout::nd_rows_max_count));
        outers += c.outers;
      });
      ASSERT_EQ(uint64_t(f.outer_count), outers);
      continue;
    }
    ASSERT_GE(plan.grid.x, 1u);
    ASSERT_LE(int64_t(plan.grid.x), layout::max_grid_x);
    ASSERT_GE(plan.grid.y, 1u);
    ASSERT_LE(int64_t(plan.grid.y), layout::max_grid_yz);
    if (kernel == "permute_tiled") {
      ASSERT_EQ(uint64_t(plan.grid.x), uint64_t(f.tiles_a) * f.tiles_b);
      continue;
    }
    if (kernel == "permute_aligned_stores") {
      const layout::NdAlignedStores& t = plan.params<layout::NdAlignedStores>();
      const auto [piece, max_shift, cols] = layout::with_aligned_dst_tile(f.elem_bytes, t.src_rows_aligned, [](auto a) {
        using A = decltype(a);
        return std::tuple<int64_t, int64_t, int64_t>(A::piece, A::max_shift, A::cols);
      });
      ASSERT_EQ(piece * f.elem_bytes, f.elem_bytes == 1 && t.src_rows_aligned ? 128 : 256);  // the wide tile: bytes'
      ASSERT_EQ(max_shift, 32 / f.elem_bytes - 1);
      ASSERT_TRUE(f.tiled);
      ASSERT_EQ(1, f.src_a);
      ASSERT_EQ(1, f.dst_b);
      ASSERT_EQ(t.rows, f.extent_b * t.row_fused);
      ASSERT_EQ(t.cols, f.extent_a * t.col_fused);
      if (t.row_fused > 1) {  // split by 32-bit divisors: every row index below 2^31
        ASSERT_LT(t.rows, int64_t(1) << 31);
        ASSERT_EQ(int64_t(t.src_rows.inner.divisor), f.extent_b);
        ASSERT_EQ(t.src_rows.inner_stride, f.src_b);
      }
      if (t.col_fused > 1) {
        ASSERT_LT(t.cols, int64_t(1) << 31);
        ASSERT_EQ(int64_t(t.dst_cols.inner.divisor), f.extent_a);
        ASSERT_EQ(t.dst_cols.inner_stride, f.dst_a);
      }
      ASSERT_EQ(uint64_t(plan.grid.x), uint64_t(t.row_blocks) * t.col_tiles);
      ASSERT_GE(uint64_t(t.col_tiles) * cols, uint64_t(t.cols));
      ASSERT_LT(uint64_t(t.col_tiles - 1) * cols, uint64_t(t.cols));
      // the last block's staged rows reach past the last row; the first block's start max_shift early
      ASSERT_GE(t.first_row(plan.grid.x - 1, int(piece), int(max_shift)) + max_shift + piece, t.rows);
      ASSERT_EQ(0, t.first_row(0, int(piece), int(max_shift)) + max_shift);
      ASSERT_EQ(plan.grid.y, t.outer_y);
      ASSERT_EQ(plan.grid.z, t.outer_z);
      ASSERT_LE(int64_t(plan.grid.z), layout::max_grid_yz);
      ASSERT_GE(uint64_t(t.outer_y) * t.outer_z, uint64_t(f.outer_count));
      ASSERT_LT(uint64_t(t.outer_y) * (t.outer_z - 1), uint64_t(f.outer_count));
      continue;
    }
    if (kernel == "permute_packed") {
      const layout::NdPacked& t = plan.params<layout::NdPacked>();
      uint64_t tiles = 1;
      for (int n = 0; n < t.split_rank; ++n) {
        const layout::NdPackedAxis& x = t.axis[t.split[n]];
        ASSERT_LT(x.tile, x.extent);
        ASSERT_EQ(uint64_t(t.split_tiles[n].divisor), uint64_t((x.extent + x.tile - 1) / x.tile));
        tiles *= t.split_tiles[n].divisor;
      }
      ASSERT_EQ(uint64_t(t.items), tiles * f.outer_count);
      ASSERT_LE(t.volume, uint32_t(layout::nd_packed_most(f.elem_bytes, t.chunks)));
      ASSERT_LE(t.smem_bytes, 48u * 1024);  // no opt-in to more dynamic shared memory
      ASSERT_EQ(plan.grid.x, layout::nd_packed_grid(t, f.elem_bytes, testing::h100.sm_count));
      ASSERT_EQ(1u, plan.grid.y);
      continue;
    }
    if (kernel == "permute_vec_regs") {
      const layout::NdVecRegs& g = plan.params<layout::NdVecRegs>();
      const uint64_t na = g.na, lanes = g.lanes_a.divisor, per_block = uint64_t(plan.block.x) * g.per_thread;
      ASSERT_EQ(uint64_t(f.extent_a), na * g.vec);
      ASSERT_EQ(uint64_t(f.extent_b), uint64_t(g.nb.divisor) * g.vec);
      ASSERT_EQ(uint64_t(g.rows.divisor), uint64_t(g.nb.divisor) * f.outer_count);
      ASSERT_TRUE(lanes >= 1 && lanes <= na);
      ASSERT_EQ(uint64_t(g.units), lanes * g.rows.divisor * ((na + lanes - 1) / lanes));
      ASSERT_EQ(1u, plan.grid.y);
      ASSERT_GE(uint64_t(plan.grid.x) * per_block, uint64_t(g.units));
      ASSERT_LT(uint64_t(plan.grid.x - 1) * per_block, uint64_t(g.units));
      ASSERT_LE(uint64_t(plan.grid.x) * per_block, uint64_t(1) << 32);  // the kernel's 32-bit unit indices
      continue;
    }
    const layout::NdVecTiles& t = plan.params<layout::NdVecTiles>();
    ASSERT_EQ(uint64_t(plan.grid.x), uint64_t(t.tiles_a) * t.tiles_b);
    ASSERT_GE(uint64_t(t.tiles_a) * t.cols(), uint64_t(f.extent_a));
    ASSERT_GE(uint64_t(t.tiles_b) << t.sub_shift, uint64_t(f.extent_b));
    ASSERT_GE(t.sub_rows(), t.vec);
    ASSERT_EQ(0, t.rows % t.tile);
    ASSERT_EQ(uint64_t(t.subs) << t.sub_shift, uint64_t(t.rows));
    ASSERT_GE(uint64_t(t.groups) * t.subs, uint64_t(f.outer_count));
    ASSERT_LT(uint64_t(t.groups - 1) * t.subs, uint64_t(f.outer_count));
    ASSERT_LE(plan.grid.y, t.groups);
  }
}

// Random requests from ordinary to absurd (huge extents and strides, stride 0, pointers near
// the top of the address space): resolve_permute never overflows (the sanitizer build runs
// this too), and what it accepts holds its promises: spans that fit, dst elements that never
// share memory (counted one by one where small), and a transpose form, where the normalized
// permutation has one, that xpose_transpose's own checks accept.
TEST(PermuteFuzz, AcceptedRequestsKeepTheirPromises) {
  std::mt19937_64 rng(7);
  const int64_t extremes[] = {0, 1, 2, 3, 7, 64, 1000, int64_t(1) << 20, int64_t(1) << 31, int64_t(1) << 40,
                              INT64_MAX / 3, INT64_MAX};
  const auto value = [&](bool small) {
    return small || rng() % 3 ? int64_t(rng() % 9) : extremes[rng() % (sizeof(extremes) / sizeof(extremes[0]))];
  };
  ASSERT_LE(nd_kernels, max_nd_kernels);
  int accepted = 0, mapped = 0, nd_planned[max_nd_kernels + 1] = {};
  for (int trial = 0; trial < 200000; ++trial) {
    const int rank = int(rng() % 7);
    std::vector<int64_t> extents(rank), src_strides(rank), dst_strides(rank);
    std::vector<int> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    if (rank && rng() % 20 == 0) perm[rng() % rank] = int(rng() % 9) - 2;
    const bool small = rng() % 2;
    for (int i = 0; i < rank; ++i) {
      extents[i] = value(small) * (rng() % 40 == 0 ? -1 : 1);
      src_strides[i] = value(false);
      dst_strides[i] = value(false);
    }
    const uintptr_t tops[] = {uintptr_t(1) << 20, uintptr_t(1) << 44, UINTPTR_MAX - (uintptr_t(1) << 20) + 1};
    const uintptr_t src = tops[rng() % 3] + 16 * (rng() % 4), dst = tops[rng() % 3] + 16 * (rng() % 4) + 8;
    const PermuteArgs args{at(src), at_mut(dst), rank, extents.data(), perm.data(), int64_t(1) << (rng() % 5),
                           rng() % 2 ? src_strides.data() : nullptr, rng() % 2 ? dst_strides.data() : nullptr};
    Permutation p;
    const Result e = resolve_permute(args, &p);
    if (e.failed()) {
      ASSERT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status);
      ASSERT_EQ(std::string::npos, e.message.find('\n'));
      continue;
    }
    ++accepted;
    if (p.empty()) continue;
    __int128 count = 1, src_last = 0, dst_last = 0;
    for (int i = 0; i < p.rank; ++i) {
      count *= p.axes[i].extent;
      src_last += __int128(p.axes[i].extent - 1) * p.axes[i].src_stride;
      dst_last += __int128(p.axes[i].extent - 1) * p.axes[i].dst_stride;
    }
    ASSERT_LE(count * p.elem_bytes, __int128(INT64_MAX));
    ASSERT_EQ(__int128(p.src_span_bytes()), (src_last + 1) * p.elem_bytes);
    ASSERT_EQ(__int128(p.dst_span_bytes()), (dst_last + 1) * p.elem_bytes);
    if (count <= 4096) {
      std::vector<int64_t> offsets;
      std::vector<int64_t> index(size_t(p.rank), 0);
      for (int64_t n = 0; n < int64_t(count); ++n) {
        int64_t d = 0;
        for (int i = 0; i < p.rank; ++i) d += index[size_t(i)] * p.axes[i].dst_stride;
        offsets.push_back(d);
        for (int i = p.rank - 1; i >= 0 && ++index[size_t(i)] == p.axes[i].extent; --i) index[size_t(i)] = 0;
      }
      std::sort(offsets.begin(), offsets.end());
      ASSERT_EQ(offsets.end(), std::adjacent_find(offsets.begin(), offsets.end())) << "two dst elements share memory";
    }
    ASSERT_NO_FATAL_FAILURE(check_nd_plans(p, &nd_planned));
    const layout::PermuteAxes n = layout::normalize(p.shape(), 8);  // the bases above are 8-byte aligned
    layout::TransposeForm t;
    if (!layout::as_transpose(n, &t)) continue;
    ++mapped;
    Problem problem;
    const Result te = resolve_transpose(Args{p.src, p.dst, t.rows, t.cols, t.elem_bytes, t.ld_src, t.ld_dst, t.batch, t.stride_src,
                                  t.stride_dst},
                             &problem);
    ASSERT_FALSE(te.failed()) << "the transpose form was refused: " << te.message;
    ASSERT_EQ(problem.bytes(), p.elements() * p.elem_bytes);
  }
  EXPECT_GT(accepted, 20000);
  EXPECT_GT(mapped, 5000);
  for (int k = 0; k <= nd_kernels; ++k)
    EXPECT_GT(nd_planned[k], 500) << "plans by "
                                  << (k < nd_kernels ? detail::engines(detail::Input::nd_form)[size_t(k)]->name
                                                     : "auto");
}

// Large enough for every core: the CPU path's tiles (threads over tiles of every outer index,
// the micro-kernels on whole squares, edges element by element) against the reference, every
// element size, for a permutation that is no transpose and one of rows.
TEST(PermuteHost, LargePermutationsOnEveryCore) {
  std::mt19937_64 rng(std::random_device{}());
  const struct { std::vector<int64_t> extents; std::vector<int> perm; } cases[] = {
      {{7, 33, 65, 97}, {3, 1, 0, 2}},        // tiled: src's and dst's fastest axes differ
      {{9, 130, 11, 40}, {2, 0, 1, 3}},       // rows: the last axis stays last
  };
  for (const auto& c : cases)
    for (int64_t e : {1, 2, 4, 8, 16}) {
      SCOPED_TRACE("elem_bytes " + std::to_string(e));
      int64_t n = e;
      for (int64_t x : c.extents) n *= x;
      std::vector<uint8_t> src(static_cast<size_t>(n)), got(src.size(), 0xA5), want(src.size(), 0x5A);
      for (auto& v : src) v = uint8_t(rng());
      xpose::permute_host(src.data(), got.data(), e, xpose::PermuteShape{c.extents, c.perm, {}, {}});
      Permutation p;
      const PermuteArgs args{src.data(), want.data(), int(c.extents.size()), c.extents.data(), c.perm.data(), e,
                             nullptr, nullptr};
      ASSERT_FALSE(resolve_permute(args, &p).failed());
      cpu::permute(p);
      EXPECT_EQ(want, got);
    }
}

TEST(PermuteHost, TheCppApiChecksSizesAndRuns) {
  std::vector<float> src(24), dst(24, -1.0f);
  std::iota(src.begin(), src.end(), 0.0f);
  xpose::permute_host(src.data(), dst.data(), 4, xpose::PermuteShape{{2, 3, 4}, {2, 0, 1}, {}, {}});
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(src[(a * 3 + b) * 4 + c], dst[(c * 2 + a) * 3 + b]);
  EXPECT_THROW(xpose::permute_host(src.data(), dst.data(), 4, xpose::PermuteShape{{2, 3, 4}, {2, 0}, {}, {}}),
               xpose::Error);
  try {
    xpose::permute(src.data(), dst.data(), xpose::PermuteShape{{2, 3}, {1, 0}, {3}, {}});
    FAIL() << "a strides vector of the wrong size was taken";
  } catch (const xpose::Error& e) {
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status());
    EXPECT_STREQ("src_strides has 1 entries; extents has 2", e.what());
  }
}

}  // namespace
}  // namespace xpose::detail
