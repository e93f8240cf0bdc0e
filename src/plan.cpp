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

// Measured order on the H100 (docs/performance.md): 16-byte vectors on both sides
// first; where rows or bases are not 16-byte aligned, the element-wise swizzled tile.
Error plan_auto(const Problem& p, const Device& d, Plan* out) {
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
