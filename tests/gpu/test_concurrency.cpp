// Calls from several host threads at once, on their own streams, and under CUDA graph
// capture: results stay exact and nothing synchronizes behind the caller's back.
#include <gtest/gtest.h>

#include <thread>

#include "support/testing.hpp"

namespace xpose::testing {
namespace {

// One random problem per thread, its own stream; returns an empty string on success.
std::string transpose_on_own_stream(int64_t rows, int64_t cols, int64_t e, int repeats) {
  Images im;
  std::string why;
  if (!make_images({nullptr, nullptr, rows, cols, e, 0, 0, 2, 0, 0}, 0, 0, fresh_seed(), &im, &why)) return why;
  DeviceImage src(im.src), dst(im.dst);
  if (!src.ok() || !dst.ok()) return "allocation failed";
  cudaStream_t stream;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) return "stream creation failed";
  std::string result;
  for (int i = 0; i < repeats && result.empty(); ++i)
    if (xpose_transpose(src.data(), dst.data() + im.dst_offset, rows, cols, e, 0, 0, 2, 0, 0, stream) != XPOSE_SUCCESS)
      result = xpose_last_error();
  if (cudaStreamSynchronize(stream) != cudaSuccess) result = "stream failed";
  cudaStreamDestroy(stream);
  if (result.empty() && first_difference(dst.read(), im.expected()) != -1) result = "wrong result";
  return result;
}

TEST(Threads, ManyHostThreadsAtOnce) {
  XPOSE_REQUIRE_GPU();
  const int64_t shapes[][3] = {{513, 257, 4}, {1000, 999, 1}, {64, 4096, 2}, {333, 77, 8},
                               {128, 128, 16}, {4097, 31, 4}, {1, 5000, 2}, {2048, 2048, 1}};
  std::vector<std::string> results(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] { results[t] = transpose_on_own_stream(shapes[t][0], shapes[t][1], shapes[t][2], 20); });
  for (auto& t : threads) t.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ("", results[t]) << "thread " << t;
}

TEST(Graphs, CapturedCallsReplayCorrectly) {
  XPOSE_REQUIRE_GPU();
  for (const char* kernel : {"", "vec_swizzled", "smem_padded"}) {
    SCOPED_TRACE(kernel);
    Images im;
    std::string why;
    ASSERT_TRUE(make_images({nullptr, nullptr, 1000, 3000, 2, 0, 0, 1, 0, 0}, 0, 0, fresh_seed(), &im, &why)) << why;
    DeviceImage src(im.src), dst(im.dst);
    ASSERT_TRUE(src.ok() && dst.ok());
    cudaStream_t stream;
    ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    // Global mode: any call that is unsafe during capture (a synchronization, an
    // allocation) by any thread would invalidate the capture.
    ASSERT_EQ(cudaSuccess, cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const xpose_status_t status =
        *kernel ? xpose_transpose_with(kernel, src.data(), dst.data() + im.dst_offset, 1000, 3000, 2, 0, 0, 1, 0, 0, stream)
                : xpose_transpose(src.data(), dst.data() + im.dst_offset, 1000, 3000, 2, 0, 0, 1, 0, 0, stream);
    ASSERT_EQ(cudaSuccess, cudaStreamEndCapture(stream, &graph));
    ASSERT_EQ(XPOSE_SUCCESS, status) << xpose_last_error();
    cudaGraphExec_t exec;
    ASSERT_EQ(cudaSuccess, cudaGraphInstantiate(&exec, graph, 0));
    ASSERT_EQ(cudaSuccess, cudaGraphLaunch(exec, stream));
    ASSERT_EQ(cudaSuccess, cudaStreamSynchronize(stream));
    EXPECT_EQ(-1, first_difference(dst.read(), im.expected()));
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
  }
}

}  // namespace
}  // namespace xpose::testing
