// Plan handles on the GPU: one plan executed on several bases (its own class and others), by
// several threads on their own streams at once; each result bit for bit what the
// element-by-element model writes, guard bands untouched; and a refused execute writes nothing.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "support/permutations.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

// A permutation's src image and the dst image a correct call leaves (poisoned around it).
struct Case {
  RandomPermutation r;
  std::vector<uint8_t> src, poisoned, want;
  size_t src_offset = 0, dst_offset = 0;  // bytes to element 0 (dst: after the guard band)

  Case(const RandomPermutation& perm, size_t src_off, size_t dst_off, uint64_t seed)
      : r(perm), src_offset(src_off), dst_offset(guard_bytes + dst_off) {
    src.resize(src_offset + size_t(r.src_span_elements() * r.elem_bytes));
    fill_random(src, seed);
    poisoned.assign(dst_offset + size_t(r.dst_span_elements() * r.elem_bytes) + guard_bytes, poison);
    want = poisoned;
    r.model(src.data() + src_offset, want.data() + dst_offset);
  }
};

PermuteShape shape_of(const RandomPermutation& r) { return {r.extents, r.perm, r.src_strides, r.dst_strides}; }

TEST(Plan, OnePlanServesEveryBase) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < trials(300) && !::testing::Test::HasFailure(); ++trial) {
    const RandomPermutation r = draw_permutation(rng, 20000, rng() % 2);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const size_t E = size_t(r.elem_bytes), align = E < 8 ? E : 8;
    // Made for bases at (a, b) bytes past 16; executed there, at other bases of that class,
    // and at bases of another class (element-aligned, off by one element or 8 bytes).
    const size_t a = align * (rng() % (16 / align)), b = align * (rng() % (16 / align));
    Plan plan = Plan::permute(r.elem_bytes, shape_of(r), nullptr, reinterpret_cast<const void*>(16 + a),
                              reinterpret_cast<const void*>(16 + b));
    const size_t offsets[][2] = {{a, b}, {a + 32, b + 48}, {(a + align) % 16, b}, {a, (b + align) % 16 + 16}};
    for (const auto& off : offsets) {
      SCOPED_TRACE("src +" + std::to_string(off[0]) + ", dst +" + std::to_string(off[1]) + " bytes");
      const Case c(r, off[0], off[1], rng());
      DeviceImage d_src(c.src), d_dst(c.poisoned);
      ASSERT_TRUE(d_src.ok() && d_dst.ok());
      const void* s = d_src.data() + c.src_offset;
      void* d = d_dst.data() + c.dst_offset;
      EXPECT_NO_THROW(plan.execute(s, d, nullptr));
      ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
      const int64_t diff = first_difference(d_dst.read(), c.want);
      EXPECT_EQ(-1, diff) << "first wrong byte " << diff << "; " << plan.explain();
      if (&off == &offsets[0]) EXPECT_EQ(explain_permute(s, d, r.elem_bytes, shape_of(r)).text, plan.explain());
    }
  }
}

TEST(Plan, TransposePlanMatchesTheCall) {
  XPOSE_REQUIRE_GPU();
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < trials(100) && !::testing::Test::HasFailure(); ++trial) {
    const int64_t rows = 1 + int64_t(rng() % 300), cols = 1 + int64_t(rng() % 300), E = int64_t(1) << (rng() % 5);
    const RandomPermutation r = transpose_as_permutation(1 + int64_t(rng() % 3), rows, cols, cols + int64_t(rng() % 3),
                                                         rows + int64_t(rng() % 3), E);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    const Shape shape{rows, cols, r.src_strides[1], r.dst_strides[1], r.extents[0], r.src_strides[0], r.dst_strides[0]};
    Plan plan = Plan::transpose(E, shape);
    const Case c(r, 0, 0, rng());
    DeviceImage d_src(c.src), d_dst(c.poisoned);
    ASSERT_TRUE(d_src.ok() && d_dst.ok());
    void* d = d_dst.data() + c.dst_offset;
    EXPECT_EQ(explain_choice(d_src.data(), d, E, shape).text, plan.explain());
    EXPECT_NO_THROW(plan.execute(d_src.data(), d));
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(-1, first_difference(d_dst.read(), c.want));
  }
}

// A named kernel's plan refuses, at execute, bases it cannot serve; nothing is written.
TEST(Plan, ANamedKernelRefusesBasesItCannotServe) {
  XPOSE_REQUIRE_GPU();
  const RandomPermutation r = transpose_as_permutation(1, 64, 96, 96, 64, 4);
  Plan plan = Plan::transpose(4, Shape{64, 96}, "vec_swizzled");
  const Case c(r, 4, 0, 7);
  DeviceImage d_src(c.src), d_dst(c.poisoned);
  ASSERT_TRUE(d_src.ok() && d_dst.ok());
  try {
    plan.execute(d_src.data() + c.src_offset, d_dst.data() + c.dst_offset);
    ADD_FAILURE() << "vec_swizzled served a src off 16 bytes";
  } catch (const Error& e) {
    EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, e.status()) << e.what();
  }
  ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
  EXPECT_EQ(-1, first_difference(d_dst.read(), c.poisoned));
}

// Threads share one plan, each on its own stream and buffers, executing it again and again.
TEST(Plan, ThreadsAndStreamsShareOnePlan) {
  XPOSE_REQUIRE_GPU();
  std::mt19937_64 rng(fresh_seed());
  RandomPermutation r;
  r.extents = {7, 33, 129, 5};
  r.perm = {2, 0, 3, 1};
  r.elem_bytes = 2;
  const Plan plan = Plan::permute(2, shape_of(r));
  constexpr int threads = 6, rounds = 25;
  std::vector<Case> cases;
  for (int t = 0; t < threads; ++t) cases.emplace_back(r, 0, size_t(2 * t), rng());
  int device = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDevice(&device));
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      std::string& failure = failures[size_t(t)];
      if (cudaSetDevice(device) != cudaSuccess) return void(failure = "cudaSetDevice failed");
      cudaStream_t stream = nullptr;
      if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        return void(failure = "cudaStreamCreate failed");
      DeviceImage d_src(cases[size_t(t)].src), d_dst(cases[size_t(t)].poisoned);
      for (int k = 0; k < rounds && failure.empty(); ++k) {
        try {
          plan.execute(d_src.data() + cases[size_t(t)].src_offset, d_dst.data() + cases[size_t(t)].dst_offset, stream);
        } catch (const Error& e) {
          failure = e.what();
        }
      }
      if (cudaStreamSynchronize(stream) != cudaSuccess) failure = "the stream failed";
      else if (failure.empty() && first_difference(d_dst.read(), cases[size_t(t)].want) != -1)
        failure = "a wrong result";
      cudaStreamDestroy(stream);
    });
  for (std::thread& t : pool) t.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ("", failures[size_t(t)]) << "thread " << t;
}

// A plan is for the device it was made on; another current device is refused before anything runs.
TEST(Plan, AnotherDeviceIsRefused) {
  XPOSE_REQUIRE_GPU();
  int count = 0;
  ASSERT_EQ(cudaSuccess, cudaGetDeviceCount(&count));
  if (count < 2) GTEST_SKIP() << "one device: nothing to refuse";
  ASSERT_EQ(cudaSuccess, cudaSetDevice(0));
  const Plan plan = Plan::transpose(4, Shape{32, 32});
  std::vector<uint8_t> image(32 * 32 * 4, 1);
  DeviceImage d_src(image), d_dst(image);
  ASSERT_EQ(cudaSuccess, cudaSetDevice(1));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_plan_execute(plan.get(), d_src.data(), d_dst.data(), nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("the plan is for device 0")) << xpose_last_error();
  ASSERT_EQ(cudaSuccess, cudaSetDevice(0));
}

}  // namespace
}  // namespace xpose::testing
