// Errors as values: a status for the caller and a one-line message saying why, and the one
// way a CUDA call is checked (its failure becomes a Result carrying CUDA's own text).
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "xpose/xpose.h"

namespace xpose::detail {

// Text as one printable line: control characters become escapes (\n, \t, \xNN), so a
// message that echoes a caller's string never spans lines.
inline std::string one_line(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c != 0x7f) {
      out += ch;
      continue;
    }
    static const char hex[] = "0123456789abcdef";
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default: out += {'\\', 'x', hex[c >> 4], hex[c & 15]};
    }
  }
  return out;
}

// A caller's string quoted for a message: 'text', its quotes and backslashes escaped too.
inline std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char ch : text) {
    if (ch == '\'' || ch == '\\') out += '\\';
    out += ch;
  }
  return one_line(out + "'");
}

struct Result {
  xpose_status_t status = XPOSE_SUCCESS;
  std::string message;
  bool failed() const { return status != XPOSE_SUCCESS; }
};
inline Result ok() { return {}; }
inline Result fail(xpose_status_t status, std::string_view message) { return {status, one_line(message)}; }

inline Result cuda_error(cudaError_t code, const char* call) {
  cudaGetLastError();  // a failed runtime call must not poison the next launch check
  return fail(XPOSE_ERROR_CUDA, std::string(call) + ": " + cudaGetErrorName(code) + ": " + cudaGetErrorString(code));
}

}  // namespace xpose::detail

// Evaluates a CUDA call; on failure returns its Result from the enclosing function.
#define XPOSE_TRY_CUDA(call)                                                                \
  do {                                                                                      \
    const cudaError_t xpose_code_ = (call);                                                 \
    if (xpose_code_ != cudaSuccess) return ::xpose::detail::cuda_error(xpose_code_, #call); \
  } while (0)
