// xpose_plan_draws: the plan the automatic choice (and, given, a named kernel) makes for each
// permutation or 2-D transpose of a list, on a pretend H100, H200, A100, B200 or Turing, with no
// GPU. It reads `xpose-permute-bench --list`'s JSON lines (or lines "ELEM_BYTES EXTENTS PERM", comma
// lists) and `xpose-bench --list`'s (rows, cols, batch, ld_src, ld_dst; batches dense at their
// pitches) and prints one line each: the draw, a tab, the plan's text (a tab and the named
// kernel's plan, or "refused: why", after it). Two builds' outputs on one list name the draws whose
// plans a change moves (docs/results' held-out checks).
//   xpose-permute-bench --random 60000 --seed S --list | xpose_plan_draws h200 [KERNEL]
//   xpose-bench --random 60000 --seed S --list | xpose_plan_draws h200 [KERNEL]
// Dense strides, 256-byte aligned bases. A line it cannot read ends it with one line on stderr
// and status 2; a permutation the library refuses prints "refused: why".
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/validate.hpp"
#include "dispatch/planner.hpp"
#include "support/devices.hpp"

namespace {

using namespace xpose;

// The integers of a comma list ("3,5,7" or "[3, 5, 7]").
bool integers(const std::string& text, std::vector<int64_t>* out) {
  out->clear();
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t at = item.find_first_of("-0123456789");
    if (at == std::string::npos) return false;
    out->push_back(std::stoll(item.substr(at)));
  }
  return !out->empty();
}

// A JSON line's value of `key` (the list's: numbers, number lists, strings without escapes):
// the number, the list with its brackets, or the string without its quotes.
std::string field(const std::string& line, const std::string& key) {
  const size_t at = line.find("\"" + key + "\":");
  if (at == std::string::npos || at + key.size() + 3 >= line.size()) return "";
  const size_t from = at + key.size() + 3;
  if (line[from] == '"') {
    const size_t to = line.find('"', from + 1);
    return to == std::string::npos ? "" : line.substr(from + 1, to - from - 1);
  }
  const size_t to = line[from] == '[' ? line.find(']', from) : line.find_first_of(",}", from);
  return to == std::string::npos ? "" : line.substr(from, to - from + (line[from] == '['));
}

struct Draw {
  std::string name;
  int64_t elem_bytes = 0;
  std::vector<int64_t> extents, perm;  // a permutation's
  bool transpose = false;               // a 2-D transpose's: the fields below
  int64_t rows = 0, cols = 0, batch = 1, ld_src = 0, ld_dst = 0;
};

// xpose-bench --list's line: a 2-D transpose.
bool read_transpose(const std::string& line, Draw* d) {
  int64_t* const to[] = {&d->elem_bytes, &d->rows, &d->cols, &d->batch, &d->ld_src, &d->ld_dst};
  const char* const keys[] = {"elem_bytes", "rows", "cols", "batch", "ld_src", "ld_dst"};
  std::vector<int64_t> v;
  for (int k = 0; k < 6; ++k) {
    if (!integers(field(line, keys[k]), &v) || v.size() != 1) return false;
    *to[k] = v[0];
  }
  d->transpose = true;
  d->name = field(line, "case");
  return !d->name.empty();
}

bool read_draw(const std::string& line, Draw* d) {
  std::string elem, extents, perm;
  if (line.find('{') != std::string::npos) {
    if (!field(line, "rows").empty() && field(line, "extents").empty()) return read_transpose(line, d);
    elem = field(line, "elem_bytes"), extents = field(line, "extents"), perm = field(line, "perm");
    d->name = field(line, "case");
  } else {
    std::stringstream in(line);
    in >> elem >> extents >> perm;
    d->name = line;
  }
  std::vector<int64_t> e;
  if (!integers(elem, &e) || e.size() != 1 || !integers(extents, &d->extents) || !integers(perm, &d->perm))
    return false;
  d->elem_bytes = e[0];
  if (d->name.empty()) d->name = line;
  return true;
}

// The plan's text for `kernel` (null: the automatic choice), or "refused: why".
std::string plan(const Draw& draw, const detail::Device& device, const char* kernel) {
  const std::vector<int> perm(draw.perm.begin(), draw.perm.end());
  const void* src = reinterpret_cast<const void*>(uintptr_t(1) << 40);
  void* dst = reinterpret_cast<void*>(uintptr_t(2) << 40);
  if (draw.transpose) {
    detail::Problem p;
    detail::Result r = detail::resolve_transpose(
        {src, dst, draw.rows, draw.cols, draw.elem_bytes, draw.ld_src, draw.ld_dst, draw.batch, 0, 0}, &p);
    if (r.failed()) return "refused: " + r.message;
    detail::CallPlan call;
    r = detail::plan_transpose(kernel, p, device, &call);
    return r.failed() ? "refused: " + r.message : detail::plan_text(call).text;
  }
  detail::Permutation p;
  detail::Result r = detail::resolve_permute_layout(
      {src, dst, int(draw.extents.size()), draw.extents.data(), perm.data(), draw.elem_bytes, nullptr, nullptr}, &p);
  if (r.failed()) return "refused: " + r.message;
  p.src = src;
  p.dst = dst;
  detail::CallPlan call;
  r = detail::plan_permute(kernel, p, device, &call);
  return r.failed() ? "refused: " + r.message : detail::plan_text(call).text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::map<std::string, const detail::Device*> devices = {{"h100", &testing::h100}, {"h200", &testing::h200},
                                                                 {"a100", &testing::a100}, {"b200", &testing::b200},
                                                                 {"turing", &testing::turing}};
  if (argc < 2 || argc > 3 || !devices.count(argv[1])) {
    std::fprintf(stderr, "usage: xpose_plan_draws h100|h200|a100|b200|turing [KERNEL] < draws\n");
    return 2;
  }
  const detail::Device& device = *devices.at(argv[1]);
  const char* kernel = argc == 3 ? argv[2] : nullptr;
  std::string line;
  for (int n = 1; std::getline(std::cin, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Draw draw;
    if (!read_draw(line, &draw)) {
      std::fprintf(stderr, "xpose_plan_draws: line %d is neither a --list JSON line nor ELEM_BYTES EXTENTS PERM\n", n);
      return 2;
    }
    std::cout << draw.name << '\t' << plan(draw, device, nullptr);
    if (kernel) std::cout << '\t' << plan(draw, device, kernel);
    std::cout << '\n';
  }
  return 0;
}
