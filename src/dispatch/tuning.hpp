// The thresholds of the automatic choice, per GPU family: a tuning record each, chosen by
// the device's properties (compute capability and memory bandwidth), never by its name.
// The rules (dispatch/rules.hpp) read them; docs/performance.md keeps the measurements
// behind each value, keyed by rule id.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/device.hpp"

namespace xpose::detail {

// Each threshold described once: X(name, bytes, meaning). The record's members, the table of
// meanings (`xpose-bench --rules`, the README) and the records' printing all come from this list;
// `bytes`: the value is a byte count (printed in KiB/MiB/GiB).
#define XPOSE_TUNING_FIELDS(X) \
  X(tile_batch_side, true, "rule tile_batch: one side's bytes up to which a batch of whole CuTe vector tiles goes to cute_vectorized_swizzled") \
  X(short_lines_side, true, "rule short_lines: the longest short side stored dense that goes to short_lines, bytes (it takes at most 128) (0: the rule is off)") \
  X(short_lines_min_spans, false, "rule short_lines: ... where it makes at least this many spans (blocks) an SM") \
  X(bytes_short_side, false, "rule short_bytes: the short side of a byte matrix, elements") \
  X(short_rows_side, true, "rule short_bytes: where that side is the rows, the most bytes a matrix") \
  X(pitch_side, true, "rule pitch_16_mod_32: one side's bytes past which a dst pitch of 16 mod 32 bytes goes to aligned_stores") \
  X(pitch_side_halves, true, "rule pitch_16_mod_32: the same bound for 2-byte elements") \
  X(cute_tma_side, true, "rule large_tma: one side's bytes past which cute_tma takes 2-, 4- and 8-byte elements") \
  X(cute_tma_side_bytes, true, "rule large_tma: the same for 1-byte elements") \
  X(cute_tma_min_rows, false, "rule large_tma: the fewest src rows it takes of 2-, 4- and 8-byte elements") \
  X(cute_tma_max_elem, false, "rule large_tma: the largest element it takes, bytes") \
  X(small_aligned_side, true, "rule small_aligned: aligned problems of 1-, 2-, 8- and 16-byte elements up to this many bytes go to cute_vectorized_swizzled (0: the rule is off)") \
  X(small_aligned_bytes_side, true, "rule small_aligned: ... 1-byte elements up to this many bytes (or a side of at most 128)") \
  X(small_aligned_side_2, true, "rule small_aligned: ... 2-byte elements up to this many bytes (or a side of at most 128)") \
  X(vec_side, true, "rule narrow_small: 1- and 2-byte elements up to this many bytes a side go to vec_swizzled") \
  X(pipeline_side, true, "rule narrow_pipeline: ... up to this many to tma_pipeline") \
  X(pipeline_side_bytes, true, "rule narrow_pipeline: the same bound for 1-byte elements") \
  X(halves_min_rows, false, "rule narrow_large_halves: 2-byte elements past pipeline_side with at least these rows ...") \
  X(halves_min_cols, false, "rule narrow_large_halves: ... and columns go to aligned_stores") \
  X(half_tiles_fill_pct, false, "rule half_tiles: aligned 4- and 8-byte problems go to cute_vectorized_swizzled where they fill this many percent or more of the share of CuTe's tiles that they fill of vec_swizzled's, twice as wide (150: 1.5 times) (0: the rule is off)") \
  X(min_fp32_tiles_per_sm, false, "rule small_fp32: fp32 with fewer of vec_swizzled's 64x64 tiles per SM takes smem_padded's 32x32 tiles") \
  X(unaligned_side, true, "rule unaligned_large: one side's bytes past which 2- and 4-byte elements with rows not 16-byte aligned go to aligned_stores") \
  X(unaligned_side_8, true, "rule unaligned_large: the same bound for 8-byte elements") \
  X(unaligned_side_2, true, "rule unaligned_large: the same bound for 2-byte elements") \
  X(unaligned_bytes_side, true, "rule unaligned_large_bytes: the same bound for 1-byte elements") \
  X(unaligned_min_matrix_narrow, true, "rules unaligned_large, unaligned_large_bytes: the smallest matrix of 1- or 2-byte elements they take (wider elements: 1 MiB)") \
  X(unaligned_mid_side, true, "rule unaligned_mid: 2- and 4-byte elements with rows not 16-byte aligned from this many bytes that the rules before it leave go to smem_padded (0: the rule is off)") \
  X(stores_min_rows_bytes_1, true, "rule unaligned_large_bytes: the bytes of a dst row aligned_stores needs more than, for 1-byte elements") \
  X(stores_min_rows_bytes, true, "rules pitch_16_mod_32, unaligned_large: the bytes of a dst row (rows times the element) aligned_stores needs more than (its tile stages up to 256 bytes of each)") \
  X(row_tiles_max_elem, false, "rules pitch_16_mod_32, aligned, unaligned_large, unaligned_large_bytes: vec_swizzled and aligned_stores take tiles row by row for elements of at most this many bytes, column by column for larger ones") \
  X(col_tiles_min_row_bytes, true, "... but row by row where the rows outnumber the columns and a src row has fewer bytes than this") \
  X(nd_packed_runs_16, true, "rule short_runs_16: 16-byte elements whose runs are both at most this, src's longer than nd_regs_max_src_run, go to permute_packed (0: the rule is off)") \
  X(nd_gather_max_plane, true, "rule small_planes: aligned 16-byte elements whose src and dst fastest axes hold at most this many bytes together (extent a x extent b x 16), which rule whole_vectors would give permute_vec_tiled, go to permute_gather (0: the rule is off) ...") \
  X(nd_gather_min_run, true, "rule small_planes: ... where both fastest runs are longer than this") \
  X(nd_regs_max_run, true, "rule short_runs: the longest fastest run, src's and dst's, that permute_vec_regs takes") \
  X(nd_regs_max_run_16, true, "rule short_runs: the same for 16-byte elements") \
  X(nd_regs_max_src_run, true, "rule short_runs: ... or src's run at most this") \
  X(nd_regs_min_byte_run, true, "rule short_runs: for 1-byte elements, the shortest src run it takes") \
  X(nd_wide_stores_min_elem, false, "rule wide_stores: forms of elements of at least this many bytes in whole aligned 16-byte vectors that rule contiguous_sides would take go to permute_aligned_stores ahead of rule whole_vectors (0: the rule is off) ...") \
  X(nd_wide_stores_min_run, true, "rule wide_stores: ... where dst's fastest axis holds at least this many bytes (shorter ones, joined with the next axis into its blocks' dst rows, ran behind)") \
  X(nd_stores_min_cols, false, "rule contiguous_sides: the fewest columns (src's fastest axis and what joins it) permute_aligned_stores takes") \
  X(nd_stores_min_rows_bytes, true, "rule contiguous_sides: the bytes of rows (dst's fastest axis and what joins it) it needs more than") \
  X(nd_stores_min_fill_pct, false, "rule contiguous_sides: where a run is short enough for rule short_sides, the least share of permute_aligned_stores' blocks' elements (percent) it fills") \
  X(short_transpose_side, true, "rule short_transposes: a batched transpose whose short side has fewer bytes, which the transpose table gives cute_padded, aligned_stores or smem_swizzled, goes to permute_packed") \
  X(short_transpose_side_bytes, true, "rule short_transposes: the same bound for 1-byte elements") \
  X(short_transpose_dst_side_2, true, "rule short_transposes: 2-byte elements whose dst rows are shorter go too (src rows: short_transpose_side) ...") \
  X(short_transpose_dst_min_2, true, "rule short_transposes: ... where the problem holds at least this many bytes") \
  X(short_transpose_min, true, "rule short_transposes: the fewest bytes a problem it takes holds (smaller ones keep the transpose table's choice)") \
  X(filled_transpose_side, true, "rule filled_transposes: one side's bytes from which a batched transpose the transpose table gives an element-wise tile goes to permute_aligned_stores ...") \
  X(filled_transpose_min_pct, false, "rule filled_transposes: ... where it fills at least this share of that kernel's blocks' elements (percent)") \
  X(nd_packed_max_run, true, "rule short_sides: src's or dst's fastest run shorter than this goes to permute_packed") \
  X(nd_packed_min_axis, false, "rule short_sides: ... or src's or dst's fastest axis of fewer elements than this (0: the rule is off)") \
  X(nd_packed_rows_min_run, true, "rule narrow_rows: rows of 4-byte elements longer than this go to permute_packed") \
  X(nd_packed_rows_short_run, true, "rule narrow_rows: ... and those shorter than this") \
  X(nd_row_vectors_min_run, true, "rule contiguous_rows: the shortest row, contiguous on both sides, permute_row_vectors takes") \
  X(nd_row_vectors_min_run_8, true, "rule contiguous_rows: the same for 8-byte elements") \
  X(nd_row_vectors_min_run_1, true, "rule contiguous_rows: the same for 1-byte elements") \
  X(nd_row_vectors_max_elem, false, "rule contiguous_rows: the largest element it takes, bytes")

struct Tuning {
  const char* name = "";     // "H100", "H200", "other GPUs"
  const char* selects = "";  // the devices it is for, in words
  // Which devices: compute capability `cc` (0: any) with a theoretical memory bandwidth in
  // [min_gbps, max_gbps).
  int cc = 0;
  double min_gbps = 0, max_gbps = 0;
#define XPOSE_TUNING_MEMBER(name, bytes, meaning) int64_t name = 0;
  XPOSE_TUNING_FIELDS(XPOSE_TUNING_MEMBER)
#undef XPOSE_TUNING_MEMBER
};

// Rule short_transposes' side: src's run or dst's (bytes; a matrix's rows on each side) short
// for elements of `elem_bytes` bytes, in a problem of `bytes` bytes.
inline bool short_transpose_side_short(const Tuning& t, int64_t elem_bytes, int64_t src_run, int64_t dst_run,
                                       int64_t bytes) {
  if (elem_bytes == 1) return std::min(src_run, dst_run) < t.short_transpose_side_bytes;
  if (elem_bytes == 2)
    return std::min(src_run, dst_run) < t.short_transpose_side ||
           (dst_run < t.short_transpose_dst_side_2 && bytes >= t.short_transpose_dst_min_2);
  return std::min(src_run, dst_run) < t.short_transpose_side;
}

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
