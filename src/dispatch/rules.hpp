// The automatic choice among the transpose engines as data: an ordered table of rules, each a
// condition on the problem (its thresholds from the device's tuning record) and the engine it
// sends the problem to. The first rule whose condition holds and whose engine serves the
// problem wins.
#pragma once

#include <string>
#include <vector>

#include "core/engine.hpp"
#include "core/status.hpp"
#include "dispatch/tuning.hpp"

namespace xpose::detail {

struct Rule {
  const char* id;           // what it tests ("short_side", "tiny_batch", ...): docs/performance.md keys its measurements by it
  const char* engine_name;  // printable even where this build lacks the engine
  const Engine* engine;     // nullptr where this build lacks it (the CuTe family)
  bool (*applies)(const Problem& p, const Device& d, const Tuning& t);
  const char* condition;    // in words; `name` stands for the tuning record's field of that name
  const char* reason;       // one line: why this engine there
};

// In the order they are tried.
const std::vector<Rule>& rules();

struct NdRule;  // dispatch/nd_rules.hpp

// A decision, a transpose's or a permutation's: the rule that made it (neither where the
// caller named the engine), the tuning record it read, and the plan.
struct Choice {
  const Rule* rule = nullptr;       // the transpose rule ...
  const NdRule* nd_rule = nullptr;  // ... or the N-D one
  const Tuning* tuning = nullptr;
  Plan plan;  // plan.engine null: nothing planned
};

// The automatic choice: the first rule that applies and whose engine serves the problem.
// NOT_SUPPORTED, with the last refusal, where none does.
Result choose(const Problem& p, const Device& d, Choice* out);

// One named engine, or NOT_SUPPORTED with its own reason.
Result choose_named(const Engine& e, const Problem& p, const Device& d, Choice* out);

// "rule aligned (H100 tuning): kernel vec_swizzled, grid ..., tile 64x64: <reason>"; for an N-D
// plan "rule short_runs (H100 tuning): permute_vec_regs: ..." (the plan's own description where named)
std::string choice_text(const Choice& c);

}  // namespace xpose::detail
