// How a problem is cut into tiles and how the tiles map onto CUDA grids.
#pragma once

#include <algorithm>
#include <cstdint>

#include "layout/hd.hpp"

namespace xpose::layout {

// CUDA's grid limits: x up to 2^31 - 1 blocks, y and z up to 65535.
constexpr int64_t max_grid_x = 2147483647, max_grid_yz = 65535;

// For a >= 0 and b > 0; a + b - 1 would overflow for extents near INT64_MAX.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

struct Dims { uint32_t x = 1, y = 1, z = 1; };

// The tiles of one problem: col_tiles x row_tiles x batch tiles of tile_rows x tile_cols
// elements (column tiles on a grid's x, row tiles on y, matrices on z, one block each).
struct TileWalk {
  int64_t col_tiles = 0, row_tiles = 0, batch = 0;
  int tile_rows = 0, tile_cols = 0;
};

// The walk of rows x cols x batch in tiles of tile_rows x tile_cols.
inline TileWalk tile_walk(int64_t rows, int64_t cols, int64_t batch, int tile_rows, int tile_cols) {
  return {ceil_div(cols, tile_cols), ceil_div(rows, tile_rows), batch, tile_rows, tile_cols};
}

// The grid of the first launch of a walk, each count capped at CUDA's limit (a walk past
// the limits is launched in several grids).
inline Dims first_grid(const TileWalk& w) {
  return {uint32_t(std::min(w.col_tiles, max_grid_x)), uint32_t(std::min(w.row_tiles, max_grid_yz)),
          uint32_t(std::min(w.batch, max_grid_yz))};
}

// The tile (x, y) block (bx, by) of a gx x gy grid turns when the grid's blocks, in the order
// CUDA numbers them (x fastest), take the tiles column by column: blocks that run at the same
// time then write neighbouring pieces of the same dst rows rather than read neighbouring
// pieces of the same src rows. Every tile once: a bijection of the grid.
struct TilePos {
  int64_t x, y;
};
XPOSE_HD inline TilePos column_major_tile(uint32_t bx, uint32_t by, uint32_t gx, uint32_t gy) {
  const uint64_t id = uint64_t(by) * gx + bx;
  return {int64_t(id / gy), int64_t(id % gy)};
}

}  // namespace xpose::layout
