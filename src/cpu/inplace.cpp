#include "cpu/inplace.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "cpu/parallel.hpp"
#include "layout/inplace.hpp"

namespace xpose::cpu {
namespace {

template <int E>
struct Bytes {
  unsigned char b[E];
};

constexpr int64_t kColumns = 16;  // columns a thread gathers at once in pass 3

// A square matrix: (i, j) and (j, i) swapped, in 32 x 32 tile pairs across the diagonal.
template <class T>
void square(T* a, int64_t n) {
  constexpr int64_t tile = 32;
  const int64_t tiles = (n + tile - 1) / tile;
  for_each_item(tiles, n * n, int64_t(1) << 16, [&](int64_t ti) {
    for (int64_t tj = ti; tj < tiles; ++tj)
      for (int64_t i = ti * tile; i < std::min(n, (ti + 1) * tile); ++i)
        for (int64_t j = std::max(tj * tile, i + 1); j < std::min(n, (tj + 1) * tile); ++j)
          std::swap(a[i * n + j], a[j * n + i]);
  });
}

template <class T>
void rectangle(T* a, const layout::InplaceShape& s) {
  const int64_t m = s.m, n = s.n, b = s.b, groups = n / b;
  // 1. Column group g (b columns) rotates up by g rows: the rotation's cycles of row pieces,
  //    one piece of scratch.
  for_each_item(groups, m * n, int64_t(1) << 16, [&](int64_t g) {
    const int64_t k = g % m;
    if (k == 0) return;
    std::vector<T> saved(static_cast<size_t>(b));
    const int64_t cycles = layout::gcd(m, k);
    for (int64_t start = 0; start < cycles; ++start) {
      T* const first = a + start * n + g * b;
      std::copy(first, first + b, saved.begin());
      int64_t i = start;
      for (;;) {
        const int64_t from = (i + k) % m;
        if (from == start) break;
        std::copy(a + from * n + g * b, a + from * n + g * b + b, a + i * n + g * b);
        i = from;
      }
      std::copy(saved.begin(), saved.end(), a + i * n + g * b);
    }
  });
  // 2. Each row scattered within itself, through one row of scratch.
  for_each_item(m, m * n, int64_t(1) << 16, [&](int64_t i) {
    static thread_local std::vector<T> row;
    row.resize(size_t(n));
    T* const r = a + i * n;
    layout::RowWalk walk(s, i);
    for (int64_t j = 0; j < n; ++j, walk.next()) row[size_t(walk.destination)] = r[j];
    std::copy(row.begin(), row.end(), r);
  });
  // 3. Each column gathered within itself, kColumns columns at a time.
  const int64_t blocks = (n + kColumns - 1) / kColumns;
  for_each_item(blocks, m * n, int64_t(1) << 16, [&](int64_t blk) {
    static thread_local std::vector<T> cols;
    const int64_t c0 = blk * kColumns, w = std::min(kColumns, n - c0);
    cols.resize(size_t(m * w));
    for (int64_t c = 0; c < w; ++c) {
      layout::ColumnWalk walk(s, c0 + c);
      for (int64_t r = 0; r < m; ++r, walk.next()) cols[size_t(r * w + c)] = a[walk.from() * n + c0 + c];
    }
    for (int64_t r = 0; r < m; ++r) std::copy(&cols[size_t(r * w)], &cols[size_t(r * w)] + w, a + r * n + c0);
  });
}

}  // namespace

void transpose_inplace(void* data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch) {
  if (rows <= 1 || cols <= 1) return;  // a row or a column is its own transpose
  with_elem_bytes(elem_bytes, [&](auto e) {
    using T = Bytes<decltype(e)::value>;
    T* const base = static_cast<T*>(data);
    const layout::InplaceShape s = layout::inplace_shape(rows, cols);
    for (int64_t k = 0; k < batch; ++k) {
      T* const a = base + k * rows * cols;
      if (rows == cols)
        square(a, rows);
      else
        rectangle(a, s);
    }
  });
}

}  // namespace xpose::cpu
