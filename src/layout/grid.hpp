// How a problem is cut into tiles and how the tiles map onto a CUDA grid.
#pragma once

#include <algorithm>
#include <cstdint>

namespace xpose::layout {

// CUDA's grid limits: x up to 2^31 - 1 blocks, y and z up to 65535.
constexpr int64_t max_grid_x = 2147483647, max_grid_yz = 65535;

// For a >= 0 and b > 0; a + b - 1 would overflow for extents near INT64_MAX.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

struct Dims { uint32_t x = 1, y = 1, z = 1; };

// A grid of tiles: cols on x, rows on y, batches on z, one tile per block, each count
// capped at CUDA's limit. Where a count exceeds its limit, launch_tiles launches again
// for the rest, so this is also the grid of the first launch.
inline Dims grid_of_tiles(int64_t col_tiles, int64_t row_tiles, int64_t batch) {
  return {uint32_t(std::min(col_tiles, max_grid_x)), uint32_t(std::min(row_tiles, max_grid_yz)),
          uint32_t(std::min(batch, max_grid_yz))};
}

inline Dims tile_grid(int64_t rows, int64_t cols, int64_t batch, int tile_rows, int tile_cols) {
  return grid_of_tiles(ceil_div(cols, tile_cols), ceil_div(rows, tile_rows), batch);
}

}  // namespace xpose::layout
