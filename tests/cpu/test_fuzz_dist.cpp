// A randomized property test of the distributed plan's construction: random and extreme
// splits (offsets, batch, pitches from 0 to INT64_MAX, rank counts up to the maximum), each
// judged by make_schedule() and by a model in saturating 128-bit arithmetic. An accepted plan
// must hold only sizes the model computes exactly and that fit int64; a refused one must be
// one the model says cannot be served. The sanitizer build (scripts/sanitize) sees every
// product the planner computes.
//   XPOSE_FUZZ_SEED   the seed (default fixed, so CI is reproducible)
//   XPOSE_FUZZ_CASES  how many splits (default 100000)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "dist/schedule.hpp"
#include "xpose/distributed.hpp"

namespace xpose::detail::dist {
namespace {

using i128 = __int128;
constexpr i128 kSaturated = i128(1) << 100;  // far above int64, far below int128's limit
constexpr i128 kInt64Max = INT64_MAX;

i128 mul(i128 a, i128 b) { return a != 0 && b > kSaturated / a ? kSaturated : std::min(a * b, kSaturated); }

uint64_t env_or(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// A count from ordinary to absurd: 0, 1, small, a power of two and its neighbours, INT64_MAX.
int64_t extreme(std::mt19937_64& rng) {
  switch (rng() % 6) {
    case 0: return int64_t(rng() % 3);
    case 1: return int64_t(rng() % 1000);
    case 2: {
      const int64_t p = int64_t(1) << (rng() % 63);
      return std::max<int64_t>(0, p + int64_t(rng() % 3) - 1);
    }
    case 3: return INT64_MAX - int64_t(rng() % 3);
    case 4: return int64_t(rng() >> (1 + rng() % 63));
    default: return int64_t(rng() % 100000);
  }
}

// Offsets 0 .. total over `nranks`: random cuts, or all at 0 or at the end.
std::vector<int64_t> offsets(std::mt19937_64& rng, int nranks, int64_t total) {
  std::vector<int64_t> o(size_t(nranks) + 1, 0);
  for (int i = 1; i < nranks; ++i)
    o[size_t(i)] = rng() % 4 == 0 ? (rng() % 2 ? 0 : total) : int64_t(uint64_t(rng()) % (uint64_t(total) + 1));
  o.back() = total;
  std::sort(o.begin(), o.end());
  return o;
}

struct Model {
  bool fits = false;  // what a plan must refuse where false
  int64_t src_span = 0, dst_span = 0;
  i128 exchanged = 0;  // bytes this rank sends and receives, the workspace before padding
  i128 padding = 0;    // the most the padding of its messages can add
};

// The sizes a rank's plan must report, or that none fits.
Model model(const Split& s) {
  const int p = s.rank;
  const int64_t rows = s.row_offsets.back(), cols = s.col_offsets.back(), e = s.elem_bytes, batch = s.batch;
  const int64_t ld_src = s.ld_src ? s.ld_src : cols, ld_dst = s.ld_dst ? s.ld_dst : rows;
  const int64_t my_rows = s.row_offsets[size_t(p) + 1] - s.row_offsets[size_t(p)];
  const int64_t my_cols = s.col_offsets[size_t(p) + 1] - s.col_offsets[size_t(p)];
  Model m;
  m.fits = mul(mul(mul(rows, cols), batch), e) <= kInt64Max && mul(mul(mul(batch, my_rows), ld_src), e) <= kInt64Max &&
           mul(mul(mul(batch, my_cols), ld_dst), e) <= kInt64Max;
  const auto span = [&](int64_t outer, int64_t ld, int64_t inner) -> int64_t {
    if (batch == 0 || outer == 0 || inner == 0) return 0;
    return int64_t((mul(batch, outer) - 1) * ld * e + i128(inner) * e);
  };
  const int nranks = int(s.row_offsets.size()) - 1;
  m.exchanged = mul(mul(mul(my_rows, cols - my_cols), batch), e) + mul(mul(mul(rows - my_rows, my_cols), batch), e);
  m.padding = i128(2) * 64 * nranks * i128(kMessageAlign);
  if (m.fits) {
    m.src_span = span(my_rows, ld_src, cols);
    m.dst_span = span(my_cols, ld_dst, rows);
  }
  return m;
}

std::string text(const Split& s) {
  std::string t = "rank " + std::to_string(s.rank) + " batch " + std::to_string(s.batch) + " elem " +
                  std::to_string(s.elem_bytes) + " ld " + std::to_string(s.ld_src) + "/" + std::to_string(s.ld_dst) +
                  " rows";
  for (size_t i = 0; i < std::min<size_t>(s.row_offsets.size(), 6); ++i) t += " " + std::to_string(s.row_offsets[i]);
  t += " cols";
  for (size_t i = 0; i < std::min<size_t>(s.col_offsets.size(), 6); ++i) t += " " + std::to_string(s.col_offsets[i]);
  return t;
}

TEST(DistPlanFuzz, AcceptedPlansHoldOnlySizesThatFit) {
  const uint64_t seed = env_or("XPOSE_FUZZ_SEED", 20261125), cases = env_or("XPOSE_FUZZ_CASES", 100000);
  SCOPED_TRACE("XPOSE_FUZZ_SEED=" + std::to_string(seed));
  std::mt19937_64 rng(seed);
  const int64_t sizes[] = {1, 2, 4, 8, 16};
  uint64_t accepted = 0, refused = 0;
  for (uint64_t c = 0; c < cases; ++c) {
    Split s;
    const int nranks = rng() % 1000 == 0 ? 1 + int(rng() % kMaxRanks) : 1 + int(rng() % 9);
    s.row_offsets = offsets(rng, nranks, extreme(rng));
    s.col_offsets = offsets(rng, nranks, extreme(rng));
    s.batch = extreme(rng);
    s.elem_bytes = sizes[rng() % 5];
    s.ld_src = rng() % 2 ? 0 : extreme(rng);
    s.ld_dst = rng() % 2 ? 0 : extreme(rng);
    s.rank = int(rng() % uint64_t(nranks));
    s.max_steps = int(rng() % 65);
    s.step_bytes = rng() % 2 ? 0 : extreme(rng);
    const int64_t rows = s.row_offsets.back(), cols = s.col_offsets.back();
    const bool pitches_ok = (s.ld_src == 0 || s.ld_src >= cols) && (s.ld_dst == 0 || s.ld_dst >= rows);
    Schedule sched;
    const Result err = make_schedule(s, &sched);
    const Model m = model(s);
    if (err.failed()) {
      ++refused;
      const bool workspace_may_overflow = m.exchanged + m.padding > kInt64Max;
      ASSERT_TRUE(!m.fits || !pitches_ok || workspace_may_overflow)
          << "refused a split that fits: " << err.message << "; " << text(s);
      ASSERT_EQ(std::string::npos, err.message.find('\n'));
      continue;
    }
    ++accepted;
    ASSERT_TRUE(m.fits && pitches_ok) << "accepted a split past int64: " << text(s);
    ASSERT_EQ(m.src_span, sched.src_span_bytes) << text(s);
    ASSERT_EQ(m.dst_span, sched.dst_span_bytes) << text(s);
    ASSERT_LE(sched.workspace_bytes, size_t(INT64_MAX)) << text(s);
    ASSERT_GE(i128(sched.workspace_bytes), m.exchanged) << text(s);
    ASSERT_LE(i128(sched.workspace_bytes), m.exchanged + m.padding) << text(s);
    for (const Step& step : sched.steps)
      for (const auto* list : {&step.sends, &step.recvs})
        for (const Message& msg : *list) {
          ASSERT_LE(msg.offset + msg.padded, sched.workspace_bytes) << text(s);
          ASSERT_LE(msg.bytes, msg.padded) << text(s);
        }
  }
  EXPECT_GT(accepted, cases / 20) << "too few splits were servable to judge the accepted side";
  EXPECT_GT(refused, cases / 20);
}

// The adversarial run's two reproducers: products past int64 that the old 128-bit guards
// wrapped (a negative src size; a size of 0) are refused.
TEST(DistPlanFuzz, ProductsPastInt64AreRefused) {
  const int64_t big = INT64_MAX;
  for (const Split& s : {Split{{0, big}, {0, int64_t(1) << 31}, 3074457345618258602, 4, 0, 0},
                         Split{{0, int64_t(1) << 42}, {0, int64_t(1) << 42}, int64_t(1) << 40, 16, 0, 0}}) {
    Schedule sched;
    const Result err = make_schedule(s, &sched);
    EXPECT_TRUE(err.failed()) << text(s) << ": src_span " << sched.src_span_bytes;
    EXPECT_NE(std::string::npos, err.message.find("overflows int64")) << err.message;
  }
}

// Every rank's plan is built in time linear in the rank count.
TEST(DistPlanFuzz, TheMaximumRankCountPlansQuickly) {
  const int nranks = kMaxRanks;
  std::vector<int64_t> o(size_t(nranks) + 1);
  for (int i = 0; i <= nranks; ++i) o[size_t(i)] = int64_t(i) * 3;
  const auto start = std::chrono::steady_clock::now();
  const xpose::dist::Plan plan({o, o, 1, 4, 0, 0}, nranks / 2);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(nranks, plan.nranks());
  EXPECT_EQ(size_t(nranks - 1), plan.sends(0).size());
#if defined(__SANITIZE_ADDRESS__) || defined(__OPTIMIZE__) == 0
  EXPECT_LT(seconds, 2.0) << "instrumented or unoptimized build";
#else
  EXPECT_LT(seconds, 0.1);
#endif
}

}  // namespace
}  // namespace xpose::detail::dist
