// Register transposes of the pipelined TMA kernel's micro-blocks: m rows of one word each
// (m elements of E bytes per word) in, m columns as words out. Host-testable: the byte
// permute is the PRMT instruction on the device and its definition on the host.
//   E = 1: 4 x 4 bytes in uint32_t      E = 2: 4 x 4 halves in uint2
//   E = 4: 4 x 4 words in uint4         E = 8: 2 x 2 doublewords in uint4
//   E = 16: one element, nothing to turn
#pragma once

#include <vector_functions.h>
#include <vector_types.h>

#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

// __byte_perm(a, b, s): byte i of the result is byte (s >> 4i) & 7 of the pair b:a.
XPOSE_HD inline uint32_t byte_perm(uint32_t a, uint32_t b, uint32_t s) {
#ifdef __CUDA_ARCH__
  return __byte_perm(a, b, s);
#else
  const uint64_t pair = (uint64_t(b) << 32) | a;
  uint32_t out = 0;
  for (int i = 0; i < 4; ++i) out |= uint32_t(pair >> (8 * ((s >> (4 * i)) & 7)) & 0xff) << (8 * i);
  return out;
#endif
}

constexpr uint32_t low_halves = 0x5410, high_halves = 0x7632;  // (a.lo, b.lo), (a.hi, b.hi)

// 4 x 4 bytes: pair up rows 0-1 and 2-3 by byte, then the pairs by half.
XPOSE_HD inline void transpose_micro(const uint32_t (&a)[4], uint32_t (&b)[4]) {
  const uint32_t t0 = byte_perm(a[0], a[1], 0x5140), t1 = byte_perm(a[0], a[1], 0x7362);
  const uint32_t t2 = byte_perm(a[2], a[3], 0x5140), t3 = byte_perm(a[2], a[3], 0x7362);
  b[0] = byte_perm(t0, t2, low_halves);
  b[1] = byte_perm(t0, t2, high_halves);
  b[2] = byte_perm(t1, t3, low_halves);
  b[3] = byte_perm(t1, t3, high_halves);
}

// 4 x 4 halves: column q takes half q of every row; half q lives in word q / 2.
XPOSE_HD inline void transpose_micro(const uint2 (&a)[4], uint2 (&b)[4]) {
  b[0] = make_uint2(byte_perm(a[0].x, a[1].x, low_halves), byte_perm(a[2].x, a[3].x, low_halves));
  b[1] = make_uint2(byte_perm(a[0].x, a[1].x, high_halves), byte_perm(a[2].x, a[3].x, high_halves));
  b[2] = make_uint2(byte_perm(a[0].y, a[1].y, low_halves), byte_perm(a[2].y, a[3].y, low_halves));
  b[3] = make_uint2(byte_perm(a[0].y, a[1].y, high_halves), byte_perm(a[2].y, a[3].y, high_halves));
}

// 4 x 4 words: renaming only.
XPOSE_HD inline void transpose_micro(const uint4 (&a)[4], uint4 (&b)[4]) {
  b[0] = make_uint4(a[0].x, a[1].x, a[2].x, a[3].x);
  b[1] = make_uint4(a[0].y, a[1].y, a[2].y, a[3].y);
  b[2] = make_uint4(a[0].z, a[1].z, a[2].z, a[3].z);
  b[3] = make_uint4(a[0].w, a[1].w, a[2].w, a[3].w);
}

// 2 x 2 doublewords.
XPOSE_HD inline void transpose_micro(const uint4 (&a)[2], uint4 (&b)[2]) {
  b[0] = make_uint4(a[0].x, a[0].y, a[1].x, a[1].y);
  b[1] = make_uint4(a[0].z, a[0].w, a[1].z, a[1].w);
}

XPOSE_HD inline void transpose_micro(const uint4 (&a)[1], uint4 (&b)[1]) { b[0] = a[0]; }

// K = 4 / E rows of a 16-byte chunk (1- or 2-byte elements; four little-endian words a row)
// as its 16 / E columns: word t holds element t of every row, row 0 lowest. aligned_stores'
// column tile stages a column's K rows with one shared store.
template <int E>
XPOSE_HD inline void chunk_columns(const uint32_t (&rows)[4 / E][4], uint32_t (&columns)[16 / E]) {
  static_assert(E == 1 || E == 2, "a word holds four bytes or two halves");
  for (int q = 0; q < 4; ++q) {
    if constexpr (E == 1) {
      const uint32_t a[4] = {rows[0][q], rows[1][q], rows[2][q], rows[3][q]};
      uint32_t b[4];
      transpose_micro(a, b);
      for (int t = 0; t < 4; ++t) columns[4 * q + t] = b[t];
    } else {
      columns[2 * q] = byte_perm(rows[0][q], rows[1][q], low_halves);
      columns[2 * q + 1] = byte_perm(rows[0][q], rows[1][q], high_halves);
    }
  }
}

// Two rows of a 16-byte chunk of bytes as its 16 columns: column t holds byte t of row 0 (low)
// and of row 1. aligned_stores' column tile stages a column's two shifted rows with one store.
XPOSE_HD inline void chunk_byte_pairs(const uint32_t (&rows)[2][4], uint16_t (&columns)[16]) {
  for (int q = 0; q < 4; ++q) {
    const uint32_t low = byte_perm(rows[0][q], rows[1][q], 0x5140), high = byte_perm(rows[0][q], rows[1][q], 0x7362);
    columns[4 * q] = uint16_t(low);
    columns[4 * q + 1] = uint16_t(low >> 16);
    columns[4 * q + 2] = uint16_t(high);
    columns[4 * q + 3] = uint16_t(high >> 16);
  }
}

template <int W> struct WordOf;
template <> struct WordOf<4> { using type = uint32_t; };
template <> struct WordOf<8> { using type = uint2; };
template <> struct WordOf<16> { using type = uint4; };

}  // namespace xpose::layout
