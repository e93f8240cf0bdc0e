#include "cpu/reference.hpp"

#include <algorithm>
#include <cstring>

#include "cpu/micro_kernels.hpp"
#include "cpu/parallel.hpp"
#include "layout/grid.hpp"

namespace xpose::cpu {
namespace {

template <int E> struct Bytes { unsigned char b[E]; };

// Blocks of about 256 KiB a side (256x256 elements of up to 4 bytes, fewer rows and columns
// of wider ones): a block's src and dst stay in L2 while its squares are turned. Measured on
// the 2-core CI machine against 64x64: uint8 and fp16 4096^2 faster, fp32 the same.
template <int E> constexpr int64_t block_of = E <= 4 ? 256 : E == 8 ? 128 : 64;

// Rows [r0, r1) of matrix b, a block of columns at a time (transpose_block).
template <int E>
void transpose_rows(const detail::Problem& p, int64_t b, int64_t r0, int64_t r1, const Micro& micro) {
  constexpr int64_t block = block_of<E>;
  using T = Bytes<E>;
  const T* src = static_cast<const T*>(p.src) + b * p.stride_src;
  T* dst = static_cast<T*>(p.dst) + b * p.stride_dst;
  for (int64_t c0 = 0, c1 = 0; c0 < p.cols; c0 = c1) {
    c1 = c0 + std::min(block, p.cols - c0);  // c0 + block may pass INT64_MAX
    transpose_block(src + r0 * p.ld_src + c0, p.ld_src, dst + c0 * p.ld_dst + r0, p.ld_dst, r1 - r0, c1 - c0, micro);
  }
}

template <int E>
void transpose_all(const detail::Problem& p) {
  constexpr int64_t block = block_of<E>;
  const int64_t row_blocks = layout::ceil_div(p.rows, block), items = row_blocks * p.batch;
  const Micro micro = micro_kernel(E);
  for_each_item(items, p.elements(), int64_t(1) << 14, [&](int64_t item) {
    const int64_t b = item / row_blocks, r0 = (item % row_blocks) * block;
    transpose_rows<E>(p, b, r0, r0 + std::min(block, p.rows - r0), micro);
  });
}

}  // namespace

void transpose(const detail::Problem& p) {
  if (p.empty()) return;
  with_elem_bytes(p.elem_bytes, [&](auto e) { transpose_all<decltype(e)::value>(p); });
}

}  // namespace xpose::cpu
