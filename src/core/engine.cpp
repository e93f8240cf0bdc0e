#include "core/engine.hpp"

namespace xpose::detail {
namespace {

std::string cc_text(const Device& d) { return std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10); }

std::string dims(const layout::Dims& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

}  // namespace

std::string why(const Support& s, const Device& d) {
  const std::string who = s.text ? s.text : "";
  switch (s.refusal) {
    case Refusal::none: return {};
    case Refusal::old_device:
      return "this build has GPU code for compute capability 8.0 and newer; the device is " + cc_text(d);
    case Refusal::no_tma_code: return who + "; the device is " + cc_text(d);
    case Refusal::base_16: return who + " needs src and dst aligned to 16 bytes";
    case Refusal::pitch_16: return who + " needs ld_src and ld_dst to be multiples of 16 bytes";
    case Refusal::batch_pitch_16: return who + " needs stride_src and stride_dst to be multiples of 16 bytes";
    case Refusal::other: return who;
  }
  return who;
}

// This build carries sm_80 code and compute_80 PTX (and sm_90a), so any GPU of compute
// capability 8.0 or newer runs every engine but the TMA ones (tma/tensor_map.cpp says which).
Support needs_built_device(const Device& d) { return d.cc >= 80 ? served() : refused(Refusal::old_device); }

Support needs_16_byte_rows(const Problem& p, const char* who) {
  if (!p.bases_aligned_16()) return refused(Refusal::base_16, who);
  if (!p.pitches_aligned_16()) return refused(Refusal::pitch_16, who);
  if (!p.batch_pitches_aligned_16()) return refused(Refusal::batch_pitch_16, who);
  return served();
}

Support plan_engine(const Engine& e, const Task& t, const Device& d, const PlanOptions& o, Plan* out) {
  out->engine = nullptr;
  if (t.input != e.input)
    return refused(e.input == Input::transpose ? "it transposes batched matrices, not N-D forms"
                                               : "it permutes N-D forms, not batched matrices");
  if (Support s = e.supports(t, d); !s.served()) return s;
  *out = Plan{};
  out->engine = &e;
  out->device = d.id;
  out->task = t;
  const Support s = e.plan(out, d, o);
  if (!s.served()) out->engine = nullptr;
  return s;
}

std::string describe(const Plan& p) {
  if (p.task.input == Input::transpose) {
    std::string s = std::string("kernel ") + p.engine->name;
    if (*p.variant_name) s += std::string(" (") + p.variant_name + ")";
    return s + ", grid " + dims(p.grid) + ", block " + dims(p.block) + ", " + p.engine->text(p);
  }
  const auto s = [](int64_t v) { return std::to_string(v); };
  std::string text =
      std::string(p.engine->name) + ": " + p.engine->text(p) + "; the form: " + layout::text(p.task.form) + "; ";
  if (p.engine->sizes_grid) text += "grid " + s(p.grid.x) + "x" + s(p.grid.y) + ", ";
  return text + "block " + s(p.block.x) + "x" + s(p.block.y) + ", " + s(p.task.form.elem_bytes) + "-byte elements";
}

}  // namespace xpose::detail
