// The distributed transpose on one GPU: P simulated ranks, each with its own device buffers,
// and a loopback exchange of device copies in place of the network; every rank's dst checked
// byte for byte against the element model of A^T, guard bands and row padding untouched.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "support/ranks.hpp"
#include "support/testing.hpp"
#include "xpose/distributed.hpp"

namespace xpose::testing {
namespace {

// `stepped`: each rank's own block step by step, each step's cut before its pack (as
// xpose_nccl_transpose runs it), else whole before the first step.
void run_on_gpu(const RandomSplit& s, uint64_t seed, cudaStream_t stream, bool stepped = false) {
  std::vector<dist::Plan> plans;
  for (int p = 0; p < s.nranks; ++p) plans.emplace_back(s.split(p), p, s.options);
  const std::vector<RankImages> ranks = make_rank_images(s, plans, seed);
  std::vector<std::unique_ptr<DeviceImage>> src, dst, ws;
  for (int p = 0; p < s.nranks; ++p) {
    src.push_back(std::make_unique<DeviceImage>(ranks[size_t(p)].src));
    dst.push_back(std::make_unique<DeviceImage>(ranks[size_t(p)].dst));
    ws.push_back(std::make_unique<DeviceImage>(std::vector<uint8_t>(plans[size_t(p)].workspace_bytes(), poison)));
    ASSERT_TRUE(src.back()->ok() && dst.back()->ok() && ws.back()->ok());
  }
  for (int p = 0; p < s.nranks; ++p)
    if (!stepped || plans[0].steps() == 0)
      plans[size_t(p)].transpose_own(src[size_t(p)]->data(), dst[size_t(p)]->data() + guard_bytes, stream);
  for (int j = 0; j < plans[0].steps(); ++j) {
    for (int p = 0; p < s.nranks; ++p) {
      if (stepped) plans[size_t(p)].transpose_own(j, src[size_t(p)]->data(), dst[size_t(p)]->data() + guard_bytes, stream);
      plans[size_t(p)].pack(j, src[size_t(p)]->data(), ws[size_t(p)]->data(), stream);
    }
    for (int p = 0; p < s.nranks; ++p)
      for (const dist::Message& m : plans[size_t(p)].sends(j)) {
        const dist::Message* r = matching_recv(plans, j, p, m);
        ASSERT_NE(nullptr, r);
        XPOSE_CUDA_OK(cudaMemcpyAsync(ws[size_t(m.peer)]->data() + r->offset, ws[size_t(p)]->data() + m.offset,
                                      m.bytes, cudaMemcpyDeviceToDevice, stream));
      }
    for (int p = 0; p < s.nranks; ++p)
      plans[size_t(p)].place(j, ws[size_t(p)]->data(), dst[size_t(p)]->data() + guard_bytes, stream);
  }
  XPOSE_CUDA_OK(cudaStreamSynchronize(stream));
  for (int p = 0; p < s.nranks; ++p) {
    const int64_t diff = first_difference(dst[size_t(p)]->read(), ranks[size_t(p)].want);
    ASSERT_EQ(-1, diff) << "rank " << p << ": first wrong byte at " << diff - int64_t(guard_bytes)
                        << " from dst's start (negative or past the span: a guard band)";
  }
}

class DistOnGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    XPOSE_REQUIRE_GPU();
    ASSERT_EQ(cudaSuccess, cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }
  cudaStream_t stream_ = nullptr;
};

TEST_F(DistOnGpu, RandomSplitsMatchTheModel) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 150 && !::testing::Test::HasFailure(); ++trial) {
    const RandomSplit s = draw_split(rng, 8, 200);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + s.text());
    run_on_gpu(s, rng(), stream_, trial % 2 == 1);
  }
}

TEST_F(DistOnGpu, LargeBlocksInDefaultSteps) {
  // Blocks of up to 68 MiB: the engines' full-speed paths, cut by the default pipelining
  // (steps of at least 64 MiB), the own block step by step as xpose_nccl_transpose runs it.
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int64_t e : {1, 4, 16}) {
    RandomSplit s;
    s.nranks = 3;
    s.elem_bytes = e;
    s.batch = 1;
    const int64_t n = (e == 1 ? 18432 : e == 4 ? 9216 : 4608) + 3;  // about 340 MiB of A
    s.row_offsets = {0, n / 3, n / 2, n};
    s.col_offsets = {0, n / 4, 2 * n / 3, n + 5};
    s.ld_src.assign(3, 0);
    s.ld_dst = {0, n + 8, 0};
    SCOPED_TRACE(s.text());
    ASSERT_GT(dist::Plan(s.split(0), 0).steps(), 1);
    run_on_gpu(s, rng(), stream_, true);
  }
}

}  // namespace
}  // namespace xpose::testing
