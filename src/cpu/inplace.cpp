#include "cpu/inplace.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <numeric>
#include <thread>
#include <utility>
#include <vector>

#include "cpu/micro_kernels.hpp"
#include "cpu/parallel.hpp"
#include "layout/inplace.hpp"

namespace xpose::cpu {
namespace {

template <int E>
struct Bytes {
  unsigned char b[E];
};

// Columns a thread rotates at once in pass 3a: 128 bytes of them, 16 at least (8 of fp64 ran
// 30011x2999 in 532 against 412 ms; 64 bytes of u8 took 6337x26368's pass 130-150 against
// 95-115 ms, this machine: a page walk a row of the strip).
constexpr int64_t kColumnBytes = 128, kMinColumns = 16;

// Tile row ti of a square side x side block (rows ld apart) turned in place: its tiles of
// kTile<T> a side (256 bytes, 32 elements at least: 32 x 32 had taken u8 16384^2 in 92 against 60
// ms, fp32 8192^2 40 against 31, this machine) (ti, tj >= ti) swapped with (tj, ti) across the
// diagonal, each turned by the micro-kernels (tile (ti, tj) into scratch, (tj, ti) turned into its
// place, the scratch into (tj, ti)'s).
template <class T>
constexpr int64_t kTile = std::max<int64_t>(32, 256 / int64_t(sizeof(T)));
template <class T>
void turn_tile_row(T* a, int64_t side, int64_t ld, int64_t ti, const Micro& micro) {
  const int64_t tiles = (side + kTile<T> - 1) / kTile<T>, i0 = ti * kTile<T>, h = std::min(kTile<T>, side - i0);
  T scratch[kTile<T> * kTile<T>];
  for (int64_t tj = ti; tj < tiles; ++tj) {
    const int64_t j0 = tj * kTile<T>, w = std::min(kTile<T>, side - j0);
    T* const upper = a + i0 * ld + j0;  // h x w
    T* const lower = a + j0 * ld + i0;  // w x h
    transpose_block(upper, ld, scratch, kTile<T>, h, w, micro);  // w x h
    if (tj != ti) transpose_block(lower, ld, upper, ld, w, h, micro);
    for (int64_t r = 0; r < w; ++r) std::copy(scratch + r * kTile<T>, scratch + r * kTile<T> + h, lower + r * ld);
  }
}

// A square matrix: (i, j) and (j, i) swapped, in tile pairs across the diagonal.
template <class T>
void square(T* a, int64_t n) {
  const Micro micro = micro_kernel(int64_t(sizeof(T)));
  const int64_t tiles = (n + kTile<T> - 1) / kTile<T>;
  for_each_item(tiles, n * n, int64_t(1) << 16, [&](int64_t ti) { turn_tile_row(a, n, n, ti, micro); });
}

// Units of `size` elements (unit u at a + u size, u < count) moved along the cycles of the
// permutation that sends unit u's contents to unit destination(u), on every core, as the GPU's
// chains (engines/inplace/chains.cuh) without their rounds: a thread walks from each start of its
// share, claiming each unit it reaches and reading it before it writes what it carries there; a
// unit claimed before is another walk's start, whose contents that walk carries on: the thread
// waits until they are read, writes over them and stops. Every unit is read once, by its
// claimer, before anything is written over it, and written once.
template <class T, class Destination>
void move_along_cycles(T* a, int64_t count, int64_t size, const Destination& destination) {
  constexpr uint8_t kClaimed = 1, kRead = 2;
  std::unique_ptr<std::atomic<uint8_t>[]> state(new std::atomic<uint8_t>[size_t(count)]);
  for (int64_t u = 0; u < count; ++u) state[size_t(u)].store(0, std::memory_order_relaxed);
  constexpr int64_t kStarts = 1024;  // starts an item
  for_each_item((count + kStarts - 1) / kStarts, count * size, int64_t(1) << 16, [&](int64_t item) {
    static thread_local std::vector<T> carried, next;
    carried.resize(size_t(size)), next.resize(size_t(size));
    const auto claim = [&](int64_t u, std::vector<T>& into) {  // whether u's contents are now in `into`
      std::atomic<uint8_t>& at = state[size_t(u)];
      if (at.fetch_or(kClaimed, std::memory_order_acq_rel) & kClaimed) return false;
      std::copy(a + u * size, a + u * size + size, into.begin());
      at.fetch_or(kRead, std::memory_order_release);
      return true;
    };
    for (int64_t p = item * kStarts; p < std::min(count, (item + 1) * kStarts); ++p) {
      if (state[size_t(p)].load(std::memory_order_relaxed) & kClaimed || destination(p) == p || !claim(p, carried))
        continue;
      for (int64_t u = destination(p);; u = destination(u)) {
        const bool won = claim(u, next);
        if (!won)
          while (!(state[size_t(u)].load(std::memory_order_acquire) & kRead)) std::this_thread::yield();
        std::copy(carried.begin(), carried.end(), a + u * size);
        if (!won) break;
        std::swap(carried, next);
      }
    }
  });
}

// Sides sharing kUnitBytes or more (g x elem_bytes): the GPU's tiles path (layout/inplace.hpp's
// blocks and units): each of the a x b blocks of g x g turned in place, then the rows of g
// elements (units) moved along their permutation's cycles (move_along_cycles). Both passes
// move whole rows of g; the rows-and-columns passes' column rotation moves single elements down
// columns.
constexpr int64_t kUnitBytes = 512;  // 128-256-byte units ran slower this way (fp32 3008x1984: 11.8 -> 16.0 ms)
template <class T>
void units(T* a, const layout::InplaceShape& s) {
  const int64_t g = s.c, tiles = (g + kTile<T> - 1) / kTile<T>, blocks = s.a * s.b, count = layout::unit_count(s);
  const Micro micro = micro_kernel(int64_t(sizeof(T)));
  for_each_item(blocks * tiles, s.m * s.n, int64_t(1) << 16, [&](int64_t item) {
    turn_tile_row(a + layout::block_origin(s, item / tiles), g, s.n, item % tiles, micro);
  });
  move_along_cycles(a, count, g, [&](int64_t u) { return layout::unit_destination(s, u); });
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
    const int64_t cycles = std::gcd(m, k);
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
  // 2. Each row permuted within itself, through one row of scratch. 1- and 2-byte elements of
  //    coprime sides gather, four walks at once (one walk's add-compare-select chain was the
  //    limit: u8 6337x26368's pass 95-150 -> 75-82 ms, this machine; fp32 and fp64 no faster);
  //    others scatter along RowWalk.
  const bool gather = b == n && sizeof(T) <= 2;
  const int64_t inv = gather ? layout::inverse_mod(m % n, n) : 0;
  for_each_item(m, m * n, int64_t(1) << 16, [&](int64_t i) {
    static thread_local std::vector<T> row;
    row.resize(size_t(n));
    T* const r = a + i * n;
    T* const to = row.data();
    layout::RowWalk walk(s, i);
    if (gather) {
      constexpr int kWalks = 4;
      const int64_t cols = n, step = inv, q = cols / kWalks;  // locals: byte stores may alias the rest
      int64_t j[kWalks];
      for (int w = 0; w < kWalks; ++w) j[w] = layout::coprime_row_source(s, step, walk.destination, w * q);
      for (int64_t t = 0; t < q; ++t)
        for (int w = 0; w < kWalks; ++w) {
          to[w * q + t] = r[j[w]];
          j[w] += step;
          j[w] = j[w] >= cols ? j[w] - cols : j[w];
        }
      // The last walk goes on (its step written out again: a lambda shared by both loops ran u8
      // 6337x26368 about 10% slower on this machine, 2026-11-29).
      for (int64_t x = kWalks * q, k = j[kWalks - 1]; x < cols; ++x) {
        to[x] = r[k];
        k += step;
        k = k >= cols ? k - cols : k;
      }
    } else {
      for (int64_t k = 0; k < n; ++k, walk.next()) to[walk.destination] = r[k];
    }
    std::copy(to, to + n, r);
  });
  // 3a. Column c moves up by c rows, kColumnBytes of columns or more at a time through a strip of
  //     scratch: row r takes the strip's diagonal from row (r + c0) mod m, in two runs (before
  //     and after it wraps), through local pointers (the compiler reloaded them for every
  //     element: u8 6337x26368's pass ran at a byte per 8 instructions).
  const int64_t w_full = std::max(kMinColumns, kColumnBytes / int64_t(sizeof(T))), blocks = (n + w_full - 1) / w_full;
  for_each_item(blocks, m * n, int64_t(1) << 16, [&](int64_t blk) {
    static thread_local std::vector<T> scratch;
    const int64_t c0 = blk * w_full, w = std::min(w_full, n - c0);
    scratch.resize(size_t(m * w));
    T* const strip = scratch.data();
    for (int64_t r = 0; r < m; ++r) std::copy(a + r * n + c0, a + r * n + c0 + w, strip + r * w);
    for (int64_t r = 0; r < m; ++r) {
      T* const out = a + r * n + c0;
      const int64_t from = (r + c0) % m, run = std::min(w, m - from);  // row from + x of column x
      const T* const first = strip + from * w;
      for (int64_t x = 0; x < run; ++x) out[x] = first[x * (w + 1)];
      const T* const wrapped = strip + run;  // row x - run of column x
      for (int64_t x = run; x < w; ++x) out[x] = wrapped[(x - run) * (w + 1)];
    }
  });
  // 3b. Whole rows permuted (row r takes row row_from(r): row x goes to row_to(x)).
  const int64_t b_inverse = layout::inverse_mod(s.b, s.a);
  move_along_cycles(a, m, n, [&](int64_t x) { return layout::row_to(s, b_inverse, x); });
}

// The CPU's blocks: pieces of 512 bytes to 8 KiB, blocks of about 1 MiB where that allows (the
// GPU's pieces of 32-512 bytes, sized for its shared memory, spent the CPU's time on a claim and
// a short copy a piece: u8 5001x20011 210 -> 82 ms, u8 22369623x3 55 -> 28, fp16 1915x17663x2 74
// -> 36, this 2-core machine); matrices of narrow_whole_bytes or less one block, as the GPU's.
constexpr int64_t kCpuBlockBytes = 1 << 20, kCpuMinPiece = 512, kCpuMaxPiece = 8 << 10;
inline int64_t cpu_block_rows(int64_t rows, int64_t cols, int64_t elem_bytes) {
  const int64_t m = std::max(rows, cols), k = std::min(rows, cols);
  if (m * k * elem_bytes <= layout::narrow_whole_bytes) return 0;  // narrow_shape's choice: one block
  const int64_t piece = std::clamp(kCpuBlockBytes / k / 16 * 16, kCpuMinPiece, kCpuMaxPiece);
  return std::clamp<int64_t>(piece / elem_bytes, 1, std::max<int64_t>(1, m / 8));
}

// A narrow matrix (a side of layout::narrow_max_side(E) elements or fewer): the passes of
// layout::NarrowShape, as the GPU's narrow path takes them. Tall m x k: the last r rows aside,
// each block of b x k turned (in parallel), the q x k pieces of b elements moved along their
// cycles (move_along_cycles), rows 1 .. k - 1
// spread apart from the last, the last rows into place; wide: each undone, in reverse order.
template <class T>
void narrow(T* a, int64_t rows, int64_t cols) {
  const bool inverse = rows < cols;
  const int64_t E = int64_t(sizeof(T));
  const layout::NarrowShape s = layout::narrow_shape(rows, cols, E, cpu_block_rows(rows, cols, E));
  const int64_t m = s.m, k = s.k, b = s.b, q = s.q, r = s.r, whole = q * b * k;
  std::vector<T> aside(size_t(r * k));
  const Micro micro = micro_kernel(E);
  const auto turn = [&](int64_t R, int64_t C) {  // each block R x C -> C x R
    for_each_item(q, whole, int64_t(1) << 16, [&](int64_t i) {
      static thread_local std::vector<T> tile;
      tile.resize(size_t(b * k));
      T* const block = a + i * b * k;
      transpose_block(block, C, tile.data(), R, R, C, micro);
      std::copy(tile.begin(), tile.end(), block);
    });
  };
  const auto pieces = [&] {
    if (q <= 1) return;  // a 1 x k transposition moves nothing
    const layout::InplaceShape p = layout::narrow_pieces(s, inverse);
    move_along_cycles(a, q * k, b, [&](int64_t u) { return layout::unit_destination(p, u); });
  };
  const auto spread = [&] {  // row c (c >= 1) of the k x q b array between c q b and c m
    if (inverse)
      for (int64_t c = 1; c < k; ++c) std::memmove(a + c * q * b, a + c * m, size_t(q * b) * sizeof(T));
    else
      for (int64_t c = k - 1; c >= 1; --c) std::memmove(a + c * m, a + c * q * b, size_t(q * b) * sizeof(T));
  };
  const auto last_rows = [&](bool to_aside) {  // element (x, c) of them at c m + q b + x
    for (int64_t c = 0; c < k; ++c)
      for (int64_t x = 0; x < r; ++x) {
        T& at = a[c * m + q * b + x];
        if (to_aside)
          aside[size_t(x * k + c)] = at;
        else
          at = aside[size_t(x * k + c)];
      }
  };
  if (!inverse) {
    std::copy(a + whole, a + m * k, aside.begin());
    turn(b, k);
    pieces();
    spread();
    last_rows(false);
  } else {
    last_rows(true);
    spread();
    pieces();
    turn(k, b);
    std::copy(aside.begin(), aside.end(), a + whole);
  }
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
      else if (std::min(rows, cols) <= layout::narrow_max_side(int64_t(sizeof(T))))
        narrow(a, rows, cols);
      else if (s.c * int64_t(sizeof(T)) >= kUnitBytes)
        units(a, s);
      else
        rectangle(a, s);
    }
  });
}

}  // namespace xpose::cpu
