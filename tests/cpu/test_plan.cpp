// What the automatic choice picks, and the named kernels' refusals, on pretend devices; the rule
// table and the tuning records as data.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "api/validate.hpp"
#include "dispatch/nd_rules.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/rules.hpp"
#include "support/devices.hpp"

namespace xpose::detail {
namespace {

using testing::a100;
using testing::h100;
using testing::h200;
using testing::turing;

Problem problem(int64_t rows, int64_t cols, int64_t e, uintptr_t src = 1 << 20, uintptr_t dst = uintptr_t(1) << 44) {
  Problem p;
  const Result err = resolve_transpose(Args{reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), rows, cols, e, 0, 0, 1, 0, 0}, &p);
  EXPECT_FALSE(err.failed()) << err.message;
  return p;
}

std::string chosen(const Problem& p, const Device& d = h100) {
  Choice c;
  const Result e = choose(p, d, &c);
  return e.failed() ? "error: " + e.message : c.plan.engine->name;
}

// The rule that decides `p` on a pretend H100.
std::string rule_of(const Problem& p) {
  Choice c;
  const Result e = choose(p, h100, &c);
  return e.failed() ? "error: " + e.message : c.rule->id;
}

// The kernel rule large_tma picks (past 1 GiB a side, bytes past 256 MiB), or, in a build without
// the CuTe family, the kernel that takes its place.
#ifdef XPOSE_HAVE_CUTE
std::string rule_3b_or(const char*) { return "cute_tma"; }
const std::string short_bytes = "cute_vectorized_swizzled";  // rule short_bytes
const std::string tile_batch = "cute_vectorized_swizzled";   // rule tile_batch
const std::string small_unaligned = "cute_padded";           // rule unaligned_small
#else
std::string rule_3b_or(const char* without_cute) { return without_cute; }
const std::string short_bytes = "vec_swizzled";  // rule short_bytes_vec
const std::string tile_batch = "tiny_batched";   // rule tiny_batch takes rule tile_batch's batches
const std::string small_unaligned = "smem_swizzled";  // rule fallback takes rule unaligned_small's
#endif

TEST(PlanAuto, PicksVectorsWhereRowsAre16ByteAligned) {
  EXPECT_EQ("vec_swizzled", chosen(problem(16384, 16384, 4)));  // 1 GiB: not past rule large_tma's bound
  EXPECT_EQ("vec_swizzled", chosen(problem(8192, 16384, 8)));
  EXPECT_EQ(rule_3b_or("vec_swizzled"), chosen(problem(32768, 32768, 4)));
  EXPECT_EQ("vec_swizzled", chosen(problem(4096, 4096, 16)));
  EXPECT_EQ("vec_swizzled", chosen(problem(32768, 32768, 1), a100));  // no TMA kernels there
  EXPECT_EQ("vec_swizzled", chosen(problem(96, 48, 2), a100));        // 96- and 192-byte rows
}

Problem with_ld(int64_t rows, int64_t cols, int64_t e, int64_t ld_src, int64_t ld_dst, int64_t batch = 1) {
  Problem p;
  const Result err = resolve_transpose(Args{reinterpret_cast<const void*>(1 << 20), reinterpret_cast<void*>(uintptr_t(1) << 44),
                                 rows, cols, e, ld_src, ld_dst, batch, 0, 0},
                            &p);
  EXPECT_FALSE(err.failed()) << err.message;
  return p;
}

TEST(PlanAuto, PicksSkinnyForAShortDenseSide) {
  EXPECT_EQ("skinny", chosen(problem(2, 268435456, 4)));   // interleave
  EXPECT_EQ("skinny", chosen(problem(268435456, 2, 4)));   // de-interleave
  EXPECT_EQ("skinny", chosen(problem(3, 100000000, 4)));
  EXPECT_EQ("skinny", chosen(problem(8, 1000, 1)));
  EXPECT_EQ("skinny", chosen(problem(1001, 8, 16)));
  EXPECT_EQ("skinny", chosen(problem(2, 777, 2)));         // unaligned rows: its shifted kernel
  EXPECT_EQ("skinny", chosen(problem(2, 3, 4)));            // both short: the shorter side's lines
  EXPECT_EQ("skinny", chosen(with_ld(2, 4096, 4, 0, 2, 7)));  // batches of them
  // Where the boundary lies: 9 rows is a tile's job, and so is a short side that is not dense.
  EXPECT_NE("skinny", chosen(problem(9, 4096, 4)));
  EXPECT_NE("skinny", chosen(problem(4096, 9, 4)));
  EXPECT_NE("skinny", chosen(with_ld(2, 4096, 4, 0, 4)));  // dst rows of 2 in a pitch of 4
  EXPECT_NE("skinny", chosen(with_ld(4096, 2, 4, 4, 0)));  // src rows of 2 in a pitch of 4
  Choice c;
  ASSERT_FALSE(choose(problem(3, 100000000, 4), h100, &c).failed());
  EXPECT_EQ(3, c.plan.params<Tiles>().walk.tile_rows);
  EXPECT_EQ(1024, c.plan.params<Tiles>().walk.tile_cols);  // 256 threads x one 16-byte vector of fp32 each
  EXPECT_EQ(3, c.plan.variant);            // interleave 3 lines
  ASSERT_FALSE(choose(problem(100000, 2, 1), h100, &c).failed());
  EXPECT_EQ(4096, c.plan.params<Tiles>().walk.tile_rows);
  EXPECT_EQ(2, c.plan.params<Tiles>().walk.tile_cols);
  EXPECT_EQ(-2, c.plan.variant);  // de-interleave into 2 lines
  EXPECT_STREQ("de-interleave", c.plan.variant_name);
}

// Lines or dense runs not 16-byte aligned in any matrix of the problem (bases, the lines' pitch,
// batch strides) take skinny's shifted kernel; aligned ones its vector kernel.
TEST(PlanAuto, SkinnyShiftsWhereSomeLineOrDenseRunIsNotAligned) {
  const auto variant = [](const Problem& p) {
    Choice c;
    EXPECT_FALSE(choose(p, h100, &c).failed());
    EXPECT_STREQ("skinny", c.plan.engine ? c.plan.engine->name : "");
    return std::pair<int, std::string>(c.plan.variant, c.plan.variant_name);
  };
  using V = std::pair<int, std::string>;
  EXPECT_EQ(V(3, "interleave"), variant(problem(3, 4096, 4)));
  EXPECT_EQ(V(3 + 16, "interleave, shifted"), variant(problem(3, 4097, 4)));             // rows of 16388 bytes
  EXPECT_EQ(V(-(2 + 16), "de-interleave, shifted"), variant(problem(4097, 2, 2)));      // dense run fine, lines not
  EXPECT_EQ(V(-2, "de-interleave"), variant(problem(4096, 2, 2)));
  EXPECT_EQ(V(2 + 16, "interleave, shifted"), variant(problem(2, 4096, 4, (1 << 20) + 4)));  // src base
  EXPECT_EQ(V(2 + 16, "interleave, shifted"), variant(problem(2, 4096, 4, 1 << 20, (uintptr_t(1) << 44) + 8)));
  EXPECT_EQ(V(2, "interleave"), variant(with_ld(2, 4096, 4, 0, 0, 7)));                 // 32 KiB matrices
  EXPECT_EQ(V(2, "interleave"), variant(with_ld(2, 4097, 4, 4100, 0)));                // aligned lines, one matrix
  EXPECT_EQ(V(2 + 16, "interleave, shifted"), variant(with_ld(2, 4097, 4, 4100, 0, 7)));  // dst matrices 32776 bytes apart
}

TEST(PlanAuto, PicksWholeMatricesPerBlockForBatchesOfTinyOnes) {
  EXPECT_EQ("tiny_batched", chosen(with_ld(32, 32, 4, 0, 0, 100000)));  // 4 KiB each
  EXPECT_EQ("tiny_batched", chosen(with_ld(13, 11, 16, 0, 0, 100000)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(24, 170, 1, 0, 0, 10000)));  // 4080 bytes
  EXPECT_EQ(short_bytes, chosen(with_ld(64, 64, 1, 0, 0, 65536)));  // bytes in whole 64x64 tiles: rule short_bytes
  EXPECT_EQ("tiny_batched", chosen(with_ld(63, 64, 1, 0, 0, 65536)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(32, 64, 2, 0, 0, 65536)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(16, 32, 8, 0, 0, 65536)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(16, 16, 4, 0, 0, 2)));  // any batch
  EXPECT_EQ("tiny_batched", chosen(with_ld(32, 33, 4, 0, 0, 100000)));  // 4224 bytes, tiles half empty
  EXPECT_NE("tiny_batched", chosen(with_ld(32, 63, 4, 0, 0, 100000)));  // 8064 bytes, tiles 98% full
  EXPECT_EQ("tiny_batched", chosen(with_ld(33, 100, 2, 0, 0, 2000)));   // 6600 bytes, tiles 40% full
  EXPECT_NE("tiny_batched", chosen(with_ld(64, 63, 2, 0, 0, 2000)));    // 8064 bytes, 98% full
  EXPECT_NE("tiny_batched", chosen(with_ld(45, 46, 4, 0, 0, 2000)));    // 8280 bytes: past what it takes
  EXPECT_NE("tiny_batched", chosen(with_ld(31, 31, 8, 0, 0, 2000)));    // 8-byte: 4 KiB at most
  EXPECT_NE("tiny_batched", chosen(with_ld(50, 100, 1, 0, 0, 2000)));   // 1-byte: 4 KiB at most
  EXPECT_NE("tiny_batched", chosen(with_ld(16, 16, 4, 20, 0, 100)));  // src rows padded
  EXPECT_NE("tiny_batched", chosen(problem(32, 32, 4)));  // one matrix
  EXPECT_EQ("tiny_batched", chosen(with_ld(4, 100, 4, 0, 0, 1000)));  // tiny matrices before a short side
  EXPECT_EQ("tiny_batched", chosen(with_ld(4, 3, 4, 0, 0, 7554344)));
  EXPECT_EQ("skinny", chosen(with_ld(4, 3000, 4, 0, 0, 100)));  // a short side of larger matrices
  Choice c;
  ASSERT_FALSE(choose(with_ld(32, 32, 4, 0, 0, 100000), h100, &c).failed());
  EXPECT_NE(std::string::npos, describe(c.plan).find("kernel tiny_batched, grid 25000x1x1, block 256x1x1"))
      << describe(c.plan);
  EXPECT_EQ(4, c.plan.params<Tiles>().chunk_elems / 1024);  // 16 KiB of fp32 per block
}

TEST(PlanAuto, PicksCuTeTilesForBatchesOfWholeTilesUpToTheRecordsBound) {
  // Rule tile_batch: fp32 32x32, fp16 32x64, fp64 16x16 (whole tiles), at most 64 MiB a side on the H100.
  EXPECT_EQ(tile_batch, chosen(with_ld(32, 32, 4, 0, 0, 1000)));
  EXPECT_EQ(tile_batch, chosen(with_ld(32, 32, 4, 0, 0, 2)));
  EXPECT_EQ(tile_batch, chosen(with_ld(32, 64, 2, 0, 0, 10000)));
  EXPECT_EQ(tile_batch, chosen(with_ld(16, 16, 8, 0, 0, 32768)));  // exactly 64 MiB
  EXPECT_EQ("tiny_batched", chosen(with_ld(16, 16, 8, 0, 0, 32769)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(32, 64, 2, 0, 0, 100000)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(32, 64, 2, 0, 0, 100000), h200));  // the H200 likewise
  // Not whole tiles, not tiny, or bytes: other rules.
  EXPECT_EQ("tiny_batched", chosen(with_ld(16, 16, 4, 0, 0, 1000)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(16, 32, 4, 0, 0, 1000)));
  EXPECT_EQ("tiny_batched", chosen(with_ld(24, 40, 2, 0, 0, 1000)));
#ifdef XPOSE_HAVE_CUTE
  EXPECT_EQ(tile_batch, chosen(with_ld(64, 32, 4, 0, 0, 1000)));  // 8 KiB a matrix: 2- and 4-byte elements
  EXPECT_EQ(tile_batch, chosen(with_ld(64, 64, 2, 0, 0, 1000)));
#else
  EXPECT_EQ("tiny_batched", chosen(with_ld(64, 32, 4, 0, 0, 1000)));  // 32x64 tiles half empty: rule tiny_batch
  EXPECT_NE("tiny_batched", chosen(with_ld(32, 64, 4, 0, 0, 1000)));  // whole 32x64 tiles: not rule tiny_batch's
#endif
  EXPECT_NE(tile_batch, chosen(with_ld(32, 32, 8, 0, 0, 1000)));  // 8 KiB of 8-byte elements
  EXPECT_EQ(short_bytes, chosen(with_ld(64, 64, 1, 0, 0, 1000)));  // bytes: rule short_bytes
}

TEST(PlanAuto, PicksVectorsForShortByteMatricesAndSmallFp32) {
  EXPECT_EQ(short_bytes, chosen(with_ld(4096, 128, 1, 0, 0, 256)));  // attention heads of bytes
  EXPECT_EQ(short_bytes, chosen(problem(128, 8192, 1)));
  EXPECT_EQ(short_bytes, chosen(problem(1 << 20, 128, 1)));          // tall: 128 MiB
  EXPECT_EQ("tma_swizzle128", chosen(problem(128, 1 << 20, 1)));     // wide: 128-byte dst rows, 128 MiB
  EXPECT_EQ("tma_pipeline", chosen(problem(128, 1 << 20, 1), h200));  // the H200 keeps bytes on the pipeline
  EXPECT_EQ(short_bytes, chosen(problem(128, 1 << 19, 1)));          // wide, 64 MiB
  EXPECT_EQ(short_bytes, chosen(with_ld(64, 64, 1, 0, 0, 65536)));   // a batch of small ones: 256 MiB in all
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(4096, 144, 1, 0, 0, 256)));  // past 128: the TMA tile again
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(4096, 128, 2, 0, 0, 256)));  // halves keep the TMA tile
  const std::string small_fp32 = "smem_padded";
  EXPECT_EQ(small_fp32, chosen(problem(1024, 1024, 4)));  // 256 tiles of 64x64 for 132 SMs
  EXPECT_EQ(small_fp32, chosen(problem(1024, 2048, 4)));  // 512 < 8 x 132
  EXPECT_EQ(small_fp32, chosen(problem(1000, 3000, 4)));  // 752 tiles, cut ones included
  EXPECT_EQ(small_fp32, chosen(problem(2048, 2048, 4)));  // 1024 tiles, 7.76 an SM
  EXPECT_EQ("vec_swizzled", chosen(problem(2048, 2112, 4)));  // 1056 tiles: 8 an SM, enough
  EXPECT_EQ("vec_swizzled", chosen(problem(1536, 3000, 4)));  // 1128
  EXPECT_EQ("vec_swizzled", chosen(problem(4096, 4096, 4)));
  EXPECT_EQ("vec_swizzled", chosen(problem(1024, 1024, 8)));  // measured for fp32 only
#ifdef XPOSE_HAVE_CUTE
  EXPECT_EQ("short_bytes", rule_of(with_ld(4096, 128, 1, 0, 0, 256)));
#else
  EXPECT_EQ("short_bytes_vec", rule_of(with_ld(4096, 128, 1, 0, 0, 256)));
#endif
  EXPECT_EQ("small_fp32", rule_of(problem(1024, 1024, 4)));
}

TEST(PlanAuto, PicksTheTmaKernelsForBytesAndHalvesOnHopperBySize) {
  EXPECT_EQ("tma_swizzle128", chosen(problem(16384, 16384, 1)));
  // halves past 64 MiB: the shifted 256-byte dst pieces from 8192 rows and 4096 columns on
  EXPECT_EQ(rule_3b_or("aligned_stores"), chosen(problem(32768, 32768, 2)));
  EXPECT_EQ("aligned_stores", chosen(problem(16384, 16384, 2)));  // 512 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(8192, 4104, 2)));
  EXPECT_EQ("tma_swizzle128", chosen(problem(8176, 32768, 2)));
  EXPECT_EQ("tma_swizzle128", chosen(problem(32768, 4088, 2)));
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(256, 4096, 2, 0, 0, 256)));  // a batch of short matrices
  EXPECT_EQ("tma_swizzle128", chosen(problem(16384, 16384, 1)));          // bytes: not past 256 MiB
  // one side's bytes: at most 2 MiB -> vectors, at most 64 MiB -> the persistent pipeline
  EXPECT_EQ("vec_swizzled", chosen(problem(96, 48, 2)));
  EXPECT_EQ("vec_swizzled", chosen(problem(1024, 1024, 2)));       // 2 MiB
  EXPECT_EQ("tma_pipeline", chosen(problem(1024, 1032, 2)));       // 2 MiB + 16 KiB
  EXPECT_EQ("tma_pipeline", chosen(problem(1000, 3000, 2)));
  EXPECT_EQ("tma_pipeline", chosen(problem(8192, 8192, 1)));       // 64 MiB
  EXPECT_EQ("tma_swizzle128", chosen(problem(8192, 8208, 1)));     // 64 MiB + 128 KiB
  EXPECT_EQ("tma_pipeline", chosen(with_ld(1024, 1024, 1, 0, 0, 64)));  // the batch counts
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(1024, 1024, 1, 0, 0, 65)));
  Problem padded;  // dst rows of 100 bytes in a 112-byte pitch: a TMA store would spill into the gap
  ASSERT_FALSE(resolve_transpose(Args{reinterpret_cast<const void*>(1 << 20), reinterpret_cast<void*>(uintptr_t(1) << 44), 100,
                            48, 1, 0, 112, 1, 0, 0},
                       &padded)
                   .failed());
  EXPECT_EQ(short_bytes, chosen(padded));
  EXPECT_EQ(small_unaligned, chosen(problem(33, 31, 2)));  // rows not 16-byte aligned at all, small
  Choice c;
  ASSERT_FALSE(choose(problem(8192, 32768, 1), h100, &c).failed());
  EXPECT_NE(std::string::npos, describe(c.plan).find("kernel tma_swizzle128, grid 256x64x1, block 256x1x1, tile 128x128"))
      << describe(c.plan);
  EXPECT_EQ(128u, c.plan.params<Tiles>().maps.src.box[0]);  // the plan carries both tensor maps
  EXPECT_TRUE(c.plan.params<Tiles>().maps.dst.swizzle128);
  EXPECT_EQ("narrow_pipeline", rule_of(problem(4096, 4096, 2)));
  EXPECT_EQ("narrow_small", rule_of(problem(1024, 1024, 1)));
  ASSERT_FALSE(choose(problem(4096, 4096, 2), h100, &c).failed());
  EXPECT_EQ(size_t(6 * 128 * 128 + 1024), c.plan.smem_bytes);  // 4 stages in, 2 out, 128 rows of 128 bytes
}

TEST(PlanAuto, PicksCuteTmaPast1GiBWhereBothSidesRowsAreWhole128ByteSegments) {
  EXPECT_EQ(rule_3b_or("aligned_stores"), chosen(problem(32768, 32768, 2)));
  EXPECT_EQ(rule_3b_or("vec_swizzled"), chosen(problem(16384, 16384, 8)));   // 2 GiB
  EXPECT_EQ(rule_3b_or("vec_swizzled"), chosen(problem(16384, 16416, 4)));   // just past 1 GiB
  EXPECT_EQ("vec_swizzled", chosen(problem(16384, 16384, 4)));               // 1 GiB exactly
  EXPECT_EQ(rule_3b_or("tma_swizzle128"), chosen(with_ld(128, 4096, 2, 0, 0, 4096)));  // a batch counts whole
  EXPECT_EQ("vec_swizzled", chosen(problem(32768, 32784, 4)));   // dst rows 32784 floats: not whole segments
  EXPECT_EQ("aligned_stores", chosen(problem(32736, 32768, 2)));  // src rows 32736 halves: not whole either
  // bytes past 256 MiB, in 256x256 tiles
  EXPECT_EQ(rule_3b_or("tma_swizzle128"), chosen(problem(32768, 32768, 1)));
  EXPECT_EQ(rule_3b_or("tma_swizzle128"), chosen(problem(16384, 16512, 1)));  // just past 256 MiB
  EXPECT_EQ("tma_swizzle128", chosen(problem(16384, 16384, 1)));              // 256 MiB
  EXPECT_EQ("tma_swizzle128", chosen(problem(32768, 32752, 1)));              // not whole segments
  EXPECT_EQ("vec_swizzled", chosen(problem(16384, 16384, 16)));   // 16 bytes: cute_tma does not serve them
  EXPECT_EQ("aligned_stores", chosen(with_ld(32768, 32768, 4, 0, 32772)));  // rule pitch_16_mod_32 first: a 16 mod 32 pitch
  EXPECT_EQ("vec_swizzled", chosen(problem(32768, 32768, 4), a100));  // no TMA there
#ifdef XPOSE_HAVE_CUTE
  Choice c;
  ASSERT_FALSE(choose(problem(32768, 32768, 4), h100, &c).failed());
  EXPECT_EQ("large_tma", std::string(c.rule->id));
  EXPECT_NE(std::string::npos,
            describe(c.plan).find("kernel cute_tma (whole 256-byte rows), grid 512x512x1, block 256x1x1, tile 64x64"))
      << describe(c.plan);
  // three tiles per SM: a third of the SM's shared memory (1 KiB-aligned) less the driver's share
  EXPECT_EQ(size_t(233472 / 3 / 1024 * 1024 - 1024), c.plan.smem_bytes);
  ASSERT_FALSE(choose(problem(32768, 32768, 1), h100, &c).failed());
  EXPECT_NE(std::string::npos, choice_text(c).find("rule large_tma (H100 tuning): kernel cute_tma (whole 256-byte rows), grid "
                                               "128x128x1, block 256x1x1, tile 256x256"))
      << choice_text(c);
  ASSERT_FALSE(choose(problem(32768, 32768 + 64, 1), h100, &c).failed());  // past the whole-row rule: not cute_tma
  EXPECT_STRNE("cute_tma", c.plan.engine->name);
  ASSERT_FALSE(
      choose_named(*find_engine("cute_tma", Input::transpose), problem(32768, 32768 + 64, 1), h100, &c).failed());
  EXPECT_EQ(0, c.plan.variant);  // named: 128-byte slabs
  EXPECT_EQ(nullptr, c.rule);
#endif
}

TEST(PlanAuto, ShiftsDstPiecesOntoSectorsForUnalignedRowsAndHalfSectorPitches) {
  EXPECT_EQ("aligned_stores", chosen(problem(30011, 29989, 4)));  // odd rows
  EXPECT_EQ("aligned_stores", chosen(problem(8191, 12289, 2)));
  EXPECT_EQ("aligned_stores", chosen(problem(8191, 12289, 8)));
  EXPECT_EQ("aligned_stores", chosen(problem(2048, 4096, 4, (1 << 20) + 4)));  // misaligned src, 32 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(64, 64, 4, (1 << 20) + 4)));          // ... 16 KiB
  EXPECT_EQ("aligned_stores", chosen(with_ld(30011, 29989, 4, 29992, 30012)));  // dst pitch 120048 = 16 mod 32
  EXPECT_EQ("vec_swizzled", chosen(with_ld(30011, 29989, 4, 29992, 30016)));    // 32-byte pitch: vectors
  EXPECT_EQ("aligned_stores", chosen(with_ld(8192, 12288, 2, 0, 8200)));  // halves: before the TMA rule
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(4096, 12288, 2, 0, 4112)));  // a 32-byte pitch: the TMA tile
  EXPECT_EQ("aligned_stores", chosen(with_ld(8192, 12288, 8, 0, 8194)));
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(8192, 12288, 1, 0, 8208)));  // bytes: measured slower there
  // at most 16 MiB a side (2-byte elements: 24 MiB, the H200 32 MiB) the later rules win even
  // with that pitch
  EXPECT_EQ("tma_pipeline", chosen(problem(1000, 3000, 2)));  // dst pitch 2000 bytes
  EXPECT_EQ("tma_pipeline", chosen(problem(3000, 3000, 2)));  // 17.2 MiB
  EXPECT_EQ("tma_pipeline", chosen(problem(3208, 3200, 2)));  // 19.6 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(3800, 3840, 2)));  // 27.8 MiB
  EXPECT_EQ("tma_pipeline", chosen(problem(3800, 3840, 2), h200));
  EXPECT_EQ("aligned_stores", chosen(problem(4104, 4096, 2)));  // 32.1 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(4104, 4096, 2), h200));
  EXPECT_EQ("tma_pipeline", chosen(problem(3080, 4080, 2)));  // just under 24 MiB, pitch 6160 bytes
  EXPECT_EQ("aligned_stores", chosen(problem(3080, 4088, 2)));  // just over
  EXPECT_NE("aligned_stores", chosen(problem(1028, 1024, 4)));  // fp32, 4 MiB: the small-fp32 rule
  EXPECT_NE("aligned_stores", chosen(problem(1028, 4080, 4)));  // fp32 just under 16 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(1028, 4096, 4)));  // just over 16 MiB
  Choice c;
  ASSERT_FALSE(choose(problem(30011, 29989, 4), h100, &c).failed());
  EXPECT_EQ("unaligned_large", std::string(c.rule->id));
  // one block row more than 30011 / 64 rounds to: the last pieces start up to 7 rows early
  EXPECT_NE(std::string::npos,
            describe(c.plan).find("kernel aligned_stores (shifted 16-byte loads), grid 469x470x1, block 256x1x1, tile 64x64"))
      << describe(c.plan);
  EXPECT_EQ(470, c.plan.params<Tiles>().walk.row_tiles);
  ASSERT_FALSE(choose(with_ld(30011, 29989, 4, 29992, 30012), h100, &c).failed());
  EXPECT_EQ(1, c.plan.variant);  // 16-byte src rows: 16-byte loads
}

TEST(PlanAuto, UnalignedBytesTakeShiftedLoadsWhenLargeAndPaddedTilesWhenSmall) {
  EXPECT_EQ("aligned_stores", chosen(problem(30011, 29989, 1)));  // bytes: shifted 16-byte loads, large
  EXPECT_EQ("aligned_stores", chosen(problem(4096, 4097, 1)));  // just past 16 MiB
#ifdef XPOSE_HAVE_CUTE
  EXPECT_EQ("cute_padded", chosen(problem(4095, 4097, 1)));  // just under: more blocks
  EXPECT_EQ("cute_padded", chosen(problem(64, 64, 1, (1 << 20) + 1)));  // bytes, misaligned base
#else
  EXPECT_EQ("smem_swizzled", chosen(problem(4095, 4097, 1)));
  EXPECT_EQ("smem_swizzled", chosen(problem(64, 64, 1, (1 << 20) + 1)));
#endif
}

// Rule unaligned_large: rows not 16-byte aligned go to aligned_stores past a bound a side (H100 16 MiB for
// 2- and 4-byte elements, the H200 24 MiB; 8-byte elements 24 MiB and a whole tile each way),
// each matrix at least 1 MiB; smaller problems and batches of small matrices to the padded tile.
TEST(PlanAuto, UnalignedRowsTakeShiftedLoadsWhenLargeAndPaddedTilesWhenSmall) {
  EXPECT_EQ(small_unaligned, chosen(problem(1001, 1001, 4)));                // 3.8 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(2047, 2049, 4)));                // just under 16 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(2049, 2049, 4)));               // just over
  EXPECT_EQ("unaligned_large", rule_of(problem(2049, 2049, 4)));
  EXPECT_EQ("smem_padded", chosen(problem(2049, 2049, 4), h200));  // the H200: 24 MiB (under it rule unaligned_mid)
  EXPECT_EQ("smem_padded", chosen(problem(2501, 2501, 4), h200));
  EXPECT_EQ("aligned_stores", chosen(problem(2507, 2511, 4), h200));         // just over 24 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(100, 1000001, 2)));             // long and thin: big tiles fill
  EXPECT_EQ(small_unaligned, chosen(with_ld(100, 100, 2, 0, 0, 1000)));      // 20 MB of 20 KB matrices
  EXPECT_EQ(small_unaligned, chosen(with_ld(511, 1023, 2, 0, 0, 20)));       // 20 MB of matrices just under 1 MiB
  EXPECT_EQ("aligned_stores", chosen(with_ld(513, 1023, 2, 0, 0, 20)));      // just over
  EXPECT_EQ(small_unaligned, chosen(problem(1501, 1501, 8)));                // 8-byte: 17.2 MiB
  EXPECT_EQ("aligned_stores", chosen(problem(2047, 2049, 8)));               // 32 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(20, 1000001, 8)));               // 8-byte: fewer than 32 rows
  EXPECT_EQ(small_unaligned, chosen(problem(1000001, 20, 8)));               // ... fewer than 64 columns
  EXPECT_EQ("aligned_stores", chosen(problem(32, 1000001, 8)));
  EXPECT_EQ(small_unaligned, chosen(with_ld(33, 33, 8, 0, 0, 4096)));        // 35 MB of 8.7 KB matrices
  EXPECT_EQ(small_unaligned, chosen(with_ld(100, 100, 1, 0, 0, 2000)));      // bytes too: 20 MB of 10 KB
  // Dst rows of at most stores_min_rows_bytes (128) leave aligned_stores' tile mostly empty.
  EXPECT_EQ(small_unaligned, chosen(problem(13, 1860656, 2)));                // 26-byte rows
  EXPECT_EQ(small_unaligned, chosen(with_ld(64, 16235, 2, 0, 0, 64)));        // 128-byte rows, a batch
  EXPECT_EQ(small_unaligned, chosen(with_ld(128, 40605, 1, 0, 0, 15)));       // bytes: 128-byte rows
  EXPECT_EQ("aligned_stores", chosen(problem(65, 300001, 2)));                // 130-byte rows
  EXPECT_EQ("aligned_stores", chosen(problem(129, 300001, 1)));
}

TEST(PlanAuto, RefusesGpusThisBuildHasNoCodeFor) {
  EXPECT_EQ("error: this build has GPU code for compute capability 8.0 and newer; the device is 7.5",
            chosen(problem(64, 64, 4), turing));
}

TEST(PlanNamed, SaysWhyAKernelCannotServe) {
  Choice c;
  const Result e = choose_named(*find_engine("vec_swizzled", Input::transpose), problem(31, 33, 4), h100, &c);
  EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, e.status);
  EXPECT_EQ("vec_swizzled needs ld_src and ld_dst to be multiples of 16 bytes", e.message);
  EXPECT_FALSE(choose_named(*find_engine("smem", Input::transpose), problem(31, 33, 4), h100, &c).failed());
  EXPECT_STREQ("smem", c.plan.engine->name);
  const auto refusal = [&](const char* kernel, const Problem& p) {
    const Result err = choose_named(*find_engine(kernel, Input::transpose), p, h100, &c);
    EXPECT_EQ(XPOSE_ERROR_NOT_SUPPORTED, err.status) << kernel;
    return err.message;
  };
  EXPECT_EQ("skinny needs a short side of at most 8 elements stored dense (rows <= 8 with ld_dst == rows, or cols <= 8 "
            "with ld_src == cols)",
            refusal("skinny", problem(9, 4096, 4)));
  EXPECT_EQ("aligned_stores moves elements of 1, 2, 4 or 8 bytes (16-byte elements are always whole vectors)",
            refusal("aligned_stores", problem(64, 64, 16)));
#ifdef XPOSE_HAVE_CUTE
  EXPECT_EQ("cute_tma moves elements of 1, 2, 4 or 8 bytes (TMA's widest element); tma and tma_pipeline serve 16",
            refusal("cute_tma", problem(64, 64, 16)));
  EXPECT_EQ("a CuTe 16-byte copy atom needs ld_src and ld_dst to be multiples of 16 bytes",
            refusal("cute_vectorized_swizzled", problem(31, 33, 4)));
#endif
  EXPECT_EQ("tiny_batched needs dense matrices (ld = extent, batch stride = matrix size) of at most 8192 bytes",
            refusal("tiny_batched", problem(64, 64, 4)));
  EXPECT_EQ("tiny_batched needs dense matrices (ld = extent, batch stride = matrix size) of at most 8192 bytes",
            refusal("tiny_batched", with_ld(16, 16, 4, 20, 0, 100)));
  for (const char* kernel : {"skinny", "aligned_stores"})  // both serve what their names say
    EXPECT_FALSE(choose_named(*find_engine(kernel, Input::transpose),
                              kernel == std::string("skinny") ? problem(3, 1000, 4) : problem(31, 33, 4), h100, &c)
                     .failed())
        << kernel;
}

TEST(Registry, ListsTheLadderInOrder) {
  std::vector<std::string> names;
  for (const Engine* e : engines(Input::transpose)) names.push_back(e->name);
  std::vector<std::string> want = {"naive_read", "naive_write", "smem", "smem_padded", "smem_swizzled",
                                   "vec_swizzled", "skinny", "short_lines", "tiny_batched", "aligned_stores", "tma", "tma_swizzle128", "tma_batched", "tma_pipeline"};
#ifdef XPOSE_HAVE_CUTE
  for (const char* name : {"cute_naive_read", "cute_naive_write", "cute_smem_conflict_read", "cute_smem_conflict_write",
                           "cute_padded", "cute_swizzled", "cute_vectorized", "cute_vectorized_swizzled", "cute_tma"})
    want.push_back(name);
#endif
  EXPECT_EQ(want, names);
  EXPECT_EQ(nullptr, find_engine("copy", Input::transpose));  // the benchmark's ceiling is the benchmark's own
  std::string list;
  for (const std::string& name : want) list += (list.empty() ? "" : ", ") + name;
  EXPECT_EQ(list, engine_names(Input::transpose));
}

// One list of engines of one contract: each input's engines in the list's order, every name
// once, and an engine asked for the other input refuses in one line and plans nothing.
TEST(Registry, OneListOneContract) {
  std::vector<const Engine*> both = engines(Input::transpose);
  for (const Engine* e : engines(Input::nd_form)) both.push_back(e);
  EXPECT_EQ(engines(), both);
  EXPECT_EQ(8u, engines(Input::nd_form).size());
  std::set<std::string> names;
  for (const Engine* e : engines()) {
    EXPECT_TRUE(names.insert(e->name).second) << e->name << " is listed twice";
    EXPECT_EQ(e, find_engine(e->name, e->input));
    EXPECT_EQ(nullptr, find_engine(e->name, e->input == Input::transpose ? Input::nd_form : Input::transpose));
    EXPECT_TRUE(e->supports && e->plan && e->launch && e->text) << e->name;
  }
  Problem p;
  p.rows = p.cols = 64, p.elem_bytes = 4, p.ld_src = p.ld_dst = 64, p.batch = 1, p.stride_src = p.stride_dst = 4096;
  layout::PermuteAxes axes;
  axes.rank = 2, axes.elem_bytes = 4;
  axes.axes[0] = {64, 64, 1};
  axes.axes[1] = {64, 1, 64};
  layout::NdForm form;
  const char* why_not = nullptr;
  ASSERT_TRUE(layout::nd_form(axes, &form, &why_not)) << why_not;
  for (const Engine* e : engines()) {
    Plan plan;
    plan.engine = e;
    const Task other = e->input == Input::transpose ? Task::of(form, nullptr, nullptr) : Task::of(p);
    const Support s = plan_engine(*e, other, h100, {}, &plan);
    EXPECT_FALSE(s.served()) << e->name;
    EXPECT_NE(std::string::npos, why(s, h100).find(e->input == Input::transpose ? "transposes" : "permutes")) << e->name;
    EXPECT_EQ(nullptr, plan.engine) << e->name;
  }
}

// Rule pitch_16_mod_32's bound for 8-byte elements (s161, s167, s168): src rows 16-byte aligned
// past 256 bytes, else (off 16 bytes) at least 32 rows and 64 columns; dst pitches 16 mod 32 bytes
// (ld_dst 2 mod 4 elements), past pitch_side.
TEST(PlanAuto, PitchRuleLeavesEightByteMatricesOfShortSrcRows) {
  EXPECT_EQ("pitch_16_mod_32", rule_of(with_ld(80002, 34, 8, 34, 80002)));  // aligned src rows of 272 bytes
  EXPECT_NE("pitch_16_mod_32", rule_of(with_ld(80002, 32, 8, 32, 80002)));  // of 256
  EXPECT_EQ("pitch_16_mod_32", rule_of(with_ld(40002, 65, 8, 65, 40002)));  // src rows off 16 bytes, 65 columns
  EXPECT_NE("pitch_16_mod_32", rule_of(with_ld(40002, 63, 8, 63, 40002)));  // 63
  EXPECT_NE("pitch_16_mod_32", rule_of(with_ld(1206, 23, 8, 23, 1206, 310)));  // s161's fp64 1206x23, 310 of them
  EXPECT_EQ("pitch_16_mod_32", rule_of(with_ld(32768, 32768, 4, 0, 32772)));   // 4-byte elements: no such bound
}

// One problem each rule decides on a pretend H100 (the tests below iterate the table, so a
// rule added without an example here fails them).
const std::map<std::string, Problem>& examples() {
  static const std::map<std::string, Problem> all = {
      {"short_side", problem(2, 4096, 4)},
      {"short_lines", problem(54, 1 << 20, 1)},  // decided on the H200 (decided_on): off on the H100
      {"tile_batch", with_ld(32, 32, 4, 0, 0, 100)},
      {"tiny_batch", with_ld(16, 16, 4, 0, 0, 100)},
      {"short_bytes", with_ld(4096, 128, 1, 0, 0, 256)},
      {"short_bytes_vec", with_ld(4096, 128, 1, 0, 0, 256)},  // where rule short_bytes's engine is not built
      {"pitch_16_mod_32", with_ld(32768, 32768, 4, 0, 32772)},
      {"large_tma", problem(32768, 32768, 4)},
      {"small_aligned", problem(1024, 1024, 8)},  // decided on the H200 (decided_on): off on the H100
      {"narrow_small", problem(1024, 1024, 1)},
      {"narrow_pipeline", problem(4096, 4096, 2)},
      {"narrow_large_halves", problem(16384, 16384, 2)},
      {"narrow_large", problem(16384, 16384, 1)},
      {"small_fp32", problem(1024, 1024, 4)},
      {"half_tiles", with_ld(19264, 32, 4, 0, 0, 61)},  // decided on the H200 (decided_on): off on the H100
      {"aligned", problem(4096, 4096, 8)},
      {"unaligned_large", problem(30011, 29989, 4)},
      {"unaligned_large_bytes", problem(30011, 29989, 1)},
      {"unaligned_mid", problem(1000, 3001, 2)},  // decided on the H200 (decided_on): off on the H100
      {"unaligned_small", problem(1000, 3001, 1)},
      {"fallback", problem(1000, 3001, 1)},  // where rule unaligned_small's engine is not built
  };
  return all;
}

// The device a rule's example is decided on: the H100 but for rules its record turns off.
const Device& decided_on(const std::string& id) {
  return id == "small_aligned" || id == "unaligned_mid" || id == "half_tiles" || id == "short_lines" ? h200 : h100;
}

TEST(RuleTable, EveryRuleDecidesItsExample) {
  std::set<std::string> ids;
  for (const Rule& r : rules()) {
    SCOPED_TRACE(std::string("rule ") + r.id);
    EXPECT_TRUE(ids.insert(r.id).second) << "two rules share an id";
    EXPECT_FALSE(std::string(r.condition).empty());
    EXPECT_FALSE(std::string(r.reason).empty());
    EXPECT_EQ(std::string::npos, std::string(r.reason).find('\n'));
    const Engine* listed = find_engine(r.engine_name, Input::transpose);
    EXPECT_EQ(listed, r.engine) << "a rule's engine is the registry's engine of that name";
    ASSERT_EQ(1u, examples().count(r.id)) << "no example problem for this rule";
    if (!r.engine) continue;  // a build without the CuTe family skips the rule
#ifdef XPOSE_HAVE_CUTE
    if (std::string(r.id) == "short_bytes_vec") continue;  // rule short_bytes's fallback: shadowed where rule short_bytes's engine is built
    if (std::string(r.id) == "fallback") continue;   // likewise rule unaligned_small's
#endif
    Choice c;
    const Device& d = decided_on(r.id);
    ASSERT_FALSE(choose(examples().at(r.id), d, &c).failed());
    EXPECT_EQ(r.id, std::string(c.rule->id));
    EXPECT_EQ(r.engine, c.plan.engine);
    EXPECT_NE(std::string::npos, choice_text(c).find(std::string("rule ") + r.id + " (" + tuning_for(d).name +
                                                     " tuning): kernel " + r.engine_name))
        << choice_text(c);
  }
  EXPECT_EQ(examples().size(), rules().size());
}

TEST(RuleTable, ThePlanIsTheEnginesOwnForTheProblem) {
  for (const auto& [id, p] : examples()) {
    Choice automatic, named;
    const Device& d = decided_on(id);
    if (choose(p, d, &automatic).failed()) continue;
    ASSERT_FALSE(choose_named(*automatic.plan.engine, p, d, &named).failed()) << id;
    EXPECT_EQ(describe(automatic.plan), describe(named.plan)) << id;
    EXPECT_EQ(automatic.plan.smem_bytes, named.plan.smem_bytes) << id;
  }
}

TEST(Tuning, RecordsAreChosenByTheDevicesProperties) {
  EXPECT_STREQ("H100", tuning_for(h100).name);
  EXPECT_STREQ("H200", tuning_for(h200).name);
  EXPECT_STREQ("other GPUs", tuning_for(a100).name);
  EXPECT_STREQ("other GPUs", tuning_for(testing::b200).name);
  EXPECT_STREQ("other GPUs", tuning_for(turing).name);
  Device renamed = h200;  // the same properties under any name select the same record
  renamed.id = 3;
  EXPECT_STREQ("H200", tuning_for(renamed).name);
  Device slow_hopper = h100;
  slow_hopper.memory_gbps = 2000;  // an H100 PCIe: still Hopper under 4 TB/s
  EXPECT_STREQ("H100", tuning_for(slow_hopper).name);
  EXPECT_STREQ("other GPUs", tunings().back().name);  // the defaults come last and match every device
  for (const Tuning& t : tunings())  // every value set; 0 only where it turns a rule off
    for (const TuningField& f : tuning_fields())
      EXPECT_TRUE(t.*f.value > 0 ||
                  (t.*f.value == 0 && std::string(f.meaning).find("(0: the rule is off)") != std::string::npos))
          << t.name << " " << f.name;
}

TEST(Tuning, EveryParameterIsNamedInARuleCondition) {
  for (const TuningField& f : tuning_fields()) {
    bool named = false;
    for (const Rule& r : rules()) named |= std::string(r.condition).find(std::string("`") + f.name + "`") != std::string::npos;
    for (const NdRule& r : nd_rules())
      named |= std::string(r.condition).find(std::string("`") + f.name + "`") != std::string::npos;
    EXPECT_TRUE(named) << f.name;
  }
}

TEST(Tuning, TheH200LeavesShortMatricesToTheLaterRules) {
  const Problem batch = with_ld(128, 4096, 2, 0, 0, 4096);  // bf16: 128 rows, one cute_tma tile row
  EXPECT_EQ(rule_3b_or("tma_swizzle128"), chosen(batch, h100));
  EXPECT_EQ("tma_swizzle128", chosen(batch, h200));
  EXPECT_EQ("tma_swizzle128", chosen(with_ld(256, 4096, 2, 0, 0, 2048), h200));
  EXPECT_EQ("vec_swizzled", chosen(with_ld(64, 4096, 4, 0, 0, 4096), h200));
  EXPECT_EQ(rule_3b_or("aligned_stores"), chosen(problem(32768, 32768, 2), h200));  // squares keep cute_tma
  EXPECT_EQ("vec_swizzled", chosen(problem(32768, 32768, 4), h200));  // 4- and 8-byte elements: never cute_tma
  EXPECT_EQ("vec_swizzled", chosen(problem(16384, 16384, 8), h200));
  EXPECT_EQ(rule_3b_or("vec_swizzled"), chosen(problem(32768, 32768, 4), h100));
  EXPECT_EQ(rule_3b_or("tma_pipeline"), chosen(with_ld(256, 4096, 1, 0, 0, 4096), h200));  // bytes: any rows
}

TEST(Tuning, TheH200TakesTilesOfLargeElementsColumnByColumn) {
  const auto by_column = [](const Problem& p, const Device& d, const char* kernel = nullptr) {
    Choice c;
    const Engine* named = kernel ? find_engine(kernel, Input::transpose) : nullptr;
    if (kernel && !named) {
      ADD_FAILURE() << kernel << " is not registered in this build";
      return false;
    }
    const Result e = named ? choose_named(*named, p, d, &c) : choose(p, d, &c);
    EXPECT_FALSE(e.failed()) << e.message;
    EXPECT_EQ(c.plan.params<Tiles>().by_column, describe(c.plan).find("tiles column by column") != std::string::npos);
    return c.plan.params<Tiles>().by_column;
  };
  for (int64_t e : {4, 8, 16}) {
    EXPECT_TRUE(by_column(problem(8192, 8192, e), h200)) << e;  // rule aligned: vec_swizzled
    EXPECT_FALSE(by_column(problem(8192, 8192, e), h100)) << e;
    EXPECT_TRUE(by_column(problem(8192, 8192, e), h200, "vec_swizzled")) << e;  // named: as the choice runs it
  }
  for (int64_t e : {1, 2}) EXPECT_FALSE(by_column(problem(8192, 8192, e), h200, "vec_swizzled")) << e;
  EXPECT_TRUE(by_column(problem(8191, 12289, 4), h200));  // rule unaligned_large: aligned_stores
  // More rows than columns: row by row where src rows are shorter than col_tiles_min_row_bytes
  // (rules.cpp, options_for), chosen or named.
  EXPECT_TRUE(by_column(problem(12289, 8191, 4), h200));
  EXPECT_FALSE(by_column(problem(65536, 1024, 4), h200));
  EXPECT_FALSE(by_column(problem(65536, 1023, 8), h200));  // rule unaligned_large
  EXPECT_FALSE(by_column(problem(65536, 256, 16), h200, "vec_swizzled"));
  EXPECT_TRUE(by_column(problem(65536, 512, 16), h200, "vec_swizzled"));  // rows of 8 KiB
#ifdef XPOSE_HAVE_CUTE
  EXPECT_FALSE(by_column(problem(8192, 8192, 4), h200, "cute_tma"));  // cute_tma keeps the grid's order
#endif
  EXPECT_FALSE(by_column(problem(8192, 8192, 4), h200, "smem_swizzled"));
}

// The H200's record from random draws with every kernel timed (tuning.cpp): small aligned
// problems of every element size but 4 bytes to CuTe's vector tiles, unaligned 1- and 2-byte
// ones to aligned_stores from smaller sizes than on the H100, whose choices stay.
TEST(Tuning, TheH200SendsSmallAlignedProblemsToCuteVectorTiles) {
#ifdef XPOSE_HAVE_CUTE
  const std::string cute = "cute_vectorized_swizzled";
  for (int64_t e : {8, 16}) {
    EXPECT_EQ(cute, chosen(problem(1024, 1024, e), h200)) << e;  // 8 and 16 MiB
    EXPECT_EQ("vec_swizzled", chosen(problem(1024, 1024, e), h100)) << e;
    EXPECT_EQ(cute, chosen(problem(2048, 2048 * 8 / e, e), h200)) << e;                  // 32 MiB
    EXPECT_EQ("vec_swizzled", chosen(problem(2048, 2048 * 8 / e + 2, e), h200)) << e;  // just past it
  }
  EXPECT_EQ("vec_swizzled", chosen(problem(1024, 8192, 4), h200));   // 4-byte elements keep their rules
  EXPECT_EQ(cute, chosen(problem(2048, 3072, 2), h200));             // 12 MiB: small_aligned_side_2
  EXPECT_EQ("tma_pipeline", chosen(problem(2048, 3080, 2), h200));   // past it, both sides long
  EXPECT_EQ(cute, chosen(problem(2048, 3072, 1), h200));             // 6 MiB: small_aligned_bytes_side
  EXPECT_EQ("tma_pipeline", chosen(problem(2048, 3088, 1), h200));   // past it
  EXPECT_EQ(cute, chosen(problem(107008, 64, 2), h200));             // 13 MiB, a side of 128 bytes
  EXPECT_EQ("tma_pipeline", chosen(problem(107008, 72, 2), h200));   // of 144
  EXPECT_EQ("vec_swizzled", chosen(problem(1024, 1024, 1), h100));   // rule narrow_small on the H100
  EXPECT_EQ("skinny", chosen(problem(9685, 8, 16), h200));           // the rules before it keep theirs
  EXPECT_EQ(small_unaligned, chosen(problem(1001, 1001, 8), h200));  // rows not aligned: not its kind
#endif
  // Unaligned bytes: aligned_stores past 6 MiB (the H100: 16), from matrices of 256 KiB and dst
  // rows of 128 bytes.
  EXPECT_EQ("aligned_stores", chosen(problem(24289, 512, 1), h200));  // 11.9 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(24289, 512, 1), h100));
  EXPECT_EQ(small_unaligned, chosen(problem(4097, 1001, 1), h200));                // 3.9 MiB
  EXPECT_EQ("aligned_stores", chosen(with_ld(128, 50203, 1, 0, 0, 27), h200));     // dst rows of 128 bytes
  EXPECT_EQ(small_unaligned, chosen(with_ld(128, 50203, 1, 0, 0, 27), h100));
  EXPECT_EQ(small_unaligned, chosen(with_ld(127, 50203, 1, 0, 0, 27), h200));      // of 127
  EXPECT_EQ("aligned_stores", chosen(with_ld(277, 2304, 1, 0, 0, 61), h200));      // matrices of 624 KiB
  EXPECT_EQ(small_unaligned, chosen(with_ld(151, 747, 1, 0, 0, 60), h200));        // of 110 KiB
  // 2-byte elements past 12 MiB (the H100: 16)
  EXPECT_EQ("aligned_stores", chosen(problem(512, 13339, 2), h200));  // 13 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(512, 13339, 2), h100));
  // The rest of the unaligned 2- and 4-byte problems from 4 MiB on: smem_padded's 32x32 tiles.
  EXPECT_EQ("smem_padded", chosen(problem(512, 11001, 2), h200));  // 10.7 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(512, 11001, 2), h100));
  EXPECT_EQ("smem_padded", chosen(problem(1024, 1025, 4), h200));   // 4 MiB + 4 KiB
  EXPECT_EQ(small_unaligned, chosen(problem(1023, 1025, 4), h200));  // just under 4 MiB
  EXPECT_EQ(small_unaligned, chosen(problem(4097, 1001, 1), h200));  // bytes and 8-byte elements keep theirs
  EXPECT_EQ(small_unaligned, chosen(problem(1001, 1001, 8), h200));
}

// The H200's rule half_tiles: aligned 4- and 8-byte problems with a side that half fills
// vec_swizzled's tiles go to CuTe's, half as wide; where the two fill alike vec_swizzled keeps
// them, and the H100 keeps its choice.
// Rule short_lines (H200): a short side stored dense, by direction, alignment and side.
TEST(Tuning, TheH200SendsShortDenseSidesToShortLines) {
  const std::string lines = "short_lines";
  EXPECT_EQ(lines, chosen(problem(20, 1 << 22, 1), h200));        // an interleave, a side not whole vectors
  EXPECT_EQ(lines, chosen(problem(16, 1 << 22, 1), h200));        // whole vectors from aligned lines
  EXPECT_EQ(lines, chosen(problem(1 << 22, 16, 1), h200));        // a de-interleave into aligned lines
  EXPECT_EQ(lines, chosen(problem(1 << 21, 32, 2), h200));        // fp16: 64 bytes a side
  EXPECT_NE(lines, chosen(problem(64, 1 << 20, 1), h200));        // u8 64 bytes: CuTe's byte tile fits
  EXPECT_NE(lines, chosen(problem(1 << 20, 64, 2), h200));        // 128 bytes a side: the tiles
  EXPECT_NE(lines, chosen(problem(1 << 20, 56, 1), h200));        // u8 de-interleaves of 56 and 64 bytes
  EXPECT_NE(lines, chosen(problem(1 << 20, 64, 1), h200));
  EXPECT_EQ(lines, chosen(problem(1 << 20, 96, 1), h200));        // ... and past them
  EXPECT_NE(lines, chosen(problem(1 << 21, 12, 2), h200));        // wider de-interleaves under 32 bytes
  EXPECT_NE(lines, chosen(problem((1 << 22) + 1, 16, 1), h200));  // into unaligned lines
  EXPECT_NE(lines, chosen(problem(16, 1 << 22, 8), h200));        // 8-byte elements
  EXPECT_NE(lines, chosen(problem(16, 1 << 22, 1), h100));        // off on the H100 (unmeasured)
  EXPECT_NE(lines, chosen(problem(1 << 22, 16, 1), h100));
}

TEST(Tuning, TheH200SendsHalfFilledTilesToCuteVectorTiles) {
#ifdef XPOSE_HAVE_CUTE
  const std::string cute = "cute_vectorized_swizzled";
  EXPECT_EQ(cute, chosen(with_ld(19264, 32, 4, 0, 0, 61), h200));    // fp32, a side of 32: fills 1 / 0.5
  EXPECT_EQ("vec_swizzled", chosen(with_ld(19264, 32, 4, 0, 0, 61), h100));
  EXPECT_EQ(cute, chosen(with_ld(16, 64512, 8, 0, 0, 42), h200));    // fp64, a side of 16
  EXPECT_EQ(cute, chosen(with_ld(55408, 16, 8, 0, 0, 62), h200));    // either side
  EXPECT_EQ("vec_swizzled", chosen(with_ld(48, 20704, 8, 0, 0, 42), h200));  // 48 of 64 against 48 of 48: 1.33x
  EXPECT_EQ("vec_swizzled", chosen(problem(8832, 16992, 4), h200));  // whole tiles both ways
  EXPECT_EQ("vec_swizzled", chosen(with_ld(16, 16384, 16, 0, 0, 64), h200));  // 16-byte elements: tiles alike
  EXPECT_EQ("skinny", chosen(problem(8, 1 << 22, 4), h200));       // the rules before it keep theirs
#else
  GTEST_SKIP() << "built without the CuTe family: rule half_tiles has no engine";
#endif
}

TEST(Tuning, TheRulesReadTheRecord) {
  // Rule narrow_small's bound moves with the record: what is vec_swizzled under the H100's 2 MiB is
  // the pipeline under a record with a smaller bound.
  Tuning small = tuning_for(h100);
  small.vec_side = 1 << 20;
  const Problem p = problem(1024, 1024, 2);  // 2 MiB
  int taken = 0;
  for (const Rule& r : rules()) {
    if (std::string(r.id) != "narrow_small") continue;
    EXPECT_TRUE(r.applies(p, h100, tuning_for(h100)));
    EXPECT_FALSE(r.applies(p, h100, small));
    ++taken;
  }
  EXPECT_EQ(1, taken);
}

}  // namespace
}  // namespace xpose::detail
