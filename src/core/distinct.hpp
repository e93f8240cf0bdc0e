// Whether a strided layout gives every index an element of its own (the validation of a dst
// layout: core, shared by the checks of every request). The axes (extent n_i,
// stride s_i >= 0, in elements) address offset sum(s_i * x_i) for 0 <= x_i < n_i; two indices
// share an element exactly when some d != 0 with |d_i| <= n_i - 1 has sum(s_i * d_i) == 0, a
// bounded linear Diophantine equation. Layouts that nest (sorted by stride, each stride clears
// what the smaller ones span) are distinct at once; the others are searched, depth first from
// the largest stride, with the reach of the axes left and their gcd as bounds, for at most
// `budget` steps (NumPy decides internal overlap the same way, with a work bound). A search
// that runs out says so: the layout may be distinct but was not proven so.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace xpose::detail {

enum class Distinct { yes, no, unknown };

struct DistinctAnswer {
  Distinct verdict = Distinct::yes;
  // Where verdict is no: two indices at one element, by input axis (first[i], second[i]).
  int64_t first[16] = {}, second[16] = {};
};

namespace detail_distinct {

struct Axis {
  int64_t extent, stride;
  int at;  // the input axis
};

struct Search {
  const Axis* axes;
  int n;
  const int64_t* reach;  // reach[k]: sum of stride * (extent - 1) over axes k.. (saturated)
  const int64_t* gcd;    // gcd[k]: gcd of the strides of axes k..
  int64_t* d;
  int64_t steps, budget;

  // Is there d[k..] with partial + sum(s_j d_j) == 0 and (not all zero where all before are)?
  // -1: out of budget.
  int find(int k, int64_t partial, bool nonzero) {
    if (++steps > budget) return -1;
    const Axis& a = axes[k];
    if (k == n - 1) {  // the last axis decides alone: s * d == -partial
      if (partial % a.stride) return 0;
      const int64_t v = -partial / a.stride;
      if (v < -(a.extent - 1) || v > a.extent - 1 || (!nonzero && v <= 0)) return 0;
      d[k] = v;
      return 1;
    }
    // s * v + partial must land within what the axes after k reach, and on their gcd.
    const int64_t r = reach[k + 1];
    int64_t lo = -(a.extent - 1), hi = a.extent - 1;
    if (!nonzero) lo = 0;  // the first nonzero entry of d is positive (d and -d are one answer)
    // v >= ceil((-r - partial) / s), v <= floor((r - partial) / s), each in 128 bits.
    const auto floor_div = [](__int128 x, int64_t y) { return x >= 0 ? x / y : -((-x + y - 1) / y); };
    lo = int64_t(std::max<__int128>(lo, -floor_div(__int128(r) + partial, a.stride)));
    hi = int64_t(std::min<__int128>(hi, floor_div(__int128(r) - partial, a.stride)));
    for (int64_t v = lo; v <= hi; ++v) {
      if (++steps > budget) return -1;
      const int64_t next = partial + a.stride * v;  // |next| <= r: no overflow
      if (next % gcd[k + 1]) continue;
      d[k] = v;
      const int found = find(k + 1, next, nonzero || v != 0);
      if (found) return found;
    }
    return 0;
  }
};

}  // namespace detail_distinct

inline DistinctAnswer distinct_elements(int rank, const int64_t* extents, const int64_t* strides,
                                        int64_t budget = int64_t(1) << 16) {
  using detail_distinct::Axis;
  DistinctAnswer out;
  Axis axes[16];
  int n = 0;
  for (int i = 0; i < rank && i < 16; ++i) {
    if (extents[i] == 0) return out;  // no elements at all
    if (extents[i] > 1) axes[n++] = {extents[i], strides[i], i};
  }
  // An axis of stride 0 repeats its element.
  for (int k = 0; k < n; ++k)
    if (axes[k].stride == 0) {
      out.verdict = Distinct::no;
      out.second[axes[k].at] = 1;
      return out;
    }
  std::sort(axes, axes + n, [](const Axis& a, const Axis& b) { return a.stride > b.stride; });
  // Nested, smallest stride first: each stride clears what the smaller ones span.
  int64_t span = 1;
  bool nested = true;
  for (int k = n - 1; k >= 0 && nested; --k) {
    int64_t step;
    nested = axes[k].stride >= span && !__builtin_mul_overflow(axes[k].extent - 1, axes[k].stride, &step) &&
             !__builtin_add_overflow(span, step, &span);
  }
  if (nested) return out;

  const int64_t saturated = INT64_MAX / 4;  // above any offset a valid layout reaches
  int64_t reach[17], gcd[17], d[16] = {};
  reach[n] = 0;
  gcd[n] = 0;
  for (int k = n - 1; k >= 0; --k) {
    int64_t step;
    if (__builtin_mul_overflow(axes[k].extent - 1, axes[k].stride, &step) || step > saturated) step = saturated;
    reach[k] = std::min(saturated, reach[k + 1] + step);
    gcd[k] = std::gcd(gcd[k + 1], axes[k].stride);
  }
  detail_distinct::Search search{axes, n, reach, gcd, d, 0, budget};
  const int found = search.find(0, 0, false);
  if (found < 0) {
    out.verdict = Distinct::unknown;
    return out;
  }
  if (found > 0) {
    out.verdict = Distinct::no;
    for (int k = 0; k < n; ++k) {
      out.first[axes[k].at] = std::max<int64_t>(d[k], 0);
      out.second[axes[k].at] = std::max<int64_t>(-d[k], 0);
    }
  }
  return out;
}

}  // namespace xpose::detail
