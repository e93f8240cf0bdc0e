// resolve_transpose(): defaults, pitches that address nothing, and the dst-batch overlap rule
// checked against brute force.
#include <gtest/gtest.h>

#include <set>

#include "api/validate.hpp"
#include "core/distinct.hpp"
#include "dispatch/registry.hpp"
#include "support/devices.hpp"

namespace xpose::detail {
namespace {

Args valid(int64_t rows, int64_t cols, int64_t e) {
  static int64_t buffers[2][64];
  return Args{buffers[0], buffers[1], rows, cols, e, 0, 0, 1, 0, 0};
}

TEST(Resolve, FillsTheDefaults) {
  Problem p;
  ASSERT_FALSE(resolve_transpose(valid(3, 5, 4), &p).failed());
  EXPECT_EQ(5, p.ld_src);
  EXPECT_EQ(3, p.ld_dst);
  EXPECT_EQ(15, p.stride_src);
  EXPECT_EQ(15, p.stride_dst);
  EXPECT_EQ(60, p.bytes());
}

// Every row of a side on 16 bytes: its base, its pitch and (for batches) its batch stride.
TEST(Problem, RowsAlignedOnEachSide) {
  alignas(16) static unsigned char bytes[64];
  Problem p;
  p.src = bytes, p.dst = bytes + 16, p.rows = 3, p.cols = 8, p.elem_bytes = 2;
  p.ld_src = 8, p.ld_dst = 16, p.batch = 1, p.stride_src = 5, p.stride_dst = 7;  // one matrix: strides unread
  EXPECT_TRUE(p.src_rows_aligned_16());
  EXPECT_TRUE(p.dst_rows_aligned_16());
  p.batch = 2, p.stride_src = 32, p.stride_dst = 36;
  EXPECT_TRUE(p.src_rows_aligned_16());
  EXPECT_FALSE(p.dst_rows_aligned_16());  // 72 bytes between matrices
  p.stride_dst = 40, p.ld_dst = 12;
  EXPECT_FALSE(p.dst_rows_aligned_16());  // 24 bytes between rows
  p.ld_dst = 16, p.dst = bytes + 8;
  EXPECT_FALSE(p.dst_rows_aligned_16());
  EXPECT_TRUE(p.src_rows_aligned_16());
}

TEST(Resolve, KeepsExplicitLeadingDimensionsAndStrides) {
  Args a = valid(2, 3, 2);
  a.ld_src = 4;
  a.ld_dst = 6;
  a.batch = 2;
  a.stride_src = 9;
  a.stride_dst = 0;
  Problem p;
  ASSERT_FALSE(resolve_transpose(a, &p).failed());
  EXPECT_EQ(4, p.ld_src);
  EXPECT_EQ(6, p.ld_dst);
  EXPECT_EQ(9, p.stride_src);
  EXPECT_EQ(18, p.stride_dst);  // cols * ld_dst
}

TEST(Resolve, AcceptsInterleavedButDisjointDstBatches) {
  // dst laid out [cols][batch][rows]: batches interleave between columns, never overlap.
  Args a = valid(2, 3, 1);
  a.batch = 4;
  a.ld_dst = 8;
  a.stride_dst = 2;
  Problem p;
  EXPECT_FALSE(resolve_transpose(a, &p).failed());
}

Args at(uintptr_t src, uintptr_t dst, int64_t rows, int64_t cols, int64_t e) {
  return Args{reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), rows, cols, e, 0, 0, 1, 0, 0};
}

using testing::h100;

// The reason `name` declines `p` on a pretend H100 (empty when it serves it).
std::string refusal(const char* name, const Problem& p) {
  return why(find_engine(name, detail::Input::transpose)->supports(Task::of(p), h100), h100);
}

// A batch stride of one matrix addresses nothing: it takes its packed value, so that no
// kernel's check multiplies the caller's 2^61 by 16 bytes (which wraps to 0 in int64).
TEST(Resolve, IgnoresTheBatchStridesOfASingleMatrix) {
  Args a = at(1 << 20, uintptr_t(1) << 44, 64, 64, 16);
  a.stride_src = int64_t(1) << 61;
  a.stride_dst = INT64_MAX;
  Problem p;
  const Result e = resolve_transpose(a, &p);
  ASSERT_FALSE(e.failed()) << e.message;
  EXPECT_EQ(p.rows * p.ld_src, p.stride_src);
  EXPECT_EQ(p.cols * p.ld_dst, p.stride_dst);
  EXPECT_EQ(64 * 64 * 16, p.src_span_bytes());
  for (const char* name : {"tma_swizzle128", "tma_pipeline", "vec_swizzled"})
    EXPECT_EQ("", refusal(name, p)) << name;
}

// So do the pitch of a single src row and of a single dst row.
TEST(Resolve, IgnoresThePitchOfASingleRow) {
  Args a = at(1 << 20, uintptr_t(1) << 44, 1, 64, 16);
  a.ld_src = (int64_t(1) << 60) + 1;
  Problem p;
  ASSERT_FALSE(resolve_transpose(a, &p).failed());
  EXPECT_EQ(64, p.ld_src);
  EXPECT_EQ(64, p.stride_src);
  EXPECT_EQ("", refusal("tma_swizzle128", p));
  a = at(1 << 20, uintptr_t(1) << 44, 64, 1, 16);
  a.ld_dst = INT64_MAX;
  ASSERT_FALSE(resolve_transpose(a, &p).failed());
  EXPECT_EQ(64, p.ld_dst);
  EXPECT_EQ(64, p.stride_dst);
  EXPECT_EQ("", refusal("vec_swizzled", p));
}

// The default batch stride is rows * ld_src as the caller gave ld_src, even where ld_src
// itself addresses nothing: a batch of single rows 100 elements apart stays so.
TEST(Resolve, TakesTheDefaultBatchStrideFromTheCallersPitch) {
  Args a = at(1 << 20, uintptr_t(1) << 44, 1, 10, 4);
  a.ld_src = 100;
  a.batch = 3;
  Problem p;
  ASSERT_FALSE(resolve_transpose(a, &p).failed());
  EXPECT_EQ(10, p.ld_src);
  EXPECT_EQ(100, p.stride_src);
  EXPECT_EQ((2 * 100 + 10) * 4, p.src_span_bytes());
  EXPECT_EQ(10, p.stride_dst);  // cols * ld_dst, ld_dst = rows = 1
}

// One matrix's pitch in bytes (the batch stride a single matrix gets) must fit in int64,
// even where the span, which stops at the last row's end, does.
TEST(Resolve, RefusesAMatrixPitchPastInt64) {
  Args a = at(16, uintptr_t(1) << 63, 2, 1, 16);
  a.ld_src = int64_t(3) << 57;  // span (ld + 1) * 16 = 0.75 * 2^63; pitch 2 * ld * 16 = 1.5 * 2^63
  Problem p;
  const Result e = resolve_transpose(a, &p);
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status);
  EXPECT_EQ("rows * ld_src * elem_bytes overflows int64", e.message);
}

bool disjoint_by_brute_force(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t stride) {
  std::set<int64_t> seen;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < outer; ++j)
      for (int64_t i = 0; i < inner; ++i)
        if (!seen.insert(b * stride + j * ld + i).second) return false;
  return true;
}

// The check is exact on every small layout: it accepts the distinct ones (nested or not) and
// refuses the others.
TEST(DstBatchesDisjoint, AcceptsExactlyTheDistinctLayouts) {
  int accepted = 0, interleaved = 0;
  for (int64_t inner = 1; inner <= 4; ++inner)
    for (int64_t outer = 1; outer <= 4; ++outer)
      for (int64_t ld = inner; ld <= 12; ++ld)
        for (int64_t batch = 1; batch <= 4; ++batch)
          for (int64_t stride = 1; stride <= 24; ++stride) {
            const int64_t extents[] = {batch, outer, inner}, strides[] = {stride, ld, 1};
            const detail::Distinct rule = detail::distinct_elements(3, extents, strides).verdict;
            const bool truth = disjoint_by_brute_force(inner, outer, ld, batch, stride);
            EXPECT_EQ(truth ? detail::Distinct::yes : detail::Distinct::no, rule)
                << inner << " " << outer << " " << ld << " " << batch << " " << stride;
            accepted += truth;
            const bool nested = stride >= (outer - 1) * ld + inner || (stride >= inner && ld >= (batch - 1) * stride + inner);
            interleaved += truth && !nested;
          }
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(interleaved, 100) << "too few distinct layouts that do not nest to judge the search";
}

// The adversarial run's layout: batches that interleave without sharing memory are served,
// and an overlap names two indices at one element.
TEST(DstBatchesDisjoint, InterleavedBatchesAreServedAndOverlapsNamed) {
  Args a{nullptr, nullptr, 3, 24, 1, 0, 6, 2, 0, 39};  // dst (2, 24, 3) with strides (39, 6, 1)
  Problem p;
  EXPECT_FALSE(resolve_shape(a, &p).failed());
  a.stride_dst = 36;  // batch 1, j 0 starts inside batch 0's j 6
  const Result e = resolve_shape(a, &p);
  EXPECT_EQ("dst batches overlap: with stride_dst 36 and ld_dst 6, dst[b * stride_dst + j * ld_dst + i] at (b, j, i) = "
            "(1, 0, 0) and (0, 6, 0) are one element",
            e.message);
}

}  // namespace
}  // namespace xpose::detail
