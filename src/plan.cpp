#include "plan.hpp"

#include <algorithm>
#include <utility>

#include "layout/tma_tile.hpp"

namespace xpose::detail {
namespace {

std::string dims(const layout::Dims& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

}  // namespace

Error plan_named(const Kernel& k, const Problem& p, const Device& d, Plan* out) {
  if (std::string why = k.unsupported(p, d); !why.empty()) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  *out = Plan{&k, k.shape(p, d), std::string("named by the caller")};
  return ok();
}

// The automatic choice: the first rule that applies, each measured on the H100
// (docs/performance.md; the README has the same table).
//   1 a short side of at most 8 elements stored dense          skinny (2xN: 9% -> 99% of copy)
//   1b a batch of dense matrices of at most 4 KiB each, but    tiny_batched (whole matrices per
//      not bytes in whole 64x64 tiles (vec_swizzled: 98%       block: fp32 16x16 x 262144 99.6%
//      against 55%)                                            against 44%, u8 13x11 47% against 6%)
//   2 bytes with a side of at most 128, 16-byte aligned rows   vec_swizzled (batched 4096x128:
//                                                             115% against TMA's 110%)
//   3 2-, 4- and 8-byte elements with a dst pitch of 16 mod   aligned_stores (fp32 88% against
//     32 bytes, more than 16 MiB a side                        74%, fp16 93/68%, fp64 92/81%;
//                                                             at 4-6 MiB the later rules win)
//   3b 1-, 2-, 4- and 8-byte elements TMA can address         cute_tma, where built (its whole-
//      (Hopper), more than 1 GiB a side (bytes: 256 MiB),     row boxes: fp16 32768^2 96% against
//      both sides' rows whole 128-byte segments               94%, fp32 96.5/96.0%, bf16 4096 x
//                                                             128x4096 100/99%, u8 32768^2 95/91%;
//                                                             at 0.5-1 GiB fp16/fp32 0.4-0.5
//                                                             points behind, u8 at 256 MiB even)
//   4 1- and 2-byte elements TMA can address (Hopper), by the bytes of one side (src or dst):
//     a at most 2 MiB and 16-byte aligned rows                 vec_swizzled (latency first: u8
//                                                             1024^2 1.84 us, the TMA tiles 2.4-3.5)
//     b at most 64 MiB                                         tma_pipeline (persistent grid: u8
//                                                             4096^2 7.3 us against 13.9)
//     c more, 2-byte, at least 8192 rows and 4096 columns      aligned_stores (its 256-byte dst
//                                                             pieces: fp16 32768^2 93.8% against
//                                                             92.2%; ahead on all 7 such shapes
//                                                             measured, none of 9 others qualify)
//     d more                                                   tma_swizzle128 (fp16 32768^2:
//                                                             92% against vec_swizzled's 61-89%)
//   5 fp32 with fewer than 4 of vec_swizzled's tiles per SM    cute_vectorized_swizzled, where
//                                                             built (1024^2: 90% against 77%)
//   6 16-byte aligned rows and bases                           vec_swizzled
//   7 2-, 4- and 8-byte elements, rows not 16-byte aligned     aligned_stores (8191x12289:
//                                                             68/89/91% against 51/58/72%)
//   8 anything else                                            smem_swizzled
Error plan_auto(const Problem& p, const Device& d, Plan* out) {
  const auto serves = [&](const Kernel* k) { return k && k->unsupported(p, d).empty(); };
  const auto choose = [&](const Kernel* k, std::string reason) {
    *out = Plan{k, k->shape(p, d), std::move(reason)};
    return ok();
  };
  const Kernel* skinny = find_kernel("skinny");
  const Kernel* tiny = find_kernel("tiny_batched");
  const Kernel* vec = find_kernel("vec_swizzled");
  const Kernel* tma = find_kernel("tma_swizzle128");
  const Kernel* pipeline = find_kernel("tma_pipeline");
  constexpr int64_t pitch_side = int64_t(16) << 20;                                   // rule 3's bound
  constexpr int64_t small_side = int64_t(2) << 20, mid_side = int64_t(64) << 20;  // rule 4's bounds
  const Kernel* aligned = find_kernel("aligned_stores");
  const Kernel* small = find_kernel("cute_vectorized_swizzled");  // nullptr without the CuTe family
  const Kernel* cute_tma = find_kernel("cute_tma");                // likewise
  const int64_t big_side = p.elem_bytes == 1 ? int64_t(256) << 20 : int64_t(1) << 30;  // rule 3b's bound
  const std::string why_not_vec = vec->unsupported(p, d);

  if (serves(skinny))
    return choose(skinny, "a short side of at most 8 elements stored dense: lines of 16-byte vectors and a dense run, no tile");
  if (p.batch > 1 && serves(tiny) &&
      (p.elem_bytes > 1 || std::min(p.rows, p.cols) < vec->shape(p, d).tile_rows))  // bytes: not whole tiles
    return choose(tiny, "a batch of dense matrices of at most 4 KiB each: whole matrices per block");
  const int64_t side = p.rows * p.cols * p.batch * p.elem_bytes;  // bytes of src or dst
  if (p.elem_bytes == 1 && std::min(p.rows, p.cols) <= 128 && why_not_vec.empty())
    return choose(vec, "bytes with a side of at most 128: 16-byte vectors on both sides");
  if (p.elem_bytes >= 2 && p.elem_bytes <= 8 && (p.ld_dst * p.elem_bytes) % 32 == 16 && side > pitch_side &&
      serves(aligned))
    return choose(aligned, "dst pitch of 16 mod 32 bytes, more than 16 MiB a side: dst row pieces shifted to start on "
                           "32-byte sectors");
  if (side > big_side && layout::cute_tma_whole_rows(p.elem_bytes, p.rows, p.cols) && serves(cute_tma))
    return choose(cute_tma, std::string(p.elem_bytes == 1 ? "bytes on Hopper, more than 256 MiB a side"
                                                           : "2-, 4- or 8-byte elements on Hopper, more than 1 GiB a side") +
                                ", rows of whole 128-byte segments: TMA boxes of whole 256-byte tile rows");
  if (p.elem_bytes <= 2 && serves(tma)) {
    if (side <= small_side && why_not_vec.empty())
      return choose(vec, "1- and 2-byte elements, at most 2 MiB a side: 16-byte vectors, one short launch");
    if (side <= mid_side && serves(pipeline))
      return choose(pipeline, "1- and 2-byte elements on Hopper, at most 64 MiB a side: persistent TMA pipeline");
    if (p.elem_bytes == 2 && p.rows >= 8192 && p.cols >= 4096 && serves(aligned))
      return choose(aligned, "2-byte elements, more than 64 MiB a side, at least 8192 rows and 4096 columns: "
                             "16-byte loads, 256-byte dst pieces on 32-byte sectors");
    return choose(tma, "1- and 2-byte elements on Hopper, more than 64 MiB a side: TMA tiles with the 128-byte swizzle");
  }
  if (p.elem_bytes == 4 && why_not_vec.empty() && serves(small)) {
    const Launch big = vec->shape(p, d);
    const int64_t tiles = int64_t(big.grid.x) * big.grid.y * big.grid.z;
    if (tiles < 4 * int64_t(d.sm_count))
      return choose(small, "fp32 with fewer than 4 of vec_swizzled's 64x64 tiles per SM (" + std::to_string(tiles) +
                               "): 16-byte vectors through 32x32 tiles, 4x the blocks");
  }
  if (why_not_vec.empty()) return choose(vec, "16-byte aligned rows and bases: 16-byte vectors on both sides");
  if (p.elem_bytes >= 2 && p.elem_bytes <= 8 && serves(aligned))
    return choose(aligned, "rows not 16-byte aligned: 16-byte stores shifted onto 32-byte sectors; " +
                               why_not_vec);
  const Kernel* swz = find_kernel("smem_swizzled");
  if (std::string why = swz->unsupported(p, d); !why.empty()) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  return choose(swz, "element-wise swizzled tile; " + why_not_vec);
}

std::string describe(const Plan& plan) {
  return std::string("kernel ") + plan.kernel->name + ", grid " + dims(plan.launch.grid) + ", block " +
         dims(plan.launch.block) + ", tile " + std::to_string(plan.launch.tile_rows) + "x" +
         std::to_string(plan.launch.tile_cols) + ": " + plan.reason;
}

}  // namespace xpose::detail
