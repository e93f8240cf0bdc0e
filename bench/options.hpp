// xpose-bench's command line, parsed into a plain value (tests/cpu cover it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace xpose::bench {

struct Options {
  std::string dtype = "fp32";
  int64_t elem_bytes = 4;
  int64_t rows = 32768, cols = 32768, batch = 1;
  bool shape_given = false;
  int64_t ld_src = 0, ld_dst = 0;
  std::vector<std::string> kernels;  // empty: the whole ladder and the automatic choice
  std::string device = "gpu";        // gpu or cpu
  int reps = 20, warmup = 3;
  bool check = false, explain = false;
  std::string json;                  // JSON-lines output file, if any
};

// Element size for a dtype name (u8, fp16, bf16, fp32, fp64, c64, c128) or a byte count.
std::optional<int64_t> elem_bytes_of(const std::string& dtype);

// Parses "RxC" or "RxCxB".
bool parse_shape(const std::string& text, int64_t* rows, int64_t* cols, int64_t* batch);

// Parses argv; on a bad argument or --help returns the exit code in *exit_code.
std::optional<Options> parse_options(int argc, const char* const* argv, int* exit_code);

}  // namespace xpose::bench
