#include "dispatch/rules.hpp"

#include <algorithm>

#include "dispatch/nd_rules.hpp"
#include "engines/engines.hpp"
#include "layout/grid.hpp"
#include "layout/skinny.hpp"
#include "layout/smem_layout.hpp"
#include "layout/tiny_batch.hpp"
#include "layout/tma_tile.hpp"

namespace xpose::detail {
namespace {

#ifdef XPOSE_HAVE_CUTE
#define XPOSE_CUTE_ENGINE(name) #name, &engines::name
#else
#define XPOSE_CUTE_ENGINE(name) #name, nullptr
#endif
#define XPOSE_ENGINE(name) #name, &engines::name

bool served(const Engine& e, const Problem& p, const Device& d) { return e.supports(Task::of(p), d).served(); }

// Where the copy engine can address both sides (and the device has the TMA kernels).
bool tma_addressable(const Problem& p, const Device& d) { return served(engines::tma_swizzle128, p, d); }

bool middle_size(const Problem& p) { return p.elem_bytes >= 2 && p.elem_bytes <= 8; }

// Byte matrices with a short side, but not wide ones: a matrix of few rows past
// short_rows_side bytes is the copy-engine tiles' (rules narrow_small to narrow_large).
bool short_bytes(const Problem& p, const Device&, const Tuning& t) {
  return p.elem_bytes == 1 && std::min(p.rows, p.cols) <= t.bytes_short_side &&
         (p.rows > t.bytes_short_side || p.rows * p.cols <= t.short_rows_side);
}

// A short side stored dense (rule short_lines; the record's short_lines_side, 0 where unmeasured):
// where short_lines ran ahead of the choice before it on the H200 (docs/experiments.md, 44 and
// 45): interleaves whose tiles' rows are unaligned, and over aligned lines those of whole
// vectors under 128 bytes but where CuTe's 64x64 byte tile fits the side; de-interleaves into
// aligned lines (into unaligned ones it ran behind on most sides: windows of bytes gathered one
// by one), bytes up to 48 a side or from 65 to 127 (at 56 and 64 aligned_stores and CuTe's byte
// tile fit), wider elements from 32 to 127 bytes a side.
bool short_lines(const Problem& p, const Device& d, const Tuning& t) {
  const int64_t e = p.elem_bytes;
  const int dir = layout::short_lines_direction(p.rows, p.cols, p.ld_src, p.ld_dst, e);
  if (dir == 0 || e > 4) return false;
  const int64_t side = (dir > 0 ? p.rows : p.cols) * e, length = dir > 0 ? p.cols : p.rows;
  const int64_t spans = (length * e + layout::short_lines_span_bytes - 1) / layout::short_lines_span_bytes;
  if (side > t.short_lines_side || spans * p.batch < t.short_lines_min_spans * d.sm_count) return false;
  const bool aligned = dir > 0 ? p.src_rows_aligned_16() : p.dst_rows_aligned_16();  // the lines, as short_lines' plan
  if (dir < 0) return aligned && side < 128 && (e == 1 ? side <= 48 || side > 64 : side >= 32);
  if (side % 16 != 0) return e != 2 || aligned;
  return aligned && side < 128 && (e != 1 || side != 64);
}

// Small aligned problems (rule small_aligned; the record's small_aligned_side, 0 where unmeasured):
// CuTe's square tiles of 16-byte copy atoms ran ahead of vec_swizzled's and tma_pipeline's on the
// H200 for every element size but 4 bytes (docs/performance.md, "Random problems"); 1- and 2-byte
// elements only in small problems or with a side of at most a line, where the pipeline's larger
// tiles stand half empty.
bool small_aligned(const Problem& p, const Device&, const Tuning& t) {
  if (p.elem_bytes == 4 || p.bytes() > t.small_aligned_side) return false;
  if (p.elem_bytes >= 8) return true;
  return p.bytes() <= (p.elem_bytes == 1 ? t.small_aligned_bytes_side : t.small_aligned_side_2) ||
         std::min(p.rows, p.cols) * p.elem_bytes <= 128;
}

// The share of the tiles of `edge` x `edge` elements covering an E-byte rows x cols matrix that it fills.
double tile_fill(const Problem& p, int64_t edge) {
  return double(p.rows) / double(layout::ceil_div(p.rows, edge) * edge) * double(p.cols) /
         double(layout::ceil_div(p.cols, edge) * edge);
}

// Aligned 4- and 8-byte problems with a side that half fills vec_swizzled's tiles (rule
// half_tiles; the record's half_tiles_fill_pct, 0 where unmeasured): CuTe's vector tiles, half
// as wide for these sizes, fill more of theirs.
bool half_tiles(const Problem& p, const Device&, const Tuning& t) {
  if ((p.elem_bytes != 4 && p.elem_bytes != 8) || t.half_tiles_fill_pct <= 0) return false;
  const int64_t vec_edge = p.elem_bytes == 4 ? layout::VecTile<4>::tile : layout::VecTile<8>::tile;
  return 100.0 * tile_fill(p, layout::cute_vec_edge(p.elem_bytes)) >=
         double(t.half_tiles_fill_pct) * tile_fill(p, vec_edge);
}

// Rows not 16-byte aligned: aligned_stores (256-byte dst pieces of 64 src columns, shifted
// loads) where the problem is large enough to fill the GPU with its big tiles and each matrix
// is at least 1 MiB; smaller ones and batches of small matrices, where its tiles stand mostly
// empty or few, go to cute_padded's element-wise tiles (rules unaligned_small, fallback). Measured on the H100
// and H200 (aligned_stores against cute_padded; docs/performance.md, rule unaligned_large): below the bound
// cute_padded leads (fp32 1001^2, fp16 1000 x 100x100, fp64 4096 x 33x33), past it
// aligned_stores (fp32 3001^2). Elements of 8 bytes, which cute_padded moves near vector speed,
// need a whole aligned_stores tile each way too (fp64 20x1000001).
// (1- and 2-byte elements: the record's unaligned_min_matrix_narrow.)
constexpr int64_t unaligned_min_matrix = int64_t(1) << 20;

// Dst rows long enough for aligned_stores' tile, which stages up to 256 bytes of each (short rows
// leave most of it empty: cute_padded's element tiles lead there; docs/performance.md, rule
// unaligned_large). 1-byte elements: the record's stores_min_rows_bytes_1.
bool stores_rows(const Problem& p, const Tuning& t) {
  return p.rows * p.elem_bytes > (p.elem_bytes == 1 ? t.stores_min_rows_bytes_1 : t.stores_min_rows_bytes);
}

// 8-byte elements: a whole aligned_stores tile each way (32 rows, 64 columns), else cute_padded's
// element tiles lead (fp64 20x1000001; H200 s161, batched fp64 transposes of 10-30 columns that
// rule pitch_16_mod_32 gave aligned_stores: cute_padded ahead on 39 of 40, by 16.8 points on average).
bool stores_tile_fits(const Problem& p) { return p.elem_bytes != 8 || (p.rows >= 32 && p.cols >= 64); }

// Rule pitch_16_mod_32's 8-byte elements: src rows off 16 bytes as stores_tile_fits; 16-byte
// aligned ones longer than 256 bytes, under which the aligned vector tiles next in line led
// (H200 s167, draws of a fresh seed: +20.4 points on average over 15 such 2-D draws; at 32-58
// columns and where only the rows were short they lost up to 33 points). Held out on another
// seed (s168): N-D +20.4 on the 47 draws timed, 2-D +16.5 on 39.
bool pitch_tile_fits(const Problem& p) {
  return p.elem_bytes != 8 || (p.src_rows_aligned_16() ? p.cols * p.elem_bytes > 256 : stores_tile_fits(p));
}

bool large_unaligned(const Problem& p, const Tuning& t) {
  if (p.matrix_bytes() < (p.elem_bytes <= 2 ? t.unaligned_min_matrix_narrow : unaligned_min_matrix) || !stores_rows(p, t) ||
      !stores_tile_fits(p))
    return false;
  switch (p.elem_bytes) {
    case 1: return p.bytes() > t.unaligned_bytes_side;
    case 2: return p.bytes() > t.unaligned_side_2;
    case 4: return p.bytes() > t.unaligned_side;
    case 8: return p.bytes() > t.unaligned_side_8;
    default: return false;
  }
}

// Batches whose matrices tiny_batched should take when it serves them: up to 4 KiB, and 2- and
// 4-byte matrices up to 8 KiB that would leave a quarter or more of the tile kernels' 32x64
// tiles empty (layout::TinyBatch::tiles_mostly_empty). 8-byte matrices past 4 KiB lost to
// the tile kernels (fp64 31x31 x2000; docs/performance.md, rule tiny_batch).
bool tiny_matrices(const Problem& p) {
  const int64_t bytes = p.matrix_bytes();
  if (bytes <= layout::TinyBatch::small_bytes) return true;
  return bytes <= layout::TinyBatch::max_bytes && (p.elem_bytes == 2 || p.elem_bytes == 4) &&
         layout::TinyBatch::tiles_mostly_empty(p.rows, p.cols);
}

// What the tuning record decides for an engine's plan: the order its blocks take tiles in.
// Not column by column where the rows outnumber the columns and src rows are short
// (col_tiles_min_row_bytes): H200, 2-D random draws of 4-, 8- and 16-byte elements with more rows
// than columns, row order against column order in one call (results/2026-11-28-rules-41e66e9):
// ahead on 107 of 134 with src rows under 8 KiB (+2.5 points on average), behind past 16 KiB.
PlanOptions options_for(const Engine& e, const Problem& p, const Tuning& t) {
  const bool tall_short_rows = p.rows > p.cols && p.cols * p.elem_bytes < t.col_tiles_min_row_bytes;
  return {e.takes_tile_order && p.elem_bytes > t.row_tiles_max_elem && !tall_short_rows};
}

}  // namespace

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"tile_batch", XPOSE_CUTE_ENGINE(cute_vectorized_swizzled),
       [](const Problem& p, const Device& d, const Tuning& t) {
         return p.batch > 1 && middle_size(p) && p.bytes() <= t.tile_batch_side &&
                layout::cute_vec_whole_tiles(p.elem_bytes, p.rows, p.cols) && served(engines::tiny_batched, p, d) &&
                (p.matrix_bytes() <= layout::TinyBatch::small_bytes || p.elem_bytes <= 4);
       },
       "a batch of dense matrices (ld = extent, batch stride = matrix size) of 2-, 4- or 8-byte elements, whole CuTe "
       "vector tiles (rows and cols multiples of 32 elements, 16 for 8-byte ones), at most 4 KiB each (2- and 4-byte: "
       "8 KiB), at most `tile_batch_side` a side, CuTe family built",
       "a batch of small matrices of whole tiles: 16-byte copy atoms on both sides through CuTe's square tiles"},
      {"tiny_batch", XPOSE_ENGINE(tiny_batched),
       [](const Problem& p, const Device&, const Tuning&) {
         return p.batch > 1 && (p.elem_bytes > 1 || std::min(p.rows, p.cols) < layout::VecTile<1>::tile) &&
                tiny_matrices(p);
       },
       "a batch of dense matrices (ld = extent, batch stride = matrix size) of at most 4 KiB each, except 1-byte "
       "matrices of at least 64x64 (whole byte tiles); 2- and 4-byte matrices up to 8 KiB that fill less than 3/4 of "
       "the 32x64-element tiles covering them",
       "a batch of small dense matrices: whole matrices per block"},
      {"short_side", XPOSE_ENGINE(skinny), [](const Problem&, const Device&, const Tuning&) { return true; },
       "a short side of at most 8 elements stored dense (rows <= 8 and ld_dst == rows, or cols <= 8 and ld_src == "
       "cols), any element size, any batch the rules above leave",
       "a short side of at most 8 elements stored dense: lines of 16-byte vectors and a dense run, no tile"},
      {"short_lines", XPOSE_ENGINE(short_lines), short_lines,
       "a short side of 9 elements up to `short_lines_side` bytes stored dense, elements of at most 4 bytes, the dense "
       "side's base and batch stride 16-byte aligned, at least `short_lines_min_spans` spans (256 bytes of the lines) an "
       "SM; interleaving (dst dense, ld_dst == rows): a side not a whole number of 16-byte vectors (2-byte elements: "
       "from 16-byte aligned lines), or aligned lines and a side of whole vectors under 128 bytes but 64 bytes of "
       "1-byte elements; de-interleaving (src dense, ld_src == cols) into 16-byte aligned lines, a side under 128 "
       "bytes: of 1-byte elements at most 48 or more than 64, of wider ones at least 32",
       "a short side stored dense: 256 bytes of each line and the dense run they make, both as 16-byte vectors"},
      {"short_bytes", XPOSE_CUTE_ENGINE(cute_vectorized_swizzled), short_bytes,
       "1-byte elements, a side of at most `bytes_short_side` (where that side is the rows, at most `short_rows_side` "
       "a matrix), rows and bases 16-byte aligned, CuTe family built",
       "bytes with a short side: 16-byte copy atoms on both sides through a 64x64 tile"},
      {"short_bytes_vec", XPOSE_ENGINE(vec_swizzled), short_bytes, "... the same without the CuTe family",
       "bytes with a short side: 16-byte vectors on both sides"},
      {"pitch_16_mod_32", XPOSE_ENGINE(aligned_stores),
       [](const Problem& p, const Device&, const Tuning& t) {
         return middle_size(p) && (p.ld_dst * p.elem_bytes) % 32 == 16 && stores_rows(p, t) && pitch_tile_fits(p) &&
                p.bytes() > (p.elem_bytes == 2 ? t.pitch_side_halves : t.pitch_side);
       },
       "2-, 4- or 8-byte elements whose dst pitch is 16 mod 32 bytes, more than `pitch_side` a side (src or dst, "
       "batch included; 2-byte elements: `pitch_side_halves`), dst rows of more than `stores_min_rows_bytes` bytes "
       "(8-byte elements: src rows of more than 256 bytes where 16-byte aligned, else at least 32 rows and 64 "
       "columns)",
       "a dst pitch of 16 mod 32 bytes: dst row pieces shifted to start on 32-byte sectors"},
      {"large_tma", XPOSE_CUTE_ENGINE(cute_tma),
       [](const Problem& p, const Device&, const Tuning& t) {
         const bool large = p.elem_bytes == 1 ? p.bytes() > t.cute_tma_side_bytes
                                              : p.bytes() > t.cute_tma_side && p.rows >= t.cute_tma_min_rows;
         return large && p.elem_bytes <= t.cute_tma_max_elem && layout::cute_tma_whole_rows(p.elem_bytes, p.rows, p.cols);
       },
       "1-, 2-, 4- or 8-byte elements (at most `cute_tma_max_elem`) on compute capability 9.0 where TMA can address "
       "both sides, more than `cute_tma_side` a side and at least `cute_tma_min_rows` rows (bytes: more than "
       "`cute_tma_side_bytes`), src and dst rows whole 128-byte segments (cols and rows multiples of 128/E), CuTe "
       "family built",
       "large problems on Hopper with rows of whole 128-byte segments: TMA boxes of whole 256-byte tile rows"},
      {"small_aligned", XPOSE_CUTE_ENGINE(cute_vectorized_swizzled), small_aligned,
       "rows and bases 16-byte aligned, elements of 1, 2, 8 or 16 bytes, at most `small_aligned_side` bytes (1- and "
       "2-byte elements: at most `small_aligned_bytes_side` and `small_aligned_side_2`, or a side of at most 128 "
       "bytes), CuTe family built",
       "small aligned problems: CuTe's square tiles of 16-byte copy atoms, many blocks"},
      {"narrow_small", XPOSE_ENGINE(vec_swizzled),
       [](const Problem& p, const Device& d, const Tuning& t) {
         return p.elem_bytes <= 2 && p.bytes() <= t.vec_side && tma_addressable(p, d);
       },
       "1- or 2-byte elements on compute capability 9.0 where TMA can address both sides (16-byte bases and "
       "pitches, dst rows a multiple of 16 bytes), at most `vec_side` a side",
       "1- and 2-byte elements, small: 16-byte vectors, one short launch"},
      {"narrow_pipeline", XPOSE_ENGINE(tma_pipeline),
       [](const Problem& p, const Device&, const Tuning& t) {
         return p.elem_bytes <= 2 && p.bytes() <= (p.elem_bytes == 1 ? t.pipeline_side_bytes : t.pipeline_side);
       },
       "... at most `pipeline_side` a side (bytes: `pipeline_side_bytes`)", "1- and 2-byte elements on Hopper, mid-sized: persistent TMA pipeline"},
      {"narrow_large_halves", XPOSE_ENGINE(aligned_stores),
       [](const Problem& p, const Device& d, const Tuning& t) {
         return p.elem_bytes == 2 && p.rows >= t.halves_min_rows && p.cols >= t.halves_min_cols &&
                tma_addressable(p, d);
       },
       "... more, 2-byte elements, at least `halves_min_rows` rows and `halves_min_cols` columns",
       "large 2-byte problems: 16-byte loads, 256-byte dst pieces on 32-byte sectors"},
      {"narrow_large", XPOSE_ENGINE(tma_swizzle128),
       [](const Problem& p, const Device&, const Tuning&) { return p.elem_bytes <= 2; }, "... more",
       "large 1- and 2-byte problems on Hopper: TMA tiles with the 128-byte swizzle"},
      {"small_fp32", XPOSE_ENGINE(smem_padded),
       [](const Problem& p, const Device& d, const Tuning& t) {
         constexpr int edge = layout::VecTile<4>::tile;
         const int64_t tiles = layout::ceil_div(p.rows, edge) * layout::ceil_div(p.cols, edge) * p.batch;
         return p.elem_bytes == 4 && tiles < t.min_fp32_tiles_per_sm * d.sm_count && served(engines::vec_swizzled, p, d);
       },
       "fp32, 16-byte aligned, fewer than `min_fp32_tiles_per_sm` x SMs of 64x64 tiles",
       "fp32 with few 64x64 tiles per SM: 32x32 tiles, 4x the blocks"},
      {"half_tiles", XPOSE_CUTE_ENGINE(cute_vectorized_swizzled), half_tiles,
       "4- or 8-byte elements, rows and bases 16-byte aligned, matrices that fill at least `half_tiles_fill_pct` "
       "percent as much of CuTe's 32x32 (8-byte: 16x16) tiles as of vec_swizzled's 64x64 (32x32), CuTe family built",
       "a side that half fills vec_swizzled's tiles: CuTe's, half as wide, fill more of theirs"},
      {"aligned", XPOSE_ENGINE(vec_swizzled), [](const Problem&, const Device&, const Tuning&) { return true; },
       "rows and bases 16-byte aligned (tiles of elements larger than `row_tiles_max_elem` column by column but in "
       "tall matrices of src rows shorter than `col_tiles_min_row_bytes`, here and in rules pitch_16_mod_32 and "
       "unaligned_large)",
       "16-byte aligned rows and bases: 16-byte vectors on both sides"},
      {"unaligned_large", XPOSE_ENGINE(aligned_stores),
       [](const Problem& p, const Device&, const Tuning& t) { return middle_size(p) && large_unaligned(p, t); },
       "2-, 4- or 8-byte elements whose rows or bases are not 16-byte aligned, more than `unaligned_side` a side "
       "(2-byte: `unaligned_side_2`; 8-byte: `unaligned_side_8`, and at least 32 rows and 64 columns), matrices of at "
       "least 1 MiB (2-byte: `unaligned_min_matrix_narrow`), dst rows of more than `stores_min_rows_bytes` bytes",
       "large, rows not 16-byte aligned: shifted 16-byte loads, 16-byte stores on 32-byte sectors"},
      {"unaligned_large_bytes", XPOSE_ENGINE(aligned_stores),
       [](const Problem& p, const Device&, const Tuning& t) { return p.elem_bytes == 1 && large_unaligned(p, t); },
       "1-byte elements whose rows or bases are not 16-byte aligned, more than `unaligned_bytes_side` a side, "
       "matrices of at least `unaligned_min_matrix_narrow`, dst rows of more than `stores_min_rows_bytes_1` bytes",
       "large bytes, rows not 16-byte aligned: shifted 16-byte loads, 16-byte stores on 32-byte sectors"},
      {"unaligned_mid", XPOSE_ENGINE(smem_padded),
       [](const Problem& p, const Device&, const Tuning& t) {
         return (p.elem_bytes == 2 || p.elem_bytes == 4) && t.unaligned_mid_side > 0 && p.bytes() >= t.unaligned_mid_side;
       },
       "2- or 4-byte elements whose rows or bases are not 16-byte aligned that the rules above leave, at least "
       "`unaligned_mid_side` bytes",
       "mid-sized unaligned 2- and 4-byte problems: 32x32 element tiles, 4x the blocks"},
      {"unaligned_small", XPOSE_CUTE_ENGINE(cute_padded),
       [](const Problem& p, const Device&, const Tuning&) { return p.elem_bytes <= 8; },
       "... smaller, or batches of smaller matrices (CuTe family built)",
       "small, rows not 16-byte aligned: element-wise padded tile, many blocks"},
      {"fallback", XPOSE_ENGINE(smem_swizzled), [](const Problem&, const Device&, const Tuning&) { return true; },
       "anything else (small unaligned problems without the CuTe family; unaligned 16-byte bases cannot occur)",
       "element-wise swizzled tile"},
  };
  return table;
}

Result choose(const Problem& p, const Device& d, Choice* out) {
  const Tuning& t = tuning_for(d);
  const Task task = Task::of(p);
  Support refusal = refused("no rule applies");
  for (const Rule& r : rules()) {
    if (!r.engine || !r.applies(p, d, t)) continue;
    if (const Support s = plan_engine(*r.engine, task, d, options_for(*r.engine, p, t), &out->plan); !s.served()) {
      refusal = s;
      continue;
    }
    out->rule = &r;
    out->nd_rule = nullptr;
    out->tuning = &t;
    return ok();
  }
  return fail(XPOSE_ERROR_NOT_SUPPORTED, why(refusal, d));
}

Result choose_named(const Engine& e, const Problem& p, const Device& d, Choice* out) {
  // A named kernel runs as the automatic choice would run it (the device's tile order).
  if (const Support s = plan_engine(e, Task::of(p), d, options_for(e, p, tuning_for(d)), &out->plan); !s.served())
    return fail(XPOSE_ERROR_NOT_SUPPORTED, why(s, d));
  out->rule = nullptr;
  out->nd_rule = nullptr;
  out->tuning = nullptr;
  return ok();
}

std::string choice_text(const Choice& c) {
  if (c.plan.task.input == Input::nd_form)
    return c.nd_rule ? std::string("rule ") + c.nd_rule->id + " (" + c.tuning->name + " tuning): " + describe(c.plan)
                     : describe(c.plan);
  if (!c.rule) return describe(c.plan) + ": named by the caller";
  return "rule " + std::string(c.rule->id) + " (" + c.tuning->name + " tuning): " + describe(c.plan) + ": " +
         c.rule->reason;
}

}  // namespace xpose::detail
