#include "plan.hpp"

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
// then for 1- and 2-byte elements the copy
// engine's tile with the 128-byte swizzle where TMA can address the problem (fp16
// 32768^2: 92% of copy against 61% for vec_swizzled; uint8 90% against 87%); otherwise
// 16-byte vectors on both sides; where rows or bases are not 16-byte aligned, the
// element-wise swizzled tile.
Error plan_auto(const Problem& p, const Device& d, Plan* out) {
  const Kernel* skinny = find_kernel("skinny");
  if (skinny->unsupported(p, d).empty()) {
    *out = Plan{skinny, skinny->shape(p, d),
                "a short side of at most 8 elements stored dense: lines of 16-byte vectors and a dense run, no tile"};
    return ok();
  }
  if (p.elem_bytes <= 2) {
    const Kernel* tma = find_kernel("tma_swizzle128");
    if (tma->unsupported(p, d).empty()) {
      *out = Plan{tma, tma->shape(p, d), "1- and 2-byte elements on Hopper: TMA tiles with the 128-byte swizzle"};
      return ok();
    }
  }
  const Kernel* vec = find_kernel("vec_swizzled");
  std::string why_not_vec = vec->unsupported(p, d);
  if (why_not_vec.empty()) {
    *out = Plan{vec, vec->shape(p, d), "16-byte aligned rows and bases: 16-byte vectors on both sides"};
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
