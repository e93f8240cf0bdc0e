// The validated description of one transpose: what every layer below the API reads. It is
// made only by the API's validation (api/validate.hpp), so everything below trusts it.
#pragma once

#include <cstdint>

namespace xpose::detail {

// dst[b*stride_dst + j*ld_dst + i] = src[b*stride_src + i*ld_src + j], counts in elements,
// every default resolved. Pitches that address nothing hold their packed values: ld_src =
// cols where rows == 1, ld_dst = rows where cols == 1, stride_src = rows * ld_src and
// stride_dst = cols * ld_dst where batch == 1. Unless empty, these fit in int64: bytes(),
// each side's span in bytes, rows * ld_src * elem_bytes and cols * ld_dst * elem_bytes; so
// every field times elem_bytes does too.
struct Problem {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 0, stride_src = 0, stride_dst = 0;

  bool empty() const { return rows == 0 || cols == 0 || batch == 0; }
  int64_t elements() const { return empty() ? 0 : rows * cols * batch; }
  int64_t bytes() const { return elements() * elem_bytes; }
  int64_t matrix_bytes() const { return rows * cols * elem_bytes; }  // one matrix of the batch
  // Bytes from each side's first element to one past its last; 0 for an empty problem.
  int64_t src_span_bytes() const { return span_bytes(cols, rows, ld_src, stride_src); }
  int64_t dst_span_bytes() const { return span_bytes(rows, cols, ld_dst, stride_dst); }

  // The 16-byte facts the vector and copy-engine kernels depend on.
  bool bases_aligned_16() const { return (address(src) | address(dst)) % 16 == 0; }
  bool pitches_aligned_16() const { return (ld_src * elem_bytes) % 16 == 0 && (ld_dst * elem_bytes) % 16 == 0; }
  bool batch_pitches_aligned_16() const {
    return batch <= 1 || ((stride_src * elem_bytes) % 16 == 0 && (stride_dst * elem_bytes) % 16 == 0);
  }
  // Every src (dst) row of every matrix starts on a 16-byte boundary.
  bool src_rows_aligned_16() const { return rows_aligned_16(src, ld_src, stride_src); }
  bool dst_rows_aligned_16() const { return rows_aligned_16(dst, ld_dst, stride_dst); }

 private:
  static uint64_t address(const void* p) { return uint64_t(reinterpret_cast<uintptr_t>(p)); }
  bool rows_aligned_16(const void* base, int64_t ld, int64_t stride) const {
    const auto bytes = [&](int64_t n) { return uint64_t(n) * uint64_t(elem_bytes); };
    return (address(base) | bytes(ld) | bytes(batch > 1 ? stride : 0)) % 16 == 0;
  }
  int64_t span_bytes(int64_t inner, int64_t outer, int64_t ld, int64_t stride) const {
    return empty() ? 0 : ((outer - 1) * ld + (batch - 1) * stride + inner) * elem_bytes;
  }
};

// One in-place transposition: each of `batch` dense row-major rows x cols matrices at data
// (rows * cols elements apart) becomes its dense cols x rows transpose in the same memory. Made
// only by the API's validation: unless empty, bytes() fits in int64 and data is non-null, on its
// element's alignment (8 bytes for 16-byte elements) and reachable from the device.
struct InplaceProblem {
  void* data = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0, batch = 0;

  bool empty() const { return rows == 0 || cols == 0 || batch == 0; }
  int64_t bytes() const { return empty() ? 0 : rows * cols * batch * elem_bytes; }
  // A row or a column is its own transpose: nothing to move.
  bool trivial() const { return empty() || rows == 1 || cols == 1; }
};

}  // namespace xpose::detail
