// The table of bad requests, shared by the CPU run (host buffers) and the GPU run
// (device buffers): each must fail with its status and message and leave dst untouched.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "api/validate.hpp"
#include "support/testing.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {

// A request against two buffers of buffer_bytes each; pointers are byte offsets so the
// same table serves host and device memory.
struct Request {
  const char* kernel = nullptr;  // null: xpose_transpose
  bool null_src = false, null_dst = false, dst_is_src = false;
  int64_t src_byte_offset = 0, dst_byte_offset = 0;
  detail::Args args{nullptr, nullptr, 40, 50, 4, 0, 0, 1, 0, 0};
};
constexpr size_t buffer_bytes = 64 * 1024;

struct BadInput {
  const char* what;
  std::function<void(Request&)> mutate;
  xpose_status_t status;
  const char* message;  // a substring of xpose_last_error()
};

inline const std::vector<BadInput>& bad_inputs() {
  static const std::vector<BadInput> table = {
      {"null src", [](Request& r) { r.null_src = true; }, XPOSE_ERROR_INVALID_ARGUMENT, "src is a null pointer"},
      {"null dst", [](Request& r) { r.null_dst = true; }, XPOSE_ERROR_INVALID_ARGUMENT, "dst is a null pointer"},
      {"negative rows", [](Request& r) { r.args.rows = -1; }, XPOSE_ERROR_INVALID_ARGUMENT, "rows is negative"},
      {"negative cols", [](Request& r) { r.args.cols = -5; }, XPOSE_ERROR_INVALID_ARGUMENT, "cols is negative"},
      {"negative batch", [](Request& r) { r.args.batch = -2; }, XPOSE_ERROR_INVALID_ARGUMENT, "batch is negative"},
      {"negative ld_src", [](Request& r) { r.args.ld_src = -1; }, XPOSE_ERROR_INVALID_ARGUMENT, "ld_src is negative"},
      {"negative stride_dst", [](Request& r) { r.args.stride_dst = -1; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "stride_dst is negative"},
      {"ld_src below cols", [](Request& r) { r.args.ld_src = 49; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "ld_src (49) is smaller than cols (50)"},
      {"ld_dst below rows", [](Request& r) { r.args.ld_dst = 39; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "ld_dst (39) is smaller than rows (40)"},
      {"element size 3", [](Request& r) { r.args.elem_bytes = 3; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "elem_bytes is 3; it must be 1, 2, 4, 8 or 16"},
      {"element size 0", [](Request& r) { r.args.elem_bytes = 0; }, XPOSE_ERROR_INVALID_ARGUMENT, "elem_bytes is 0"},
      {"element size 32", [](Request& r) { r.args.elem_bytes = 32; }, XPOSE_ERROR_INVALID_ARGUMENT, "elem_bytes is 32"},
      {"misaligned src", [](Request& r) { r.src_byte_offset = 2; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "src is not aligned to its element size of 4 bytes"},
      {"misaligned dst", [](Request& r) { r.dst_byte_offset = 1; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "dst is not aligned to its element size of 4 bytes"},
      {"dst is src", [](Request& r) { r.dst_is_src = true; }, XPOSE_ERROR_INVALID_ARGUMENT, "src and dst overlap"},
      {"dst inside src",
       [](Request& r) {
         r.dst_is_src = true;
         r.dst_byte_offset = 4000;
       },
       XPOSE_ERROR_INVALID_ARGUMENT, "src and dst overlap"},
      {"dst batches overlap",
       [](Request& r) {
         r.args.batch = 2;
         r.args.stride_dst = 100;
       },
       XPOSE_ERROR_INVALID_ARGUMENT, "dst batches overlap"},
      {"rows*ld overflows",
       [](Request& r) {
         r.args.rows = int64_t(1) << 40;
         r.args.cols = int64_t(1) << 40;
       },
       XPOSE_ERROR_INVALID_ARGUMENT, "overflows int64"},
      {"batch*stride overflows",
       [](Request& r) {
         r.args.batch = int64_t(1) << 62;
         r.args.stride_src = 4096;
       },
       XPOSE_ERROR_INVALID_ARGUMENT, "overflows int64"},
      {"unknown kernel", [](Request& r) { r.kernel = "transpose_fast_please"; }, XPOSE_ERROR_INVALID_ARGUMENT,
       "unknown kernel 'transpose_fast_please'; known: naive_read"},
      {"copy is the benchmark's, not a transpose", [](Request& r) { r.kernel = "copy"; },
       XPOSE_ERROR_INVALID_ARGUMENT, "unknown kernel 'copy'"},
  };
  return table;
}

// Runs `request` against src and dst buffers (host or device) of buffer_bytes each.
inline xpose_status_t call(const Request& r, const uint8_t* src, uint8_t* dst) {
  const void* s = r.null_src ? nullptr : src + r.src_byte_offset;
  void* d = r.null_dst ? nullptr : (r.dst_is_src ? const_cast<uint8_t*>(src) : dst) + r.dst_byte_offset;
  const detail::Args& a = r.args;
  return r.kernel ? xpose_transpose_with(r.kernel, s, d, a.rows, a.cols, a.elem_bytes, a.ld_src, a.ld_dst, a.batch,
                                         a.stride_src, a.stride_dst, nullptr)
                  : xpose_transpose(s, d, a.rows, a.cols, a.elem_bytes, a.ld_src, a.ld_dst, a.batch, a.stride_src,
                                    a.stride_dst, nullptr);
}

// The same request through a plan: made with the request's layout, kernel and bases, then
// executed on those bases (the first failing status, or success).
inline xpose_status_t call_through_plan(const Request& r, const uint8_t* src, uint8_t* dst) {
  const void* s = r.null_src ? nullptr : src + r.src_byte_offset;
  void* d = r.null_dst ? nullptr : (r.dst_is_src ? const_cast<uint8_t*>(src) : dst) + r.dst_byte_offset;
  const detail::Args& a = r.args;
  xpose_plan_t plan = nullptr;
  xpose_status_t status = xpose_plan_transpose(&plan, r.kernel, s, d, a.rows, a.cols, a.elem_bytes, a.ld_src,
                                               a.ld_dst, a.batch, a.stride_src, a.stride_dst);
  if (status == XPOSE_SUCCESS) status = xpose_plan_execute(plan, s, d, nullptr);
  xpose_plan_destroy(plan);
  return status;
}

}  // namespace xpose::testing
