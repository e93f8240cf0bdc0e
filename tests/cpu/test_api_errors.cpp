// The C ABI's argument checks on host buffers: every bad request fails with its status
// and message before anything touches dst, with or without a GPU.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "support/bad_inputs.hpp"
#include "xpose/xpose.hpp"

namespace xpose::testing {
namespace {

TEST(BadInput, FailsWithStatusAndMessageAndLeavesDstAlone) {
  for (const BadInput& bad : bad_inputs()) {
    SCOPED_TRACE(bad.what);
    std::vector<uint8_t> src(buffer_bytes), dst(buffer_bytes, poison);
    fill_random(src, fresh_seed());
    const std::vector<uint8_t> src_before = src;
    Request r;
    bad.mutate(r);
    EXPECT_EQ(bad.status, call(r, src.data(), dst.data()));
    EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(bad.message)) << xpose_last_error();
    EXPECT_EQ(std::string::npos, std::string(xpose_last_error()).find('\n')) << "messages are one line";
    EXPECT_EQ(-1, first_difference(dst, std::vector<uint8_t>(buffer_bytes, poison)));
    EXPECT_EQ(-1, first_difference(src, src_before));

    // Through a plan: the same answer, at its making or its execute; without a GPU a layout
    // that is valid fails at its making for want of a device (tests/gpu cover the rest).
    std::string no_gpu;
    const bool gpu = gpu_available(&no_gpu);
    const xpose_status_t planned = call_through_plan(r, src.data(), dst.data());
    if (gpu || planned != XPOSE_ERROR_CUDA) {
      EXPECT_EQ(bad.status, planned) << xpose_last_error();
      EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find(bad.message)) << xpose_last_error();
    }
    EXPECT_EQ(-1, first_difference(dst, std::vector<uint8_t>(buffer_bytes, poison)));
    EXPECT_EQ(-1, first_difference(src, src_before));
  }
}

// The plan handle's own edges, with or without a GPU: null handles, a failed making leaves
// *plan null, an empty layout plans without a device and executes as nothing.
TEST(PlanHandle, NullAndEmpty) {
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_plan_transpose(nullptr, nullptr, nullptr, nullptr, 2, 2, 4, 0, 0, 1, 0, 0));
  EXPECT_STREQ("plan is a null pointer", xpose_last_error());
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_plan_execute(nullptr, nullptr, nullptr, nullptr));
  EXPECT_STREQ("plan is a null pointer", xpose_last_error());
  EXPECT_STREQ("", xpose_plan_explain(nullptr));
  xpose_plan_destroy(nullptr);

  xpose_plan_t plan = reinterpret_cast<xpose_plan_t>(uintptr_t(1));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_plan_transpose(&plan, nullptr, nullptr, nullptr, 2, 2, 3, 0, 0, 1, 0, 0));
  EXPECT_EQ(nullptr, plan);
  const int64_t extents[] = {2, 3};
  const int repeated[] = {0, 0};
  plan = reinterpret_cast<xpose_plan_t>(uintptr_t(1));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
            xpose_plan_permute(&plan, nullptr, nullptr, nullptr, 2, extents, repeated, 4, nullptr, nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("repeats axis 0")) << xpose_last_error();
  EXPECT_EQ(nullptr, plan);
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
            xpose_plan_permute(&plan, "permute_nowhere", nullptr, nullptr, 2, extents, repeated, 4, nullptr, nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("for permutations also permute_vec_regs"))
      << xpose_last_error();

  const int64_t empty[] = {4, 0, 3};
  const int perm[] = {2, 0, 1};
  ASSERT_EQ(XPOSE_SUCCESS, xpose_plan_permute(&plan, nullptr, nullptr, nullptr, 3, empty, perm, 8, nullptr, nullptr))
      << xpose_last_error();
  EXPECT_STREQ("nothing to do: the permutation is empty", xpose_plan_explain(plan));
  EXPECT_EQ(XPOSE_SUCCESS, xpose_plan_execute(plan, nullptr, nullptr, nullptr));
  xpose_plan_destroy(plan);

  Plan empty_transpose = Plan::transpose(2, Shape{0, 7});
  EXPECT_EQ("nothing to do: the problem is empty", empty_transpose.explain());
  empty_transpose.execute(nullptr, nullptr);
  Plan moved = std::move(empty_transpose);
  EXPECT_EQ(nullptr, empty_transpose.get());
  EXPECT_NE(nullptr, moved.get());
  try {
    empty_transpose.execute(nullptr, nullptr);
    ADD_FAILURE() << "a moved-from plan executed";
  } catch (const Error& e) {
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status());
  }
}

TEST(EmptyProblem, SucceedsWithoutTouchingAnything) {
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose(nullptr, nullptr, 0, 10, 4, 0, 0, 1, 0, 0, nullptr));
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose(nullptr, nullptr, 10, 0, 4, 0, 0, 1, 0, 0, nullptr));
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose(nullptr, nullptr, 10, 10, 4, 0, 0, 0, 0, 0, nullptr));
  EXPECT_EQ(XPOSE_SUCCESS, xpose_transpose_with("smem", nullptr, nullptr, 0, 0, 8, 0, 0, 1, 0, 0, nullptr));
  // Even an empty request names a real kernel and a real element size.
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_with("nope", nullptr, nullptr, 0, 0, 8, 0, 0, 1, 0, 0, nullptr));
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose(nullptr, nullptr, 0, 0, 5, 0, 0, 1, 0, 0, nullptr));
}

TEST(NullKernelName, IsAnInvalidArgument) {
  std::vector<uint8_t> src(64), dst(64);
  EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_with(nullptr, src.data(), dst.data(), 2, 2, 4, 0, 0, 1, 0, 0, nullptr));
  EXPECT_STREQ("kernel name is a null pointer", xpose_last_error());
}

// A name that holds control characters comes back quoted with escapes, on one line, from the
// C ABI and the C++ API alike.
TEST(UnknownKernelName, IsQuotedOnOneLine) {
  std::vector<uint8_t> src(64), dst(64, poison);
  for (const char* name : {"smem\nX", "a\tb\r\x01'\\"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose_with(name, src.data(), dst.data(), 2, 2, 4, 0, 0, 1, 0, 0, nullptr));
    const std::string message = xpose_last_error();
    EXPECT_EQ(std::string::npos, message.find_first_of("\n\r\t\x01")) << message;
    const int64_t extents[] = {2, 2};
    const int perm[] = {1, 0};
    EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT,
              xpose_permute_with(name, src.data(), dst.data(), 2, extents, perm, 4, nullptr, nullptr, nullptr));
    EXPECT_EQ(std::string::npos, std::string(xpose_last_error()).find_first_of("\n\r\t\x01")) << xpose_last_error();
    try {
      explain_choice(src.data(), dst.data(), 4, Shape{2, 2}, name);
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(std::string::npos, std::string(e.what()).find_first_of("\n\r\t\x01")) << e.what();
    }
    EXPECT_EQ(-1, first_difference(dst, std::vector<uint8_t>(64, poison)));
  }
  xpose_transpose_with("smem\nX", src.data(), dst.data(), 2, 2, 4, 0, 0, 1, 0, 0, nullptr);
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("unknown kernel 'smem\\nX'")) << xpose_last_error();
  xpose_transpose_with("it's", src.data(), dst.data(), 2, 2, 4, 0, 0, 1, 0, 0, nullptr);
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("unknown kernel 'it\\'s'")) << xpose_last_error();
}

TEST(WithoutGpu, AValidRequestIsACudaErrorWithCudasText) {
  std::string why;
  if (gpu_available(&why)) GTEST_SKIP() << "a GPU is present: tests/gpu cover host pointers there";
  std::vector<uint8_t> src(buffer_bytes), dst(buffer_bytes, poison);
  EXPECT_EQ(XPOSE_ERROR_CUDA, xpose_transpose(src.data(), dst.data(), 40, 50, 4, 0, 0, 1, 0, 0, nullptr));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("cuda")) << xpose_last_error();
  EXPECT_EQ(-1, first_difference(dst, std::vector<uint8_t>(buffer_bytes, poison)));
}

TEST(StatusString, NamesEveryStatus) {
  EXPECT_STREQ("success", xpose_status_string(XPOSE_SUCCESS));
  EXPECT_STREQ("invalid argument", xpose_status_string(XPOSE_ERROR_INVALID_ARGUMENT));
  EXPECT_STREQ("not supported", xpose_status_string(XPOSE_ERROR_NOT_SUPPORTED));
  EXPECT_STREQ("CUDA error", xpose_status_string(XPOSE_ERROR_CUDA));
  EXPECT_STREQ("unknown status", xpose_status_string(xpose_status_t(42)));
}

TEST(LastError, IsPerThread) {
  std::vector<uint8_t> buf(64);
  ASSERT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, xpose_transpose(buf.data(), buf.data() + 32, 2, 2, 3, 0, 0, 1, 0, 0, nullptr));
  std::string other;
  std::thread([&] {
    xpose_transpose(buf.data(), buf.data() + 32, -1, 2, 4, 0, 0, 1, 0, 0, nullptr);
    other = xpose_last_error();
  }).join();
  EXPECT_NE(std::string::npos, other.find("rows is negative"));
  EXPECT_NE(std::string::npos, std::string(xpose_last_error()).find("elem_bytes is 3"));
}

}  // namespace
}  // namespace xpose::testing
