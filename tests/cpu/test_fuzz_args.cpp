// A randomized property test of argument validation. Hundreds of thousands of requests,
// from ordinary to absurd (huge and negative counts, pitches that address nothing, null,
// misaligned and overlapping pointers, pointers at the top of the address space), each
// judged by resolve_transpose() and by an independent model of the C ABI's contract written in
// 128-bit arithmetic. Every accepted problem is then checked for what the kernels rely on
// and run through the rule table and every engine's supports() and plan() on pretend
// devices, so that the sanitizer build (scripts/sanitize) sees every product they compute.
//   XPOSE_FUZZ_SEED   the seed (default fixed, so CI is reproducible)
//   XPOSE_FUZZ_CASES  how many requests (default 300000)
//   XPOSE_FUZZ_TRACE  1: print each request before judging it (to name the one a sanitizer stops at)
#include <gtest/gtest.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api/validate.hpp"
#include "core/distinct.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/rules.hpp"
#include "engines/tma/tensor_map.hpp"
#include "support/devices.hpp"

namespace xpose::detail {
namespace {

using i128 = __int128;

constexpr int64_t i64_max = INT64_MAX;
// Products in the model saturate here: far above int64 and far below int128's limit, so
// no model computation can overflow, whatever the request.
constexpr i128 saturated = i128(1) << 100;

i128 mul(i128 a, i128 b) { return a != 0 && b > saturated / a ? saturated : std::min(a * b, saturated); }
i128 add(i128 a, i128 b) { return std::min(a + b, saturated); }
int64_t clamp64(i128 v) { return int64_t(std::clamp<i128>(v, INT64_MIN, i64_max)); }

std::string str(i128 v) {
  if (v < 0) return "-" + str(-v);
  std::string s;
  do {
    s.insert(s.begin(), char('0' + int(v % 10)));
    v /= 10;
  } while (v > 0);
  return s;
}

// ---- The model: the contract of include/xpose/xpose.h, from scratch ----

// The caller's layout with the header's defaults applied (nothing normalized): element
// (b, i, j) of src sits at b*stride_src + i*ld_src + j, of dst at b*stride_dst + j*ld_dst + i.
struct Verdict {
  bool accepted = false;
  const char* rule = "";  // the contract rule a refused request breaks
  bool empty = false;
  bool undecided = false;  // dst batches that do not nest, too many to count: either verdict
  i128 ld_src = 0, ld_dst = 0, stride_src = 0, stride_dst = 0;
  i128 src_bytes = 0, dst_bytes = 0;  // first element to one past the last, in bytes
};

Verdict judge(const Args& a) {
  Verdict v;
  const auto refuse = [&](const char* rule) {
    v.rule = rule;
    return v;
  };
  const i128 e = a.elem_bytes;
  if (e != 1 && e != 2 && e != 4 && e != 8 && e != 16) return refuse("element size");
  for (int64_t count : {a.rows, a.cols, a.batch, a.ld_src, a.ld_dst, a.stride_src, a.stride_dst})
    if (count < 0) return refuse("negative count");
  const i128 rows = a.rows, cols = a.cols, batch = a.batch;
  v.ld_src = a.ld_src ? a.ld_src : cols;
  v.ld_dst = a.ld_dst ? a.ld_dst : rows;
  if (v.ld_src < cols || v.ld_dst < rows) return refuse("ld below its extent");
  v.empty = rows == 0 || cols == 0 || batch == 0;
  if (v.empty) {
    v.accepted = true;
    return v;
  }
  v.stride_src = a.stride_src ? i128(a.stride_src) : mul(rows, v.ld_src);
  v.stride_dst = a.stride_dst ? i128(a.stride_dst) : mul(cols, v.ld_dst);

  // Everything the kernels compute in int64 must fit: the bytes moved, each side's span,
  // and one matrix's pitch (rows * ld) where a side has more than one row.
  if (mul(mul(mul(rows, cols), batch), e) > i64_max) return refuse("bytes overflow");
  v.src_bytes = mul(add(add(mul(rows - 1, v.ld_src), mul(batch - 1, v.stride_src)), cols), e);
  v.dst_bytes = mul(add(add(mul(cols - 1, v.ld_dst), mul(batch - 1, v.stride_dst)), rows), e);
  if (v.src_bytes > i64_max || v.dst_bytes > i64_max) return refuse("span overflow");
  if (rows > 1 && mul(mul(rows, v.ld_src), e) > i64_max) return refuse("src pitch overflow");
  if (cols > 1 && mul(mul(cols, v.ld_dst), e) > i64_max) return refuse("dst pitch overflow");

  const i128 s = i128(reinterpret_cast<uintptr_t>(a.src)), d = i128(reinterpret_cast<uintptr_t>(a.dst));
  if (s == 0 || d == 0) return refuse("null pointer");
  const i128 align = std::min<i128>(e, 8);  // 16-byte elements sit on 8 bytes, as NumPy's complex128
  if (s % align != 0 || d % align != 0) return refuse("misaligned pointer");
  const i128 address_space = i128(UINTPTR_MAX);  // one past the end must be an address too
  if (s + v.src_bytes > address_space || d + v.dst_bytes > address_space) return refuse("past the address space");
  // dst batches may not share an element. The contract accepts the nested layouts (each batch
  // beyond the previous one's whole matrix, or batches interleaved between columns) and any
  // other it can prove distinct: where few enough elements to count, the model counts them;
  // beyond, a layout that does not nest may go either way (distinct, or refused unproven).
  const bool nested = batch == 1 || v.stride_dst >= add(mul(cols - 1, v.ld_dst), rows) ||
                      (v.stride_dst >= rows && v.ld_dst >= add(mul(batch - 1, v.stride_dst), rows));
  if (!nested) {
    if (mul(mul(rows, cols), batch) > 4096) {
      v.undecided = true;
    } else {
      std::vector<i128> offsets;
      for (i128 b = 0; b < batch; ++b)
        for (i128 j = 0; j < cols; ++j)
          for (i128 i = 0; i < rows; ++i) offsets.push_back(b * v.stride_dst + j * v.ld_dst + i);
      std::sort(offsets.begin(), offsets.end());
      if (std::adjacent_find(offsets.begin(), offsets.end()) != offsets.end()) return refuse("dst batches overlap");
    }
  }
  if (s < d + v.dst_bytes && d < s + v.src_bytes) return refuse("src and dst overlap");
  v.accepted = true;
  return v;
}

// ---- Drawing requests ----

class Draw {
 public:
  explicit Draw(uint64_t seed) : rng_(seed) {}
  uint64_t bits() { return rng_(); }
  int64_t below(int64_t n) { return int64_t(bits() % uint64_t(n)); }
  bool one_in(int64_t n) { return below(n) == 0; }
  template <class T>
  T pick(std::initializer_list<T> xs) {
    return xs.begin()[below(int64_t(xs.size()))];
  }
  int64_t elem_bytes() { return one_in(20) ? pick<int64_t>({0, 3, 5, 32, -4, i64_max}) : pick<int64_t>({1, 2, 4, 8, 16}); }

  // A count of any kind: zero, small, near a tile edge, a power of two or a neighbour,
  // random of any magnitude, huge, negative.
  int64_t any_count() {
    switch (below(11)) {
      case 0: return 0;
      case 1: return 1 + below(9);
      case 2: return pick<int64_t>({8, 16, 32, 64, 128, 256, 4096}) + below(3) - 1;
      case 3: return (int64_t(1) << below(63)) + below(3) - 1;
      case 4: return 1 + below(5000);
      case 5: return i64_max - below(4);
      case 6: return i64_max / (1 + below(64)) - below(3);
      case 7: return int64_t(bits() >> (1 + below(63)));
      case 8: return pick<int64_t>({-1, -2, -16, INT64_MIN, INT64_MIN + 1});
      case 9: return int64_t(1) << 61;  // the pitch that, times 16 bytes, wraps to 0
      default: return (int64_t(1) << (30 + below(33))) / (1 + below(16));
    }
  }
  // An extent a real request might have, now and then zero.
  int64_t extent() {
    switch (below(8)) {
      case 0: return one_in(8) ? 0 : 1;
      case 1: case 2: return 1 + below(9);
      case 3: return pick<int64_t>({16, 32, 64, 128, 256}) + below(3) - 1;
      case 4: return 1 + below(300);
      case 5: return 1 + below(70000);
      case 6: return (int64_t(1) << below(24)) + below(3) - 1;
      default: return 1 + below(3000);
    }
  }
  // Padding added to a pitch: none, an element or two, a vector, a power of two.
  int64_t pad() {
    switch (below(5)) {
      case 0: case 1: return 0;
      case 2: return below(3);
      case 3: return 16 * below(4);
      default: return int64_t(1) << below(12);
    }
  }
  // An arbitrary address: null, small, misaligned, near the top of the address space.
  uintptr_t any_pointer(int64_t e) {
    switch (below(8)) {
      case 0: return 0;
      case 1: return uintptr_t(1 + below(64));
      case 2: return UINTPTR_MAX - uintptr_t(below(64));
      case 3: return (UINTPTR_MAX - uintptr_t(below(int64_t(1) << 40))) / 16 * 16;
      case 4: return uintptr_t(1) << 63;
      case 5: return uintptr_t(bits());
      default: return aligned_pointer(e);
    }
  }
  uintptr_t aligned_pointer(int64_t e) {
    const uintptr_t align = uintptr_t(std::max<int64_t>(1, e)) << below(9);  // e .. 256 * e
    return uintptr_t(bits() >> (16 + below(8))) / align * align + align;
  }

 private:
  std::mt19937_64 rng_;
};

// A request built the way callers build them (nested layouts, disjoint buffers), then
// perhaps bent: one field or one pointer replaced by something odd.
Args plausible(Draw& r) {
  Args a;
  a.elem_bytes = r.elem_bytes();
  a.rows = r.extent();
  a.cols = r.extent();
  a.batch = r.one_in(2) ? 1 : r.pick<int64_t>({0, 2, 3, 7, 64}) + (r.one_in(3) ? r.below(5000) : 0);
  const int64_t e = std::max<int64_t>(1, a.elem_bytes);
  // Pitches: default, padded, or (where they address nothing) anything at all.
  const auto pitch = [&](int64_t extent, int64_t lines) -> int64_t {
    switch (r.below(5)) {
      case 0: case 1: return 0;
      case 2: case 3: return extent + r.pad();
      default: return lines == 1 || r.one_in(4) ? r.any_count() : extent + r.pad();
    }
  };
  a.ld_src = pitch(a.cols, a.rows);
  a.ld_dst = pitch(a.rows, a.cols);
  const auto ld_or = [](int64_t ld, int64_t extent) { return ld ? ld : extent; };
  const int64_t ld_src = ld_or(a.ld_src, a.cols), ld_dst = ld_or(a.ld_dst, a.rows);
  // Batch strides: default, past the whole matrix, interleaved between rows (the pitch then
  // spans the batch), just too short, or (for one matrix) anything at all.
  const auto stride = [&](int64_t inner, int64_t outer, int64_t* ld) -> int64_t {
    if (a.batch == 1 && r.one_in(2)) return r.any_count();
    switch (r.below(6)) {
      case 0: case 1: return 0;
      case 2: return clamp64(add(mul(outer - 1, *ld), inner + r.pad()));
      case 3:
        if (a.batch > 1 && a.batch < 100000 && inner < 100000) {
          const int64_t s = inner + r.pad();
          *ld = std::max(*ld, (a.batch - 1) * s + inner + r.pad());
          return s;
        }
        return 0;
      case 4: return std::max<int64_t>(1, clamp64(add(mul(outer - 1, *ld), inner - 1)));
      default: return r.any_count();
    }
  };
  int64_t ld_src_now = ld_src, ld_dst_now = ld_dst;
  a.stride_src = stride(a.cols, a.rows, &ld_src_now);
  a.stride_dst = stride(a.rows, a.cols, &ld_dst_now);
  if (ld_src_now != ld_src) a.ld_src = ld_src_now;
  if (ld_dst_now != ld_dst) a.ld_dst = ld_dst_now;

  // Buffers: src somewhere, dst after it, before it, inside it, or anywhere.
  const Verdict shape = judge(Args{reinterpret_cast<const void*>(uintptr_t(16)), reinterpret_cast<void*>(uintptr_t(16)),
                                   a.rows, a.cols, a.elem_bytes, a.ld_src, a.ld_dst, a.batch, a.stride_src, a.stride_dst});
  const uintptr_t src_bytes = uintptr_t(std::min<i128>(shape.src_bytes, i64_max));
  const uintptr_t dst_bytes = uintptr_t(std::min<i128>(shape.dst_bytes, i64_max));
  uintptr_t s = r.aligned_pointer(e), d = 0;
  switch (r.below(7)) {
    case 0: case 1: d = s + src_bytes + uintptr_t(e) * uintptr_t(r.pad()); break;  // may wrap: the model says so
    case 2: d = s - dst_bytes - uintptr_t(e) * uintptr_t(r.pad()); break;
    case 3: d = s + uintptr_t(r.below(int64_t(std::max<uintptr_t>(1, src_bytes)))) / uintptr_t(e) * uintptr_t(e); break;
    case 4: d = s + src_bytes - uintptr_t(e); break;  // one element of overlap
    case 5: s = UINTPTR_MAX - src_bytes - uintptr_t(r.below(3)) * uintptr_t(e);  // at the top
            s -= s % uintptr_t(e);
            d = s - dst_bytes - uintptr_t(e) * uintptr_t(r.below(2));
            break;
    default: d = r.aligned_pointer(e);
  }
  a.src = reinterpret_cast<const void*>(s);
  a.dst = reinterpret_cast<void*>(d);

  if (r.one_in(3)) {  // bend one thing
    int64_t* fields[] = {&a.rows, &a.cols, &a.batch, &a.ld_src, &a.ld_dst, &a.stride_src, &a.stride_dst};
    switch (r.below(4)) {
      case 0: *fields[r.below(7)] = r.any_count(); break;
      case 1: a.src = reinterpret_cast<const void*>(r.any_pointer(e)); break;
      case 2: a.dst = reinterpret_cast<void*>(r.any_pointer(e)); break;
      default: a.elem_bytes = r.elem_bytes();
    }
  }
  return a;
}

// A request with every field drawn on its own.
Args arbitrary(Draw& r) {
  Args a;
  a.elem_bytes = r.elem_bytes();
  a.rows = r.any_count();
  a.cols = r.any_count();
  a.batch = r.one_in(3) ? 1 : r.any_count();
  a.ld_src = r.one_in(3) ? 0 : r.any_count();
  a.ld_dst = r.one_in(3) ? 0 : r.any_count();
  a.stride_src = r.one_in(3) ? 0 : r.any_count();
  a.stride_dst = r.one_in(3) ? 0 : r.any_count();
  a.src = reinterpret_cast<const void*>(r.any_pointer(a.elem_bytes));
  a.dst = reinterpret_cast<void*>(r.any_pointer(a.elem_bytes));
  return a;
}

// A request at an int64 boundary: one field set so that a product the contract bounds
// lands just below, on, or just above INT64_MAX.
Args at_the_boundary(Draw& r) {
  Args a = plausible(r);
  a.elem_bytes = r.pick<int64_t>({1, 2, 4, 8, 16});
  const int64_t e = a.elem_bytes;
  a.rows = std::max<int64_t>(1, a.rows % 5000);
  a.cols = std::max<int64_t>(1, a.cols % 5000);
  a.batch = std::max<int64_t>(1, a.batch % 100);
  const int64_t limit = i64_max / e;
  const int64_t near = r.below(3) - 1;
  const auto around = [&](i128 v) { return clamp64(v + near); };
  switch (r.below(6)) {
    case 0: a.batch = around(limit / (a.rows * a.cols)); break;
    case 1: a.rows = 1 + r.below(3), a.ld_src = around((limit - a.cols) / std::max<int64_t>(1, a.rows - 1)); break;
    case 2: a.cols = 1 + r.below(3), a.ld_dst = around((limit - a.rows) / std::max<int64_t>(1, a.cols - 1)); break;
    case 3: a.batch = 2 + r.below(3), a.stride_src = around((limit - a.cols) / (a.batch - 1)); break;
    case 4: a.rows = around(limit / (a.cols * a.batch)); break;
    default: a.rows = 2, a.ld_src = around(limit / 2); break;  // rows * ld at the edge, the span below it
  }
  for (int64_t* f : {&a.rows, &a.ld_src, &a.ld_dst, &a.stride_src, &a.batch}) *f = std::max<int64_t>(0, *f);
  a.ld_src = a.ld_src && a.ld_src < a.cols ? a.cols : a.ld_src;
  a.ld_dst = a.ld_dst && a.ld_dst < a.rows ? a.rows : a.ld_dst;
  // Pointers at the bottom and top of the address space, so that the spans may fit.
  a.src = reinterpret_cast<const void*>(uintptr_t(e) * uintptr_t(1 + r.below(4)));
  a.dst = reinterpret_cast<void*>((uintptr_t(1) << 63) + uintptr_t(e) * uintptr_t(r.below(4)));
  if (r.one_in(2)) {
    const void* low = a.src;
    a.src = a.dst;
    a.dst = const_cast<void*>(low);
  }
  return a;
}

std::string describe(const Args& a) {
  std::ostringstream o;
  o << "{src 0x" << std::hex << reinterpret_cast<uintptr_t>(a.src) << ", dst 0x" << reinterpret_cast<uintptr_t>(a.dst)
    << std::dec << ", rows " << a.rows << ", cols " << a.cols << ", elem_bytes " << a.elem_bytes << ", ld_src "
    << a.ld_src << ", ld_dst " << a.ld_dst << ", batch " << a.batch << ", stride_src " << a.stride_src
    << ", stride_dst " << a.stride_dst << "}";
  return o.str();
}

// ---- What an accepted problem must satisfy ----

// Element offsets on each side, by the caller's layout and by the resolved Problem's.
i128 src_offset(i128 b, i128 i, i128 j, i128 ld, i128 stride) { return add(add(mul(b, stride), mul(i, ld)), j); }
i128 dst_offset(i128 b, i128 i, i128 j, i128 ld, i128 stride) { return add(add(mul(b, stride), mul(j, ld)), i); }

class Checker {
 public:
  explicit Checker(std::string context) : context_(std::move(context)) {}
  void expect(bool ok, const std::string& what) {
    if (!ok) failures_.push_back(what);
  }
  bool failed() const { return !failures_.empty(); }
  std::string report() const {
    std::string s = context_;
    for (const std::string& f : failures_) s += "\n  " + f;
    return s;
  }

 private:
  std::string context_;
  std::vector<std::string> failures_;
};

// The properties the kernels rely on, checked on the caller's layout (from the model, but
// computed here element by element) and on the Problem resolve_transpose() returned.
void check_accepted(const Args& a, const Verdict& v, const Problem& p, Draw& r, Checker& c) {
  const i128 e = a.elem_bytes;
  c.expect(p.rows == a.rows && p.cols == a.cols && p.batch == a.batch && p.elem_bytes == a.elem_bytes,
           "the Problem's extents differ from the request");
  c.expect(p.empty() == v.empty, "empty() differs from the request");
  if (v.empty) return;
  const i128 rows = a.rows, cols = a.cols, batch = a.batch;
  const i128 s = i128(reinterpret_cast<uintptr_t>(p.src)), d = i128(reinterpret_cast<uintptr_t>(p.dst));
  c.expect(p.src == a.src && p.dst == a.dst, "the Problem's pointers differ from the request");
  c.expect(s != 0 && d != 0, "a null pointer was accepted");
  c.expect(s % std::min<int64_t>(e, 8) == 0 && d % std::min<int64_t>(e, 8) == 0,
           "a pointer not aligned to its element (8 bytes for 16) was accepted");

  // The last byte each side addresses, from the caller's layout: inside the Problem's
  // span, and inside the address space.
  const i128 src_last = s + mul(e, src_offset(batch - 1, rows - 1, cols - 1, v.ld_src, v.stride_src)) + e - 1;
  const i128 dst_last = d + mul(e, dst_offset(batch - 1, rows - 1, cols - 1, v.ld_dst, v.stride_dst)) + e - 1;
  c.expect(src_last <= i128(UINTPTR_MAX) && dst_last <= i128(UINTPTR_MAX), "a side runs past the address space");
  c.expect(p.src_span_bytes() == src_last + 1 - s, "src_span_bytes() is not the addressed extent: " +
                                                        str(p.src_span_bytes()) + " against " + str(src_last + 1 - s));
  c.expect(p.dst_span_bytes() == dst_last + 1 - d, "dst_span_bytes() is not the addressed extent: " +
                                                        str(p.dst_span_bytes()) + " against " + str(dst_last + 1 - d));
  c.expect(src_last < d || dst_last < s, "src and dst share bytes");

  // Every field, and every product the kernels form, fits in int64 (so their arithmetic
  // cannot overflow): each field times elem_bytes, one matrix's pitch in bytes, the bytes.
  const struct { const char* name; int64_t value; } fields[] = {
      {"rows", p.rows},     {"cols", p.cols},     {"batch", p.batch},           {"ld_src", p.ld_src},
      {"ld_dst", p.ld_dst}, {"stride_src", p.stride_src}, {"stride_dst", p.stride_dst}};
  for (const auto& f : fields) {
    c.expect(f.value >= 0, std::string(f.name) + " is negative in the Problem");
    c.expect(i128(f.value) * e <= i64_max, std::string(f.name) + " * elem_bytes overflows int64 (" + str(f.value) + ")");
  }
  c.expect(mul(mul(p.rows, p.ld_src), e) <= i64_max, "rows * ld_src * elem_bytes overflows int64");
  c.expect(mul(mul(p.cols, p.ld_dst), e) <= i64_max, "cols * ld_dst * elem_bytes overflows int64");
  const i128 bytes = mul(mul(mul(rows, cols), batch), e);
  c.expect(bytes <= i64_max && p.bytes() == bytes, "bytes() is wrong");
  c.expect(p.ld_src >= p.cols && p.ld_dst >= p.rows, "a Problem pitch is below its extent");

  // Fields that address nothing hold their packed values.
  if (p.rows == 1) c.expect(p.ld_src == p.cols, "one src row, but ld_src is not cols");
  if (p.cols == 1) c.expect(p.ld_dst == p.rows, "one dst row, but ld_dst is not rows");
  if (p.batch == 1)
    c.expect(p.stride_src == mul(p.rows, p.ld_src) && p.stride_dst == mul(p.cols, p.ld_dst),
             "one matrix, but the batch strides are not rows * ld_src and cols * ld_dst");

  // The Problem addresses the very elements the request does: the corners and a few others.
  const auto same_elements = [&](i128 b, i128 i, i128 j) {
    c.expect(src_offset(b, i, j, p.ld_src, p.stride_src) == src_offset(b, i, j, v.ld_src, v.stride_src),
             "src element (" + str(b) + ", " + str(i) + ", " + str(j) + ") moved");
    c.expect(dst_offset(b, i, j, p.ld_dst, p.stride_dst) == dst_offset(b, i, j, v.ld_dst, v.stride_dst),
             "dst element (" + str(b) + ", " + str(i) + ", " + str(j) + ") moved");
  };
  for (int corner = 0; corner < 8; ++corner)
    same_elements(corner & 1 ? batch - 1 : 0, corner & 2 ? rows - 1 : 0, corner & 4 ? cols - 1 : 0);
  for (int k = 0; k < 2; ++k) same_elements(r.below(a.batch), r.below(a.rows), r.below(a.cols));

  // No two dst elements share an address: by enumeration where that is cheap; beyond, the
  // model's nested-layout condition (which the enumeration and DstBatchesDisjoint check).
  if (rows * cols * batch <= 4096) {
    std::vector<i128> offsets;
    for (i128 b = 0; b < batch; ++b)
      for (i128 j = 0; j < cols; ++j)
        for (i128 i = 0; i < rows; ++i) offsets.push_back(dst_offset(b, i, j, v.ld_dst, v.stride_dst));
    std::sort(offsets.begin(), offsets.end());
    c.expect(std::adjacent_find(offsets.begin(), offsets.end()) == offsets.end(), "two dst elements share an address");
  }
  const int64_t extents[] = {p.batch, p.cols, p.rows}, strides[] = {p.stride_dst, p.ld_dst, 1};
  c.expect(detail::distinct_elements(3, extents, strides).verdict == detail::Distinct::yes,
           "distinct_elements() does not prove the resolved Problem's dst distinct");
}

// The planner and every kernel's host checks and shapes on the accepted problem, on
// devices this build serves and some it does not. Their results are checked only for
// being well formed; the point is that every product they compute runs here, where the
// sanitizer build would stop at an overflow.
void exercise_the_planner(const Problem& p, Checker& c) {
  for (const Device& d : {testing::h100, testing::a100, testing::b200, testing::turing}) {
    Choice choice;
    const Result e = choose(p, d, &choice);
    if (e.failed())
      c.expect(e.status == XPOSE_ERROR_NOT_SUPPORTED && !e.message.empty(), "choose failed badly: " + e.message);
    else
      c.expect(choice.plan.engine && choice.plan.grid.x >= 1 && !choice_text(choice).empty(), "choose gave an empty plan");
    for (const Engine* k : engines(Input::transpose)) {
      Plan plan;
      const Support s = plan_engine(*k, Task::of(p), d, {}, &plan);
      c.expect(why(s, d).find('\n') == std::string::npos, std::string(k->name) + "'s refusal is not one line");
      if (!s.served()) continue;
      c.expect(plan.grid.x >= 1 && plan.grid.y >= 1 && plan.grid.z >= 1 && plan.block.x >= 1,
               std::string(k->name) + " planned an empty grid");
    }
  }
  if (engines::tma::addressable(p).served()) {  // the tensor maps a TMA launch would encode
    const int edge = int(128 / p.elem_bytes);
    const auto src = engines::tma::src_map(p, edge, true), dst = engines::tma::dst_map(p, edge, true);
    c.expect(src.strides[0] % 16 == 0 && src.strides[1] % 16 == 0 && dst.strides[0] % 16 == 0 &&
                 dst.strides[1] % 16 == 0,
             "a tensor map with a pitch that is not a multiple of 16 bytes");
  }
}

int64_t env_or(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoll(v, nullptr, 0) : fallback;
}

uint64_t splitmix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

TEST(FuzzArgs, ResolveAgreesWithThe128BitModelAndAcceptsOnlySafeProblems) {
  const uint64_t seed = uint64_t(env_or("XPOSE_FUZZ_SEED", 0x5eed0014));
  const int64_t cases = env_or("XPOSE_FUZZ_CASES", 300000);
  std::printf("fuzz: seed 0x%" PRIx64 ", %" PRId64 " cases (XPOSE_FUZZ_SEED, XPOSE_FUZZ_CASES override)\n", seed, cases);
  std::fflush(stdout);  // before a sanitizer can stop the process
  // A sanitizer's stop ends the process before the test can name the case: rerun with
  // XPOSE_FUZZ_TRACE=1, and the last case printed is the one.
  const bool trace = env_or("XPOSE_FUZZ_TRACE", 0) != 0;
  std::map<std::string, int64_t> seen;  // how often each outcome came up
  int failures = 0;
  for (int64_t n = 0; n < cases && failures < 20; ++n) {
    Draw r(splitmix(seed ^ splitmix(uint64_t(n))));  // each case replays from (seed, n) alone
    const int64_t kind = r.below(10);
    const Args a = kind < 6 ? plausible(r) : kind < 8 ? arbitrary(r) : at_the_boundary(r);
    if (trace) std::fprintf(stderr, "case %" PRId64 " %s\n", n, describe(a).c_str());
    const Verdict v = judge(a);
    Problem p;
    p.rows = -7;  // a refusal must leave *out alone
    const Result err = resolve_transpose(a, &p);
    Checker c("case " + std::to_string(n) + " " + describe(a));
    const bool unproven = v.undecided && err.failed() &&
                          (err.message.rfind("cannot prove", 0) == 0 || err.message.rfind("dst batches overlap", 0) == 0);
    if (unproven) {
      ++seen["refused: dst batches unproven"];
      continue;
    }
    c.expect(!err.failed() == v.accepted, err.failed() ? "refused (" + err.message + ") but the contract accepts it"
                                                       : std::string("accepted but the contract refuses it: ") + v.rule);
    if (err.failed()) {
      c.expect(err.status == XPOSE_ERROR_INVALID_ARGUMENT, "a refusal that is not INVALID_ARGUMENT");
      c.expect(!err.message.empty() && err.message.find('\n') == std::string::npos, "a refusal's message is not one line");
      c.expect(p.rows == -7, "a refusal wrote the Problem");
      ++seen[std::string("refused: ") + v.rule];
    } else {
      check_accepted(a, v, p, r, c);
      if (!p.empty() && !c.failed()) exercise_the_planner(p, c);
      ++seen[v.empty ? "accepted: empty" : "accepted"];
      if (!v.empty && a.rows == 1 && i128(v.ld_src) * a.elem_bytes > i64_max) ++seen["accepted: one row, wild ld_src"];
      if (!v.empty && a.cols == 1 && i128(v.ld_dst) * a.elem_bytes > i64_max) ++seen["accepted: one column, wild ld_dst"];
      if (!v.empty && a.batch == 1 && i128(a.stride_src) * a.elem_bytes > i64_max) ++seen["accepted: one matrix, wild stride"];
      if (!v.empty && v.src_bytes > (i128(1) << 62)) ++seen["accepted: span past 2^62 bytes"];
    }
    if (c.failed()) {
      ADD_FAILURE() << c.report();
      ++failures;
    }
  }
  std::string summary;
  for (const auto& [what, count] : seen) summary += "  " + what + ": " + std::to_string(count) + "\n";
  std::printf("%s", summary.c_str());
  if (cases < 100000) return;  // a short run need not reach every outcome
  // The generators reach every refusal rule and the corners the normalization is for.
  for (const char* outcome :
       {"accepted", "accepted: empty", "accepted: one row, wild ld_src", "accepted: one column, wild ld_dst",
        "accepted: one matrix, wild stride", "accepted: span past 2^62 bytes", "refused: element size",
        "refused: negative count", "refused: ld below its extent", "refused: bytes overflow", "refused: span overflow",
        "refused: src pitch overflow", "refused: dst pitch overflow", "refused: null pointer",
        "refused: misaligned pointer", "refused: past the address space", "refused: dst batches overlap",
        "refused: src and dst overlap"})
    EXPECT_GE(seen[outcome], 20) << outcome << "\n" << summary;
  EXPECT_GE(seen["accepted"], cases / 5) << summary;
}

}  // namespace
}  // namespace xpose::detail
