#include "core/nd_engine.hpp"

namespace xpose::detail {

bool plan_nd(const NdEngine& engine, const layout::NdForm& form, const void* src, void* dst, NdPlan* out,
             const char** why) {
  NdPlan p;
  p.form = form;
  p.src = src;
  p.dst = dst;
  if (!engine.plan(&p, why)) return false;
  p.engine = &engine;
  *out = p;
  return true;
}

std::string describe(const NdPlan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  std::string text = std::string(p.engine->name) + ": " + p.engine->blocks(p) + "; the form: " + layout::text(p.form) + "; ";
  if (p.engine->sizes_grid) text += "grid " + s(p.grid.x) + "x" + s(p.grid.y) + ", ";
  return text + "block " + s(p.block.x) + "x" + s(p.block.y) + ", " + s(p.form.elem_bytes) + "-byte elements";
}

}  // namespace xpose::detail
