// xpose: the C++ API, over the same engine as the C ABI in xpose.h.
//
//   xpose::transpose(src, dst, rows, cols, stream);           // typed, throws xpose::Error
//   xpose::transpose(src, dst, xpose::Shape{...}, stream);    // ld, batch and strides
//   xpose::kernel_list();                                         // the named kernels
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xpose/xpose.h"

namespace xpose {

// A failed call: the C status and the library's one-line message.
class Error : public std::runtime_error {
 public:
  Error(xpose_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  xpose_status_t status() const noexcept { return status_; }

 private:
  xpose_status_t status_;
};

// The problem description, counts in elements; 0 means the default, as in xpose.h.
struct Shape {
  int64_t rows = 0, cols = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

struct KernelInfo {
  std::string name;
  std::string summary;
  bool transposes;  // false for `copy`, the benchmark's ceiling
};

// Every named kernel, the transposes in ladder order and then `copy`.
std::vector<KernelInfo> kernel_list();

// What the automatic choice would launch for this request on the current device, and
// why, without launching it. Throws xpose::Error where xpose_transpose would fail.
std::string explain(const void* src, void* dst, int64_t elem_bytes, const Shape& shape);

// The CPU path: the reference transpose on host memory, using all cores. Same
// semantics and argument checks as the GPU path (less the device-pointer checks).
void transpose_host(const void* src, void* dst, int64_t elem_bytes, const Shape& shape);

inline void check(xpose_status_t status) {
  if (status != XPOSE_SUCCESS) throw Error(status, xpose_last_error());
}

// Untyped: elem_bytes is 1, 2, 4, 8 or 16. `kernel` null or empty means the automatic choice.
inline void transpose(const void* src, void* dst, int64_t elem_bytes, const Shape& s, cudaStream_t stream = nullptr,
                      const char* kernel = nullptr) {
  check(kernel && *kernel ? xpose_transpose_with(kernel, src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst,
                                                 s.batch, s.stride_src, s.stride_dst, stream)
                          : xpose_transpose(src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst, s.batch,
                                            s.stride_src, s.stride_dst, stream));
}

// Typed: any trivially copyable T of 1, 2, 4, 8 or 16 bytes (int8_t, __half, float,
// double, cuDoubleComplex, ...).
template <class T>
void transpose(const T* src, T* dst, const Shape& s, cudaStream_t stream = nullptr, const char* kernel = nullptr) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "xpose transposes elements of 1, 2, 4, 8 or 16 bytes");
  transpose(static_cast<const void*>(src), static_cast<void*>(dst), int64_t(sizeof(T)), s, stream, kernel);
}

template <class T>
void transpose(const T* src, T* dst, int64_t rows, int64_t cols, cudaStream_t stream = nullptr) {
  transpose(src, dst, Shape{rows, cols}, stream);
}

}  // namespace xpose
