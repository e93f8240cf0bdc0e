// Bad requests against device buffers, and host pointers.
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/bad_inputs.hpp"

namespace xpose::testing {
namespace {

TEST(BadInputOnDevice, FailsWithStatusAndMessageAndLeavesDstAlone) {
  XPOSE_REQUIRE_GPU();
  std::vector<uint8_t> src_image(buffer_bytes), poisoned(buffer_bytes, poison);
  fill_random(src_image, fresh_seed());
  DeviceImage src(src_image), dst(poisoned);
  ASSERT_TRUE(src.ok() && dst.ok());
  for (const BadInput& bad : bad_inputs()) {
    SCOPED_TRACE(bad.what);
    Request r;
    bad.mutate(r);
    EXPECT_EQ(bad.status, call(r, src.data(), dst.data()));
    EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(bad.message)) << xpose_last_error();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(-1, first_difference(dst.read(), poisoned));
    EXPECT_EQ(-1, first_difference(src.read(), src_image));
    EXPECT_EQ(bad.status, call_through_plan(r, src.data(), dst.data())) << "through a plan";
    EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(bad.message)) << xpose_last_error();
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(-1, first_difference(dst.read(), poisoned));
  }
}

TEST(BadInputOnDevice, HostPointersAreRefusedUnlessTheGpuCanReadPageableMemory) {
  XPOSE_REQUIRE_GPU();
  int device = 0, pageable = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  ASSERT_EQ(cudaSuccess, cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  std::vector<uint8_t> host(buffer_bytes, 1), poisoned(buffer_bytes, poison);
  DeviceImage dev_src(host), dev_dst(poisoned);
  ASSERT_TRUE(dev_src.ok() && dev_dst.ok());
  const xpose_status_t from_host = xpose_transpose(host.data(), dev_dst.data(), 40, 50, 4, 0, 0, 1, 0, 0, nullptr);
  if (pageable) {
    EXPECT_EQ(XPOSE_SUCCESS, from_host) << xpose_last_error();
    GTEST_SKIP() << "this GPU reads pageable host memory; host pointers are valid here";
  }
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, from_host);
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("src is a host pointer the GPU cannot access"));
  std::vector<uint8_t> host_dst(buffer_bytes, poison);
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
            xpose_transpose(dev_src.data(), host_dst.data(), 40, 50, 4, 0, 0, 1, 0, 0, nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("dst is a host pointer the GPU cannot access"));
  EXPECT_EQ(-1, first_difference(host_dst, poisoned));
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(-1, first_difference(dev_dst.read(), poisoned));
}

TEST(PinnedHostMemory, IsServedThroughItsDeviceMapping) {
  XPOSE_REQUIRE_GPU();
  const int64_t rows = 37, cols = 53;
  float *src = nullptr, *dst = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMallocHost(reinterpret_cast<void**>(&src), rows * cols * sizeof(float)));
  ASSERT_EQ(cudaSuccess, cudaMallocHost(reinterpret_cast<void**>(&dst), rows * cols * sizeof(float)));
  for (int64_t i = 0; i < rows * cols; ++i) src[i] = float(i) + 0.25f;
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose(src, dst, rows, cols, 4, 0, 0, 1, 0, 0, nullptr)) << xpose_last_error();
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) ASSERT_EQ(src[i * cols + j], dst[j * rows + i]);
  cudaFreeHost(src);
  cudaFreeHost(dst);
}

}  // namespace
}  // namespace xpose::testing
