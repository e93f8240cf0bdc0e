// How a problem is cut into tiles and how the tiles map onto a CUDA grid.
#pragma once

#include <algorithm>
#include <cstdint>

namespace xpose::layout {

// CUDA's grid limits: x up to 2^31 - 1 blocks, y and z up to 65535.
constexpr int64_t max_grid_x = 2147483647, max_grid_yz = 65535;

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct Dims { uint32_t x = 1, y = 1, z = 1; };

// Tiles along cols on x, along rows on y, batches on z, one tile per block. Where a
// count exceeds its limit, this is the first of several launches (launch_tiles).
inline Dims tile_grid(int64_t rows, int64_t cols, int64_t batch, int tile_rows, int tile_cols) {
  return {uint32_t(std::min(ceil_div(cols, tile_cols), max_grid_x)),
          uint32_t(std::min(ceil_div(rows, tile_rows), max_grid_yz)),
          uint32_t(std::min(batch, max_grid_yz))};
}

}  // namespace xpose::layout
