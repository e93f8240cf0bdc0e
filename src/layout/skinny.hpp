// The skinny transpose's index math: a matrix with a short side of S elements (S <= 8)
// and a long side. Its two sides are a set of S "lines" (rows of the long side, ld apart)
// and a "dense" run where the S elements of each long-side index lie next to each other:
//   interleave    (S x N -> N x S): src rows are the lines, dst is the dense run
//   de-interleave (N x S -> S x N): src is the dense run, dst rows are the lines
// Element k of line i sits at dense position k * S + i. A thread moves a span of V = 16/E
// long-side indices: one 16-byte vector from each line, and S 16-byte vectors of the dense
// run, turned into each other in registers by these maps.
#pragma once

#include "layout/hd.hpp"

namespace xpose::layout {

constexpr int skinny_max = 8;  // the longest short side the skinny kernel serves

template <int S, int V>
struct SkinnySpan {
  static constexpr int lines = S, per_vector = V, dense_vectors = S;
  struct Slot { int vector, element; };
  // Where element k of line i of the span goes in the span's S dense vectors.
  XPOSE_HD static constexpr Slot dense_slot(int i, int k) { return {(k * S + i) / V, (k * S + i) % V}; }
  // Which line and element dense slot (vector q, element u) holds.
  struct LineElem { int line, k; };
  XPOSE_HD static constexpr LineElem line_of(int q, int u) { return {(q * V + u) % S, (q * V + u) / S}; }
};

// Where a block stages dense vector d (16 bytes; thread d / S's vector d % S) in shared memory.
// Unpadded, the 8 threads of a quarter-warp storing (or loading) their vector q lie S * 16
// bytes apart, and an even S puts 2 to 8 of them on one bank group (c128 8x40456 ran at 43% of a
// copy, 65% padded). Where S divides 8, one 16-byte pad follows every 8 vectors: those 8 threads
// reach 8 groups, and so do 8 consecutive dense vectors; a thread's S vectors stay together (one
// index plus constants), and so do a block's dense-order loads (for m a multiple of 8, dense
// vector m + d sits at skinny_staged(m) + skinny_staged(d)). The staging takes
// skinny_staged(S * threads) vectors. Odd S reach 8 groups as they are; S = 6 keeps 2-way
// conflicts.
template <int S>
XPOSE_HD constexpr int skinny_staged(int d) {
  if constexpr (S == 1 || 8 % S != 0)
    return d;
  else
    return d + d / 8;
}

// short_lines: the same two sides for a short side of 9 to short_lines_max_bytes bytes, too
// many lines for a thread to hold one vector of each. A block moves a span of J long-side
// indices (short_lines_span_bytes of each line) through shared memory that holds the span's
// dense run (S x J elements, S * short_lines_span_bytes bytes) in its order: the dense side as
// the run's 16-byte vectors in order; the line side as 16-byte vectors, each element placed or
// read at its dense position one by one. Interleaving, item q is vector q / S of line q % S (a
// warp's lanes take neighbouring lines and meet neighbouring bytes of the run); de-interleaving,
// a warp's lanes go along a line (item n is vector n % line_vectors of line n / line_vectors:
// the stores make whole sectors), and where the lines are not 16-byte aligned each line goes
// out as the aligned 16-byte windows it touches (window_first). The run is staged in groups of
// S vectors (one vector of each line's span), each group `pitch` vectors from the last, an odd
// number: lanes along a line read 16 * pitch bytes apart, two on a bank at most (an even S put
// them all on one).
constexpr int short_lines_max_bytes = 128;   // the longest short side, bytes
constexpr int short_lines_span_bytes = 256;  // a span's bytes of each line
constexpr int short_lines_threads = 256;

// short_lines' direction for a rows x cols matrix of E-byte elements with pitches ld_src and
// ld_dst: 1 interleave (the rows the short side, dst dense), -1 de-interleave (the columns, src
// dense), the shorter where both are; 0 neither.
XPOSE_HD constexpr int short_lines_direction(int64_t rows, int64_t cols, int64_t ld_src, int64_t ld_dst, int64_t E) {
  const auto short_side = [&](int64_t side) { return side > skinny_max && side <= short_lines_max_bytes / E; };
  const bool r = short_side(rows) && ld_dst == rows, c = short_side(cols) && ld_src == cols;
  return r && (!c || rows <= cols) ? 1 : c ? -1 : 0;
}

// Whether every matrix of a batch starts its rows on 16 bytes: the base, the pitch (0: one row
// that matters, the dense run's) and, in a batch of more than one, the batch stride.
XPOSE_HD constexpr bool rows_16_aligned(uintptr_t base, int64_t ld, int64_t batch, int64_t stride, int64_t E) {
  return base % 16 == 0 && ld * E % 16 == 0 && (batch == 1 || stride * E % 16 == 0);
}

template <int E>
struct ShortLines {
  static constexpr int V = 16 / E;                               // elements a vector
  static constexpr int J = short_lines_span_bytes / E;           // long-side indices a span
  static constexpr int line_vectors = J / V;                     // vectors a line's span
  static constexpr int max_short = short_lines_max_bytes / E;    // S at most
  static constexpr int max_items = max_short * line_vectors;     // 16-byte vectors a span, each side
  static constexpr int per_thread = max_items / short_lines_threads;
  static_assert(max_items % short_lines_threads == 0, "whole items a thread");
  // The staged run: group g (dense vectors g * S ..) at g * pitch(S) vectors; dense vector
  // g * S + c (c < S), and element u of vector v of line i (its dense position (v * V + u) * S + i).
  XPOSE_HD static constexpr int pitch(int S) { return S | 1; }
  static constexpr int max_staged = (max_short | 1) * line_vectors;  // 16-byte vectors
  XPOSE_HD static constexpr int staged_vector(int S, int g, int c) { return g * pitch(S) + c; }
  XPOSE_HD static constexpr int staged_at(int S, int i, int v, int u) { return v * pitch(S) * V + u * S + i; }
  // De-interleaving into lines that are not 16-byte aligned: a line's span, `skew` elements
  // past a 16-byte boundary, goes out as the windows, aligned 16-byte dst vectors, it touches:
  // window j holds its elements window_first(j, skew) + u (u < V), those of them in 0 .. J - 1;
  // element k of line i is staged at staged_at(S, i, k / V, k % V).
  static constexpr int windows = line_vectors + 1;
  static constexpr int max_windows = max_short * windows;
  static constexpr int window_per_thread = (max_windows + short_lines_threads - 1) / short_lines_threads;
  XPOSE_HD static constexpr int window_first(int j, int skew) { return j * V - skew; }
  // Window j's element u of line i is element V - skew + u of the line's vector j - 1 where
  // u < skew, else element u - skew of vector j: staged at window_low + u * S, plus window_gap
  // from u = skew on (the padding between groups).
  XPOSE_HD static constexpr int window_low(int S, int i, int j, int skew) {
    return (j - 1) * pitch(S) * V + (V - skew) * S + i;
  }
  XPOSE_HD static constexpr int window_gap(int S) { return (pitch(S) - S) * V; }
};

}  // namespace xpose::layout
