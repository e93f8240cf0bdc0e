// The CPU reference permutation: every element, an odometer over the axes with the axis of
// the smallest dst stride innermost (writes run along dst), the outermost axis split across
// threads for large problems.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "cpu/reference.hpp"

namespace xpose::cpu {
namespace {

template <int E>
void permute_part(const detail::Permutation& p, const int* order, int n, int64_t first, int64_t last) {
  const auto* src = static_cast<const unsigned char*>(p.src);
  auto* dst = static_cast<unsigned char*>(p.dst);
  // order[0] is the outermost axis (its range [first, last)), order[n-1] the innermost.
  int64_t index[detail::max_rank] = {};
  index[0] = first;
  if (n == 0) {
    std::memcpy(dst, src, E);
    return;
  }
  const detail::PermAxis& inner = p.axes[order[n - 1]];
  for (;;) {
    int64_t s = 0, d = 0;
    for (int k = 0; k < n - 1; ++k) s += index[k] * p.axes[order[k]].src_stride, d += index[k] * p.axes[order[k]].dst_stride;
    const int64_t begin = n == 1 ? first : 0, end = n == 1 ? last : inner.extent;
    for (int64_t i = begin; i < end; ++i)
      std::memcpy(dst + (d + i * inner.dst_stride) * E, src + (s + i * inner.src_stride) * E, E);
    if (n == 1) return;
    int k = n - 2;
    for (; k >= 0; --k) {
      if (++index[k] < (k == 0 ? last : p.axes[order[k]].extent)) break;
      index[k] = k == 0 ? first : 0;
      if (k == 0) return;
    }
    if (k < 0) return;
  }
}

template <int E>
void permute_all(const detail::Permutation& p) {
  int order[detail::max_rank], n = 0;
  for (int i = 0; i < p.rank; ++i)
    if (p.axes[i].extent > 1) order[n++] = i;
  std::sort(order, order + n, [&](int a, int b) { return p.axes[a].dst_stride > p.axes[b].dst_stride; });
  const int64_t outer = n ? p.axes[order[0]].extent : 1;
  const int64_t wanted = std::min<int64_t>(outer, p.elements() / (1 << 16) + 1);
  const int threads = int(std::min<int64_t>(wanted, std::max(1u, std::thread::hardware_concurrency())));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t)
    pool.emplace_back([&, t] { permute_part<E>(p, order, n, outer * t / threads, outer * (t + 1) / threads); });
  permute_part<E>(p, order, n, 0, outer / threads);
  for (auto& t : pool) t.join();
}

}  // namespace

void permute(const detail::Permutation& p) {
  if (p.empty()) return;
  switch (p.elem_bytes) {
    case 1: return permute_all<1>(p);
    case 2: return permute_all<2>(p);
    case 4: return permute_all<4>(p);
    case 8: return permute_all<8>(p);
    default: return permute_all<16>(p);
  }
}

}  // namespace xpose::cpu
