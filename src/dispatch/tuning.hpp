// The thresholds of the automatic choice, per GPU family: a tuning record each, chosen by
// the device's properties (compute capability and memory bandwidth), never by its name.
// The rules (dispatch/rules.hpp) read them; docs/performance.md keeps the measurements
// behind each value, keyed by rule id.
#pragma once

#include <cstdint>
#include <vector>

#include "core/device.hpp"

namespace xpose::detail {

struct Tuning {
  const char* name;     // "H100", "H200", "other GPUs"
  const char* selects;  // the devices it is for, in words
  // Which devices: compute capability `cc` (0: any) with a theoretical memory bandwidth in
  // [min_gbps, max_gbps).
  int cc;
  double min_gbps, max_gbps;

  int64_t tile_batch_side;       // rule 1a: batches of whole CuTe vector tiles up to this many bytes a side (H100, H200: 64 MiB)
  int64_t bytes_short_side;      // rule 2: byte matrices with a side of at most this many elements ...
  int64_t short_rows_side;       // ... where that side is the rows, at most this many bytes a matrix
  int64_t pitch_side;            // rule 3: bytes of one side past which a 16-mod-32 dst pitch goes to aligned_stores
  int64_t pitch_side_halves;     // rule 3: the same bound for 2-byte elements
  int64_t cute_tma_side;         // rule 3b: bytes of one side past which cute_tma takes 2-, 4-, 8-byte elements
  int64_t cute_tma_side_bytes;   // rule 3b: the same for 1-byte elements
  int64_t cute_tma_min_rows;     // rule 3b: 2-, 4- and 8-byte elements with at least this many rows
  int64_t cute_tma_max_elem;     // rule 3b: the largest element it takes (bytes)
  int64_t vec_side;              // rule 4a: 1- and 2-byte elements up to this many bytes a side: vec_swizzled
  int64_t pipeline_side;         // rule 4b: ... up to this many: tma_pipeline
  int64_t pipeline_side_bytes;   // rule 4b: the same bound for 1-byte elements
  int64_t halves_min_rows;       // rule 4c: 2-byte elements past pipeline_side with at least these rows ...
  int64_t halves_min_cols;       // ... and columns: aligned_stores
  int64_t min_fp32_tiles_per_sm; // rule 5: fp32 with fewer of vec_swizzled's tiles per SM: smem_padded's 32x32 tile
  int64_t unaligned_side;        // rule 7: 2- and 4-byte elements with rows not 16-byte aligned, past this many bytes a side: aligned_stores
  int64_t unaligned_side_8;      // rule 7: the same bound for 8-byte elements
  int64_t unaligned_bytes_side;  // rule 7a: the same bound for 1-byte elements
  int64_t row_tiles_max_elem;    // rules 3, 6, 7, 7a: vec_swizzled and aligned_stores take their tiles row by row for
                                 // elements of at most this many bytes, column by column for larger ones
};

// Every record, the families first and the defaults last.
const std::vector<Tuning>& tunings();

// The first record whose selector matches `d` (the defaults match every device).
const Tuning& tuning_for(const Device& d);

// One threshold as the rule table and the README name it.
struct TuningField {
  const char* name;
  const char* meaning;
  int64_t Tuning::*value;
  bool bytes;  // printed in KiB/MiB/GiB
};
const std::vector<TuningField>& tuning_fields();

}  // namespace xpose::detail
