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

#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

struct InplaceShape {
  int64_t m = 0, n = 0;  // rows, cols of the matrix before
  int64_t b = 1;         // n / gcd(m, n)
};

XPOSE_HD inline int64_t gcd(int64_t x, int64_t y) {
  while (y) {
    const int64_t t = x % y;
    x = y;
    y = t;
  }
  return x;
}

XPOSE_HD inline InplaceShape inplace_shape(int64_t rows, int64_t cols) {
  InplaceShape s;
  s.m = rows, s.n = cols;
  s.b = cols / gcd(rows, cols);
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

}  // namespace xpose::layout
