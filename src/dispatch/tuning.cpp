#include "dispatch/tuning.hpp"

namespace xpose::detail {
namespace {

constexpr int64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// The base record, measured on an H100 80GB HBM3 (3.35 TB/s, 50 MiB L2; docs/performance.md,
// "The rules"). The others are deltas from it.
constexpr Tuning h100 = [] {
  Tuning t;
  t.name = "H100";
  t.selects = "compute capability 9.0 with less than 4 TB/s of memory bandwidth";
  t.cc = 90, t.min_gbps = 0, t.max_gbps = 4000;
  t.tile_batch_side = 64 * MiB;
  t.bytes_short_side = 128;
  t.short_rows_side = 64 * MiB;
  t.pitch_side = 16 * MiB;
  t.pitch_side_halves = 24 * MiB;
  t.cute_tma_side = 1 * GiB;
  t.cute_tma_side_bytes = 256 * MiB;
  t.cute_tma_min_rows = 1;
  t.cute_tma_max_elem = 8;
  t.small_aligned_side = 0;  // rule small_aligned: off (not measured on an H100)
  t.small_aligned_bytes_side = 2 * MiB;
  t.small_aligned_side_2 = 2 * MiB;
  t.vec_side = 2 * MiB;
  t.pipeline_side = 64 * MiB;
  t.pipeline_side_bytes = 64 * MiB;
  t.halves_min_rows = 8192;
  t.halves_min_cols = 4096;
  t.min_fp32_tiles_per_sm = 8;
  t.unaligned_side = 16 * MiB;
  t.unaligned_side_2 = 16 * MiB;
  t.unaligned_side_8 = 24 * MiB;
  t.unaligned_bytes_side = 16 * MiB;
  t.unaligned_min_matrix_narrow = 1 * MiB;
  t.unaligned_mid_side = 0;  // rule unaligned_mid: off (not measured on an H100)
  t.half_tiles_fill_pct = 0;  // rule half_tiles: off (not measured on an H100)
  t.short_lines_side = 0;     // rule short_lines: off (not measured on an H100)
  t.short_lines_min_spans = 2;
  t.nd_gather_max_plane = 0;  // rule small_planes: off (not measured on an H100)
  t.nd_wide_stores_min_elem = 0;  // rule wide_stores: off (not measured on an H100)
  t.nd_wide_stores_min_run = 64;
  t.nd_gather_min_run = 128;
  t.stores_min_rows_bytes = 128;
  t.stores_min_rows_bytes_1 = 128;
  t.row_tiles_max_elem = 16;
  t.col_tiles_min_row_bytes = 8192;  // where row_tiles_max_elem leaves column order (the H200)
  // N-D (docs/performance.md, "N-D permutations"; tools/experiments/nd_tiles.cu): register
  // blocks win for runs up to 128 bytes (16-byte elements: 256), bytes only from src runs of
  // 128; aligned_stores' blocks win past 64 bytes of rows (fp16 b = 66 bytes on; behind at 32,
  // 33 and 64) with at least half of their 64 columns.
  t.nd_regs_max_run = 128;
  t.nd_regs_max_run_16 = 256;
  t.nd_regs_min_byte_run = 128;
  t.nd_stores_min_cols = 32;
  t.nd_stores_min_rows_bytes = 64;
  // From the random draws with every N-D kernel timed (xpose-permute-bench --random
  // --every-kernel; docs/performance.md, "Random problems"): permute_packed where a run is short
  // and the fastest axes differ, and for rows of 1- and 2-byte elements, and of 4-byte ones past
  // 256 bytes. Register blocks also where src's run is at most 128 bytes, whatever dst's (seeds
  // 1234567, 4242 and 9001, H100 and H200, records in results/2026-11-28-rules-07d0aa8): of the
  // 28 draws a GPU this moves from the earlier bound (either run at most 48 bytes, and 16-byte
  // elements' src runs of 64), 25 (H100) and 24 (H200) ran faster, +12 and +16 points on average
  // (fp64 688x11x82x2x8 (4,0,1,3,2) 37 -> 92% through permute_vec_regs; fp32 4x37x10x11x316
  // (3,2,1,4,0), a dst run of 16 bytes, 57 -> 80% through permute_vec_tiled); the held-out seed
  // 9001 agreed on both GPUs. Fresh seeds beside the earlier bound, one call a GPU
  // (results/2026-11-28-rules-0080b2c): 50 of 57 moved draws faster, medians up 0.4 to 1.2.
  t.nd_regs_max_src_run = 128;
  // Every N-D kernel timed beside the automatic choice on random draws (H100 and H200, 460
  // draws, docs/performance.md "Random problems"): batched transposes with a side of 11 to 38
  // bytes, which the transpose table gave cute_padded or aligned_stores (10-62% of a copy),
  // ran 7.5-52 points faster through permute_packed, all ten of them. Without the CuTe family
  // the fallback smem_swizzled takes them: handed over too (unmeasured, the weaker tile).
  // Refitted with the rules below (records in results/2026-11-28-rules-07d0aa8): sides of 48 to
  // 63 bytes that the table gives cute_padded or aligned_stores ran faster through
  // permute_packed on 8 of 10 draws (H100, +11 points on average); on the H200 sides up to 95
  // bytes on 22 of 26 (+11).
  t.short_transpose_side = 64;
  // u8 sides of 52-79 bytes: permute_packed -28 to +25 points (H100), -21 to +14 (H200).
  t.short_transpose_side_bytes = 48;
  t.short_transpose_dst_side_2 = 64;
  t.short_transpose_dst_min_2 = 8 * MiB;
  // The N-D draws these were fitted on hold 16 MiB or more. 2-D random draws handed over by
  // plan_transpose the same way (H200, 2026-11-28, seeds 1886653972 and 2644288787, same call
  // against the table's choice; results/2026-11-28-aligned-3594273): under 7 MiB 6 of 20 ran
  // faster, behind by up to 42 points (fp16 12992x41 64 -> 22%: permute_packed's few tiles);
  // from 7 MiB 10 of 15 (+16 to +20 on u8, fp16 and fp32 batches of short rows, the rest
  // within 7). With this bound, three fresh seeds (results/2026-11-28-aligned-5833845): 14 of
  // 1500 2-D draws moved, 10 faster, +7.1 on average. Unmeasured on the H100: the same bound.
  t.short_transpose_min = 8 * MiB;
  // Every N-D kernel timed beside the automatic choice on random draws (H100 and H200, seeds
  // 1234567, 4242 and 9001, 1400 draws on each; results/2026-11-28-rules-07d0aa8): of the
  // batched transposes with rows not 16-byte aligned that the transpose table gave cute_padded
  // (rule unaligned_small), those filling at least 75% of permute_aligned_stores' blocks ran
  // faster through it on 10 of 11 (H100, +9.7 points on average) and 15 of 19 (H200, +9.9;
  // u8 296x1505x592 (0,2,1) 44 -> 82%, fp32 571x36x296 (1,2,0) 65 -> 90%); below 75% they lost
  // on 24 of 27 and 26 of 29 (cute_padded's many small blocks lead where the big ones stand
  // part empty). Every draw was 16 MiB or more; smaller problems keep the table's choice
  // (fp32 1001^2: cute_padded's blocks fill the GPU, docs/performance.md, rule unaligned_large).
  // Fresh seeds beside the rules before, in one call a GPU (results/2026-11-28-rules-aa875c1):
  // 22 of 37 moved draws faster on the H100 (+6.1 points on average), 21 of 33 on the H200
  // (+2.1; behind by up to 24: fp64 77x7x4x1223 (0,3,1,2)).
  t.filled_transpose_side = 16 * MiB;
  t.filled_transpose_min_pct = 75;
  t.nd_packed_max_run = 128;
  t.nd_packed_min_axis = 0;  // off: not measured on an H100
  t.nd_packed_runs_16 = 0;  // off: not measured on an H100
  t.nd_packed_rows_min_run = 256;
  // permute_row_vectors against permute_rows and permute_packed, every kernel timed on random
  // draws (docs/performance.md, "Random problems", rule contiguous_rows): ahead for 1- to
  // 4-byte elements in rows of 64 bytes and more, behind below and for 8- and 16-byte elements.
  t.nd_row_vectors_min_run = 64;
  t.nd_row_vectors_min_run_8 = 1024;  // only where nd_row_vectors_max_elem reaches 8 (the H200's record)
  // Rows of 1-byte elements too, on both GPUs, since its row edges went out as aligned 8/4/2/1-byte
  // stores of shifted vectors instead of a byte at a time (2026-11-29, H200: u8 1091x433x1135
  // (1,0,2) 57 -> 87% of a copy, u8 100x675x315 44 -> 72 (permute_packed 30), rows of 63 bytes
  // 41 against permute_packed's 30, of 33 bytes 28 against 37; results/2026-11-29-row-vectors).
  // The H200 had sent u8 rows under 1 KiB to permute_packed before (the old kernel ran u8 557 x
  // 3487 x 81 (1,0,2) at 31%, permute_packed at 51).
  t.nd_row_vectors_min_run_1 = 64;
  t.nd_row_vectors_max_elem = 4;
  // Every N-D kernel timed beside the automatic choice on random draws (H100 and H200, seeds
  // 1234567, 4242 and 9001, 1400 draws on each; docs/performance.md "Random problems", records in
  // results/2026-11-28-rules-07d0aa8): permute_aligned_stores' blocks less than 40%
  // full where a run is short went faster through permute_packed on 8 of 10 draws (H100, +22
  // points on average), 50% full on the H200 on 24 of 28 (+15); rows of 4-byte elements shorter
  // than 64 bytes on 12 of 15 (H100, +12) and 15 of 15 (H200, +18).
  t.nd_stores_min_fill_pct = 40;
  t.nd_packed_rows_short_run = 64;
  return t;
}();

// Measured on an H200 (4.8 TB/s, 60 MiB of L2; docs/performance.md, "The rules"): higher
// bounds for rules pitch_16_mod_32 (2-byte elements) and 7; rule large_tma leaves 2-byte matrices of fewer than 1024
// rows and all 4- and 8-byte ones to the later rules; rule narrow_pipeline keeps large 1-byte problems on
// the pipeline; vec_swizzled and aligned_stores take tiles of 4-, 8- and 16-byte elements
// column by column (but tall matrices of short src rows: rules.cpp, options_for).
constexpr Tuning h200 = [] {
  Tuning t = h100;
  t.name = "H200";
  t.selects = "compute capability 9.0 with 4 TB/s or more";
  t.min_gbps = 4000, t.max_gbps = 1e12;
  t.pitch_side_halves = 32 * MiB;
  t.cute_tma_min_rows = 1024;
  t.cute_tma_max_elem = 2;
  t.pipeline_side_bytes = int64_t(1) << 40;
  t.unaligned_side = 24 * MiB;
  t.row_tiles_max_elem = 2;
  t.nd_stores_min_fill_pct = 50;
  t.short_transpose_side = 96;
  // fp16 dst rows of 96-128 bytes (H200, 2026-12-03, results/2026-12-03-current): permute_packed
  // ahead of the table's kernel on 3 of 3 draws (s148: +19 to +30 points, from smem_padded), and
  // on fresh N-D draws (s151, seed 3328554674) on 25 of 30 (+17.7 on average, down to -6.5, the
  // losses under 32 MiB); on 2-D ones (s152, seed 2433108804) -11 to -31 on all 12 under 20 MiB,
  // -4.7 to +19.8 from 32 MiB (+5 on average on 23). Src rows of 96-128 bytes stay: -24 to -68 on
  // 5 of 5 (s148, from aligned_stores); 4- and 8-byte elements at 129 were level on held-out
  // draws (s149: +0.1, fp32 from smem_padded -11.9 on 10, from aligned_stores +11.6 on 2).
  t.short_transpose_dst_side_2 = 129;
  t.short_transpose_dst_min_2 = 32 * MiB;
  // 8-byte elements in rows of 1024 bytes or more: permute_row_vectors ahead of permute_rows on
  // all 28 such draws (+7 points on average; behind in shorter rows, level on the H100).
  t.nd_row_vectors_max_elem = 8;
  // Every 2-D kernel timed beside the automatic choice on 1250 random draws (seeds 156642480,
  // 2752934987 and 2773415987 at 5a392ca; docs/performance.md "Random problems", records in
  // results/2026-11-29-small-rules): aligned problems of 1-, 2-, 8- and 16-byte elements up to
  // 32 MiB (1- and 2-byte ones up to vec_side, or with a side of at most 128 bytes) ran faster
  // through cute_vectorized_swizzled than through vec_swizzled or tma_pipeline: 161 of 185 more
  // than 2 points ahead, 6 more than 2 behind (at most 6), +7.7 points on average. Unaligned
  // rows ran faster through aligned_stores than through cute_padded from 6 MiB of bytes
  // (matrices of 256 KiB on, dst rows of 128 bytes) and 12 MiB of 2-byte elements: 49 of 58
  // ahead, 2 behind (at most 3.6), +11 on average. The unaligned 2- and 4-byte problems of 4 MiB
  // or more those rules still left to cute_padded ran faster through smem_padded: 69 of 107
  // ahead, 8 behind (at most 7.8), +3.1 on average (1- and 8-byte ones: level or behind).
  t.small_aligned_side = 32 * MiB;
  // Those draws and 500 more at ce1cdfa (seed 3165697607; 1750 in all): aligned 1-byte problems
  // past 2 MiB up to 6 ran faster through cute_vectorized_swizzled than through tma_pipeline on
  // all 7 (+3.7 to +8.8 points; from 8 MiB: behind by 3 to 36), 2-byte ones up to 13 MiB on all 6
  // (+1.7 to +14.5; from 16 MiB: behind by 4 to 21).
  t.small_aligned_bytes_side = 6 * MiB;
  t.small_aligned_side_2 = 12 * MiB;
  t.unaligned_side_2 = 12 * MiB;
  t.unaligned_bytes_side = 6 * MiB;
  t.unaligned_min_matrix_narrow = 256 * KiB;
  t.stores_min_rows_bytes_1 = 127;
  t.unaligned_mid_side = 4 * MiB;
  // Aligned fp32 and fp64 problems that reached rule aligned (every 2-D kernel timed, seeds
  // 156642480, 2752934987, 2773415987, 3165697607, and s82's draws; results/2026-11-29-small-rules,
  // 2026-11-29-skinny-packed, 2026-12-01-peers-rules): where a side half fills vec_swizzled's
  // tiles (64 fp32, 32 fp64), CuTe's, half as wide, fill twice as much, and cute_vectorized_swizzled
  // ran ahead on all 10 such draws, +1.6 to +43 points (fp32 batched 61x19264x32 78 -> 101%, fp64
  // batched 42x16x64512 82 -> 95); where the fills differ by 1.33x or less it ran behind on 44 of
  // 45 (40 by more than 2 points, at most 15; one +3.2).
  t.half_tiles_fill_pct = 150;
  // N-D forms of 8-byte elements whose fastest axes differ and have runs of 152-184 bytes but 19-23
  // elements, which no vector kernel took: permute_packed 75-87% of a copy where permute_tiled ran
  // 40-59 (all 3 of 1500 draws, seeds 3186675229, 954949985, 102586186, 2419345305).
  t.nd_packed_min_axis = 32;
  // N-D forms of 16-byte elements that rule short_runs gave permute_vec_regs by both runs (9-16
  // elements of src's, at most 16 of dst's): permute_packed ahead on all 6 of 1750 draws, +7 to
  // +25 points, every N-D kernel timed (seeds 954949985, 102586186, 2419345305, 3271648247; c128
  // 1313x428x4x9 (1,3,0,2) 65 -> 89%, 43x296x2x9x14 (2,0,1,4,3) 65 -> 90). Those with src runs of
  // 2-8 elements stay: permute_packed ahead of permute_vec_regs on 13 of 35, behind on 17.
  t.nd_packed_runs_16 = 256;
  // N-D forms of 16-byte elements that rule whole_vectors gave permute_vec_tiled, every N-D kernel
  // timed (seeds 13966792869280284426 and 1807346968259422386, and the 23 draws PyTorch led in
  // s81 and s85; results/2026-12-02-gather): where both fastest axes have more than 8 elements and
  // hold at most 512 together (a x b), permute_gather ran ahead on all 6, +3.9 to +23 points (c128
  // 18x51x267x2x4x13 (3,2,4,1,5,0) 64 -> 87%, 5x343x48x25x12 (1,2,0,4,3) 79 -> 92); the next
  // plane, 23 x 26, 2.6 points behind, and behind on every larger one (by 1 to 50); with a side
  // of 3-7 elements behind on 4 of 5 (32 x 3: 99 -> 59).
  t.nd_gather_max_plane = 8 * KiB;
  // Aligned 8-byte forms that rule whole_vectors gave permute_vec_tiled, every N-D kernel timed
  // (seeds 13966792869280284426 and 1807346968259422386, results/2026-12-02-gather s91):
  // permute_aligned_stores ahead on 18 of the 23 that rule contiguous_sides would take, +2.1 to
  // +17.7 points (fp64 1670x142x4x18 (0,3,2,1) 72 -> 90%, 229x110x23x2x22 (3,4,2,0,1) 82 -> 92),
  // within a point on 4, behind on 1 (-4.2, dst's fastest axis 2 elements); 4-byte forms mixed
  // (2 ahead, 2 behind of 4), 1- and 2-byte ones too few. On 90 fresh draws (s109, seed
  // 81055428942923583) +3.8 at the median, 67 ahead by more than 2 points, 11 behind, 5 of them
  // (-4 to -26: fp64 2x23x366x1960 (2,3,1,0) 87 -> 61%) where dst's fastest axis has 2-6
  // elements and its blocks' dst rows join it with the next axis. With that bound, on 90 fresh
  // draws of seed 2673638136069942819 (s110): +4.3 at the median, +4.6 on average, 61 ahead by
  // more than 2 points, 11 behind (fp64 188x3x28x3664 (3,2,1,0) 89 -> 72%), no bound on the runs,
  // blocks or outer indices separating them. 2- and 4-byte forms it would move (s111, s113; 40 fresh
  // draws each of seed 15344337384778175916): fp32 +7.7 at the median, 29 ahead by more than 2
  // points, 3 behind (60x2x2x174x5x584 (3,4,2,1,5,0) 87 -> 60%); fp16 +4.1, 31 ahead, 4 behind
  // (6x144x1204x216 (3,2,0,1) 83 -> 71). 1-byte ones split (22: +1.8 at the median, 10 ahead, 7
  // behind down to -48) and stay.
  t.nd_wide_stores_min_elem = 2;
  // Interleaves (S x N -> N x S) with S rows of 9 elements to 127 bytes that are not whole 16-byte
  // vectors, elements of at most 4 bytes, through short_lines against the choice before (mostly
  // cute_padded and permute_packed), 2026-12-02, results/2026-12-02-gather s95, s96 (2-D seeds
  // 1649185326, 460686902, 1833770051, 1440430074; N-D 1603921241, 2654679692, 226852767,
  // 762703810): of the 71 draws it took in either run, the 31 this rule takes ran +14.1 points on
  // average (u8 54x3240x2356 (1,2,0) 24 -> 83%, u8 batched 63x81x55936 39 -> 81, fp16
  // 6x49x12x791x22 (0,2,3,4,1) 42 -> 87), behind on 2 (-3.7, -0.2) and on fp32 9x1000x1003 (1,2,0)
  // (-2.6 and -4.9); it leaves 2-byte elements from unaligned lines (-4 to -19 on 3 of 4) and
  // fewer than 2 spans an SM (u8 81x31727 41 -> 13). With lanes along a line de-interleaving and
  // the staged run's groups padded (s100, s101, 64 MiB each way, aligned and odd lines, sides of
  // 12-128 bytes): ahead of the choice on aligned whole-vector sides it had left (u8 16 x 4194304
  // 8 -> 46%, 4194304 x 16 6 -> 65, fp16 16 x 2097152 28 -> 77, fp32 838848 x 20 54 -> 101) but
  // u8 64 bytes (cute 84-88 against 74-77) and, for wider elements, 128 (cute or tma_pipeline 89-92
  // against 84; the rule leaves 128-byte sides of every size to the tiles); de-interleaving into
  // aligned lines ahead from 32 bytes a side of 2- and 4-byte elements, of bytes up to 48 (u8
  // 1398096 x 48 15 -> 71) and at 80-112 (u8 838848 x 80 30 -> 56, 599184 x 112 33 -> 55),
  // behind on u8 56, 64 and 128; into unaligned lines behind on most.
  t.short_lines_side = 128;
  return t;
}();

// Every other GPU: the H100's values, unmeasured elsewhere (the copy-engine rules do not apply:
// those engines need compute capability 9.0).
constexpr Tuning others = [] {
  Tuning t = h100;
  t.name = "other GPUs";
  t.selects = "any other device";
  t.cc = 0, t.min_gbps = 0, t.max_gbps = 1e12;
  return t;
}();

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
#define XPOSE_TUNING_FIELD(name, bytes, meaning) {#name, meaning, &Tuning::name, bytes},
      XPOSE_TUNING_FIELDS(XPOSE_TUNING_FIELD)
#undef XPOSE_TUNING_FIELD
  };
  return fields;
}

}  // namespace xpose::detail
