#include "record.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <utility>

#include <unistd.h>

namespace xpose::bench {
namespace {

// Every field, in CSV column order: one table drives JSON, CSV and the parser.
// clang-format off
#define XPOSE_RECORD_FIELDS(X)                                                                                 \
  X(case_label, "case") X(kernel, "kernel") X(role, "role") X(dtype, "dtype") X(elem_bytes, "elem_bytes")     \
  X(rows, "rows") X(cols, "cols") X(batch, "batch") X(ld_src, "ld_src") X(ld_dst, "ld_dst")                   \
  X(timing, "timing") X(ms_median, "ms_median") X(ms_min, "ms_min") X(ms_max, "ms_max") X(gbps, "gbps")       \
  X(pct_copy, "pct_copy") X(pct_peak, "pct_peak") X(check, "check") X(device, "device") X(commit, "commit")    \
  X(date, "date") X(chosen, "chosen") X(rule, "rule") X(placement, "placement")                            \
  X(extra_bytes, "extra_bytes")
// clang-format on

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

void OutputFile::open(const std::string& path, const std::string& option) {
  path_ = path, option_ = option;
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) fail("open");
  // A write of nothing reaches the file's driver: a device that refuses every write
  // (/dev/full) is found here, before the run, and a regular file or pipe takes no bytes.
  errno = 0;
  if (::write(fileno(file_), "", 0) < 0) fail("write");
}

OutputFile::~OutputFile() {
  if (file_) std::fclose(file_);
}

void OutputFile::fail(const char* what) const {
  const int error = errno;
  throw std::runtime_error("cannot " + std::string(what) + " " + option_ + " file '" + path_ +
                           "': " + (error ? std::strerror(error) : "unknown error"));
}

void OutputFile::write(const std::string& text) {
  errno = 0;
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() || std::fflush(file_) != 0) fail("write");
}

void OutputFile::close() {
  if (!file_) return;
  errno = 0;
  if (std::fclose(std::exchange(file_, nullptr)) != 0) fail("close");
}

RecordWriter::RecordWriter(const std::string& json_path, const std::string& csv_path) {
  if (!json_path.empty()) json_.open(json_path, "--json");
  if (!csv_path.empty()) {
    std::error_code ec;
    const bool fresh = !std::filesystem::exists(csv_path, ec) || std::filesystem::file_size(csv_path, ec) == 0;
    csv_.open(csv_path, "--csv");
    if (fresh) csv_.write(csv_header() + "\n");
  }
}

void RecordWriter::write(const Record& r) {
  if (json_.is_open()) json_.write(to_json(r).dump() + "\n");
  if (csv_.is_open()) csv_.write(csv_row(r) + "\n");
}

void RecordWriter::close() {
  json_.close();
  csv_.close();
}

}  // namespace xpose::bench
