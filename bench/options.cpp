#include "options.hpp"

#include <CLI/CLI.hpp>

#include <map>
#include <sstream>

namespace xpose::bench {

std::optional<int64_t> elem_bytes_of(const std::string& dtype) {
  static const std::map<std::string, int64_t> named = {{"u8", 1},   {"uint8", 1}, {"fp8", 1}, {"fp16", 2},
                                                       {"bf16", 2}, {"fp32", 4},  {"fp64", 8}, {"c64", 8},
                                                       {"c128", 16}};
  if (auto it = named.find(dtype); it != named.end()) return it->second;
  if (dtype == "1" || dtype == "2" || dtype == "4" || dtype == "8" || dtype == "16") return std::stoll(dtype);
  return std::nullopt;
}

bool parse_shape(const std::string& text, int64_t* rows, int64_t* cols, int64_t* batch) {
  std::vector<int64_t> parts;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, 'x')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 18) return false;
    parts.push_back(std::stoll(item));
  }
  if (parts.size() != 2 && parts.size() != 3) return false;
  *rows = parts[0];
  *cols = parts[1];
  *batch = parts.size() == 3 ? parts[2] : 1;
  return true;
}

std::optional<Options> parse_options(int argc, const char* const* argv, int* exit_code) {
  Options o;
  CLI::App app{"xpose-bench: the seed ladder and the automatic choice, timed beside the copy ceiling"};
  std::string shape;
  app.add_option("--dtype", o.dtype, "u8, fp16, bf16, fp32, fp64, c64, c128, or a byte size (1, 2, 4, 8, 16)");
  app.add_option("--shape", shape, "RxC or RxCxB (default 32768x32768)");
  app.add_option("--ld-src", o.ld_src, "src leading dimension in elements (0: cols)")->check(CLI::NonNegativeNumber);
  app.add_option("--ld-dst", o.ld_dst, "dst leading dimension in elements (0: rows)")->check(CLI::NonNegativeNumber);
  app.add_option("--kernel", o.kernels, "kernel(s) to time, or 'auto' (default: the ladder and auto)");
  app.add_option("--device", o.device, "gpu or cpu")->check(CLI::IsMember({"gpu", "cpu"}));
  app.add_option("--reps", o.reps, "timed runs per kernel (median reported)")->check(CLI::Range(1, 100000));
  app.add_option("--warmup", o.warmup, "untimed runs first")->check(CLI::Range(0, 1000));
  app.add_flag("--check", o.check, "verify every result against the CPU reference");
  app.add_flag("--explain", o.explain, "print the automatic choice and why");
  app.add_option("--json", o.json, "append one JSON object per measurement to FILE");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    *exit_code = app.exit(e);
    return std::nullopt;
  }
  const auto bytes = elem_bytes_of(o.dtype);
  if (!bytes) {
    std::fprintf(stderr, "xpose-bench: unknown --dtype '%s'\n", o.dtype.c_str());
    *exit_code = 2;
    return std::nullopt;
  }
  o.elem_bytes = *bytes;
  if (!shape.empty()) {
    if (!parse_shape(shape, &o.rows, &o.cols, &o.batch) || o.rows == 0 || o.cols == 0 || o.batch == 0) {
      std::fprintf(stderr, "xpose-bench: --shape '%s' is not RxC or RxCxB with positive counts\n", shape.c_str());
      *exit_code = 2;
      return std::nullopt;
    }
    o.shape_given = true;
  }
  return o;
}

}  // namespace xpose::bench
