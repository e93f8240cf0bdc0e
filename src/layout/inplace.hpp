// In-place transposition (issue 35): a rows x cols row-major matrix becomes its cols x rows
// transpose in the same memory in three passes, each a permutation within the columns or
// within the rows of the rows x cols array, so that each needs scratch of one column or one row
// (the decomposition of Catanzaro, Keller and Garland, PPoPP 2014, derived here afresh).
//
// With m = rows, n = cols, c = gcd(m, n), b = n / c: element (i, j) belongs at linear index
// q = j m + i, that is at row q / n, column q % n of the m x n array. A row alone cannot take
// its elements there when c > 1 (they share i's residue mod c), so:
//   1. rotate: column j moves up by j / b rows (row i' of column j takes row (i' + j / b) mod m)
//   2. rows:   in each row, column j's element goes to column (j m + i) mod n, i its original
//              row; a bijection of the row (each group of b columns covers every residue)
//   3. columns: in each column s, row r takes the element bound for (r, s).
// Functions of __host__ __device__ index math only: the CPU path and the GPU kernels share them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "layout/fast_divmod.hpp"
#include "layout/hd.hpp"
#include "layout/words.hpp"

namespace xpose::layout {

struct InplaceShape {
  int64_t m = 0, n = 0;  // rows, cols of the matrix before
  int64_t b = 1;         // n / gcd(m, n)
  int64_t a = 1, c = 1;  // m / gcd(m, n), gcd(m, n)
};

XPOSE_HD inline InplaceShape inplace_shape(int64_t rows, int64_t cols) {
  InplaceShape s;
  s.m = rows, s.n = cols;
  s.c = std::gcd(rows, cols);  // constexpr: the device may call it too
  s.a = rows / s.c, s.b = cols / s.c;
  return s;
}

// Pass 1 (a gather in column j): row i of the rotated column takes the original row returned.
XPOSE_HD inline int64_t rotated_from(const InplaceShape& s, int64_t i, int64_t j) { return (i + j / s.b) % s.m; }

// Pass 2 (a scatter in row i of the rotated array): the column column j's element goes to.
XPOSE_HD inline int64_t row_destination(const InplaceShape& s, int64_t i, int64_t j) {
  return (j * s.m + rotated_from(s, i, j)) % s.n;
}

// Pass 3 (a gather in column c): the row (of the array after pass 2) that row r takes.
XPOSE_HD inline int64_t column_from(const InplaceShape& s, int64_t r, int64_t c) {
  const int64_t q = r * s.n + c, i = q % s.m, j = q / s.m;  // the element bound for (r, c): (i, j)
  return ((i - j / s.b) % s.m + s.m) % s.m;                 // its row after pass 1 (and 2)
}

// Pass 3 is a rotation of each column and then one permutation of whole rows: column c's
// gather column_from(s, r, c) = (row_from(s, r) + c) mod m. So in place and cache-friendly:
//   3a. column c moves up by c rows (row p of column c takes row (p + c) mod m)
//   3b. row r takes the whole row row_from(s, r): r = t a + r' takes row (c' k - t) mod m with
//       k = r' b mod a, c' = gcd(m, n) (the same for every column: rows move as a whole).
XPOSE_HD inline int64_t row_from(const InplaceShape& s, int64_t r) {
  const int64_t t = r / s.a, k = (r % s.a) * s.b % s.a;
  return ((s.c * k - t) % s.m + s.m) % s.m;
}

// Rectangles whose sides share g elements with g x elem_bytes of at least this many bytes move
// rows of g as units (below); the others cannot (too small a row to move as one).
constexpr int64_t inplace_unit_bytes = 16;

// Sides that share a factor: with g = gcd(m, n) (InplaceShape::c) the matrix is an a x b grid
// of g x g blocks (block (A, B) at row A g, column B g). The GPU turns each block in place, which
// leaves element (A g + ig, B g + jg) at (A g + jg, B g + ig); the row pieces of g elements
// (A, jg, B), at unit index (A g + jg) b + B of the m n / g units, then belong at unit
// (B g + jg) a + A of the n x m result (its row B g + jg, columns A g ..): a permutation of
// whole units, moved along its cycles.
XPOSE_HD inline int64_t block_origin(const InplaceShape& s, int64_t block) {  // block A b + B
  return block / s.b * s.c * s.n + block % s.b * s.c;
}
XPOSE_HD inline int64_t unit_count(const InplaceShape& s) { return s.a * s.c * s.b; }
XPOSE_HD inline int64_t unit_destination(const InplaceShape& s, int64_t unit) {
  const int64_t B = unit % s.b, t = unit / s.b, jg = t % s.c, A = t / s.c;
  return (B * s.c + jg) * s.a + A;
}

// unit_destination as the GPU walks it, on pieces: each unit cut into `pieces` equal pieces
// (piece i of unit u is piece u * pieces + i), which move with their unit; 32-bit indices within
// a matrix (a launch takes fewer than 2^32 pieces), the divisions as multiplies.
struct UnitWalk {
  FastDivmod b, g, pieces;
  uint32_t a = 1;
  UnitWalk() = default;
  UnitWalk(const InplaceShape& s, uint32_t pieces_a_unit)
      : b(uint32_t(s.b)), g(uint32_t(s.c)), pieces(pieces_a_unit), a(uint32_t(s.a)) {}
  XPOSE_HD uint32_t next(uint32_t piece) const {
    uint32_t i = 0, B = 0, jg;
    const uint32_t unit = pieces.divisor == 1 ? piece : pieces.divmod(piece, &i);  // whole units, tall
    const uint32_t A = g.divmod(b.divisor == 1 ? unit : b.divmod(unit, &B), &jg);  // matrices: no divisions
    return ((B * g.divisor + jg) * a + A) * pieces.divisor + i;
  }
};

// Sides sharing fewer than 16 bytes (too small a row of g to move as a unit): the passes above
// on the GPU, for a view of M rows of N (N < M, rows of the short side) and its transpose
// (forward: a tall matrix is the view) or its inverse (a wide matrix m x n is the inverse of the
// view n x m's transpose: the passes undone in reverse order). Pass 3a (column k up by k rows)
// is split: within a strip of strip_width() columns starting at k0, a fine shift (column k0 + d
// up by d rows, d < strip width: a sweep down the rows, in shared memory) and a coarse one (the
// strip's row pieces up by k0), which pass 3b's whole-row permutation absorbs: row t's piece of
// strip k0 goes to row row_to((t - k0) mod M), a permutation of row pieces within each strip,
// moved along its cycles like the units.

// x y mod m for x, y < m < 2^32: the quotient estimated in double precision (relative error
// under 2^-50, so it is off by at most one) and the remainder corrected.
XPOSE_HD inline uint64_t mul_mod(uint64_t x, uint64_t y, uint64_t m, double inv_m) {
  const uint64_t q = uint64_t(double(x) * double(y) * inv_m);
  int64_t r = int64_t(x * y - q * m);
  if (r < 0)
    r += int64_t(m);
  else if (r >= int64_t(m))
    r -= int64_t(m);
  return uint64_t(r);
}

// x^-1 mod a (x and a coprime; 0 for a = 1, where every residue is 0), by Euclid.
inline int64_t inverse_mod(int64_t x, int64_t a) {
  int64_t r0 = a, r1 = x % a, t0 = 0, t1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1, r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  return ((t0 % a) + a) % a;
}

// The inverse of row_from: the row r with row_from(s, r) = x (b_inverse = b^-1 mod a).
XPOSE_HD inline int64_t row_to(const InplaceShape& s, int64_t b_inverse, int64_t x) {
  const int64_t t = (s.c - x % s.c) % s.c, k = (x + t) / s.c % s.a;
  return t * s.a + k * b_inverse % s.a;
}

// Widths of the strips and the bound on the fine shift: 128 columns, 512 bytes at most.
XPOSE_HD constexpr int64_t strip_width(int64_t elem_bytes) { return elem_bytes >= 8 ? 512 / elem_bytes : 128; }

// Pass 3b with the strips' coarse shifts as the GPU walks it: piece p (32 bits) of a launch of
// strips first, first + 1, .. of `width` columns is row p % M of strip first + p / M; next(p)
// is where its contents go (forward), or come from (the inverse, which moves them there).
// With coprime sides a step is affine in the row, t -> alpha t + beta k0 (mod M), so the j-th
// step from t is jump_a[j] t + jump_b[j] k0 (mod M): a chain's lanes find its next positions at
// once instead of one after another.
constexpr int kStripJumps = 32;

struct StripWalk {
  FastDivmod rows, a, c;  // M; the shape's a and c
  uint32_t m = 1, b = 1, b_inverse = 0, first = 0, width = 1, cols = 1;
  double inv_m = 1, inv_a = 1;
  bool inverse = false, jumps = false;  // jumps: coprime sides, jump() holds
  uint32_t jump_a[kStripJumps] = {}, jump_b[kStripJumps] = {};
  StripWalk() = default;
  StripWalk(const InplaceShape& s, uint32_t first_strip, uint32_t strip_columns, bool undo)
      : rows(uint32_t(s.m)), a(uint32_t(s.a)), c(uint32_t(s.c)), m(uint32_t(s.m)), b(uint32_t(s.b % s.a)),
        b_inverse(uint32_t(inverse_mod(s.b, s.a))), first(first_strip), width(strip_columns), cols(uint32_t(s.n)),
        inv_m(1.0 / double(s.m)), inv_a(1.0 / double(s.a)), inverse(undo), jumps(s.c == 1) {
    if (!jumps) return;
    // Forward: t -> N^-1 (t - k0); inverse: t -> N t + k0 (row_from and row_to with c = 1).
    const int64_t M = s.m, alpha = undo ? s.n % M : inverse_mod(s.n, M);
    int64_t A = 1, B = 0;
    for (int j = 0; j < kStripJumps; ++j) {
      jump_a[j] = uint32_t(A), jump_b[j] = uint32_t(B);
      B = undo ? (alpha * B + 1) % M : alpha * ((B - 1 + M) % M) % M;
      A = alpha * A % M;
    }
  }
  // next() applied j times (j < kStripJumps; coprime sides only).
  XPOSE_HD uint32_t jump(uint32_t p, int j) const {
    uint32_t t;
    const uint32_t strip = rows.divmod(p, &t);
    const uint64_t r = mul_mod(jump_a[j], t, m, inv_m) + mul_mod(jump_b[j], k0(strip), m, inv_m);
    return strip * m + uint32_t(r >= m ? r - m : r);
  }
  XPOSE_HD uint32_t from_row(uint32_t r) const {  // row_from
    uint32_t rem;
    const uint32_t t = a.divmod(r, &rem), k = uint32_t(mul_mod(rem, b, a.divisor, inv_a));
    const int64_t x = int64_t(c.divisor) * k - t;
    return uint32_t(x < 0 ? x + m : x);
  }
  XPOSE_HD uint32_t to_row(uint32_t x) const {  // row_to
    uint32_t rem;
    c.divmod(x, &rem);
    const uint32_t t = rem ? c.divisor - rem : 0, q = c.div(x + t), k = q == a.divisor ? 0 : q;
    return t * a.divisor + uint32_t(mul_mod(k, b_inverse, a.divisor, inv_a));
  }
  XPOSE_HD uint32_t k0(uint32_t strip) const { return (first + strip) * width; }
  XPOSE_HD uint32_t next(uint32_t p) const {
    uint32_t t;
    const uint32_t strip = rows.divmod(p, &t), k = k0(strip);
    uint32_t r;
    if (!inverse) {
      r = to_row(t >= k ? t - k : t + m - k);
    } else {
      r = from_row(t) + k;
      r = r >= m ? r - m : r;
    }
    return strip * m + r;
  }
  // Elements from the matrix's start to piece p's first.
  XPOSE_HD int64_t offset(uint32_t p) const {
    uint32_t t;
    const uint32_t strip = rows.divmod(p, &t);
    return int64_t(t) * cols + k0(strip);
  }
};

// Pass 2's column for element j of row i (row_destination) without a 64-bit division: with
// mm = M mod N and i_n = i mod N, j M + (i + j / b) mod M taken mod N.
XPOSE_HD inline uint32_t row_destination_fast(uint32_t i, uint32_t i_n, uint32_t j, const FastDivmod& b,
                                              const FastDivmod& n, uint32_t m, uint32_t mm, double inv_n) {
  const uint32_t q = b.div(j), N = n.divisor;  // q < gcd(M, N) <= N
  uint32_t r = i_n + q;                        // < 2 N
  if (i + q >= m) r += N - mm;                 // the rotation wrapped: minus M
  while (r >= N) r -= N;
  uint32_t jm;
  if (N < 65536)
    n.divmod(j * mm, &jm);
  else
    jm = uint32_t(mul_mod(j, mm, N, inv_n));
  const uint32_t d = jm + r;
  return d >= N ? d - N : d;
}

// The square transpose's tile pairs (ti, tj), ti <= tj, of a T x T grid of tiles, as a launch
// of T + 1 x ceil(T / 2) blocks with none idle: launch row y takes tile row y's T - y pairs and
// then tile row T - 1 - y's y + 1 (for odd T the middle row's second half is not a pair).
struct TilePair {
  int64_t ti, tj;
  bool valid;
};
XPOSE_HD inline TilePair fold_pair(int64_t x, int64_t y, int64_t tiles) {
  if (x < tiles - y) return {y, y + x, true};
  const int64_t i = tiles - 1 - y;
  return {i, i + x - (tiles - y), i != y};
}
XPOSE_HD inline int64_t fold_launch_rows(int64_t tiles) { return (tiles + 1) / 2; }

// Pass 2's destination walked along a row without a division a step (divisions once a row).
struct RowWalk {              // row i of pass 2, columns j = 0, 1, ...
  int64_t m, n, b, step;      // step: m mod n
  int64_t in_group = 0, row;  // j mod b; the rotated-from row (i + j / b) mod m
  int64_t destination;        // row_destination(s, i, j)
  XPOSE_HD RowWalk(const InplaceShape& s, int64_t i)
      : m(s.m), n(s.n), b(s.b), step(s.m % s.n), row(i % s.m), destination(i % s.m % s.n) {}
  XPOSE_HD void next() {
    int64_t add = step;
    if (++in_group == b) {  // the next column group: its rows come from one row further down
      in_group = 0;
      if (++row == m) {
        row = 0;
        add += n - (m - 1) % n;  // the row went from m - 1 to 0
      } else {
        ++add;
      }
    }
    if (add >= n) add -= n;  // add < 2 n
    destination += add;
    if (destination >= n) destination -= n;
  }
};

// Pass 2 for coprime sides (one column group, b = n) as a gather: row i's element x comes from
// column (x - d0) / (m mod n) mod n, d0 = row_destination(s, i, 0); inv = inverse_mod(m mod n, n),
// and x + 1's source is x's plus inv, mod n.
XPOSE_HD inline int64_t coprime_row_source(const InplaceShape& s, int64_t inv, int64_t d0, int64_t x) {
  return ((x - d0) % s.n + s.n) % s.n * inv % s.n;
}

// Narrow matrices (a short side of at most narrow_max_side(E) elements, 384 to 6144, sides
// sharing fewer bytes than a piece: narrow_takes; engines/inplace/narrow.cu): the view of m
// rows of k (m >= k; a wide matrix is the inverse of its view's transposition, the passes undone
// in reverse order) in blocks of b rows, q whole ones and r rows left (m = q b + r). Three
// passes and the last r rows:
//   turn:   each block (b x k, contiguous) becomes k x b: the matrix's first q b k elements
//           hold a q x k array of pieces of b elements, piece (i, c) column c of block i;
//   pieces: that array transposed to k x q (UnitWalk on a = q, b = k, c = 1: the chains);
//   spread: row c of the k x q b result (rows 1 .. k - 1) moves from c q b to c m, right by
//           c r, in chunks of shift_chunk elements, and the last r rows (copied aside before)
//           go to column q b of each row.
// A block of b rows holds narrow_column_bytes(k) of each of its k columns (whole 16-byte
// words), at most 512 and together at most narrow_turn_bytes (a block's shared memory): 512
// where k <= 384. A short side of 4- to 16-byte elements is narrow while those pieces are no
// smaller than the strips path's (c2r.cu: strip_width(E) x E bytes, 512), of 2-byte elements
// while they are 64 bytes or more, of 1-byte ones 32 (c2r moves those elements one at a time in
// each of its passes: 5-13% of a copy); sides sharing g elements only where g x E is under them
// (units of that many bytes move faster). H200, 8e2f8ab against sides of 33-384 through c2r: fp32
// 167773 x 100 18.1 -> 24.2% of a copy, u8 447392 x 150 4.4 -> 19.7, fp64 30011 x 280 20.5 ->
// 22.4; narrow against units of 16-511 bytes: fp32 2097152 x 8 7.2 -> 34.0, fp64 262144 x 32
// 13.9 -> 38.9; 83a128d, sides past 1536 (u8) and 768 (fp16): u8 2000 x 50001 9.3 -> 18.3, u8
// 3001 x 100003 (64-byte pieces) 7.6 -> 16.9, fp16 2001 x 30011 11.4 -> 19.1, fp16 30011 x
// 2001 11.8 -> 20.0; with 32-byte pieces u8 5001 x 20011 7.7 -> 10.6 but fp16 5003 x 10007
// 12.2 -> 11.3, with 16 u8 8191 x 12289 7.8 -> 6.6. u8 sides of 3073-6144 (32-48 byte pieces)
// against c2r again after the framed words (2026-11-29): u8 5001 x 20011 7.7 -> 11.1, 26399 x
// 5609 8.2 -> 12.0, 4099 x 40009 7.7 -> 11.4, 6143 x 30011 7.0 -> 11.1, 2 x 3500 x 50021 9.5 ->
// 12.0.
constexpr int64_t narrow_turn_bytes = 192 << 10, narrow_block_bytes = 512;
XPOSE_HD constexpr int64_t narrow_column_bytes(int64_t k) {
  const int64_t fit = narrow_turn_bytes / k / 16 * 16;
  return fit < narrow_block_bytes ? fit : narrow_block_bytes;
}
XPOSE_HD constexpr int64_t narrow_min_piece(int64_t elem_bytes) {  // bytes of a narrow piece, at least
  return elem_bytes == 1 ? 32 : elem_bytes == 2 ? 64 : strip_width(elem_bytes) * elem_bytes;
}
XPOSE_HD constexpr int64_t narrow_max_side(int64_t elem_bytes) { return narrow_turn_bytes / narrow_min_piece(elem_bytes); }
XPOSE_HD inline bool narrow_takes(int64_t rows, int64_t cols, int64_t elem_bytes) {
  const int64_t side = rows < cols ? rows : cols;
  return rows != cols && side <= narrow_max_side(elem_bytes) &&
         inplace_shape(rows, cols).c * elem_bytes < narrow_column_bytes(side);
}
struct NarrowShape {
  int64_t m = 0, k = 0;  // the view: m rows of k
  int64_t b = 1, q = 0, r = 0;
};
// Blocks of b rows (b > 0: a test's), else of narrow_column_bytes(k) of a column (whole pieces
// of 16-byte words for the chains) and at most an eighth of the rows (the last r rows, which
// wait in the workspace, under 192 KiB and an eighth of the matrix); a matrix of up to
// narrow_whole_bytes is one block (turned whole: no pieces to move, nothing spread, no workspace).
constexpr int64_t narrow_whole_bytes = 32 << 10;
inline NarrowShape narrow_shape(int64_t rows, int64_t cols, int64_t elem_bytes, int64_t b = 0) {
  NarrowShape s;
  s.m = rows > cols ? rows : cols, s.k = rows > cols ? cols : rows;
  if (b <= 0) {
    const int64_t eighth = s.m / 8 > 1 ? s.m / 8 : 1;
    const int64_t column = narrow_column_bytes(s.k) / elem_bytes;  // 0 only past narrow_max_side's shapes
    b = s.m * s.k * elem_bytes <= narrow_whole_bytes ? s.m : std::max<int64_t>(1, std::min(column, eighth));
  }
  s.b = b, s.q = s.m / b, s.r = s.m % b;
  return s;
}
// The turn of a short side of k >= narrow_turn_rows_from (narrow.cu's narrow_turn_rows): a warp
// takes narrow_turn_warp_rows(k, E) consecutive rows of the side not staged as it is and 16-byte
// pieces of each (32 / rows of them); the stage's elements of a piece index are consecutive along
// the rows, the next piece's 16 k bytes further, so 8 / gcd(k, 8) pieces meet no bank twice. 4
// rows (whole 128-byte lines a warp) unless 1- and 2-byte elements would then meet a bank more
// than 2 E times (shared memory's bandwidth for them): 8 or 16 rows. A CPU test walks the banks.
constexpr int64_t narrow_turn_rows_from = 32;
XPOSE_HD constexpr int64_t narrow_turn_warp_rows(int64_t k, int64_t elem_bytes) {
  int64_t g = 1;
  while (g < 8 && k % (2 * g) == 0) g *= 2;  // gcd(k, 8)
  return 4 * (g / (2 * elem_bytes) > 1 ? g / (2 * elem_bytes) : 1);
}
// narrow_turn_rows' lanes over the aligned 16-byte words around a block of n rows of l elements
// (l a multiple of the p elements a word) that starts `shift` elements into its first word (a
// batch of matrices whose bytes are not a multiple of 16): word `piece` of word row rho holds
// the block's elements element(rho, piece, i), i = 0 .. p - 1, those in [0, n l) (the first and
// last words are shared with the neighbours); a row's first `shift` of them are the previous
// row's last, and a word row more (rows()) holds the last row's end. Element (y, x) is at y n + x
// of the block turned (x l + y): stage(rho, piece, i).
struct TurnFrame {
  int32_t n, l, p, shift;
  XPOSE_HD constexpr int32_t rows() const { return n + (shift > 0); }
  XPOSE_HD constexpr int32_t words_a_row() const { return l / p; }
  XPOSE_HD constexpr int32_t element(int32_t rho, int32_t piece, int32_t i) const {
    return rho * l + piece * p - shift + i;
  }
  XPOSE_HD constexpr int32_t stage(int32_t rho, int32_t piece, int32_t i) const {
    const int32_t x = piece * p - shift + i;  // negative: (rho - 1, x + l)
    return x * n + rho + (x < 0 ? l * n - 1 : 0);
  }
  XPOSE_HD constexpr bool whole(int32_t rho, int32_t piece) const {  // every element the block's
    return rho < n && (rho > 0 || piece > 0 || shift == 0);
  }
};

// A row of 16 L bytes that starts `shift` bytes into an aligned 16-byte word, stored as the
// aligned words it covers (the shifted square tiles' turned rows): word j, 1 <= j < L, whole,
// holds the row's bytes from whole(j); the words 0 and L it shares with its neighbours hold its
// first 16 - shift and last `shift` bytes, shared(k) for k = 0 .. 15.
struct ShiftedRow {
  int shift, bytes;
  XPOSE_HD constexpr int whole(int j) const { return 16 * j - shift; }
  XPOSE_HD constexpr int shared(int k) const { return k < 16 - shift ? k : bytes - 16 + k; }
};

inline InplaceShape narrow_pieces(const NarrowShape& s, bool inverse) {  // the pieces pass's q x k (or k x q)
  InplaceShape p;
  p.a = inverse ? s.k : s.q, p.b = inverse ? s.q : s.k, p.c = 1;
  p.m = p.a, p.n = p.b;
  return p;
}

// The spread pass as chunks taken in ticket order: rows k - 1 down to 1 (forward, each from its
// end) or 1 up to k - 1 (inverse, each from its start); ticket t of a batch's matrices is chunk
// `chunk` of row `row` of matrix `matrix`. A chunk's destination overlaps only chunks of earlier
// tickets (and itself), so a chunk waits for those to have read theirs before it writes.
struct NarrowSpread {
  int64_t src_pitch = 0, dst_pitch = 0;  // where row c starts, before and after: c x pitch
  int64_t length = 0, chunk = 1, chunks = 0;  // a row's elements (q b), a chunk's, a row's chunks
  int64_t rows = 0;                            // k
  bool inverse = false;
  struct Chunk {
    int64_t matrix, row, index;  // index: along the row
    int64_t src, dst, count;     // elements from the matrix's start; the chunk's
  };
  XPOSE_HD int64_t per_matrix() const { return (rows - 1) * chunks; }
  XPOSE_HD Chunk at(int64_t ticket) const {
    Chunk c;
    c.matrix = ticket / per_matrix();
    const int64_t t = ticket - c.matrix * per_matrix(), i = t / chunks, j = t - i * chunks;
    c.row = inverse ? 1 + i : rows - 1 - i, c.index = inverse ? j : chunks - 1 - j;
    c.src = c.row * src_pitch + c.index * chunk;
    const int64_t left = length - c.index * chunk;
    c.count = left < chunk ? left : chunk;
    c.dst = c.src + c.row * (dst_pitch - src_pitch);
    return c;
  }
  XPOSE_HD int64_t ticket(int64_t matrix, int64_t row, int64_t index) const {
    const int64_t i = inverse ? row - 1 : rows - 1 - row, j = inverse ? index : chunks - 1 - index;
    return matrix * per_matrix() + i * chunks + j;
  }
  // The first chunk that reads an element at or past `x` (from the matrix's start): its ticket,
  // and its first element and the one past its last in *first, *end; -1 past the last row.
  XPOSE_HD int64_t next_read(int64_t matrix, int64_t x, int64_t* first, int64_t* end) const {
    int64_t row = x / src_pitch, off = x - row * src_pitch;
    if (row < 1) row = 1, off = 0;
    if (off >= length) ++row, off = 0;
    if (row >= rows) return -1;
    const int64_t index = off / chunk, left = length - index * chunk;
    *first = row * src_pitch + index * chunk;
    *end = *first + (left < chunk ? left : chunk);
    return ticket(matrix, row, index);
  }
};
inline NarrowSpread narrow_spread(const NarrowShape& s, bool inverse, int64_t chunk) {
  NarrowSpread d;
  d.inverse = inverse, d.rows = s.k, d.length = s.q * s.b, d.chunk = chunk;
  d.chunks = (d.length + chunk - 1) / chunk;
  d.src_pitch = inverse ? s.m : d.length, d.dst_pitch = inverse ? d.length : s.m;
  return d;
}

}  // namespace xpose::layout
