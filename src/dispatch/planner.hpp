// The planner: what a call runs, decided once for a checked layout on a device. A transpose
// goes to the rule table (or the engine named); a permutation is normalized first and runs
// as the batched 2-D transpose it may be, else as an N-D kernel's. The answer is a plain
// value (CallPlan) that the API launches at once, keeps in a plan handle, or explains.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "core/device.hpp"
#include "core/permutation.hpp"
#include "core/problem.hpp"
#include "core/status.hpp"
#include "dispatch/rules.hpp"
#include "dispatch/nd_rules.hpp"

namespace xpose::detail {

// Bases with the same remainders modulo this take the same plan: every decision made on an
// address (the planner's widest element, the rules' conditions, the engines' supports and
// plans) reads it modulo 16 at most. tests/cpu/test_planner.cpp holds that on random layouts.
constexpr uintptr_t plan_alignment = 16;

struct CallPlan {
  Choice choice;  // a transpose engine's plan or an N-D engine's; choice.plan.engine null: nothing to launch
  bool permutation = false;    // planned from a permutation: the text gives its normalized form
  bool as_pairs = false;       // a transpose of 16-byte elements on an 8-byte boundary run as a permutation
  layout::PermuteAxes shape;  // a permutation's normalized form
  uintptr_t src_class = 0, dst_class = 0;  // the bases' remainders modulo plan_alignment

  bool empty() const { return !choice.plan.engine; }
};

// A kernel name a transpose (or a permutation) can take: null, an engine's or an N-D
// kernel's; else INVALID_ARGUMENT listing the names. Checked before anything else of a call.
Result check_kernel_name(const char* kernel, bool permutation);

// The plan for a checked transpose or permutation whose bases are set (any with the same
// remainders modulo plan_alignment do as well), on device `d`: by the automatic choice where
// `kernel` is null, else by the engine or N-D kernel of that name, which may refuse
// (NOT_SUPPORTED, saying why). An empty layout plans nothing to launch.
Result plan_transpose(const char* kernel, const Problem& p, const Device& d, CallPlan* out);
Result plan_permute(const char* kernel, const Permutation& p, const Device& d, CallPlan* out);

// A checked permutation with its bases, normalized, as the batched 2-D transpose it is, where
// it is one: the Problem resolve_transpose() makes of that transpose's arguments, made directly
// (tests/cpu/test_planner.cpp holds that).
bool transpose_form(const Permutation& p, Problem* out);

// Whether bases src and dst take `plan` (their remainders modulo plan_alignment are the
// plan's); then `rebased` is their plan.
bool same_class(const CallPlan& plan, const void* src, const void* dst);
CallPlan rebased(const CallPlan& plan, const void* src, void* dst);

// Enqueues exactly `plan` on `stream` (nothing for an empty one).
Result launch(const CallPlan& plan, cudaStream_t stream);

struct PlanText {
  std::string kernel, rule, tuning;  // rule and tuning empty where the kernel was named or is an N-D one
  std::string text;                  // one line: what runs, and why
};
PlanText plan_text(const CallPlan& plan);

// The CPU path for a checked layout with its bases: the same split (a permutation that is a
// transpose runs the cache-blocked 2-D reference, other forms the N-D one), on all cores.
void run_on_host(const Problem& p);
void run_on_host(const Permutation& p);

}  // namespace xpose::detail
