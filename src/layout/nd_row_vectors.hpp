// permute_row_vectors: rows of an axis fastest and contiguous on both sides (a form that is not
// tiled, a's stride 1 in src and in dst), moved as 16-byte dst vectors at any alignment. Each
// row is cut at dst's 16-byte boundaries into granules: a thread moves nd_row_vectors_per_thread
// granules, each as the aligned src vector or two around its bytes (inside src's span), shifted
// into dst's alignment, stored whole in one aligned 16-byte store, or a row's first and last (part
// of a granule) as the aligned 8/4/2/1-byte stores of layout::word_parts (4- to 16-byte elements:
// element by element). The walk is permute_rows': (outer index, granule) as one linear index
// split by a fast divisor, in the launches of for_each_rows_chunk over t.granules items a row.
#pragma once

#include <cstdint>
#include <string>

#include "layout/fast_divmod.hpp"
#include "layout/hd.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::layout {

constexpr int nd_row_vectors_threads = 256, nd_row_vectors_per_thread = 2;  // granules a thread has in flight
constexpr int nd_row_vectors_min_blocks = 6;  // resident blocks an SM: 40 registers a thread

struct NdRowVectors {
  int64_t row_bytes = 0;  // a's extent times the element
  FastDivmod granules;    // the 16-byte dst granules a row at any alignment can touch: ceil((row_bytes + 15) / 16)
  int64_t src_bytes = 0;  // src's span from its base: no vector is read past it
};

// Granule g of a row whose dst starts at byte address `dst_row`: the row's bytes [begin, end)
// that fall in it (begin >= end: none); `first` is the row byte at the granule's start (negative
// in a row's first granule where the row starts past it); `whole`: all 16 bytes are the row's.
struct RowGranule {
  int64_t first, begin, end;
  bool whole;
};

XPOSE_HD inline RowGranule row_granule(uintptr_t dst_row, int64_t row_bytes, uint32_t g) {
  RowGranule r;
  r.first = int64_t(g) * 16 - int64_t(dst_row & 15);
  r.begin = r.first > 0 ? r.first : 0;
  r.end = r.first + 16 < row_bytes ? r.first + 16 : row_bytes;
  r.whole = r.first >= 0 && r.first + 16 <= row_bytes;
  return r;
}

// The plan for a form, or false with *why.
inline bool nd_row_vectors(const NdForm& f, NdRowVectors* out, const char** why) {
  if (f.tiled) {
    *why = "permute_row_vectors copies rows of an axis fastest on both sides; here src's fastest axis and dst's "
           "differ";
    return false;
  }
  if (f.src_a != 1 || f.dst_a != 1) {
    *why = "its rows are not contiguous on both sides";
    return false;
  }
  const int64_t row_bytes = f.extent_a * f.elem_bytes;
  const int64_t granules = (row_bytes + 30) / 16;
  if (granules > nd_rows_max_count) {
    *why = "its rows are 2^34 bytes or longer";
    return false;
  }
  out->row_bytes = row_bytes;
  out->granules = FastDivmod(uint32_t(granules));
  out->src_bytes = src_span_bytes(f);
  return true;
}

// "rows of 1188 bytes, 75 16-byte dst granules each at most"
inline std::string text(const NdRowVectors& t) {
  return "rows of " + std::to_string(t.row_bytes) + " bytes, " + std::to_string(t.granules.divisor) +
         " 16-byte dst granules each at most";
}

}  // namespace xpose::layout
