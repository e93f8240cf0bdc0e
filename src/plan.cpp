#include "plan.hpp"

#include <algorithm>

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

// Measured order on the H100 (docs/performance.md): a short side of at most 8 elements
// stored dense (2 x N, N x 3, ...) goes to the skinny kernel, whatever the element size;
// bytes with a side of at most 128 (batched 4096x128 heads: 115% against 110% of copy)
// and fp32 too small to give every SM 4 of vec_swizzled's 64x64 tiles (1024^2: 91% against
// 77%) take 16-byte vectors (vec_swizzled; cute_vectorized_swizzled's 32x32 tiles where
// the CuTe family is built); fp32 whose dst pitch is 16 mod 32 bytes (every other dst row
// starting mid-sector) takes aligned_stores (30011x29989 in pitches 29992/30012: 87% against
// 74%), as do 2-, 4- and 8-byte elements whose rows are not 16-byte aligned (8191x12289:
// 68/89/91% against 51/58/72%); then for 1- and 2-byte elements the copy
// engine's tile with the 128-byte swizzle where TMA can address the problem (fp16
// 32768^2: 92% of copy against 61% for vec_swizzled; uint8 90% against 87%); otherwise
// 16-byte vectors on both sides; bytes and 16-byte elements whose rows or bases are not
// 16-byte aligned, the element-wise swizzled tile.
Error plan_auto(const Problem& p, const Device& d, Plan* out) {
  const Kernel* skinny = find_kernel("skinny");
  if (skinny->unsupported(p, d).empty()) {
    *out = Plan{skinny, skinny->shape(p, d),
                "a short side of at most 8 elements stored dense: lines of 16-byte vectors and a dense run, no tile"};
    return ok();
  }
  const Kernel* vec = find_kernel("vec_swizzled");
  std::string why_not_vec = vec->unsupported(p, d);
  const bool short_bytes = p.elem_bytes == 1 && std::min(p.rows, p.cols) <= 128;
  if (p.elem_bytes <= 2 && !(short_bytes && why_not_vec.empty())) {
    const Kernel* tma = find_kernel("tma_swizzle128");
    if (tma->unsupported(p, d).empty()) {
      *out = Plan{tma, tma->shape(p, d), "1- and 2-byte elements on Hopper: TMA tiles with the 128-byte swizzle"};
      return ok();
    }
  }
  const Kernel* aligned = find_kernel("aligned_stores");
  if (p.elem_bytes == 4 && (p.ld_dst * 4) % 32 == 16 && aligned->unsupported(p, d).empty()) {
    *out = Plan{aligned, aligned->shape(p, d),
                "dst pitch of 16 mod 32 bytes: dst row pieces shifted to start on 32-byte sectors"};
    return ok();
  }
  if (const Kernel* small = find_kernel("cute_vectorized_swizzled");
      small && p.elem_bytes == 4 && why_not_vec.empty() && small->unsupported(p, d).empty()) {
    const Launch big = vec->shape(p, d);
    const int64_t tiles = int64_t(big.grid.x) * big.grid.y * big.grid.z;
    if (tiles < 4 * int64_t(d.sm_count)) {
      *out = Plan{small, small->shape(p, d),
                  "fp32 with fewer than 4 of vec_swizzled's 64x64 tiles per SM (" + std::to_string(tiles) +
                      "): 16-byte vectors through 32x32 tiles, 4x the blocks"};
      return ok();
    }
  }
  if (why_not_vec.empty()) {
    *out = Plan{vec, vec->shape(p, d), "16-byte aligned rows and bases: 16-byte vectors on both sides"};
    return ok();
  }
  if (p.elem_bytes >= 2 && p.elem_bytes <= 8 && aligned->unsupported(p, d).empty()) {
    *out = Plan{aligned, aligned->shape(p, d),
                "rows not 16-byte aligned: element loads, 16-byte stores shifted onto 32-byte sectors; " + why_not_vec};
    return ok();
  }
  const Kernel* swz = find_kernel("smem_swizzled");
  if (std::string why = swz->unsupported(p, d); !why.empty()) return fail(XPOSE_ERROR_NOT_SUPPORTED, why);
  *out = Plan{swz, swz->shape(p, d), "element-wise swizzled tile; " + why_not_vec};
  return ok();
}

std::string describe(const Plan& plan) {
  return std::string("kernel ") + plan.kernel->name + ", grid " + dims(plan.launch.grid) + ", block " +
         dims(plan.launch.block) + ", tile " + std::to_string(plan.launch.tile_rows) + "x" +
         std::to_string(plan.launch.tile_cols) + ": " + plan.reason;
}

}  // namespace xpose::detail
