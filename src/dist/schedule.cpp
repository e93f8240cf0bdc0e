#include "dist/schedule.hpp"

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <string>

namespace xpose::detail::dist {
namespace {

using i128 = __int128;
constexpr i128 kInt64Max = std::numeric_limits<int64_t>::max();

std::string str(int64_t v) { return std::to_string(v); }
Result invalid(const std::string& message) { return fail(XPOSE_ERROR_INVALID_ARGUMENT, message); }

size_t align_up(size_t n) { return (n + kMessageAlign - 1) / kMessageAlign * kMessageAlign; }

// Offsets of `n` + 1 values from 0 up, never decreasing.
Result check_offsets(const char* name, const std::vector<int64_t>& offsets) {
  if (offsets.front() != 0) return invalid(std::string(name) + "[0] is " + str(offsets.front()) + "; it must be 0");
  for (size_t i = 1; i < offsets.size(); ++i)
    if (offsets[i] < offsets[i - 1])
      return invalid(std::string(name) + " decreases at " + str(int64_t(i)) + " (" + str(offsets[i - 1]) + " then " +
                     str(offsets[i]) + ")");
  return ok();
}

// a[0] * a[1] * ... in *out, or false where it overflows int64 (operands >= 0; a product
// with a factor of 0 is 0, however large the others).
bool product(std::initializer_list<int64_t> a, int64_t* out) {
  int64_t p = 1;
  if (std::find(a.begin(), a.end(), 0) != a.end()) p = 0;
  for (int64_t v : a)
    if (__builtin_mul_overflow(p, v, &p)) return false;
  *out = p;
  return true;
}

// Bytes from the first element of `outer` (x batch) rows of `inner` elements, `ld` apart,
// to one past the last: at most batch * outer * ld * elem (inner <= ld), checked by the caller.
int64_t span_bytes(int64_t batch, int64_t outer, int64_t ld, int64_t inner, int64_t elem) {
  if (batch == 0 || outer == 0 || inner == 0) return 0;
  return (batch * outer - 1) * ld * elem + inner * elem;
}

// The largest a[i] * b[j] over i != j (0 for fewer than two ranks), in one pass: the best
// pairs take the largest of a with the largest b of another rank, so the two largest of each
// decide. Every product is at most (sum a) * (sum b), which the caller has checked.
int64_t largest_off_diagonal(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  struct Top { int64_t value = -1; size_t at = 0; };
  const auto top_two = [](const std::vector<int64_t>& v, Top* first, Top* second) {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] > first->value) {
        *second = *first;
        *first = {v[i], i};
      } else if (v[i] > second->value) {
        *second = {v[i], i};
      }
  };
  Top a1, a2, b1, b2;
  top_two(a, &a1, &a2);
  top_two(b, &b1, &b2);
  if (a2.value < 0) return 0;  // one rank
  if (a1.at != b1.at) return a1.value * b1.value;
  return std::max(a1.value * b2.value, a2.value * b1.value);
}

// Rows [first(j), first(j+1)) of `total` transposed rows go in step j of `steps`.
int64_t first_row(int64_t total, int steps, int j) {
  const int64_t q = total / steps, r = total % steps;
  return q * j + std::min<int64_t>(j, r);
}

// Transposed rows [s, e) of the block of `rows` src rows and `cols` columns from column
// `col0`: g = b * cols + c is transposed row c of matrix b, written `dst_pitch` elements after
// row g - 1 from byte `dst_base` (row 0) on. A range that starts or ends inside a matrix takes a
// transpose of its own; the whole matrices between go in one batched transpose. A pack's rows
// are a message's, back to back (pitch `rows`); the own block's are dst's (pitch ld_dst).
void add_pieces(const Schedule& sched, int64_t rows, int64_t ld_src, int64_t cols, int64_t col0, int64_t s, int64_t e,
                int64_t dst_base, int64_t dst_pitch, std::vector<TransposeOp>* ops) {
  const int64_t elem = sched.elem_bytes;
  auto piece = [&](int64_t b, int64_t c0, int64_t c1, int64_t nb) {
    TransposeOp op;
    op.src_offset = (b * rows * ld_src + col0 + c0) * elem;
    op.dst_offset = dst_base + (b * cols + c0) * dst_pitch * elem;
    op.rows = rows;
    op.cols = c1 - c0;
    op.ld_src = ld_src;
    op.ld_dst = dst_pitch;
    op.batch = nb;
    op.stride_src = rows * ld_src;
    op.stride_dst = cols * dst_pitch;
    ops->push_back(op);
  };
  int64_t b0 = s / cols, c0 = s % cols;
  const int64_t b1 = e / cols, c1 = e % cols;
  if (b0 == b1) return piece(b0, c0, c1, 1);
  if (c0 > 0) piece(b0++, c0, cols, 1);
  if (b1 > b0) piece(b0, 0, cols, b1 - b0);
  if (c1 > 0) piece(b1, 0, c1, 1);
}

}  // namespace

Result make_schedule(const Split& split, Schedule* out) {
  const size_t n = split.row_offsets.size();
  if (n < 2) return invalid("row_offsets has " + str(int64_t(n)) + " entries; it needs nranks + 1 >= 2");
  const int nranks = int(std::min<size_t>(n - 1, size_t(kMaxRanks) + 1));
  if (nranks > kMaxRanks) return invalid("more than " + str(kMaxRanks) + " ranks");
  if (split.col_offsets.size() != n)
    return invalid("col_offsets has " + str(int64_t(split.col_offsets.size())) + " entries; row_offsets has " +
                   str(int64_t(n)) + " (nranks + 1 each)");
  if (split.rank < 0 || split.rank >= nranks)
    return invalid("rank " + str(split.rank) + " is outside 0.." + str(nranks - 1));
  const int64_t e = split.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16)
    return invalid("elem_bytes is " + str(e) + "; it must be 1, 2, 4, 8 or 16");
  if (split.batch < 0) return invalid("batch is negative (" + str(split.batch) + ")");
  if (split.ld_src < 0) return invalid("ld_src is negative (" + str(split.ld_src) + ")");
  if (split.ld_dst < 0) return invalid("ld_dst is negative (" + str(split.ld_dst) + ")");
  if (split.max_steps < 0 || split.max_steps > 64)
    return invalid("max_steps is " + str(split.max_steps) + "; it must be 0 (the default) to 64");
  if (split.step_bytes < 0) return invalid("step_bytes is negative (" + str(split.step_bytes) + ")");
  if (Result err = check_offsets("row_offsets", split.row_offsets); err.failed()) return err;
  if (Result err = check_offsets("col_offsets", split.col_offsets); err.failed()) return err;

  const std::vector<int64_t>& ro = split.row_offsets;
  const std::vector<int64_t>& co = split.col_offsets;
  const int64_t rows = ro.back(), cols = co.back(), batch = split.batch;
  const int64_t ld_src = split.ld_src ? split.ld_src : cols;
  const int64_t ld_dst = split.ld_dst ? split.ld_dst : rows;
  if (ld_src < cols) return invalid("ld_src (" + str(ld_src) + ") is smaller than cols (" + str(cols) + ")");
  if (ld_dst < rows) return invalid("ld_dst (" + str(ld_dst) + ") is smaller than rows (" + str(rows) + ")");
  const int p = split.rank;
  const int64_t my_rows = ro[p + 1] - ro[p], my_cols = co[p + 1] - co[p];

  // Everything below is a product of these; with these in int64 (each product checked, so
  // none overflows on the way) every offset and size is, and the workspace (a sum of at most
  // 2 x steps x nranks padded messages, each at most rows * cols * batch * elem_bytes) fits
  // in 128 bits.
  int64_t total, src_extent, dst_extent;
  if (!product({rows, cols, batch, e}, &total)) return invalid("rows * cols * batch * elem_bytes overflows int64");
  if (!product({batch, my_rows, ld_src, e}, &src_extent)) return invalid("the extent of src in bytes overflows int64");
  if (!product({batch, my_cols, ld_dst, e}, &dst_extent)) return invalid("the extent of dst in bytes overflows int64");
  const int64_t src_span = span_bytes(batch, my_rows, ld_src, cols, e);
  const int64_t dst_span = span_bytes(batch, my_cols, ld_dst, rows, e);

  Schedule s;
  s.nranks = nranks;
  s.rank = p;
  s.elem_bytes = e;
  s.src_span_bytes = src_span;
  s.dst_span_bytes = dst_span;
  if (batch == 0 || rows == 0 || cols == 0) {
    *out = s;
    return ok();
  }

  // The step count, from what every rank knows: its largest block to another rank.
  std::vector<int64_t> rank_rows(static_cast<size_t>(nranks)), rank_cols(static_cast<size_t>(nranks));
  for (int q = 0; q < nranks; ++q) {
    rank_rows[size_t(q)] = ro[q + 1] - ro[q];
    rank_cols[size_t(q)] = co[q + 1] - co[q];
  }
  const int64_t largest = largest_off_diagonal(rank_rows, rank_cols) * batch * e;
  const int max_steps = split.max_steps ? split.max_steps : kMaxSteps;
  const int64_t step_bytes = split.step_bytes ? split.step_bytes : kStepBytes;
  const int steps = largest == 0 ? 0 : int(std::min<int64_t>(max_steps, (largest - 1) / step_bytes + 1));

  if (my_rows > 0 && my_cols > 0) {
    s.has_own = true;
    s.own = {co[p] * e, ro[p] * e, my_rows, my_cols, ld_src, ld_dst, batch, my_rows * ld_src, my_cols * ld_dst};
  }

  // Messages of a step sit back to back, each padded to kMessageAlign, sends then receives,
  // step after step; a message's padded length is what both its ends compute.
  i128 offset = 0;
  s.steps.resize(size_t(steps));
  for (int j = 0; j < steps; ++j) {
    Step& step = s.steps[size_t(j)];
    if (s.has_own) {  // the own block's transposed rows, cut as every block's
      const int64_t total = batch * my_cols, first = first_row(total, steps, j), last = first_row(total, steps, j + 1);
      if (last > first) add_pieces(s, my_rows, ld_src, my_cols, co[p], first, last, ro[p] * e, ld_dst, &step.owns);
    }
    for (int q = 0; q < nranks; ++q) {
      const int64_t q_cols = co[q + 1] - co[q], total = batch * q_cols;
      const int64_t first = first_row(total, steps, j), last = first_row(total, steps, j + 1);
      if (q == p || my_rows == 0 || last == first) continue;
      const size_t bytes = size_t((last - first) * my_rows * e);
      add_pieces(s, my_rows, ld_src, q_cols, co[q], first, last, int64_t(offset) - first * my_rows * e, my_rows,
                 &step.packs);
      step.sends.push_back({q, size_t(offset), bytes, align_up(bytes)});
      offset += step.sends.back().padded;
    }
    for (int r = 0; r < nranks; ++r) {
      const int64_t r_rows = ro[r + 1] - ro[r], total = batch * my_cols;
      const int64_t first = first_row(total, steps, j), last = first_row(total, steps, j + 1);
      if (r == p || r_rows == 0 || last == first) continue;
      const size_t bytes = size_t((last - first) * r_rows * e);
      step.recvs.push_back({r, size_t(offset), bytes, align_up(bytes)});
      // Received transposed row g (g = b * my_cols + c) is dst row g: batches are my_cols * ld_dst apart.
      step.places.push_back({int64_t(offset), (first * ld_dst + ro[r]) * e, last - first, r_rows * e, r_rows * e,
                             ld_dst * e});
      offset += step.recvs.back().padded;
    }
  }
  if (offset > kInt64Max) return invalid("the workspace overflows int64");
  s.workspace_bytes = size_t(offset);
  *out = std::move(s);
  return ok();
}

}  // namespace xpose::detail::dist
