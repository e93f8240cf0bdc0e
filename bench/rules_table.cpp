#include "rules_table.hpp"

#include <cstdint>
#include <string>

#include "xpose/xpose.hpp"

namespace xpose::bench {
namespace {

std::string size_text(int64_t value, bool bytes) {
  if (value == 0) return "0 (off)";  // a bound of 0 turns its rule off (tuning.hpp)
  if (!bytes) return std::to_string(value);
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && value >= 1024 && value % 1024 == 0) value /= 1024, ++u;
  return std::to_string(value) + " " + units[u];
}

}  // namespace

std::string rules_markdown() {
  std::string out =
      "| rule | problem | kernel | launch | why |\n"
      "|---|---|---|---|---|\n";
  std::string skipped;
  for (const RuleInfo& r : rules()) {
    out += "| " + r.id + " | " + r.condition + " | `" + r.kernel + "` | " + r.launch + " | " + r.reason + " |\n";
    if (!r.built) skipped += (skipped.empty() ? "" : ", ") + r.id;
  }
  out += "\n| N-D rule | permutation (not a batched transpose once reduced, one whose batch interleaves the matrices, or one the transpose table hands over) | kernel | technique | why |\n"
         "|---|---|---|---|---|\n";
  for (const RuleInfo& r : permute_rules())
    out += "| " + r.id + " | " + r.condition + " | `" + r.kernel + "` | " + r.launch + " | " + r.reason + " |\n";
  const std::vector<TuningRecord> records = tuning_records();
  out += "\n| tuning parameter | meaning |";
  for (const TuningRecord& t : records) out += " " + t.name + " |";
  out += "\n|---|---|";
  for (size_t i = 0; i < records.size(); ++i) out += "---:|";
  out += "\n| (selected by) | the device's compute capability and memory bandwidth |";
  for (const TuningRecord& t : records) out += " " + t.selects + " |";
  out += "\n";
  const std::vector<TuningParameter> params = tuning_parameters();
  for (size_t i = 0; i < params.size(); ++i) {
    out += "| `" + params[i].name + "` | " + params[i].meaning + " |";
    for (const TuningRecord& t : records) out += " " + size_text(t.values[i], params[i].bytes) + " |";
    out += "\n";
  }
  if (!skipped.empty()) out += "\nThis build lacks the CuTe family: rules " + skipped + " are skipped.\n";
  return out;
}

}  // namespace xpose::bench
