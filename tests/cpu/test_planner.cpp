// The planner on pretend devices: bases of one class modulo plan_alignment take one plan (the
// property a plan handle's execute rests on), and a permutation's 2-D form is the Problem
// resolve_transpose() makes of the same arguments.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <set>
#include <string>

#include "api/validate.hpp"
#include "dispatch/planner.hpp"
#include "support/devices.hpp"
#include "support/permutations.hpp"
#include "support/testing.hpp"

namespace xpose::detail {
namespace {

const Device* const devices[] = {&testing::h100, &testing::h200, &testing::a100, &testing::b200, &testing::turing};

// r's layout as the library checks it (bases null), or false where it refuses r.
bool layout_of(const testing::RandomPermutation& r, Permutation* out) {
  return !resolve_permute_layout({nullptr, nullptr, r.rank(), r.extents.data(), r.perm.data(), r.elem_bytes,
                                  r.src_or_null(), r.dst_or_null()},
                                 out)
              .failed();
}

// Two plans launch the same thing: every launch field, and the same text.
void expect_same_launch(const CallPlan& a, const CallPlan& b) {
  EXPECT_EQ(plan_text(a).text, plan_text(b).text);
  const Plan &p = a.choice.plan, &q = b.choice.plan;
  EXPECT_EQ(p.engine, q.engine);
  EXPECT_EQ(a.choice.rule, b.choice.rule);
  EXPECT_EQ(a.choice.nd_rule, b.choice.nd_rule);
  if (!p.engine || !q.engine) return;
  EXPECT_EQ(p.task.src, q.task.src);
  EXPECT_EQ(p.task.dst, q.task.dst);
  EXPECT_TRUE(p.grid.x == q.grid.x && p.grid.y == q.grid.y && p.grid.z == q.grid.z);
  EXPECT_EQ(p.variant, q.variant);
  EXPECT_EQ(p.smem_bytes, q.smem_bytes);
  EXPECT_EQ(describe(p), describe(q));
  if (p.task.input == Input::nd_form) {
    EXPECT_EQ(layout::text(p.task.form), layout::text(q.task.form));
    EXPECT_EQ(0, std::memcmp(p.bytes, q.bytes, sizeof p.bytes));  // the engine's parameters
  } else {
    EXPECT_EQ(p.task.problem.src, q.task.problem.src);
    EXPECT_EQ(p.task.problem.dst, q.task.problem.dst);
    EXPECT_EQ(p.params<Tiles>().chunk_elems, q.params<Tiles>().chunk_elems);
    EXPECT_EQ(p.params<Tiles>().by_column, q.params<Tiles>().by_column);
  }
}

// A base: a random 40-bit multiple of 256 plus `rest` (below 256).
uintptr_t base(std::mt19937_64& rng, uintptr_t rest) { return ((rng() >> 24) << 8) + rest; }

TEST(Planner, BasesOfOneClassTakeOnePlan) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int planned = 0;
  for (int trial = 0; trial < testing::trials(4000) && !::testing::Test::HasFailure(); ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 22, rng() % 2);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    Permutation layout;
    if (!layout_of(r, &layout)) continue;
    // a's bases anywhere on their element's alignment; b's alike modulo plan_alignment only.
    const uintptr_t align = uintptr_t(r.elem_bytes < 8 ? r.elem_bytes : 8);
    const auto rest = [&] { return align * (rng() % (256 / align)); };
    const auto like = [&](uintptr_t r) { return r % plan_alignment + plan_alignment * (rng() % (256 / plan_alignment)); };
    const uintptr_t src_rest = rest(), dst_rest = rest();
    const Device& d = *devices[rng() % std::size(devices)];
    Permutation a = layout, b = layout;
    a.src = reinterpret_cast<const void*>(base(rng, src_rest));
    a.dst = reinterpret_cast<void*>(base(rng, dst_rest));
    b.src = reinterpret_cast<const void*>(base(rng, like(src_rest)));
    b.dst = reinterpret_cast<void*>(base(rng, like(dst_rest)));
    CallPlan pa, pb;
    const Result ea = plan_permute(nullptr, a, d, &pa), eb = plan_permute(nullptr, b, d, &pb);
    ASSERT_EQ(ea.status, eb.status) << ea.message << " / " << eb.message;
    if (ea.failed()) {
      EXPECT_EQ(ea.message, eb.message);
      continue;
    }
    ++planned;
    ASSERT_TRUE(same_class(pa, b.src, b.dst));
    expect_same_launch(rebased(pa, b.src, b.dst), pb);

    // The same for the batched 2-D transpose the permutation may be, planned as a transpose.
    Problem t;
    if (transpose_form(a, &t)) {
      Problem u = t;
      u.src = b.src, u.dst = b.dst;
      CallPlan ta, tb;
      const Result fa = plan_transpose(nullptr, t, d, &ta), fb = plan_transpose(nullptr, u, d, &tb);
      ASSERT_EQ(fa.status, fb.status) << fa.message << " / " << fb.message;
      if (!fa.failed()) expect_same_launch(rebased(ta, u.src, u.dst), tb);
    }
  }
  EXPECT_GT(planned, testing::trials(4000) / 2);
}

// Bases of another class are told apart.
TEST(Planner, BasesOfAnotherClassAreNotTheSame) {
  Permutation p;
  const int64_t extents[] = {64, 48};
  const int perm[] = {1, 0};
  ASSERT_FALSE(resolve_permute_layout({nullptr, nullptr, 2, extents, perm, 4, nullptr, nullptr}, &p).failed());
  p.src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  p.dst = reinterpret_cast<void*>(uintptr_t(1) << 30);
  CallPlan plan;
  ASSERT_FALSE(plan_permute(nullptr, p, testing::h100, &plan).failed());
  EXPECT_TRUE(same_class(plan, reinterpret_cast<const void*>(uintptr_t(3) << 20), p.dst));
  EXPECT_FALSE(same_class(plan, reinterpret_cast<const void*>((uintptr_t(1) << 20) + 4), p.dst));
  EXPECT_FALSE(same_class(plan, p.src, reinterpret_cast<const void*>((uintptr_t(1) << 30) + 8)));
}

// A batched transpose whose matrices interleave (the batch axis between the rows and the
// columns) goes to the N-D table, as a permutation and as a transpose; a batch of whole
// matrices stays on the 2-D path, and so does an interleaved one a 2-D engine is named for.
TEST(Planner, InterleavedBatchesGoToTheNdTable) {
  struct Example {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    int64_t elem_bytes;
    bool interleaved;
  };
  const Example examples[] = {
      {{3060, 35, 20, 3}, {3, 1, 2, 0}, 4, true},   // 3060 x 3 matrices, batch 700 between them
      {{1746, 951, 4}, {2, 1, 0}, 4, true},
      {{3, 606, 2904, 7}, {3, 1, 2, 0}, 1, true},
      {{64, 300, 200}, {0, 2, 1}, 4, false},         // 64 whole 300 x 200 matrices
      {{1940, 35, 1629}, {1, 2, 0}, 2, false},
  };
  for (const Example& x : examples) {
    SCOPED_TRACE(::testing::PrintToString(x.extents) + " " + ::testing::PrintToString(x.perm));
    Permutation p;
    ASSERT_FALSE(resolve_permute_layout({nullptr, nullptr, int(x.extents.size()), x.extents.data(), x.perm.data(),
                                         x.elem_bytes, nullptr, nullptr},
                                        &p)
                     .failed());
    p.src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
    p.dst = reinterpret_cast<void*>(uintptr_t(1) << 30);
    Problem t;
    ASSERT_TRUE(transpose_form(p, &t));
    for (const Device* d : {&testing::h100, &testing::h200}) {
      CallPlan as_permutation, as_transpose, named;
      ASSERT_FALSE(plan_permute(nullptr, p, *d, &as_permutation).failed());
      ASSERT_FALSE(plan_transpose(nullptr, t, *d, &as_transpose).failed());
      EXPECT_EQ((as_permutation.choice.plan.task.input == Input::nd_form && as_permutation.choice.plan.engine),
                x.interleaved);
      EXPECT_EQ((as_transpose.choice.plan.task.input == Input::nd_form && as_transpose.choice.plan.engine),
                x.interleaved);
      ASSERT_FALSE(plan_transpose("smem_padded", t, *d, &named).failed());
      EXPECT_STREQ(plan_text(named).kernel.c_str(), "smem_padded");
    }
  }
}

// transpose_problem gives what resolve_transpose() makes of the 2-D form's arguments, for every
// permutation whose normalized form is a transpose: valid by construction.
TEST(Planner, TheTwoDFormIsWhatResolveMakes) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int forms = 0;
  for (int trial = 0; trial < testing::trials(20000) && !::testing::Test::HasFailure(); ++trial) {
    const testing::RandomPermutation r = testing::draw_permutation(rng, 1 << 22, rng() % 2);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": " + r.text());
    Permutation p;
    if (!layout_of(r, &p) || p.empty()) continue;
    p.src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
    p.dst = reinterpret_cast<void*>(uintptr_t(1) << 50);
    Problem made;
    if (!transpose_form(p, &made)) continue;
    ++forms;
    Problem resolved;
    const Result e = resolve_transpose(Args{made.src, made.dst, made.rows, made.cols, made.elem_bytes, made.ld_src, made.ld_dst,
                                 made.batch, made.stride_src, made.stride_dst},
                            &resolved);
    ASSERT_FALSE(e.failed()) << e.message;
    EXPECT_EQ(resolved.rows, made.rows);
    EXPECT_EQ(resolved.cols, made.cols);
    EXPECT_EQ(resolved.elem_bytes, made.elem_bytes);
    EXPECT_EQ(resolved.ld_src, made.ld_src);
    EXPECT_EQ(resolved.ld_dst, made.ld_dst);
    EXPECT_EQ(resolved.batch, made.batch);
    EXPECT_EQ(resolved.stride_src, made.stride_src);
    EXPECT_EQ(resolved.stride_dst, made.stride_dst);
  }
  EXPECT_GT(forms, testing::trials(20000) / 10);
}

}  // namespace
}  // namespace xpose::detail

namespace xpose::detail {
namespace {

// A batch of 1-64 matrices of 1-4096 x 1-4096 elements of 1-8 bytes, rows padded by 0-2 elements.
testing::RandomPermutation random_batched_transpose(std::mt19937_64& rng) {
  const int64_t batch = 1 + int64_t(rng() % 64), rows = 1 + int64_t(rng() % 4096), cols = 1 + int64_t(rng() % 4096);
  return testing::transpose_as_permutation(batch, rows, cols, cols + int64_t(rng() % 3), rows + int64_t(rng() % 3),
                                           int64_t(1) << (rng() % 4));
}

// The automatic choice's plan of r at 16-byte aligned bases on device d; false where r has no
// layout or is refused.
bool planned(const testing::RandomPermutation& r, const Device& d, CallPlan* plan) {
  Permutation p;
  if (!layout_of(r, &p)) return false;
  p.src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  p.dst = reinterpret_cast<void*>(uintptr_t(1) << 40);
  return !plan_permute(nullptr, p, d, plan).failed();
}

// The N-D rule that takes `extents` permuted by `perm` (e-byte elements) on device d, or what
// the transpose table chose where it kept the problem.
std::string nd_rule_of(const Device& d, std::vector<int64_t> extents, std::vector<int> perm, int64_t e) {
  testing::RandomPermutation r;
  r.extents = extents, r.perm = perm, r.elem_bytes = e;
  CallPlan plan;
  if (!planned(r, d, &plan)) {
    ADD_FAILURE() << r.text() << " was not planned";
    return "not planned";
  }
  return plan.choice.nd_rule ? std::string(plan.choice.nd_rule->id) : "the transpose table's " + plan_text(plan).text;
}

// A batched transpose that the transpose table hands an N-D rule taking transposes too
// (short_transposes) gets the same kernel whether it comes as a transpose or as a permutation;
// the rest keep the transpose table's choice as transposes (filled_transposes: permutations
// only).
TEST(NdRules, TransposesHandedOverAsPermutationsAre) {
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int handed = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t e = int64_t(1) << (rng() % 4), batch = 1 + int64_t(rng() % 64);
    const int64_t rows = 1 + int64_t(rng() % 2 ? rng() % 24 : rng() % 2048), cols = 1 + int64_t(rng() % 65536);
    const int64_t ld_src = cols + int64_t(rng() % 3), ld_dst = rows + int64_t(rng() % 3);
    const void* src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
    void* dst = reinterpret_cast<void*>(uintptr_t(1) << 44);
    Problem p;
    const Result r = resolve_transpose(Args{src, dst, rows, cols, e, ld_src, ld_dst, batch, 0, 0}, &p);
    ASSERT_FALSE(r.failed()) << r.message;
    Permutation q;
    ASSERT_TRUE(layout_of(testing::transpose_as_permutation(batch, rows, cols, ld_src, ld_dst, e), &q));
    q.src = src, q.dst = dst;
    CallPlan as_transpose, as_permutation_plan;
    ASSERT_FALSE(plan_transpose(nullptr, p, testing::h100, &as_transpose).failed());
    ASSERT_FALSE(plan_permute(nullptr, q, testing::h100, &as_permutation_plan).failed());
    const NdRule* rule = as_permutation_plan.choice.nd_rule;
    if (rule && rule->handed_over && rule->from_transposes) {
      ++handed;
      EXPECT_EQ(rule, as_transpose.choice.nd_rule) << plan_text(as_transpose).text;
      EXPECT_EQ(as_permutation_plan.choice.plan.engine, as_transpose.choice.plan.engine);
    } else if (rule && rule->handed_over) {
      EXPECT_EQ(nullptr, as_transpose.choice.nd_rule) << plan_text(as_transpose).text;
    } else if (!as_permutation_plan.choice.nd_rule) {
      EXPECT_EQ(nullptr, as_transpose.choice.nd_rule) << plan_text(as_transpose).text;
    }
    if (rule && rule->handed_over && std::strcmp(rule->id, "short_transposes") == 0)
      EXPECT_GE(p.bytes(), tuning_for(testing::h100).short_transpose_min) << "short_transposes took a small problem";
  }
  EXPECT_GT(handed, 200);  // 430-480
  // fp32 32 x 9x61111 with padded rows (H100, 2026-11-28 random 2-D draw: 29% of a copy through
  // cute_padded): 36-byte sides, rule short_transposes.
  Problem p;
  ASSERT_FALSE(resolve_transpose(Args{reinterpret_cast<const void*>(uintptr_t(1) << 20),
                                      reinterpret_cast<void*>(uintptr_t(1) << 44), 9, 61111, 4, 61159, 66, 32, 0, 0},
                                 &p)
                   .failed());
  CallPlan plan;
  ASSERT_FALSE(plan_transpose(nullptr, p, testing::h100, &plan).failed());
  ASSERT_NE(nullptr, plan.choice.nd_rule) << plan_text(plan).text;
  EXPECT_STREQ("short_transposes", plan.choice.nd_rule->id);
  // Short sides the table gives the vector tiles (H200, s168 and s174 random 2-D draws, 32.8 and 28.8% of a copy
  // through cute_vectorized_swizzled, 52.4 and 47.9 through permute_packed): fp64 50 x 39953x3 with 12-element
  // src rows, fp64 34 x 3x55728, rule short_transposes.
  const void* const far_src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  void* const far_dst = reinterpret_cast<void*>(uintptr_t(1) << 44);
  for (const Args& a : {Args{far_src, far_dst, 39953, 3, 8, 12, 40014, 50, 0, 0},
                        Args{far_src, far_dst, 3, 55728, 8, 55742, 4, 34, 0, 0}}) {
    ASSERT_FALSE(resolve_transpose(a, &p).failed());
    ASSERT_FALSE(plan_transpose(nullptr, p, testing::h200, &plan).failed());
    ASSERT_NE(nullptr, plan.choice.nd_rule) << plan_text(plan).text;
    EXPECT_STREQ("short_transposes", plan.choice.nd_rule->id);
  }
  // u8 296 x 1505x592, rows not 16-byte aligned: rule filled_transposes as a permutation, the
  // transpose table's kernel as a transpose.
  const void* src = reinterpret_cast<const void*>(uintptr_t(1) << 20);
  void* dst = reinterpret_cast<void*>(uintptr_t(1) << 44);
  ASSERT_FALSE(resolve_transpose(Args{src, dst, 1505, 592, 1, 0, 0, 296, 0, 0}, &p).failed());
  Permutation q;
  ASSERT_TRUE(layout_of(testing::transpose_as_permutation(296, 1505, 592, 592, 1505, 1), &q));
  q.src = src, q.dst = dst;
  CallPlan as_permutation_plan;
  ASSERT_FALSE(plan_permute(nullptr, q, testing::h100, &as_permutation_plan).failed());
  ASSERT_NE(nullptr, as_permutation_plan.choice.nd_rule) << plan_text(as_permutation_plan).text;
  EXPECT_STREQ("filled_transposes", as_permutation_plan.choice.nd_rule->id);
  ASSERT_FALSE(plan_transpose(nullptr, p, testing::h100, &plan).failed());
  EXPECT_EQ(nullptr, plan.choice.nd_rule) << plan_text(plan).text;
}

// The H200's record sends forms whose fastest axes have fewer than 32 elements to permute_packed
// even where their runs are long (8-byte elements), the H100's to permute_tiled.
TEST(NdRules, TheH200PacksShortAxesOfWideElements) {
  for (const Device* d : {&testing::h100, &testing::h200})  // runs of 168 bytes, 21 columns
    EXPECT_EQ(d == &testing::h200 ? "short_sides" : "tiles", nd_rule_of(*d, {5, 7, 21, 21}, {1, 0, 3, 2}, 8));
}

// The H200's record sends 16-byte elements whose src run is 9-16 elements and dst's at most 16
// to permute_packed (c128 1313x428x4x9 (1,3,0,2): 65% of a copy through permute_vec_regs, 89
// packed); src runs of up to 8 stay with permute_vec_regs, as everything does on the H100.
TEST(NdRules, TheH200PacksShortRunsOfSixteenByteElements) {
  const auto rule = [](const Device& d, std::vector<int64_t> extents, std::vector<int> perm) {
    return nd_rule_of(d, extents, perm, 16);
  };
  EXPECT_EQ("short_runs_16", rule(testing::h200, {1313, 428, 4, 9}, {1, 3, 0, 2}));   // runs of 9 and 4
  EXPECT_EQ("short_runs_16", rule(testing::h200, {43, 296, 2, 9, 14}, {2, 0, 1, 4, 3}));  // 14 and 9
  EXPECT_EQ("short_runs", rule(testing::h200, {609, 3, 418, 8}, {3, 1, 0, 2}));  // src's run 8
  EXPECT_EQ("short_runs", rule(testing::h100, {1313, 428, 4, 9}, {1, 3, 0, 2}));
}

// The H200's record sends aligned forms of 2- to 8-byte elements whose runs fill
// permute_aligned_stores' blocks there (fp64 1670x142x4x18 (0,3,2,1): 72% of a copy through
// permute_vec_tiled, 90 through permute_aligned_stores; fp32 40x1319x328 (2,1,0) 72 -> 90); bytes,
// and the H100, keep permute_vec_tiled.
TEST(NdRules, TheH200SendsAlignedFormsOfTwoToEightBytesToAlignedStores) {
  EXPECT_EQ("wide_stores", nd_rule_of(testing::h200, {1670, 142, 4, 18}, {0, 3, 2, 1}, 8));
  EXPECT_EQ("wide_stores", nd_rule_of(testing::h200, {40, 1319, 328}, {2, 1, 0}, 4));
  EXPECT_EQ("wide_stores", nd_rule_of(testing::h200, {67, 104, 14, 952}, {3, 0, 2, 1}, 2));
  EXPECT_EQ("whole_vectors", nd_rule_of(testing::h200, {3536, 15, 896}, {2, 1, 0}, 1));
  EXPECT_EQ("whole_vectors", nd_rule_of(testing::h100, {1670, 142, 4, 18}, {0, 3, 2, 1}, 8));
  EXPECT_EQ("whole_vectors", nd_rule_of(testing::h100, {40, 1319, 328}, {2, 1, 0}, 4));
  // Blocks that contiguous_sides would not take stay too (22 columns of fp64), and dst's fastest
  // axes of 2 elements (fp64 2x23x366x1960 (2,3,1,0): 87% through permute_vec_tiled, 61 not).
  EXPECT_EQ("whole_vectors", nd_rule_of(testing::h200, {16, 636, 3, 76, 22}, {1, 2, 0, 4, 3}, 8));
  EXPECT_EQ("whole_vectors", nd_rule_of(testing::h200, {2, 23, 366, 1960}, {2, 3, 1, 0}, 8));
  // Runs not whole vectors (19 fp64) are rule contiguous_sides', to the same kernel.
  EXPECT_EQ("contiguous_sides", nd_rule_of(testing::h200, {1670, 142, 4, 19}, {0, 3, 2, 1}, 8));
}

// What the H200's rule unaligned_mid gives smem_padded is handed over as cute_padded's was: to
// permute_packed where a side is short (fp16 92x15x21x2231 (0,2,3,1): 31% of a copy through
// smem_padded, 77 through permute_packed), to permute_aligned_stores where its blocks fill (fp32
// 17x211x1659 (2,0,1): 69 against 83).
TEST(NdRules, TheH200HandsOverWhatUnalignedMidGivesSmemPadded) {
  const auto rule = [](std::vector<int64_t> extents, std::vector<int> perm, int64_t e) {
    return nd_rule_of(testing::h200, extents, perm, e);
  };
  EXPECT_EQ("short_transposes", rule({92, 15, 21, 2231}, {0, 2, 3, 1}, 2));  // a side of 30 bytes
  EXPECT_EQ("filled_transposes", rule({17, 211, 1659}, {2, 0, 1}, 4));      // 23.8 MB, blocks filled
  Problem aligned;  // an aligned small fp32 transpose (rule small_fp32's smem_padded) stays
  ASSERT_FALSE(resolve_transpose(Args{reinterpret_cast<const void*>(1 << 20), reinterpret_cast<void*>(uintptr_t(1) << 40),
                                      1024, 1024, 4, 0, 0, 1, 0, 0},
                                 &aligned)
                   .failed());
  CallPlan plan;
  ASSERT_FALSE(plan_transpose(nullptr, aligned, testing::h200, &plan).failed());
  EXPECT_EQ(nullptr, plan.choice.nd_rule) << plan_text(plan).text;
  EXPECT_STREQ("smem_padded", plan.choice.plan.engine->name);
}

// Every N-D rule decides an example on the H100's record (the H200's for a rule the H100's turns
// off), and random draws on the two records reach every rule.
TEST(NdRules, EveryRuleHasAnExampleAndIsReached) {
  struct Example {
    std::vector<int64_t> extents;
    std::vector<int> perm;
    int64_t elem_bytes;
    const char* rule;
    const Device* device = &testing::h100;
  };
  const Example examples[] = {
      {{217, 1045, 16, 11}, {0, 3, 1, 2}, 2, "short_transposes"},  // batched transpose, 22-byte src rows
      {{296, 1505, 592}, {0, 2, 1}, 1, "filled_transposes"},     // 891 KB matrices: 91% of the blocks filled
      {{4096, 64, 64, 4}, {3, 1, 2, 0}, 4, "one_vector_src_run"},  // NHWC -> CHWN, 4 fp32 channels
      {{1313, 428, 4, 9}, {1, 3, 0, 2}, 16, "short_runs_16", &testing::h200},  // runs of 9 and 4 c128
      {{64, 64, 64, 32}, {3, 1, 0, 2}, 2, "short_runs"},         // runs of 64 and 128 bytes
      {{1670, 142, 4, 18}, {0, 3, 2, 1}, 8, "wide_stores", &testing::h200},  // runs of 144 and 1136 bytes
      {{64, 64, 128, 128}, {3, 1, 0, 2}, 2, "whole_vectors"},     // runs of 256 bytes
      {{5, 7, 130, 66}, {1, 3, 0, 2}, 4, "contiguous_sides"},    // 66 fp32: no whole vectors
      {{5, 7, 9, 66}, {1, 0, 3, 2}, 4, "short_sides"},           // 36 bytes of rows, none to join them
      {{33, 625, 18, 2, 37}, {1, 2, 4, 3, 0}, 2, "short_sides"},  // aligned_stores' blocks 30% full (66 of 128 rows, 37 of 64 columns)
      {{5, 7, 21, 21}, {1, 0, 3, 2}, 8, "tiles"},                // runs of 168 bytes, no whole vectors, 21 columns
      {{4, 5, 3, 77}, {1, 0, 2, 3}, 2, "contiguous_rows"},       // fp16 rows of 462 bytes (3 x 77 fused)
      {{4, 5, 3, 7}, {1, 0, 2, 3}, 2, "narrow_rows"},            // fp16 rows of 42 bytes (3 x 7 fused)
      {{4, 5, 3, 3}, {1, 0, 2, 3}, 4, "narrow_rows"},            // fp32 rows of 36 bytes
      {{4, 5, 3, 3}, {1, 0, 2, 3}, 8, "rows"},                   // fp64 rows of 72 bytes
  };
  std::set<std::string> seen;
  for (const Example& e : examples) {
    SCOPED_TRACE(e.rule);
    testing::RandomPermutation r;
    r.extents = e.extents, r.perm = e.perm, r.elem_bytes = e.elem_bytes;
    CallPlan plan;
    ASSERT_TRUE(planned(r, *e.device, &plan));
    ASSERT_NE(nullptr, plan.choice.nd_rule) << plan_text(plan).text;
    EXPECT_STREQ(e.rule, plan.choice.nd_rule->id) << plan_text(plan).text;
    EXPECT_NE(std::string::npos, plan_text(plan).text.find(std::string("rule ") + e.rule + " (" +
                                                           tuning_for(*e.device).name + " tuning): "));
  }
  // The transpose table keeps batched transposes whose sides reach short_transpose_side bytes.
  for (const int64_t side : {int64_t(40), int64_t(11)}) {
    testing::RandomPermutation r;
    r.extents = {217, 1045, 16, side}, r.perm = {0, 3, 1, 2}, r.elem_bytes = 2;
    CallPlan plan;
    ASSERT_TRUE(planned(r, testing::h100, &plan));
    EXPECT_EQ(side * 2 < tuning_for(testing::h100).short_transpose_side, plan.choice.nd_rule != nullptr)
        << plan_text(plan).text;
  }
  // 2-byte elements on the H200: dst rows under short_transpose_dst_side_2 bytes go where the problem holds
  // short_transpose_dst_min_2 bytes, src rows as long stay.
  const Tuning& h200 = tuning_for(testing::h200);
  ASSERT_LT(h200.short_transpose_side, h200.short_transpose_dst_side_2);
  ASSERT_LT(h200.short_transpose_min, h200.short_transpose_dst_min_2);
  const int64_t between = (h200.short_transpose_side + h200.short_transpose_dst_side_2) / 4;  // elements
  for (const int64_t batch : {int64_t(60), int64_t(200)})
    for (const bool dst_short : {false, true}) {
      testing::RandomPermutation r;  // a batch of matrices of `between` x 3001, or of 3001 x `between`
      r.extents = {batch, dst_short ? between : 3001, dst_short ? 3001 : between}, r.perm = {0, 2, 1};
      r.elem_bytes = 2;
      const int64_t bytes = batch * between * 3001 * 2;
      ASSERT_GE(bytes, h200.short_transpose_min);
      CallPlan plan;
      ASSERT_TRUE(planned(r, testing::h200, &plan));
      SCOPED_TRACE(plan_text(plan).text);
      const bool taken = plan.choice.nd_rule && std::strcmp(plan.choice.nd_rule->id, "short_transposes") == 0;
      EXPECT_EQ(dst_short && bytes >= h200.short_transpose_dst_min_2, taken);
    }
  const uint64_t seed = testing::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 rng(seed);
  int trial = 0;  // contiguous_rows is rare: seed 17877830111484969709 first reaches it past 20000 draws
  for (; trial < 200000 && seen.size() < nd_rules().size(); ++trial) {
    // Every fourth draw a batched transpose of up to 64 MiB with padded rows (rule
    // filled_transposes wants 16 MiB or more).
    const testing::RandomPermutation r =
        trial % 4 == 3 ? random_batched_transpose(rng) : testing::draw_permutation(rng, 1 << 16, rng() % 2);
    CallPlan plan;
    if (planned(r, trial % 2 ? testing::h200 : testing::h100, &plan) && plan.choice.nd_rule)
      seen.insert(plan.choice.nd_rule->id);
  }
  for (const NdRule& r : nd_rules()) EXPECT_EQ(1u, seen.count(r.id)) << r.id << " was never chosen in " << trial << " draws";
}

}  // namespace
}  // namespace xpose::detail
