// One measurement, and the JSON-lines and CSV files it is written to. bench/peers.py writes
// the same fields, so bench/table.py and bench/plot.py read both alike.
#pragma once

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "cases.hpp"

namespace xpose::bench {

struct Record {
  std::string case_label;  // Case::label
  std::string kernel;      // xpose kernel, "auto", or a peer (cudaMemcpyAsync, copy, cublas_geam, ...)
  std::string role;        // "xpose", "peer", or "ceiling" (the rows the copy ceiling is taken from)
  std::string dtype;
  int64_t elem_bytes = 0, rows = 0, cols = 0, batch = 1, ld_src = 0, ld_dst = 0;
  std::string timing;      // "events" or "graph" (time per call in a replayed CUDA graph)
  double ms_median = 0, ms_min = 0, ms_max = 0;
  double gbps = 0;         // 2 x matrix bytes / median time
  double pct_copy = 0;     // of the copy ceiling measured in the same run
  double pct_peak = 0;     // of the theoretical DRAM bandwidth (0 when unknown)
  std::string check;       // "passed", "FAILED", or "" (not checked); a peer's "differs" or "error: ..."
  std::string device, commit, date;
  std::string chosen;      // for "auto": the kernel the automatic choice ran (else "")
  std::string rule;        // for "auto": the rule that chose it (README, "The automatic choice"; else "")
  std::string placement;   // where src and dst sit: "exact", "inside" or "offset" (Options::placement)
  int64_t extra_bytes = 0;  // device memory the call used beyond its operands (an in-place call's workspace)
};

nlohmann::json to_json(const Record& r);
Record record_from_json(const nlohmann::json& j);  // throws nlohmann::json::exception on a missing field

// A case as `xpose-bench --list` prints it: label, dtype, elem_bytes, rows, cols, batch,
// ld_src, ld_dst (0: packed), timing ("auto", "events" or "graph").
nlohmann::json to_json(const Case& c);

// The CSV columns, in order, and one row (RFC 4180 quoting where a field needs it).
std::string csv_header();
std::string csv_row(const Record& r);

// A file opened for appending, whose every write, flush and close is checked: a failure
// throws std::runtime_error naming the option, the path and the system's reason.
class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();  // closes quietly if close() was not called
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  void open(const std::string& path, const std::string& option);  // option: "--json" or "--csv", for messages
  bool is_open() const { return file_ != nullptr; }
  void write(const std::string& text);  // written and flushed, so that a crash loses nothing already measured
  void close();

 private:
  [[noreturn]] void fail(const char* what) const;
  std::FILE* file_ = nullptr;
  std::string path_, option_;
};

// Appends records to the --json and --csv files; a new or empty CSV file gets the header.
class RecordWriter {
 public:
  // Throws std::runtime_error when a file cannot be opened.
  RecordWriter(const std::string& json_path, const std::string& csv_path);
  void write(const Record& r);  // throws when a file cannot be written
  void close();                 // throws when a file cannot be closed

 private:
  OutputFile json_, csv_;
};

}  // namespace xpose::bench
