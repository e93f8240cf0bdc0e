// xpose-bench's command line, parsed into a plain value (tests/cpu cover it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cases.hpp"

namespace xpose::bench {

enum class Mode { ladder, single, sweep, cases, host_cost, random };

struct Options {
  Mode mode = Mode::ladder;
  std::vector<Case> cases;           // what to measure, in order
  uint64_t seed = 0;                 // --random's seed (drawn unless given; printed with the report)
  bool shape_given = false;          // an explicit --shape is never shrunk to fit memory
  std::vector<std::string> kernels;  // empty: the whole ladder and the automatic choice
  bool peers = true;                 // cudaMemcpyAsync, copy, cuBLAS geam, cuBLASLt
  std::string device = "gpu";        // gpu or cpu
  int reps = 20, warmup = 3;
  int rounds = 1;  // each row of a case timed this many times in turn, round r starting at row r
  bool check = false, explain = false;
  // --inplace: the cases through xpose_transpose_inplace, beside the same-run copy of the matrix
  // and xpose's out-of-place transpose of it.
  bool inplace = false;
  std::vector<std::string> gpu_only;  // the options given that the CPU path ignores (it says so)
  bool progress = true;
  bool list = false;                 // print the cases as JSON lines and exit (bench/peers.py reads them)
  bool rules = false;                // print the automatic choice's rules and tuning records, and exit
  std::string json, csv;             // output files (appended to), if any
  // Where src and dst sit: each an allocation of its own ("exact"), the first half of one twice
  // as large ("inside"), or 4 KiB into one 4 KiB larger ("offset"); the copy ceiling uses the same.
  std::string placement = "exact";
};

// Text as one printable line (control characters as escapes: \n, \t, \xNN), and a message
// printed that way on stderr after "xpose-bench: ".
std::string one_line(const std::string& text);
void print_error(const std::string& message);

// Parses argv. On --help or a bad argument returns nullopt with the exit code in *exit_code
// after printing the help on stdout (0) or a one-line error on stderr (2).
std::optional<Options> parse_options(int argc, const char* const* argv, int* exit_code);

}  // namespace xpose::bench
