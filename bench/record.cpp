#include "record.hpp"

#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace xpose::bench {
namespace {

// Every field, in CSV column order: one table drives JSON, CSV and the parser.
#define XPOSE_RECORD_FIELDS(X)                                                                                 \
  X(case_label, "case") X(kernel, "kernel") X(role, "role") X(dtype, "dtype") X(elem_bytes, "elem_bytes")     \
  X(rows, "rows") X(cols, "cols") X(batch, "batch") X(ld_src, "ld_src") X(ld_dst, "ld_dst")                   \
  X(timing, "timing") X(ms_median, "ms_median") X(ms_min, "ms_min") X(ms_max, "ms_max") X(gbps, "gbps")       \
  X(pct_copy, "pct_copy") X(pct_peak, "pct_peak") X(check, "check") X(device, "device") X(commit, "commit")    \
  X(date, "date")

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string quoted = "\"";
  for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return quoted + "\"";
}

std::string csv_field(int64_t v) { return std::to_string(v); }

std::string csv_field(double v) {
  std::ostringstream out;
  out.precision(6);
  out << v;
  return out.str();
}

}  // namespace

nlohmann::json to_json(const Record& r) {
  nlohmann::json j;
#define X(field, name) j[name] = r.field;
  XPOSE_RECORD_FIELDS(X)
#undef X
  return j;
}

nlohmann::json to_json(const Case& c) {
  const char* timing = c.timing == Timing::graph ? "graph" : c.timing == Timing::events ? "events" : "auto";
  return {{"case", c.label},   {"dtype", c.dtype},   {"elem_bytes", c.elem_bytes}, {"rows", c.rows},
          {"cols", c.cols},    {"batch", c.batch},   {"ld_src", c.ld_src},         {"ld_dst", c.ld_dst},
          {"timing", timing}};
}

Record record_from_json(const nlohmann::json& j) {
  Record r;
#define X(field, name) j.at(name).get_to(r.field);
  XPOSE_RECORD_FIELDS(X)
#undef X
  return r;
}

std::string csv_header() {
  std::string header;
#define X(field, name) header += std::string(header.empty() ? "" : ",") + name;
  XPOSE_RECORD_FIELDS(X)
#undef X
  return header;
}

std::string csv_row(const Record& r) {
  std::string row;
  bool first = true;
#define X(field, name)                   \
  row += first ? "" : ",";               \
  row += csv_field(r.field);             \
  first = false;
  XPOSE_RECORD_FIELDS(X)
#undef X
  return row;
}

RecordWriter::RecordWriter(const std::string& json_path, const std::string& csv_path) {
  if (!json_path.empty()) {
    json_.open(json_path, std::ios::app);
    if (!json_) throw std::runtime_error("cannot open --json file '" + json_path + "'");
  }
  if (!csv_path.empty()) {
    std::error_code ec;
    const bool fresh = !std::filesystem::exists(csv_path, ec) || std::filesystem::file_size(csv_path, ec) == 0;
    csv_.open(csv_path, std::ios::app);
    if (!csv_) throw std::runtime_error("cannot open --csv file '" + csv_path + "'");
    if (fresh) csv_ << csv_header() << "\n";
  }
}

void RecordWriter::write(const Record& r) {
  if (json_.is_open()) json_ << to_json(r).dump() << "\n" << std::flush;
  if (csv_.is_open()) csv_ << csv_row(r) << "\n" << std::flush;
}

}  // namespace xpose::bench
