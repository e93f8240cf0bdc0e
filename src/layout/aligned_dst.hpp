// aligned_stores' tile: dst row pieces that start on a 32-byte sector wherever the row
// starts. A block stages `piece + max_shift` src rows by 64 src columns; dst row c (src
// column c) then writes the 256-byte piece that starts `shift` elements before the block's
// first row, so that its 16-byte stores fill whole sectors, two lanes a sector. Pieces of
// one dst row tile it without gaps because the shift depends only on where the row starts
// (the blocks' first rows are 256 bytes apart); the first piece of a row is cut at row 0
// and one more block row covers the last piece's shift.
#pragma once

#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

template <int E>
struct AlignedDstTile {
  static constexpr int piece = 256 / E;          // src rows per block = dst elements per row piece
  static constexpr int cols = 64;                // src columns = dst rows per block
  static constexpr int max_shift = 32 / E - 1;   // a piece starts at most this many elements early
  static constexpr int rows = piece + max_shift; // src rows staged per block
  static constexpr int vec = 16 / E, vecs_per_piece = piece / vec;
  static constexpr int threads = 256;

  // Elements a dst row piece starting at `address` (of its unshifted first element) starts
  // early so that it begins on a 32-byte boundary.
  XPOSE_HD static constexpr int shift(uintptr_t address) { return int(address % 32) / E; }
  // Staged tile row of element k of vector v of a row piece shifted by s.
  XPOSE_HD static constexpr int tile_row(int s, int v, int k) { return max_shift - s + v * vec + k; }
  // Block rows that cover `rows` src rows once the pieces are shifted.
  // (rows + max_shift + piece - 1) / piece, without overflow for rows near INT64_MAX.
  XPOSE_HD static constexpr int64_t row_blocks(int64_t rows) {
    return rows / piece + (rows % piece + max_shift + piece - 1) / piece;
  }
};

}  // namespace xpose::layout
