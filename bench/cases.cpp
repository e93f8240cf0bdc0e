#include "cases.hpp"

#include <map>
#include <sstream>

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

bool graph_timed(const Case& c, int64_t working_set_bytes, int64_t l2_bytes) {
  if (c.timing != Timing::automatic) return c.timing == Timing::graph;
  return working_set_bytes <= 2 * l2_bytes;
}

}  // namespace xpose::bench
