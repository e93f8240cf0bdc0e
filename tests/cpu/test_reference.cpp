// The CPU reference against the definition, written out as the plainest loop.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "support/permutations.hpp"
#include "support/ranks.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

struct Shape {
  int64_t rows, cols, batch, ld_src, ld_dst, stride_src, stride_dst;
};

TEST(Reference, MatchesTheDefinitionForEveryElementSize) {
  const Shape shapes[] = {{1, 1, 1, 0, 0, 0, 0},        {1, 300, 1, 0, 0, 0, 0},    {300, 1, 1, 0, 0, 0, 0},
                          {65, 129, 1, 0, 0, 0, 0},     {200, 300, 1, 301, 211, 0, 0}, {33, 17, 3, 20, 40, 700, 700},
                          {517, 1031, 2, 0, 0, 0, 0}};
  for (int e : {1, 2, 4, 8, 16})
    for (const Shape& s : shapes) {
      const uint64_t seed = fresh_seed();
      SCOPED_TRACE("elem " + std::to_string(e) + " shape " + std::to_string(s.rows) + "x" + std::to_string(s.cols) +
                   " seed " + std::to_string(seed));
      Images im;
      std::string why;
      ASSERT_TRUE(make_images({nullptr, nullptr, s.rows, s.cols, e, s.ld_src, s.ld_dst, s.batch, s.stride_src,
                               s.stride_dst},
                              1, 2, seed, &im, &why))
          << why;
      const detail::Problem& p = im.problem;
      std::vector<uint8_t> want(im.dst.size(), poison);
      for (int64_t b = 0; b < p.batch; ++b)
        for (int64_t i = 0; i < p.rows; ++i)
          for (int64_t j = 0; j < p.cols; ++j)
            std::memcpy(&want[im.dst_offset + size_t((b * p.stride_dst + j * p.ld_dst + i) * e)],
                        &im.src[im.src_offset + size_t((b * p.stride_src + i * p.ld_src + j) * e)], size_t(e));
      EXPECT_EQ(-1, first_difference(im.expected(), want));
    }
}

TEST(TransposeHost, RunsTheReferenceThroughThePublicApi) {
  std::vector<float> src(6 * 7), dst(7 * 6, -1.0f);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(i) * 0.5f + 1.0f;
  xpose::transpose_host(src.data(), dst.data(), 4, xpose::Shape{6, 7});
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 7; ++j) EXPECT_EQ(src[i * 7 + j], dst[j * 6 + i]);
  EXPECT_THROW(xpose::transpose_host(src.data(), src.data(), 4, xpose::Shape{6, 7}), xpose::Error);
}

// 16-byte elements on an 8-byte boundary (NumPy's alignment of complex128) on the CPU path,
// through transpose_host and permute_host, against the model, guard bands untouched.
TEST(TransposeHost, SixteenByteElementsOnAnEightByteBoundary) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 200 && !::testing::Test::HasFailure(); ++trial) {
    const bool as_transpose = trial % 2;
    const RandomPermutation r = draw_sixteen_byte_case(rng, as_transpose, 200, 4000);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    std::vector<uint8_t> random(16 + size_t(r.src_span_elements() * 16));
    fill_random(random, rng());
    const size_t dst_bytes = guard_bytes + 16 + size_t(r.dst_span_elements() * 16) + guard_bytes;
    AlignedBuffer src(random.size()), dst(dst_bytes), want(dst_bytes);
    std::memcpy(src.data(), random.data(), random.size());
    std::memset(dst.data(), poison, dst_bytes);
    std::memset(want.data(), poison, dst_bytes);
    const uint8_t* s = src.data() + 8;
    r.model(s, want.data() + guard_bytes + 8);
    uint8_t* d = dst.data() + guard_bytes + 8;
    if (as_transpose)
      xpose::transpose_host(s, d, 16, xpose::Shape{r.extents[1], r.extents[2], r.src_strides[1], r.dst_strides[1],
                                                   r.extents[0], 0, 0});
    else
      xpose::permute_host(s, d, 16, xpose::PermuteShape{r.extents, r.perm, r.src_strides, r.dst_strides});
    ASSERT_EQ(0, std::memcmp(dst.data(), want.data(), dst_bytes));
  }
}

}  // namespace
}  // namespace xpose::testing
