// Random N-D permutations for the tests, and an element-by-element model of what one
// writes: rank 1-8, odd extents (some of one index), every element size, src strides dense,
// padded or with broadcast axes, dst strides dense or padded.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace xpose::testing {

struct RandomPermutation {
  std::vector<int64_t> extents;
  std::vector<int> perm;
  std::vector<int64_t> src_strides, dst_strides;  // as passed: empty means dense
  int64_t elem_bytes = 1;

  int rank() const { return int(extents.size()); }
  std::vector<int64_t> dst_extents() const {
    std::vector<int64_t> d(extents.size());
    for (size_t k = 0; k < d.size(); ++k) d[k] = extents[size_t(perm[k])];
    return d;
  }
  // The strides in force: as given, else dense row-major.
  std::vector<int64_t> src_in_force() const { return src_strides.empty() ? dense(extents) : src_strides; }
  std::vector<int64_t> dst_in_force() const { return dst_strides.empty() ? dense(dst_extents()) : dst_strides; }
  int64_t src_span_elements() const { return span(extents, src_in_force()); }
  int64_t dst_span_elements() const { return span(dst_extents(), dst_in_force()); }
  const int64_t* src_or_null() const { return src_strides.empty() ? nullptr : src_strides.data(); }
  const int64_t* dst_or_null() const { return dst_strides.empty() ? nullptr : dst_strides.data(); }

  // What a correct call writes: every index, by a counter, at the offsets the strides say.
  void model(const uint8_t* src, uint8_t* dst) const {
    const std::vector<int64_t> s_str = src_in_force(), d_str = dst_in_force();
    std::vector<int64_t> index(extents.size(), 0);
    int64_t total = 1;
    for (int64_t e : extents) total *= e;
    for (int64_t n = 0; n < total; ++n) {
      int64_t s = 0, d = 0;
      for (size_t k = 0; k < extents.size(); ++k) {
        s += index[size_t(perm[k])] * s_str[size_t(perm[k])];
        d += index[size_t(perm[k])] * d_str[k];
      }
      std::memcpy(dst + d * elem_bytes, src + s * elem_bytes, size_t(elem_bytes));
      for (int i = rank() - 1; i >= 0 && ++index[size_t(i)] == extents[size_t(i)]; --i) index[size_t(i)] = 0;
    }
  }

  std::string text() const {
    const auto list = [](const auto& v) {
      std::string t = "(";
      for (size_t i = 0; i < v.size(); ++i) t += (i ? "," : "") + std::to_string(v[i]);
      return t + ")";
    };
    return std::to_string(elem_bytes) + "-byte extents " + list(extents) + " perm " + list(perm) + " src strides " +
           (src_strides.empty() ? "dense" : list(src_strides)) + " dst strides " +
           (dst_strides.empty() ? "dense" : list(dst_strides));
  }

  static std::vector<int64_t> dense(const std::vector<int64_t>& extents) {
    std::vector<int64_t> s(extents.size(), 1);
    for (int i = int(extents.size()) - 2; i >= 0; --i) s[size_t(i)] = s[size_t(i) + 1] * extents[size_t(i) + 1];
    return s;
  }
  static int64_t span(const std::vector<int64_t>& extents, const std::vector<int64_t>& strides) {
    int64_t last = 0;
    for (size_t i = 0; i < extents.size(); ++i) last += (extents[i] - 1) * strides[i];
    return last + 1;
  }
};

// Strides that nest in row-major order, each past what the inner ones span, plus a random pad
// (0-2 times `pad_unit` elements; with a unit above 1, never on the innermost axis) where `pad`; `broadcast` is the chance an axis gets stride 0.
inline std::vector<int64_t> nested_strides(const std::vector<int64_t>& extents, std::mt19937_64& rng, bool pad,
                                           double broadcast, int64_t pad_unit = 1) {
  std::vector<int64_t> strides(extents.size());
  int64_t reach = 1;
  for (int axis = int(extents.size()) - 1; axis >= 0; --axis) {
    const bool zero = std::uniform_real_distribution<>(0, 1)(rng) < broadcast;
    const bool padded = pad && !(pad_unit > 1 && reach == 1);  // whole-vector pads keep the innermost axis contiguous
    strides[size_t(axis)] = zero ? 0 : reach + (padded ? int64_t(rng() % 3) * pad_unit : 0);
    if (!zero) reach = strides[size_t(axis)] * extents[size_t(axis)];
  }
  return strides;
}

// `max_elements` bounds the element count (extents of 1 or 2 beyond it). `vectors`: extents
// that are mostly whole 16-byte vectors of the element (short and long, one off and many off
// a 32- or 64-element tile) and pads of whole vectors, the shapes permute_vec_tiled serves.
// A batched transpose as the permutation it is: (batch, rows, cols) -> (batch, cols, rows),
// src rows `ld_src` apart and matrices `stride_src` apart, dst likewise.
inline RandomPermutation transpose_as_permutation(int64_t batch, int64_t rows, int64_t cols, int64_t ld_src,
                                                 int64_t ld_dst, int64_t elem_bytes) {
  RandomPermutation r;
  r.extents = {batch, rows, cols};
  r.perm = {0, 2, 1};
  r.src_strides = {rows * ld_src, ld_src, 1};
  r.dst_strides = {cols * ld_dst, ld_dst, 1};
  r.elem_bytes = elem_bytes;
  return r;
}

inline RandomPermutation draw_permutation(std::mt19937_64& rng, int64_t max_elements = 4000, bool vectors = false) {
  RandomPermutation r;
  const int rank = vectors ? 2 + int(rng() % 5) : 1 + int(rng() % 8);
  r.elem_bytes = int64_t(1) << (rng() % 5);
  const int64_t vec = 16 / r.elem_bytes;
  const int64_t multiples[] = {1, 2, 3, 4, 5, 8, 9};  // vectors along an axis
  int64_t total = 1;
  for (int i = 0; i < rank; ++i) {
    int64_t e = total > max_elements ? 1 + int64_t(rng() % 2) : (rng() % 4 == 0 ? 1 : 1 + int64_t(rng() % 9));
    if (vectors && total <= max_elements && rng() % 3) e = vec * multiples[rng() % 7];
    r.extents.push_back(e);
    total *= e;
  }
  r.perm.resize(size_t(rank));
  std::iota(r.perm.begin(), r.perm.end(), 0);
  std::shuffle(r.perm.begin(), r.perm.end(), rng);
  const int mode = int(rng() % 4);  // 0 dense, 1 nested, 2 padded, 3 padded with broadcast axes
  if (mode >= 1) r.src_strides = nested_strides(r.extents, rng, mode >= 2, mode == 3 ? 0.3 : 0.0, vectors ? vec : 1);
  if (rng() % 2) r.dst_strides = nested_strides(r.dst_extents(), rng, true, 0.0, vectors ? vec : 1);
  return r;
}

// 16-byte elements for the tests of an 8-byte boundary: a batched transpose with padded rows
// and sides up to `side` (as_transpose), else a random permutation of up to `max_elements`.
inline RandomPermutation draw_sixteen_byte_case(std::mt19937_64& rng, bool as_transpose, int64_t side,
                                               int64_t max_elements) {
  if (as_transpose) {
    const int64_t rows = 1 + int64_t(rng() % uint64_t(side)), cols = 1 + int64_t(rng() % uint64_t(side));
    return transpose_as_permutation(1 + int64_t(rng() % 3), rows, cols, cols + int64_t(rng() % 3),
                                    rows + int64_t(rng() % 3), 16);
  }
  RandomPermutation r = draw_permutation(rng, max_elements, false);
  r.elem_bytes = 16;
  return r;
}

}  // namespace xpose::testing
