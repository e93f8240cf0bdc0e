// Simulated ranks for the distributed transpose: a random split of a random batch of
// matrices over P ranks, each rank's src (random) and dst (poisoned, guarded, padded rows)
// as host images, the dst each rank must end with (an element model of A^T, independent of
// the schedule), and the loopback exchange that matches one step's sends with its receives.
// The CPU test runs the ranks on host memory, the GPU test on one GPU's memory.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/testing.hpp"
#include "xpose/distributed.hpp"

namespace xpose::testing {

struct RandomSplit {
  int nranks = 1;
  std::vector<int64_t> row_offsets, col_offsets;
  int64_t batch = 1, elem_bytes = 4;
  std::vector<int64_t> ld_src, ld_dst;  // per rank (each rank pads its own rows)
  dist::Options options;

  int64_t rows() const { return row_offsets.back(); }
  int64_t cols() const { return col_offsets.back(); }
  int64_t my_rows(int p) const { return row_offsets[size_t(p) + 1] - row_offsets[size_t(p)]; }
  int64_t my_cols(int p) const { return col_offsets[size_t(p) + 1] - col_offsets[size_t(p)]; }
  dist::Split split(int p) const {
    return {row_offsets, col_offsets, batch, elem_bytes, ld_src[size_t(p)], ld_dst[size_t(p)]};
  }
  std::string text() const {
    std::string t = std::to_string(nranks) + " ranks, " + std::to_string(batch) + " x " + std::to_string(rows()) + "x" +
                    std::to_string(cols()) + " of " + std::to_string(elem_bytes) + " bytes, max_steps " +
                    std::to_string(options.max_steps) + ", step_bytes " + std::to_string(options.step_bytes) + ", rows";
    for (int64_t v : row_offsets) t += " " + std::to_string(v);
    t += ", cols";
    for (int64_t v : col_offsets) t += " " + std::to_string(v);
    return t;
  }
};

// Offsets of `total` over `n` ranks, uneven and sometimes empty.
inline std::vector<int64_t> random_offsets(std::mt19937_64& rng, int n, int64_t total) {
  std::vector<int64_t> cuts{0, total};
  for (int i = 1; i < n; ++i) cuts.push_back(total ? int64_t(rng() % uint64_t(total + 1)) : 0);
  std::sort(cuts.begin(), cuts.end());
  if (rng() % 3 == 0) {  // often an even split instead
    for (int i = 0; i <= n; ++i) cuts[size_t(i)] = total * i / n;
  }
  return cuts;
}

inline RandomSplit draw_split(std::mt19937_64& rng, int max_ranks, int64_t max_dim) {
  static const int64_t sizes[] = {1, 2, 4, 8, 16};
  RandomSplit s;
  s.nranks = 1 + int(rng() % uint64_t(max_ranks));
  s.elem_bytes = sizes[rng() % 5];
  s.batch = 1 + int64_t(rng() % 3);
  const int64_t rows = int64_t(rng() % uint64_t(max_dim + 1)), cols = int64_t(rng() % uint64_t(max_dim + 1));
  s.row_offsets = random_offsets(rng, s.nranks, rows);
  s.col_offsets = random_offsets(rng, s.nranks, cols);
  for (int p = 0; p < s.nranks; ++p) {
    s.ld_src.push_back(rng() % 2 ? 0 : cols + int64_t(rng() % 5));
    s.ld_dst.push_back(rng() % 2 ? 0 : rows + int64_t(rng() % 5));
  }
  // Small steps, so that small blocks are cut too (0: the defaults).
  s.options.max_steps = int(rng() % 6);
  s.options.step_bytes = rng() % 4 ? int64_t(1 + rng() % 512) : 0;
  return s;
}

// One rank's buffers as host images: src (random) and dst with guard bands, poisoned.
struct RankImages {
  std::vector<uint8_t> src, dst, want;  // dst and want: guard | dst span | guard
};

// Builds every rank's images; `want` is the element model of A^T's rows on that rank.
inline std::vector<RankImages> make_rank_images(const RandomSplit& s, const std::vector<dist::Plan>& plans,
                                                uint64_t seed) {
  const int64_t E = s.elem_bytes;
  std::vector<RankImages> ranks(size_t(s.nranks));
  for (int p = 0; p < s.nranks; ++p) {
    ranks[size_t(p)].src.resize(size_t(plans[size_t(p)].src_bytes()));
    fill_random(ranks[size_t(p)].src, seed + uint64_t(p));
    ranks[size_t(p)].dst.assign(guard_bytes + size_t(plans[size_t(p)].dst_bytes()) + guard_bytes, poison);
    ranks[size_t(p)].want = ranks[size_t(p)].dst;
  }
  const auto ld = [](int64_t given, int64_t packed) { return given ? given : packed; };
  for (int p = 0; p < s.nranks; ++p) {  // the rank holding A's row i
    const int64_t lds = ld(s.ld_src[size_t(p)], s.cols());
    for (int q = 0; q < s.nranks; ++q) {  // the rank holding A^T's row c
      const int64_t ldd = ld(s.ld_dst[size_t(q)], s.rows());
      for (int64_t b = 0; b < s.batch; ++b)
        for (int64_t i = s.row_offsets[size_t(p)]; i < s.row_offsets[size_t(p) + 1]; ++i)
          for (int64_t c = s.col_offsets[size_t(q)]; c < s.col_offsets[size_t(q) + 1]; ++c) {
            const int64_t from = (b * s.my_rows(p) + i - s.row_offsets[size_t(p)]) * lds + c;
            const int64_t to = (b * s.my_cols(q) + c - s.col_offsets[size_t(q)]) * ldd + i;
            std::memcpy(&ranks[size_t(q)].want[guard_bytes + size_t(to * E)], &ranks[size_t(p)].src[size_t(from * E)],
                        size_t(E));
          }
    }
  }
  return ranks;
}

// The receive of `to` that matches `from`'s message `m` of step `step`: same peers, same
// length; nullptr (with a test failure) where the schedules disagree.
inline const dist::Message* matching_recv(const std::vector<dist::Plan>& plans, int step, int from,
                                          const dist::Message& m) {
  for (const dist::Message& r : plans[size_t(m.peer)].recvs(step))
    if (r.peer == from) {
      EXPECT_EQ(m.bytes, r.bytes) << "step " << step << ": rank " << from << " sends " << m.bytes << " bytes to rank "
                                  << m.peer << ", which expects " << r.bytes;
      EXPECT_EQ(m.padded, r.padded);
      return m.bytes == r.bytes ? &r : nullptr;
    }
  ADD_FAILURE() << "step " << step << ": rank " << from << " sends to rank " << m.peer << ", which receives nothing";
  return nullptr;
}

// A 256-byte aligned host buffer.
struct AlignedBuffer {
  explicit AlignedBuffer(size_t bytes) : storage(bytes + 256, poison) {}
  uint8_t* data() {
    return storage.data() + (256 - reinterpret_cast<uintptr_t>(storage.data()) % 256) % 256;
  }
  std::vector<uint8_t> storage;
};

}  // namespace xpose::testing
