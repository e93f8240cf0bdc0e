// The automatic choice among the N-D kernels as data: an ordered table of rules, each a
// condition on a kernel's plan for the permutation's N-D form (its thresholds from the
// device's tuning record) and the kernel it takes. The first rule whose kernel serves the form
// and whose condition holds wins; `xpose-bench --rules` prints the table beside the 2-D one.
#pragma once

#include <string>
#include <vector>

#include "core/device.hpp"
#include "dispatch/tuning.hpp"
#include "core/nd_engine.hpp"
#include "layout/permute.hpp"

namespace xpose::detail {

struct NdRule {
  const char* id;         // what it tests ("short_runs", ...): docs/performance.md keys its measurements by it
  const NdEngine* engine;
  bool (*applies)(const NdPlan& plan, const Tuning& t);  // on the kernel's plan, where it serves
  const char* condition;  // in words; `name` stands for the tuning record's field of that name
  const char* reason;     // one line: why this kernel there
};

// In the order they are tried.
const std::vector<NdRule>& nd_rules();

// A decision: the rule that made it (nullptr where the caller named the kernel), the tuning
// record it read, and the plan.
struct NdChoice {
  const NdRule* rule = nullptr;
  const Tuning* tuning = nullptr;
  NdPlan plan;
};

// The plan for a normalized permutation with bases src and dst on device `d`: by the rule
// table where `kernel` is null, else that N-D engine's (a name of nd_engines()); false with
// *why where none (or that one) serves it.
bool choose_nd(const layout::PermuteAxes& reduced, const void* src, void* dst, const char* kernel, const Device& d,
               NdChoice* out, std::string* why);

// "rule short_runs (H100 tuning): permute_vec_regs: ..." (the plan's own description where named)
std::string choice_text(const NdChoice& c);

}  // namespace xpose::detail
