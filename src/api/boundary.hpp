// The C ABI's wall, shared by its entry points: a failed Result becomes the calling thread's
// one-line message and the status; no exception crosses it.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "core/status.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace xpose::detail {

// This thread's message for its last failed call (xpose_last_error).
std::string& last_error_message();

inline xpose_status_t report(const Result& e) {
  if (e.failed()) last_error_message() = e.message;
  return e.status;
}

template <class F>
xpose_status_t guarded(F&& f) {
  try {
    return report(f());
  } catch (const std::bad_alloc&) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, "out of host memory"));
  } catch (const std::exception& e) {
    return report(fail(XPOSE_ERROR_NOT_SUPPORTED, std::string("internal error: ") + e.what()));
  }
}

// The C++ API's form of a failed Result.
inline void throw_if_failed(const Result& e) {
  if (e.failed()) throw xpose::Error(e.status, e.message);
}

}  // namespace xpose::detail
