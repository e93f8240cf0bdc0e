// resolve(): defaults, and the dst-batch overlap rule checked against brute force.
#include <gtest/gtest.h>

#include <set>

#include "problem.hpp"

namespace xpose::detail {
namespace {

Args valid(int64_t rows, int64_t cols, int64_t e) {
  static int64_t buffers[2][64];
  return Args{buffers[0], buffers[1], rows, cols, e, 0, 0, 1, 0, 0};
}

TEST(Resolve, FillsTheDefaults) {
  Problem p;
  ASSERT_FALSE(resolve(valid(3, 5, 4), &p).failed());
  EXPECT_EQ(5, p.ld_src);
  EXPECT_EQ(3, p.ld_dst);
  EXPECT_EQ(15, p.stride_src);
  EXPECT_EQ(15, p.stride_dst);
  EXPECT_EQ(60, p.bytes());
}

TEST(Resolve, KeepsExplicitLeadingDimensionsAndStrides) {
  Args a = valid(2, 3, 2);
  a.ld_src = 4;
  a.ld_dst = 6;
  a.batch = 2;
  a.stride_src = 9;
  a.stride_dst = 0;
  Problem p;
  ASSERT_FALSE(resolve(a, &p).failed());
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
  EXPECT_FALSE(resolve(a, &p).failed());
}

bool disjoint_by_brute_force(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t stride) {
  std::set<int64_t> seen;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < outer; ++j)
      for (int64_t i = 0; i < inner; ++i)
        if (!seen.insert(b * stride + j * ld + i).second) return false;
  return true;
}

// The rule may refuse an exotic non-nested layout that happens to be disjoint, but it
// must never accept an overlapping one; and it must accept every nested layout.
TEST(DstBatchesDisjoint, NeverAcceptsAnOverlapAndAcceptsNestedLayouts) {
  int accepted = 0;
  for (int64_t inner = 1; inner <= 4; ++inner)
    for (int64_t outer = 1; outer <= 4; ++outer)
      for (int64_t ld = inner; ld <= 12; ++ld)
        for (int64_t batch = 1; batch <= 4; ++batch)
          for (int64_t stride = 1; stride <= 24; ++stride) {
            const bool rule = dst_batches_disjoint(inner, outer, ld, batch, stride);
            const bool truth = disjoint_by_brute_force(inner, outer, ld, batch, stride);
            if (rule) {
              EXPECT_TRUE(truth) << inner << " " << outer << " " << ld << " " << batch << " " << stride;
              ++accepted;
            }
            const bool nested = stride >= (outer - 1) * ld + inner || (stride >= inner && ld >= (batch - 1) * stride + inner);
            if (nested) EXPECT_TRUE(rule) << inner << " " << outer << " " << ld << " " << batch << " " << stride;
          }
  EXPECT_GT(accepted, 1000);
}

}  // namespace
}  // namespace xpose::detail
