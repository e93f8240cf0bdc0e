// tiny_batched's index math: a batch of dense matrices (ld = extent, batch stride = matrix
// size) of at most max_bytes each, cut into chunks of whole matrices. The src and dst of a
// chunk cover the same element range of the batch, so a block stages the chunk's src in
// shared memory and writes its dst in order, gathering each element from the staged src.
#pragma once

#include <cstdint>
#include <numeric>

#include "layout/fast_divmod.hpp"
#include "layout/grid.hpp"
#include "layout/hd.hpp"

namespace xpose::layout {

struct TinyBatch {
  // max_bytes: the largest matrix the kernel takes (two to a chunk); the automatic choice sends
  // it matrices of up to small_bytes, and 2- and 4-byte ones up to max_bytes where the tile
  // kernels' tiles would stand mostly empty (tiles_mostly_empty).
  static constexpr int chunk_bytes = 16384, max_bytes = 8192, small_bytes = 4096, threads = 256;

  // Whether a rows x cols matrix fills less than 3/4 of the 32x64-element tiles that cover it.
  // Measured on the H100 (batches of 2000 and 20000, tiny_batched against the tile kernels;
  // docs/performance.md, rule tiny_batch): ahead or level where the tiles fill half or less (fp16
  // 33x100, fill 0.40; fp32 33x33, 0.27; fp32 25x80, 0.49), behind where they fill (fp16
  // 64x63 and fp32 32x63, 0.98).
  // Extents past 2^20 (never a tiny matrix) are not asked about: false, without overflow.
  static constexpr bool tiles_mostly_empty(int64_t rows, int64_t cols) {
    if (rows > (int64_t(1) << 20) || cols > (int64_t(1) << 20)) return false;
    return 4 * rows * cols < 3 * (ceil_div(rows, 32) * 32) * (ceil_div(cols, 64) * 64);
  }

  // Matrices of n elements of e bytes per chunk: as many as fit, rounded down so that the
  // chunk is a whole number of 16-byte vectors when at least one matrix is left (then
  // every chunk starts on a vector wherever the batch does).
  static constexpr int64_t matrices_per_chunk(int64_t n, int e, int64_t bytes = chunk_bytes) {
    const int64_t fit = bytes / (n * e), vec = 16 / e, step = vec / std::gcd(n, vec);
    return fit >= step ? fit - fit % step : fit;
  }

  // The src indices of consecutive dst indices from t on, without a division per element: one
  // src_of_dst's divisions for the first, then a step down the dst row (r + 1), wrapping to the
  // next column and the next matrix.
  struct Walk {
    uint32_t q, r, c, rows, cols, n;
    XPOSE_HD Walk(uint32_t t, const FastDivmod& n_div, const FastDivmod& rows_div, uint32_t cols_)
        : rows(rows_div.divisor), cols(cols_), n(n_div.divisor) {
      uint32_t w = 0;
      q = n_div.divmod(t, &w);
      c = rows_div.divmod(w, &r);
    }
    XPOSE_HD uint32_t src() const { return q * n + r * cols + c; }
    XPOSE_HD void next() {
      if (++r == rows) {
        r = 0;
        if (++c == cols) {
          c = 0;
          ++q;
        }
      }
    }
  };

  // The swizzle of the chunk's staged src (staged_at): for 8- and 16-byte elements in src rows
  // of an even number of elements, the 128-byte row's place XORed with the row's index, else
  // none (0). A warp gathers src elements a src row apart (cols elements) for consecutive dst
  // elements: in place, rows of 2 or 4 put up to 8 lanes on one bank; odd rows spread them over
  // every bank already. H200, batches of 96 MiB (results/2026-12-01-peers-rules, s84): c128
  // +6.5 to +15 points (16x8 82 -> 97%, 46x2 86 -> 94), fp64 -0.7 to +7.5 (33x4 82 -> 89);
  // 4-byte elements -8.7 to +0.8 (the staging's selects took 34 registers, 7 blocks an SM, not
  // 8), and 1- and 2-byte ones, which the gather walks in steps (Walk), stay in place too.
  XPOSE_HD static constexpr uint32_t swizzle(int E, int64_t cols) {
    return E >= 8 && cols % 2 == 0 ? 128u / uint32_t(E) - 1 : 0u;
  }
  // Where staged src element s sits in the block's shared memory under swizzle `mask`: its
  // place in its 128-byte row XORed with the row's index (the mask: elements a row, less one).
  // A 16-byte vector of staged elements stays one aligned vector, its elements permuted by the
  // XOR's bits below the vector (vector_mask).
  XPOSE_HD static constexpr uint32_t staged_at(uint32_t s, int E, uint32_t mask) {
    return s ^ ((s / (128u / uint32_t(E))) & mask);
  }
  // Element k of the vector that holds staged element s sits at place k ^ vector_mask of the
  // vector's place.
  XPOSE_HD static constexpr uint32_t vector_mask(uint32_t s, int E, uint32_t mask) {
    return (s / (128u / uint32_t(E))) & mask & uint32_t(16 / E - 1);
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
