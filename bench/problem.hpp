// One case's problem as the benchmark times it: the request as xpose resolves it
// (xpose::resolve, the public API) on the case's buffers.
#pragma once

#include <cstdint>

#include "xpose/xpose.hpp"

namespace xpose::bench {

struct Problem {
  const void* src = nullptr;
  void* dst = nullptr;
  int64_t rows = 0, cols = 0, elem_bytes = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 0, stride_src = 0, stride_dst = 0;

  Problem() = default;
  explicit Problem(const Layout& l)
      : rows(l.shape.rows), cols(l.shape.cols), elem_bytes(l.elem_bytes), ld_src(l.shape.ld_src),
        ld_dst(l.shape.ld_dst), batch(l.shape.batch), stride_src(l.shape.stride_src), stride_dst(l.shape.stride_dst),
        bytes_(l.bytes), src_span_(l.src_span_bytes), dst_span_(l.dst_span_bytes) {}

  Shape shape() const { return Shape{rows, cols, ld_src, ld_dst, batch, stride_src, stride_dst}; }
  int64_t bytes() const { return bytes_; }
  int64_t src_span_bytes() const { return src_span_; }
  int64_t dst_span_bytes() const { return dst_span_; }

 private:
  int64_t bytes_ = 0, src_span_ = 0, dst_span_ = 0;
};

}  // namespace xpose::bench
