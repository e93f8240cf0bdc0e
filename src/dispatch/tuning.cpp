#include "dispatch/tuning.hpp"

namespace xpose::detail {
namespace {

constexpr int64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// Measured on an H100 80GB HBM3 (3.35 TB/s, 50 MiB L2; docs/performance.md, "The rules").
constexpr Tuning h100 = {"H100", "compute capability 9.0 with less than 4 TB/s of memory bandwidth", 90, 0, 4000,
                         /*tile_batch_side=*/64 * MiB,
                         /*bytes_short_side=*/128,
                         /*short_rows_side=*/64 * MiB,
                         /*pitch_side=*/16 * MiB,
                         /*pitch_side_halves=*/24 * MiB,
                         /*cute_tma_side=*/1 * GiB,
                         /*cute_tma_side_bytes=*/256 * MiB,
                         /*cute_tma_min_rows=*/1,
                         /*cute_tma_max_elem=*/8,
                         /*vec_side=*/2 * MiB,
                         /*pipeline_side=*/64 * MiB,
                         /*pipeline_side_bytes=*/64 * MiB,
                         /*halves_min_rows=*/8192,
                         /*halves_min_cols=*/4096,
                         /*min_fp32_tiles_per_sm=*/8,
                         /*unaligned_side=*/16 * MiB,
                         /*unaligned_side_8=*/24 * MiB,
                         /*unaligned_bytes_side=*/16 * MiB,
                         /*row_tiles_max_elem=*/16};

// Measured on an H200 (4.8 TB/s, 60 MiB of L2; docs/performance.md, "The rules"): the
// H100's values but for rule 3's bound for 2-byte elements, rule 7's for 2- and 4-byte
// elements, rule 3b, which leaves 2-byte matrices of fewer than 1024 rows and all 4- and
// 8-byte ones to the later rules, rule 4b,
// which keeps large 1-byte problems on the pipeline, and the tile order: vec_swizzled and
// aligned_stores take tiles of 4-, 8- and 16-byte elements column by column (on fp32 32768^2
// that took vec_swizzled past cute_tma).
constexpr Tuning h200 = {"H200", "compute capability 9.0 with 4 TB/s or more", 90, 4000, 1e12,
                         h100.tile_batch_side,
                         h100.bytes_short_side,
                         h100.short_rows_side,
                         h100.pitch_side,
                         /*pitch_side_halves=*/32 * MiB,
                         h100.cute_tma_side,
                         h100.cute_tma_side_bytes,
                         /*cute_tma_min_rows=*/1024,
                         /*cute_tma_max_elem=*/2,
                         h100.vec_side,
                         h100.pipeline_side,
                         /*pipeline_side_bytes=*/int64_t(1) << 40,
                         h100.halves_min_rows,
                         h100.halves_min_cols,
                         h100.min_fp32_tiles_per_sm,
                         /*unaligned_side=*/24 * MiB,
                         h100.unaligned_side_8,
                         h100.unaligned_bytes_side,
                         /*row_tiles_max_elem=*/2};

// Every other GPU: no copy-engine rules apply there (those engines need compute capability
// 9.0); the rest keep the H100's values, unmeasured elsewhere.
constexpr Tuning others = {"other GPUs", "any other device", 0, 0, 1e12,
                           h100.tile_batch_side,
                           h100.bytes_short_side,
                           h100.short_rows_side,
                           h100.pitch_side,
                           h100.pitch_side_halves,
                           h100.cute_tma_side,
                           h100.cute_tma_side_bytes,
                           h100.cute_tma_min_rows,
                           h100.cute_tma_max_elem,
                           h100.vec_side,
                           h100.pipeline_side,
                           h100.pipeline_side_bytes,
                           h100.halves_min_rows,
                           h100.halves_min_cols,
                           h100.min_fp32_tiles_per_sm,
                           h100.unaligned_side,
                           h100.unaligned_side_8,
                           h100.unaligned_bytes_side,
                           h100.row_tiles_max_elem};

}  // namespace

const std::vector<Tuning>& tunings() {
  static const std::vector<Tuning> all = {h100, h200, others};
  return all;
}

const Tuning& tuning_for(const Device& d) {
  const std::vector<Tuning>& all = tunings();
  for (const Tuning& t : all)
    if ((t.cc == 0 || t.cc == d.cc) && d.memory_gbps >= t.min_gbps && d.memory_gbps < t.max_gbps) return t;
  return all.back();
}

const std::vector<TuningField>& tuning_fields() {
  static const std::vector<TuningField> fields = {
      {"tile_batch_side",
       "rule 1a: one side's bytes up to which a batch of whole CuTe vector tiles goes to cute_vectorized_swizzled",
       &Tuning::tile_batch_side, true},
      {"bytes_short_side", "rule 2: the short side of a byte matrix, elements", &Tuning::bytes_short_side, false},
      {"short_rows_side", "rule 2: where that side is the rows, the most bytes a matrix", &Tuning::short_rows_side, true},
      {"pitch_side", "rule 3: one side's bytes past which a dst pitch of 16 mod 32 bytes goes to aligned_stores",
       &Tuning::pitch_side, true},
      {"pitch_side_halves", "rule 3: the same bound for 2-byte elements", &Tuning::pitch_side_halves, true},
      {"cute_tma_side", "rule 3b: one side's bytes past which cute_tma takes 2-, 4- and 8-byte elements",
       &Tuning::cute_tma_side, true},
      {"cute_tma_side_bytes", "rule 3b: the same for 1-byte elements", &Tuning::cute_tma_side_bytes, true},
      {"cute_tma_min_rows", "rule 3b: the fewest src rows it takes of 2-, 4- and 8-byte elements",
       &Tuning::cute_tma_min_rows, false},
      {"cute_tma_max_elem", "rule 3b: the largest element it takes, bytes", &Tuning::cute_tma_max_elem, false},
      {"vec_side", "rule 4a: 1- and 2-byte elements up to this many bytes a side go to vec_swizzled", &Tuning::vec_side,
       true},
      {"pipeline_side", "rule 4b: ... up to this many to tma_pipeline", &Tuning::pipeline_side, true},
      {"pipeline_side_bytes", "rule 4b: the same bound for 1-byte elements", &Tuning::pipeline_side_bytes, true},
      {"halves_min_rows", "rule 4c: 2-byte elements past pipeline_side with at least these rows ...",
       &Tuning::halves_min_rows, false},
      {"halves_min_cols", "rule 4c: ... and columns go to aligned_stores", &Tuning::halves_min_cols, false},
      {"min_fp32_tiles_per_sm", "rule 5: fp32 with fewer of vec_swizzled's 64x64 tiles per SM takes smem_padded's 32x32 tiles",
       &Tuning::min_fp32_tiles_per_sm, false},
      {"unaligned_side",
       "rule 7: one side's bytes past which 2- and 4-byte elements with rows not 16-byte aligned go to aligned_stores",
       &Tuning::unaligned_side, true},
      {"unaligned_side_8", "rule 7: the same bound for 8-byte elements", &Tuning::unaligned_side_8, true},
      {"unaligned_bytes_side", "rule 7a: the same bound for 1-byte elements", &Tuning::unaligned_bytes_side, true},
      {"row_tiles_max_elem",
       "rules 3, 6, 7, 7a: vec_swizzled and aligned_stores take tiles row by row for elements of at most this many bytes, "
       "column by column for larger ones",
       &Tuning::row_tiles_max_elem, false},
  };
  return fields;
}

}  // namespace xpose::detail
