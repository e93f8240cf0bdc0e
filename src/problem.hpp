// Raw arguments -> one validated Problem. Every check of a request lives here; nothing
// downstream (plan, launch, kernels) validates again.
#pragma once

#include <cstdint>
#include <string>

#include "xpose/xpose.h"

namespace xpose::detail {

// A failed check: the status for the caller and a one-line message saying why.
struct Error {
  xpose_status_t status = XPOSE_SUCCESS;
  std::string message;
  bool failed() const { return status != XPOSE_SUCCESS; }
};
inline Error ok() { return {}; }
inline Error fail(xpose_status_t status, std::string message) { return {status, std::move(message)}; }

// The arguments as the C ABI receives them (0 still means "the default").
struct Args {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

// A request with every default resolved and every pure check passed. Pitches that address
// nothing hold their packed values: ld_src = cols where rows == 1, ld_dst = rows where
// cols == 1, stride_src = rows * ld_src and stride_dst = cols * ld_dst where batch == 1.
// Unless empty, these fit in int64: bytes(), each side's span in bytes, rows * ld_src *
// elem_bytes and cols * ld_dst * elem_bytes; so every field times elem_bytes does too.
struct Problem {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 0, stride_src = 0, stride_dst = 0;

  bool empty() const { return rows == 0 || cols == 0 || batch == 0; }
  int64_t elements() const { return empty() ? 0 : rows * cols * batch; }
  int64_t bytes() const { return elements() * elem_bytes; }
  // Bytes from each side's first element to one past its last (resolve() has checked that
  // they fit in int64); 0 for an empty problem.
  int64_t src_span_bytes() const { return span_bytes(cols, rows, ld_src, stride_src); }
  int64_t dst_span_bytes() const { return span_bytes(rows, cols, ld_dst, stride_dst); }

 private:
  int64_t span_bytes(int64_t inner, int64_t outer, int64_t ld, int64_t stride) const {
    return empty() ? 0 : ((outer - 1) * ld + (batch - 1) * stride + inner) * elem_bytes;
  }
};

// The checks that need no GPU: element size, signs, leading dimensions, strides,
// int64 overflow, null and misaligned pointers, dst batches that overlap, src and dst
// that overlap. An empty request (a zero extent) passes with pointers unchecked.
Error resolve(const Args& args, Problem* out);

// The requirement of the 16-byte vector and TMA kernels: bases, row pitches and (for
// batches) batch pitches all multiples of 16 bytes. Empty when met; else "<who> needs ...".
std::string unaligned_16(const Problem& p, const std::string& who);

// The checks that ask the driver: each pointer must be reachable from the current device.
Error check_device_access(const Problem& problem);

// True when the elements {b*batch_stride + j*ld + i} for i < inner, j < outer, b < batch
// are all distinct and the layout nests (one stride spans the other extent). Exposed for tests.
bool dst_batches_disjoint(int64_t inner, int64_t outer, int64_t ld, int64_t batch, int64_t batch_stride);

}  // namespace xpose::detail
