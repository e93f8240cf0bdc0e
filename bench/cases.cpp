#include "cases.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <sstream>
#include <system_error>

namespace xpose::bench {
namespace {

const std::map<std::string, std::pair<std::string, int64_t>>& dtype_table() {
  static const std::map<std::string, std::pair<std::string, int64_t>> table = {
      {"u8", {"u8", 1}},       {"uint8", {"u8", 1}},   {"int8", {"u8", 1}},  {"fp8", {"fp8", 1}},
      {"fp16", {"fp16", 2}},   {"bf16", {"bf16", 2}},  {"fp32", {"fp32", 4}}, {"fp64", {"fp64", 8}},
      {"c64", {"c64", 8}},     {"c128", {"c128", 16}}, {"1", {"1", 1}},       {"2", {"2", 2}},
      {"4", {"4", 4}},         {"8", {"8", 8}},        {"16", {"16", 16}}};
  return table;
}

}  // namespace

std::optional<int64_t> elem_bytes_of(const std::string& dtype) {
  const auto it = dtype_table().find(dtype);
  if (it == dtype_table().end()) return std::nullopt;
  return it->second.second;
}

std::string canonical_dtype(const std::string& dtype) {
  const auto it = dtype_table().find(dtype);
  return it == dtype_table().end() ? dtype : it->second.first;
}

std::optional<ShapeText> parse_shape(const std::string& text) {
  std::vector<int64_t> parts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, 'x')) {
    if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const int64_t value = std::stoll(item);
    if (value <= 0) return std::nullopt;
    parts.push_back(value);
  }
  if (!text.empty() && text.back() == 'x') return std::nullopt;
  if (parts.size() != 2 && parts.size() != 3) return std::nullopt;
  return ShapeText{parts[0], parts[1], parts.size() == 3 ? parts[2] : 1};
}

Case make_case(const std::string& dtype, int64_t rows, int64_t cols, int64_t batch, int64_t ld_src, int64_t ld_dst,
               Timing timing) {
  Case c;
  c.dtype = canonical_dtype(dtype);
  c.elem_bytes = elem_bytes_of(dtype).value_or(0);
  c.rows = rows;
  c.cols = cols;
  c.batch = batch;
  c.ld_src = ld_src;
  c.ld_dst = ld_dst;
  c.timing = timing;
  std::ostringstream label;
  label << c.dtype << ' ';
  if (batch > 1) label << "batched " << batch << 'x';  // the B x M x N spelling
  label << rows << 'x' << cols;
  if (ld_src || ld_dst) label << " ld " << (ld_src ? ld_src : cols) << '/' << (ld_dst ? ld_dst : rows);
  c.label = label.str();
  return c;
}

Case ladder_case() { return make_case("fp32", 32768, 32768); }

std::vector<Case> sweep_cases(const std::vector<std::string>& dtypes) {
  std::vector<Case> cases;
  for (const std::string& dtype : dtypes)
    for (int64_t n = 256; n <= 32768; n *= 2) cases.push_back(make_case(dtype, n, n));
  return cases;
}

std::vector<Case> case_list() {
  const Timing graph = Timing::graph;
  return {
      make_case("fp32", 32768, 32768),
      make_case("fp16", 32768, 32768),
      make_case("u8", 32768, 32768),
      make_case("fp64", 16384, 16384),
      make_case("c128", 8192, 8192),
      make_case("fp32", 30011, 29989),
      make_case("fp32", 30011, 29989, 1, 29992, 30012),
      make_case("fp32", 8191, 12289),
      make_case("fp32", 2, 268435456),
      make_case("fp32", 268435456, 2),
      make_case("fp32", 3, 100000000),
      make_case("bf16", 4096, 128, 256),
      make_case("bf16", 128, 4096, 4096),
      make_case("u8", 4096, 128, 256),
      make_case("u8", 65536, 65536),
      make_case("fp32", 1024, 1024, 1, 0, 0, graph),
      make_case("fp32", 4096, 4096, 1, 0, 0, graph),
      make_case("bf16", 1000, 3000, 1, 0, 0, graph),
  };
}

namespace {

// The generator's bits as the draws need them (std's distributions differ between libraries).
struct Draw {
  std::mt19937_64 rng;
  uint64_t below(uint64_t n) { return rng() % n; }                  // 0..n-1
  double unit() { return double(rng() >> 11) * 0x1.0p-53; }        // [0, 1)
  bool chance(uint64_t one_in) { return below(one_in) == 0; }
  int64_t log_uniform(int64_t lo, int64_t hi) {                     // lo..hi, uniform in log
    const double v = std::exp(std::log(double(lo)) + unit() * (std::log(double(hi) + 1) - std::log(double(lo))));
    return std::min<int64_t>(hi, std::max<int64_t>(lo, int64_t(v)));
  }
};

// A side of `n` elements of `e` bytes made aligned (a multiple of 128 bytes, at least one) or odd.
int64_t shaped_side(Draw& d, int64_t n, int64_t e) {
  if (d.chance(2)) {
    const int64_t unit = std::max<int64_t>(1, 128 / e);
    return std::max(unit, n / unit * unit);
  }
  return n | 1;
}

}  // namespace

std::vector<Case> random_cases(int count, uint64_t seed) {
  static const char* const dtypes[] = {"u8", "fp16", "fp32", "fp64", "c128"};
  Draw d{std::mt19937_64(seed)};
  std::vector<Case> cases;
  while (int(cases.size()) < count) {
    const char* dtype = dtypes[d.below(5)];
    const int64_t e = *elem_bytes_of(dtype);
    const int64_t rows = shaped_side(d, d.log_uniform(1, 65536), e), cols = shaped_side(d, d.log_uniform(1, 65536), e);
    const bool padded = d.chance(3);
    const int64_t ld_src = padded ? cols + 1 + int64_t(d.below(64)) : 0, ld_dst = padded ? rows + 1 + int64_t(d.below(64)) : 0;
    const int64_t batch = d.chance(4) ? 2 + int64_t(d.below(63)) : 1;
    const double bytes = double(rows) * double(cols) * double(batch) * double(e);
    if (bytes < double(1 << 20) || bytes > double(int64_t(2) << 30)) continue;
    Case c = make_case(dtype, rows, cols, batch, ld_src, ld_dst);
    c.label = "random " + std::to_string(cases.size()) + " of seed " + std::to_string(seed) + ": " + c.label;
    cases.push_back(c);
  }
  return cases;
}

std::vector<QuantizeDraw> random_quantizations(int count, uint64_t seed, int recipes, int outputs) {
  static const char* const inputs[] = {"fp32", "bf16", "fp16"};
  Draw d{std::mt19937_64(seed)};
  const auto side = [&d](int64_t n) { return d.chance(2) ? std::max<int64_t>(128, n / 128 * 128) : n | 1; };
  std::vector<QuantizeDraw> draws;
  while (int(draws.size()) < count) {
    QuantizeDraw q;
    q.input = inputs[d.below(3)];
    q.recipe = int(d.below(uint64_t(recipes))), q.outputs = int(d.below(uint64_t(outputs)));
    q.rows = side(d.log_uniform(1, 65536)), q.cols = side(d.log_uniform(256, 65536));
    const double bytes = double(q.rows) * double(q.cols) * (q.input == "fp32" ? 4.0 : 2.0);
    if (bytes < double(32 << 20) || bytes > double(int64_t(1) << 30)) continue;
    q.what = "random " + std::to_string(draws.size()) + " of seed " + std::to_string(seed);
    draws.push_back(q);
  }
  return draws;
}

std::vector<Case> inplace_cases() {
  return {
      make_case("u8", 8192, 8192),      make_case("u8", 8193, 8193),        make_case("fp16", 8192, 8192),
      make_case("fp16", 8191, 8191),    make_case("fp32", 8192, 8192),      make_case("fp32", 8191, 8191),
      make_case("fp64", 4096, 4096),    make_case("fp64", 4099, 4099),      make_case("c128", 4096, 4096),
      make_case("c128", 2895, 2895),    make_case("fp32", 4096, 1024, 16),  make_case("fp32", 8192, 4096),
      make_case("fp32", 4096, 8192),    make_case("fp32", 8191, 4099),      make_case("fp16", 65536, 1024),
      make_case("fp32", 1100003, 16),   make_case("fp32", 16, 1100003),     make_case("u8", 22369623, 3),
      make_case("fp32", 5592407, 3),    make_case("fp64", 100, 100003),     make_case("c128", 262144, 32),
  };
}

std::vector<Case> random_inplace_cases(int count, uint64_t seed) {
  static const char* const dtypes[] = {"u8", "fp16", "fp32", "fp64", "c128"};
  Draw d{std::mt19937_64(seed)};
  const auto side = [&d](int64_t n, int64_t e) {
    switch (d.below(3)) {
      case 0: return n | 1;
      case 1: {
        int64_t v = n | 1;
        while (v % 3 == 0 || v % 5 == 0) v += 2;
        return v;
      }
      default: return shaped_side(d, n, e);
    }
  };
  std::vector<Case> cases;
  while (int(cases.size()) < count) {
    const char* dtype = dtypes[d.below(5)];
    const int64_t e = *elem_bytes_of(dtype);
    const int64_t batch = d.chance(5) ? 2 + int64_t(d.below(7)) : 1;
    const double target = std::exp(std::log(64.0 * (1 << 20)) + d.unit() * std::log(8.0)) / double(batch * e);
    int64_t rows, cols;
    if (d.chance(2)) {
      rows = cols = side(int64_t(std::sqrt(target)), e);
    } else if (d.chance(4)) {
      const int64_t short_side = 2 + int64_t(d.below(31));
      rows = side(int64_t(target / double(short_side)), e), cols = short_side;
    } else {
      const double ratio = std::exp(std::log(2.0) + d.unit() * std::log(500.0));
      cols = side(int64_t(std::sqrt(target / ratio)), e), rows = side(int64_t(std::sqrt(target * ratio)), e);
    }
    if (d.chance(2)) std::swap(rows, cols);
    const double bytes = double(rows) * double(cols) * double(batch) * double(e);
    if (bytes < double(64 << 20) || bytes > double(int64_t(512) << 20)) continue;
    Case c = make_case(dtype, rows, cols, batch);
    c.label = "random " + std::to_string(cases.size()) + " of seed " + std::to_string(seed) + ": " + c.label;
    cases.push_back(c);
  }
  return cases;
}

std::vector<PermuteCase> random_permutations(int count, uint64_t seed) {
  static const char* const dtypes[] = {"u8", "fp16", "fp32", "fp64", "c128"};
  Draw d{std::mt19937_64(seed)};
  std::vector<PermuteCase> cases;
  while (int(cases.size()) < count) {
    PermuteCase c;
    c.dtype = dtypes[d.below(5)];
    c.elem_bytes = *elem_bytes_of(c.dtype);
    const int rank = 2 + int(d.below(5));
    double bytes = double(c.elem_bytes);
    for (int i = 0; i < rank; ++i) {
      c.extents.push_back(d.log_uniform(2, 4096));
      bytes *= double(c.extents.back());
    }
    if (bytes < double(16 << 20) || bytes > double(512 << 20)) continue;
    for (int i = 0; i < rank; ++i) c.perm.push_back(i);
    for (int i = rank - 1; i > 0; --i) std::swap(c.perm[size_t(i)], c.perm[d.below(uint64_t(i) + 1)]);
    if (std::is_sorted(c.perm.begin(), c.perm.end())) continue;
    c.what = "random " + std::to_string(cases.size()) + " of seed " + std::to_string(seed);
    cases.push_back(c);
  }
  return cases;
}

Spread spread_of(std::vector<std::pair<std::string, double>> labelled_pct, size_t listed) {
  Spread s;
  s.count = int(labelled_pct.size());
  if (labelled_pct.empty()) return s;
  std::stable_sort(labelled_pct.begin(), labelled_pct.end(),
                   [](const auto& a, const auto& b) { return a.second < b.second; });
  const size_t n = labelled_pct.size();
  s.worst = labelled_pct.front().second;
  s.median = n % 2 ? labelled_pct[n / 2].second : (labelled_pct[n / 2 - 1].second + labelled_pct[n / 2].second) / 2;
  s.p10 = labelled_pct[(n + 9) / 10 - 1].second;  // nearest rank: the ceil(n / 10)-th lowest
  s.lowest.assign(labelled_pct.begin(), labelled_pct.begin() + std::min(listed, n));
  return s;
}

std::string spread_report(const std::vector<std::pair<std::string, double>>& labelled_pct,
                          const std::vector<std::pair<std::string, double>>& peer_ahead, const std::string& what,
                          uint64_t seed, const std::string& peer, bool claim_ahead) {
  const Spread s = spread_of(labelled_pct);
  char line[512];
  std::snprintf(line, sizeof line,
                "\n== random: %d %s, seed %llu: the automatic choice at median %.1f%%, 10th percentile %.1f%%, worst "
                "%.1f%% of the same-run copy ceiling\n",
                s.count, what.c_str(), (unsigned long long)seed, s.median, s.p10, s.worst);
  std::string text = line;
  for (const auto& [label, pct] : s.lowest) {
    std::snprintf(line, sizeof line, "  %6.1f%%  ", pct);
    text += line + label + "\n";
  }
  if (peer_ahead.empty() && claim_ahead) text += "  ahead of " + peer + " on every draw it serves\n";
  for (const auto& [label, points] : peer_ahead) {
    std::snprintf(line, sizeof line, "  behind %s by %.1f points: ", peer.c_str(), points);
    text += line + label + "\n";
  }
  return text;
}

uint64_t fresh_seed() { return (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}(); }

std::optional<uint64_t> parse_seed(const std::string& text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [at, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || at != end) return std::nullopt;
  return v;
}

std::optional<uint64_t> seed_or_fresh(const std::string& text) {
  return text.empty() ? fresh_seed() : parse_seed(text);
}

bool graph_timed(const Case& c, int64_t working_set_bytes, int64_t l2_bytes) {
  if (c.timing != Timing::automatic) return c.timing == Timing::graph;
  return working_set_bytes <= 2 * l2_bytes;
}

}  // namespace xpose::bench
