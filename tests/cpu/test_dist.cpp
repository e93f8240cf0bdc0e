// The distributed transpose without a network: its validation, its schedules (every message
// has a matching receive of the same length on the same step; the step count is the same on
// every rank), and P simulated ranks run on host memory with a loopback exchange, checked
// byte for byte against the element model of A^T, guard bands and row padding untouched.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "dist/schedule.hpp"
#include "support/ranks.hpp"
#include "xpose/distributed.hpp"

namespace xpose::testing {
namespace {

dist::Split good() { return {{0, 3, 7}, {0, 5, 6}, 2, 4, 0, 0}; }

TEST(DistPlan, RefusesBadSplitsWithOneLine) {
  struct Case {
    const char* what;
    dist::Split split;
    int rank;
    int max_steps;
    const char* message;
  };
  const auto with = [](auto change) {
    dist::Split s = good();
    change(s);
    return s;
  };
  const Case cases[] = {
      {"no ranks", with([](dist::Split& s) { s.row_offsets = {0}; }), 0, 0, "row_offsets has 1 entries"},
      {"lists differ", with([](dist::Split& s) { s.col_offsets = {0, 6}; }), 0, 0, "col_offsets has 2 entries"},
      {"rank too large", good(), 2, 0, "rank 2 is outside 0..1"},
      {"negative rank", good(), -1, 0, "rank -1 is outside"},
      {"element size 3", with([](dist::Split& s) { s.elem_bytes = 3; }), 0, 0, "elem_bytes is 3"},
      {"negative batch", with([](dist::Split& s) { s.batch = -1; }), 0, 0, "batch is negative"},
      {"offsets not from 0", with([](dist::Split& s) { s.row_offsets = {1, 3, 7}; }), 0, 0, "row_offsets[0] is 1"},
      {"offsets decrease", with([](dist::Split& s) { s.col_offsets = {0, 5, 4}; }), 0, 0,
       "col_offsets decreases at 2 (5 then 4)"},
      {"ld_src below cols", with([](dist::Split& s) { s.ld_src = 5; }), 0, 0, "ld_src (5) is smaller than cols (6)"},
      {"ld_dst below rows", with([](dist::Split& s) { s.ld_dst = 6; }), 0, 0, "ld_dst (6) is smaller than rows (7)"},
      {"negative ld", with([](dist::Split& s) { s.ld_dst = -1; }), 0, 0, "ld_dst is negative"},
      {"max_steps", good(), 0, 65, "max_steps is 65"},
      {"overflow", with([](dist::Split& s) { s.row_offsets = {0, int64_t(1) << 40, int64_t(1) << 41}; s.col_offsets = {0, 1 << 20, 1 << 22}; }),
       0, 0, "overflows int64"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    try {
      dist::Plan plan(c.split, c.rank, {c.max_steps, 0});
      ADD_FAILURE() << "accepted";
    } catch (const Error& e) {
      EXPECT_EQ(XPOSE_ERROR_INVALID_ARGUMENT, e.status());
      EXPECT_NE(std::string::npos, std::string(e.what()).find(c.message)) << e.what();
      EXPECT_EQ(std::string::npos, std::string(e.what()).find('\n')) << e.what();
    }
  }
}

TEST(DistPlan, StepsAreRefusedOutsideTheirRange) {
  const dist::Plan plan(good(), 0);
  EXPECT_THROW(plan.sends(plan.steps()), Error);
  EXPECT_THROW(plan.recvs(-1), Error);
  std::vector<uint8_t> src(size_t(plan.src_bytes())), dst(size_t(plan.dst_bytes()));
  AlignedBuffer ws(plan.workspace_bytes());
  EXPECT_THROW(plan.pack_host(plan.steps(), src.data(), ws.data()), Error);
  EXPECT_THROW(plan.place_host(-1, ws.data(), dst.data()), Error);
  EXPECT_THROW(plan.pack_host(0, src.data(), ws.data() + 16), Error) << "a workspace off 256 bytes";
  EXPECT_THROW(plan.transpose_own_host(src.data(), src.data()), Error) << "src and dst overlap";
  EXPECT_THROW(plan.transpose_own_host(plan.steps(), src.data(), dst.data()), Error);
  EXPECT_THROW(plan.transpose_own_host(0, src.data(), src.data()), Error) << "src and dst overlap";
  // The whole check a driver makes before it enqueues anything.
  const auto refused = [&](const void* s, const void* d, const void* w) -> std::string {
    try {
      plan.check_buffers(s, d, w);
    } catch (const Error& e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_EQ("accepted", refused(src.data(), dst.data(), ws.data()));
  EXPECT_EQ("src is a null pointer", refused(nullptr, dst.data(), ws.data()));
  EXPECT_EQ("dst is a null pointer", refused(src.data(), nullptr, ws.data()));
  EXPECT_EQ("workspace is not 256-byte aligned", refused(src.data(), dst.data(), ws.data() + 16));
  EXPECT_EQ("src and dst overlap", refused(src.data(), src.data(), ws.data()));
  EXPECT_EQ("src and workspace overlap", refused(ws.data(), dst.data(), ws.data()));
}

TEST(DistPlan, LargeBlocksArePipelinedInSteps) {
  // Two ranks, 32768 x 32768 fp32: each sends a 1 GiB block, cut into the default steps.
  const dist::Split s{{0, 16384, 32768}, {0, 16384, 32768}, 1, 4, 0, 0};
  const dist::Plan plan(s, 0);
  EXPECT_EQ(detail::dist::kMaxSteps, plan.steps());
  EXPECT_EQ(1, dist::Plan(s, 0, {1, 0}).steps());
  EXPECT_EQ(64, dist::Plan(s, 0, {64, 1 << 20}).steps());
  // Small blocks take one step; a single rank exchanges nothing.
  EXPECT_EQ(1, dist::Plan({{0, 3, 7}, {0, 5, 6}, 1, 4, 0, 0}, 1).steps());
  EXPECT_EQ(0, dist::Plan({{0, 7}, {0, 6}, 1, 4, 0, 0}, 0).steps());
  EXPECT_EQ(0, dist::Plan({{0, 0, 0}, {0, 6, 9}, 1, 4, 0, 0}, 0).steps()) << "no rows anywhere";
  // Messages are 256-byte aligned and apart, and the workspace holds them all.
  size_t end = 0;
  for (int j = 0; j < plan.steps(); ++j)
    for (const auto* list : {&plan.sends(j), &plan.recvs(j)})
      for (const dist::Message& m : *list) {
        EXPECT_EQ(0u, m.offset % 256);
        EXPECT_GE(m.offset, end);
        EXPECT_EQ(m.padded, (m.bytes + 255) / 256 * 256);
        end = m.offset + m.padded;
      }
  EXPECT_EQ(end, plan.workspace_bytes());
  EXPECT_EQ(size_t(2) * 16384 * 16384 * 4, plan.workspace_bytes());
}

// P simulated ranks on host memory: own blocks (whole first, or `stepped`: each step's cut
// of them in that step, as xpose_nccl_transpose runs them), then step by step every pack, the
// loopback exchange, every place.
void run_on_host(const RandomSplit& s, uint64_t seed, bool stepped = false) {
  std::vector<dist::Plan> plans;
  for (int p = 0; p < s.nranks; ++p) plans.emplace_back(s.split(p), p, s.options);
  std::vector<RankImages> ranks = make_rank_images(s, plans, seed);
  std::vector<AlignedBuffer> ws;
  for (const dist::Plan& plan : plans) ws.emplace_back(plan.workspace_bytes());
  for (int p = 0; p < s.nranks; ++p) {
    ASSERT_EQ(plans[0].steps(), plans[size_t(p)].steps()) << "rank " << p;
    if (!stepped || plans[0].steps() == 0)
      plans[size_t(p)].transpose_own_host(ranks[size_t(p)].src.data(), ranks[size_t(p)].dst.data() + guard_bytes);
  }
  for (int j = 0; j < plans[0].steps(); ++j) {
    for (int p = 0; p < s.nranks; ++p) {
      plans[size_t(p)].pack_host(j, ranks[size_t(p)].src.data(), ws[size_t(p)].data());
      if (stepped)
        plans[size_t(p)].transpose_own_host(j, ranks[size_t(p)].src.data(), ranks[size_t(p)].dst.data() + guard_bytes);
    }
    size_t received = 0;
    for (int p = 0; p < s.nranks; ++p)
      for (const dist::Message& m : plans[size_t(p)].sends(j)) {
        const dist::Message* r = matching_recv(plans, j, p, m);
        ASSERT_NE(nullptr, r);
        std::memcpy(ws[size_t(m.peer)].data() + r->offset, ws[size_t(p)].data() + m.offset, m.bytes);
        ++received;
      }
    size_t expected = 0;
    for (const dist::Plan& plan : plans) expected += plan.recvs(j).size();
    ASSERT_EQ(expected, received) << "step " << j << ": a receive without its send";
    for (int p = 0; p < s.nranks; ++p)
      plans[size_t(p)].place_host(j, ws[size_t(p)].data(), ranks[size_t(p)].dst.data() + guard_bytes);
  }
  for (int p = 0; p < s.nranks; ++p) {
    const int64_t diff = first_difference(ranks[size_t(p)].dst, ranks[size_t(p)].want);
    ASSERT_EQ(-1, diff) << "rank " << p << ": first wrong byte at " << diff - int64_t(guard_bytes)
                        << " from dst's start (negative or past the span: a guard band)";
  }
}

TEST(DistSimulated, RandomSplitsOnTheHostMatchTheModel) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 400 && !::testing::Test::HasFailure(); ++trial) {
    const RandomSplit s = draw_split(rng, 8, 40);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + s.text());
    const uint64_t images = rng();
    run_on_host(s, images);
    run_on_host(s, images, true);
  }
}

TEST(DistSimulated, EveryRankCountAndElementSize) {
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  for (int nranks = 1; nranks <= 8; ++nranks)
    for (int64_t e : {1, 2, 4, 8, 16}) {
      RandomSplit s = draw_split(rng, 1, 1);
      s.nranks = nranks;
      s.elem_bytes = e;
      s.batch = 2;
      s.row_offsets = random_offsets(rng, nranks, 37);
      s.col_offsets = random_offsets(rng, nranks, 29);
      s.ld_src.assign(size_t(nranks), 31);
      s.ld_dst.assign(size_t(nranks), 0);
      s.options = {3, 100};
      SCOPED_TRACE(s.text());
      const uint64_t images = rng();
      run_on_host(s, images);
      run_on_host(s, images, true);
    }
}

TEST(DistSimulated, StepsCutInsideMatricesAndAcrossThem) {
  // 5 matrices of 67 x 41 bytes over 2 ranks, 7 steps: cuts fall inside matrices and between
  // them, on counts that do not divide evenly.
  const uint64_t seed = fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  RandomSplit s;
  s.nranks = 2;
  s.elem_bytes = 1;
  s.batch = 5;
  s.row_offsets = {0, 30, 67};
  s.col_offsets = {0, 19, 41};
  s.ld_src = {0, 43};
  s.ld_dst = {70, 0};
  s.options = {7, 1};
  SCOPED_TRACE(s.text());
  ASSERT_EQ(7, dist::Plan(s.split(0), 0, s.options).steps());
  const uint64_t images = rng();
  run_on_host(s, images);
  run_on_host(s, images, true);
}

}  // namespace
}  // namespace xpose::testing
