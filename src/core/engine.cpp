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

std::string describe(const EnginePlan& plan) {
  std::string s = std::string("kernel ") + plan.engine->name;
  if (*plan.variant_name) s += std::string(" (") + plan.variant_name + ")";
  s += ", grid " + dims(plan.grid) + ", block " + dims(plan.block) + ", tile " + std::to_string(plan.walk.tile_rows) +
       "x" + std::to_string(plan.walk.tile_cols);
  if (plan.smem_bytes) s += ", " + std::to_string(plan.smem_bytes) + " bytes of dynamic shared memory";
  if (plan.tiles_by_column) s += ", tiles column by column";
  return s;
}

}  // namespace xpose::detail
