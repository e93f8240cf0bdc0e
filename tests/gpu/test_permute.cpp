// xpose_permute on the GPU: random permutations (rank 1-8, odd extents, every element size,
// dense, padded and broadcast src strides, padded dst strides, element-aligned pointers that
// are not 16-byte aligned), dst poisoned and guarded. A served call must write exactly what
// the element-by-element model writes, gaps and guard bands untouched; a refused one
// (NOT_SUPPORTED: the permutation needs the N-D engine) must write nothing.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "support/permutations.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {
namespace {

TEST(Permute, MatchesTheModelOrRefusesWritingNothing) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int served = 0, refused = 0;
  for (int trial = 0; trial < 600 && !::testing::Test::HasFailure(); ++trial) {
    const RandomPermutation r = draw_permutation(rng, 20000);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const int64_t E = r.elem_bytes;
    const size_t src_offset = size_t(E) * (rng() % 2), dst_offset = size_t(E) * (rng() % 2);  // off 16 bytes
    std::vector<uint8_t> src(src_offset + size_t(r.src_span_elements() * E));
    fill_random(src, rng());
    const size_t dst_bytes = size_t(r.dst_span_elements() * E);
    std::vector<uint8_t> poisoned(guard_bytes + dst_offset + dst_bytes + guard_bytes, poison);
    std::vector<uint8_t> want = poisoned;
    r.model(src.data() + src_offset, want.data() + guard_bytes + dst_offset);
    DeviceImage d_src(src), d_dst(poisoned);
    ASSERT_TRUE(d_src.ok() && d_dst.ok());
    const xpose_status_t status =
        xpose_permute(d_src.data() + src_offset, d_dst.data() + guard_bytes + dst_offset, r.rank(), r.extents.data(),
                      r.perm.data(), E, r.src_or_null(), r.dst_or_null(), nullptr);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    if (status == XPOSE_ERROR_NOT_SUPPORTED) {
      ++refused;
      EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("N-D engine")) << xpose_last_error();
      EXPECT_EQ(-1, first_difference(d_dst.read(), poisoned)) << "a refused call wrote to dst";
      continue;
    }
    ASSERT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
    ++served;
    const int64_t diff = first_difference(d_dst.read(), want);
    EXPECT_EQ(-1, diff) << "first wrong byte " << diff;
  }
  EXPECT_GT(served, 50);
  EXPECT_GT(refused, 50);
}

}  // namespace
}  // namespace xpose::testing
