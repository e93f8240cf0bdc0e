// xpose-bench's copy kernel, the ceiling every figure is a percentage of: every byte, and
// nothing else, for any length and any pair of offsets.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "copy.hpp"
#include "support/testing.hpp"

namespace xpose::testing {
namespace {

TEST(CopyKernel, CopiesEveryByteAndNothingElse) {
  XPOSE_REQUIRE_GPU();
  const struct { int64_t bytes, src_offset, dst_offset; } cases[] = {
      {1, 0, 0}, {15, 0, 0}, {16, 0, 0}, {1000003, 0, 0}, {1000003, 3, 3}, {777, 5, 9}, {64 << 20, 0, 0}};
  for (const auto& c : cases) {
    SCOPED_TRACE(std::to_string(c.bytes) + " bytes, offsets " + std::to_string(c.src_offset) + "/" +
                 std::to_string(c.dst_offset));
    std::vector<uint8_t> src(size_t(c.bytes + c.src_offset)), dst(size_t(c.bytes + c.dst_offset + 2 * guard_bytes), poison);
    fill_random(src, fresh_seed());
    DeviceImage d_src(src), d_dst(dst);
    ASSERT_TRUE(d_src.ok() && d_dst.ok());
    ASSERT_EQ(cudaSuccess, bench::launch_copy(d_src.data() + c.src_offset, d_dst.data() + guard_bytes + c.dst_offset,
                                                c.bytes, nullptr));
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    std::memcpy(&dst[guard_bytes + size_t(c.dst_offset)], &src[size_t(c.src_offset)], size_t(c.bytes));
    EXPECT_EQ(-1, first_difference(d_dst.read(), dst));
  }
}

}  // namespace
}  // namespace xpose::testing
