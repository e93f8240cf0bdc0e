// tiny_batched's index math: a batch of dense matrices (ld = extent, batch stride = matrix
// size) of at most max_bytes each, cut into chunks of whole matrices. The src and dst of a
// chunk cover the same element range of the batch, so a block stages the chunk's src in
// shared memory and writes its dst in order, gathering each element from the staged src.
#pragma once

#include <cstdint>
#include <numeric>

#include "layout/fast_divmod.hpp"
#include "layout/hd.hpp"

namespace xpose::layout {

struct TinyBatch {
  static constexpr int chunk_bytes = 16384, max_bytes = 4096, threads = 256;

  // Matrices of n elements of e bytes per chunk: as many as fit, rounded down so that the
  // chunk is a whole number of 16-byte vectors when at least one matrix is left (then
  // every chunk starts on a vector wherever the batch does).
  static constexpr int64_t matrices_per_chunk(int64_t n, int e, int64_t bytes = chunk_bytes) {
    const int64_t fit = bytes / (n * e), vec = 16 / e, step = vec / std::gcd(n, vec);
    return fit >= step ? fit - fit % step : fit;
  }

  // The chunk-local src index of chunk-local dst index t, for matrices of rows x cols (n =
  // rows * cols; n and rows as FastDivmods): t is element (w / rows, w % rows) of dst matrix
  // q = t / n (w = t % n), which is src element (w % rows, w / rows).
  XPOSE_HD static uint32_t src_of_dst(uint32_t t, const FastDivmod& n, const FastDivmod& rows, uint32_t cols) {
    uint32_t w = 0, r = 0;
    const uint32_t q = n.divmod(t, &w), c = rows.divmod(w, &r);
    return q * n.divisor + r * cols + c;
  }
};

}  // namespace xpose::layout
