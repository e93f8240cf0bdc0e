#include "cpu/reference.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "layout/grid.hpp"

namespace xpose::cpu {
namespace {

template <int E> struct Bytes { unsigned char b[E]; };

// 64x64 blocks keep one block of src and one of dst in L1/L2 while it is turned.
constexpr int64_t block = 64;

template <int E>
void transpose_rows(const detail::Problem& p, int64_t b, int64_t r0, int64_t r1) {
  using T = Bytes<E>;
  const T* src = static_cast<const T*>(p.src) + b * p.stride_src;
  T* dst = static_cast<T*>(p.dst) + b * p.stride_dst;
  for (int64_t c0 = 0, c1 = 0; c0 < p.cols; c0 = c1) {
    c1 = c0 + std::min(block, p.cols - c0);  // c0 + block may pass INT64_MAX
    for (int64_t i = r0; i < r1; ++i)
      for (int64_t j = c0; j < c1; ++j) dst[j * p.ld_dst + i] = src[i * p.ld_src + j];
  }
}

template <int E>
void transpose_all(const detail::Problem& p) {
  const int64_t row_blocks = layout::ceil_div(p.rows, block), items = row_blocks * p.batch;
  std::atomic<int64_t> next{0};
  const auto work = [&] {
    for (int64_t item = next++; item < items; item = next++) {
      const int64_t b = item / row_blocks, r0 = (item % row_blocks) * block;
      transpose_rows<E>(p, b, r0, r0 + std::min(block, p.rows - r0));
    }
  };
  const int64_t wanted = std::min<int64_t>(items, p.elements() / (block * block * 4) + 1);
  const int threads = int(std::min<int64_t>(wanted, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

}  // namespace

void transpose(const detail::Problem& p) {
  if (p.empty()) return;
  switch (p.elem_bytes) {
    case 1: return transpose_all<1>(p);
    case 2: return transpose_all<2>(p);
    case 4: return transpose_all<4>(p);
    case 8: return transpose_all<8>(p);
    default: return transpose_all<16>(p);
  }
}

}  // namespace xpose::cpu
