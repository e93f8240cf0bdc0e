// Parts of aligned 16-byte words: the index math of the kernels that move bytes off 16 bytes
// as the aligned words around them (in place: engines/inplace/; permute_row_vectors; aligned_stores).
#pragma once

#include "layout/hd.hpp"

namespace xpose::layout {

// The aligned stores (8, 4, 2 and 1 bytes) that write bytes [lo, hi) of a 16-byte word and no
// other, for a part of the word ([lo, hi) not [0, 16): that is one 16-byte store): up from lo to
// where its bits are aligned, then down the sizes to hi; put(offset, size) each, at most 7.
template <class Put>
XPOSE_HD constexpr void word_parts(int lo, int hi, Put&& put) {
  int i = lo;
  for (int n = 1; n <= 8; n *= 2)
    if ((i & n) && i + n <= hi) put(i, n), i += n;
  for (int n = 8; n >= 1; n /= 2)
    if (i + n <= hi) put(i, n), i += n;
}

}  // namespace xpose::layout
