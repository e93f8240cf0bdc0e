// The automatic choice among the N-D kernels as data: an ordered table of rules, each a
// condition on a kernel's plan for the permutation's N-D form (its thresholds from the
// device's tuning record) and the kernel it takes. The first rule whose kernel serves the form
// and whose condition holds wins; `xpose-bench --rules` prints the table beside the 2-D one.
#pragma once

#include <string>
#include <vector>

#include "core/device.hpp"
#include "core/engine.hpp"
#include "dispatch/rules.hpp"
#include "dispatch/tuning.hpp"
#include "layout/permute.hpp"

namespace xpose::detail {

struct NdRule {
  const char* id;         // what it tests ("short_runs", ...): docs/performance.md keys its measurements by it
  const Engine* engine;   // an N-D one (Input::nd_form)
  bool (*applies)(const Plan& plan, const Tuning& t);  // on the kernel's plan, where it serves
  const char* condition;  // in words; `name` stands for the tuning record's field of that name
  const char* reason;     // one line: why this kernel there
  bool handed_over = false;  // only for what the transpose table hands over (choose_nd's handed_over)
  bool from_transposes = false;  // handed over from xpose_transpose's calls too, not only from permutations
};

// In the order they are tried.
const std::vector<NdRule>& nd_rules();

// The plan for a normalized permutation with bases src and dst on device `d`: by the rule
// table where `kernel` is null, else that N-D engine's (a name of engines(Input::nd_form)); false with
// *why where none (or that one) serves it.
bool choose_nd(const layout::PermuteAxes& reduced, const void* src, void* dst, const char* kernel, const Device& d,
               Choice* out, std::string* why, bool handed_over = false);

}  // namespace xpose::detail
