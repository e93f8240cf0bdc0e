#include "dispatch/nd_rules.hpp"

#include <algorithm>
#include <cstring>

#include "dispatch/registry.hpp"
#include "engines/engines.hpp"
#include "layout/nd_row_vectors.hpp"
#include "layout/permute_nd.hpp"

namespace xpose::detail {
namespace {

// permute_aligned_stores' blocks filled enough (rules contiguous_sides and one_vector_src_run):
// at least nd_stores_min_cols columns, more than nd_stores_min_rows_bytes bytes of rows.
bool stores_filled(const layout::NdAlignedStores& s, int64_t elem_bytes, const Tuning& t) {
  return s.cols >= t.nd_stores_min_cols && s.rows * elem_bytes > t.nd_stores_min_rows_bytes;
}
bool stores_filled(const Plan& p, const Tuning& t) {
  return stores_filled(p.params<layout::NdAlignedStores>(), p.task.form.elem_bytes, t);
}

// The bytes the form moves (the outer axes of a plan's form may be fewer: NdForm::elements).
int64_t moved_bytes(const layout::NdForm& f) { return f.elements * f.elem_bytes; }

// The shorter of src's and dst's fastest runs, bytes.
int64_t shortest_run(const layout::NdForm& f) { return std::min(f.extent_a, f.extent_b) * f.elem_bytes; }

// Rule short_sides' condition: the fastest axes differ and one's run is short.
bool short_sides(const layout::NdForm& f, const Tuning& t) { return f.tiled && shortest_run(f) < t.nd_packed_max_run; }

// Rule contiguous_sides: filled enough, and where rule short_sides would take the form too, its
// blocks at least nd_stores_min_fill_pct percent full.
bool stores_take(const Plan& p, const Tuning& t) {
  const layout::NdAlignedStores& s = p.params<layout::NdAlignedStores>();
  const layout::NdForm& f = p.task.form;
  if (!stores_filled(s, f.elem_bytes, t)) return false;
  return !short_sides(f, t) || 100 * layout::nd_stores_fill(s.rows, s.cols, f.elem_bytes, s.src_rows_aligned) >=
                                   double(t.nd_stores_min_fill_pct);
}

}  // namespace

const std::vector<NdRule>& nd_rules() {
  static const std::vector<NdRule> table = {
      {"short_transposes", &engines::permute_packed,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         return f.tiled &&
                short_transpose_side_short(t, f.elem_bytes, f.extent_a * f.elem_bytes, f.extent_b * f.elem_bytes,
                                           moved_bytes(f)) &&
                moved_bytes(f) >= t.short_transpose_min;
       },
       "(handed over by the transpose table, from transposes too) a batched transpose of at least "
       "`short_transpose_min` bytes with a side of fewer than `short_transpose_side` bytes (1-byte elements: "
       "`short_transpose_side_bytes`; 2-byte elements: dst rows under `short_transpose_dst_side_2` too in problems "
       "of `short_transpose_dst_min_2` bytes or more), which that table gives cute_padded, aligned_stores, "
       "smem_padded, smem_swizzled or a vector tile (vec_swizzled, cute_vectorized_swizzled)",
       "a side of a few bytes: tiles of several axes read and write longer runs than a matrix's tile", true, true},
      {"filled_transposes", &engines::permute_aligned_stores,
       [](const Plan& p, const Tuning& t) {
         const layout::NdAlignedStores& s = p.params<layout::NdAlignedStores>();
         const layout::NdForm& f = p.task.form;
         return f.tiled && moved_bytes(f) >= t.filled_transpose_side && stores_filled(s, f.elem_bytes, t) &&
                100 * layout::nd_stores_fill(s.rows, s.cols, f.elem_bytes, s.src_rows_aligned) >=
                    double(t.filled_transpose_min_pct);
       },
       "(handed over by the transpose table, from permutations only) ... any other batched transpose that table "
       "gives cute_padded, smem_padded or smem_swizzled, at least `filled_transpose_side` a side, filling at least "
       "`filled_transpose_min_pct` percent of permute_aligned_stores' blocks (and as rule contiguous_sides' columns "
       "and rows)",
       "unaligned rows that fill the big blocks: shifted 16-byte loads, 16-byte stores on 32-byte sectors", true},
      // The vector kernels read a src run of one 16-byte vector as half of each 32-byte sector.
      {"one_vector_src_run", &engines::permute_aligned_stores,
       [](const Plan& p, const Tuning& t) {
         const layout::NdAlignedStores& s = p.params<layout::NdAlignedStores>();
         const layout::NdForm& f = p.task.form;
         const int64_t e = f.elem_bytes;
         return f.extent_a * e == 16 && f.extent_b * e % 16 == 0 && s.src_rows_aligned && s.col_fused > 1 &&
                stores_filled(p, t);
       },
       "src's fastest axis contiguous in src and dst's in dst, src's run one aligned 16-byte vector that "
       "permute_aligned_stores joins with the axis src continues it with, dst's whole 16-byte vectors, as rule "
       "contiguous_sides' columns and rows",
       "a src run of half a sector: the blocks read it with the next src axis, whole sectors"},
      {"short_runs_16", &engines::permute_packed,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         const char* why = nullptr;
         return f.elem_bytes == 16 && f.extent_a * 16 > t.nd_regs_max_src_run &&
                std::max(f.extent_a, f.extent_b) * 16 <= t.nd_packed_runs_16 &&
                layout::nd_whole_vectors(f, reinterpret_cast<uintptr_t>(p.task.src),
                                         reinterpret_cast<uintptr_t>(p.task.dst), &why);
       },
       "16-byte elements, src's and dst's fastest axes contiguous, aligned, src's run longer than "
       "`nd_regs_max_src_run` and both at most `nd_packed_runs_16` bytes",
       "register blocks of 9-16 by up to 16 elements fall behind tiles packed from several axes"},
      {"short_runs", &engines::permute_vec_regs,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         const int64_t run_a = f.extent_a * f.elem_bytes, run_b = f.extent_b * f.elem_bytes;
         const int64_t most = f.elem_bytes == 16 ? t.nd_regs_max_run_16 : t.nd_regs_max_run;
         const bool short_runs = (run_a <= most && run_b <= most) || run_a <= t.nd_regs_max_src_run;
         return short_runs && (f.elem_bytes != 1 || run_a >= t.nd_regs_min_byte_run);
       },
       "src's and dst's fastest axes contiguous, whole aligned 16-byte vectors, both runs at most `nd_regs_max_run` "
       "bytes (16-byte elements: `nd_regs_max_run_16`) or src's at most `nd_regs_max_src_run`; 1-byte elements: "
       "src's at least `nd_regs_min_byte_run`",
       "short runs on both sides: a tile's rows and columns would be short pieces"},
      {"small_planes", &engines::permute_gather,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         const char* why = nullptr;
         return f.elem_bytes == 16 && f.extent_a * f.extent_b * 16 <= t.nd_gather_max_plane &&
                shortest_run(f) > t.nd_gather_min_run &&
                layout::nd_whole_vectors(f, reinterpret_cast<uintptr_t>(p.task.src),
                                         reinterpret_cast<uintptr_t>(p.task.dst), &why);
       },
       "16-byte elements, src's and dst's fastest axes contiguous and aligned, runs longer than "
       "`nd_gather_min_run`, holding at most `nd_gather_max_plane` bytes together (extent a x extent b)",
       "a small plane leaves permute_vec_tiled's tiles mostly empty: elements one a thread in dst's order"},
      {"wide_stores", &engines::permute_aligned_stores,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         const char* why = nullptr;  // forms of split vectors are rule contiguous_sides': the same kernel
         return t.nd_wide_stores_min_elem > 0 && f.elem_bytes >= t.nd_wide_stores_min_elem &&
                f.extent_b * f.elem_bytes >= t.nd_wide_stores_min_run && stores_take(p, t) &&
                layout::nd_whole_vectors(f, reinterpret_cast<uintptr_t>(p.task.src),
                                         reinterpret_cast<uintptr_t>(p.task.dst), &why);
       },
       "src's and dst's fastest axes contiguous, whole aligned 16-byte vectors of elements of at least "
       "`nd_wide_stores_min_elem` bytes (0: none), dst's fastest axis at least `nd_wide_stores_min_run` bytes, as "
       "rule contiguous_sides' columns and rows",
       "2- to 8-byte elements in long runs: permute_aligned_stores' 32-byte sectors ahead of the vector tiles"},
      {"whole_vectors", &engines::permute_vec_tiled, [](const Plan&, const Tuning&) { return true; },
       "src's and dst's fastest axes contiguous, whole aligned 16-byte vectors, the runs rule short_runs leaves",
       "long runs of whole vectors: full 16-byte traffic on both sides"},
      {"contiguous_sides", &engines::permute_aligned_stores, stores_take,
       "src's fastest axis contiguous in src and dst's in dst, elements of at most 8 bytes, at least "
       "`nd_stores_min_cols` columns (src's axis and what joins it) and more than `nd_stores_min_rows_bytes` bytes of "
       "rows (dst's); where a run is shorter than `nd_packed_max_run`, its blocks at least `nd_stores_min_fill_pct` "
       "percent full",
       "vectors not whole or not aligned: full sectors on both sides all the same"},
      {"short_sides", &engines::permute_packed,
       [](const Plan& p, const Tuning& t) {
         const layout::NdForm& f = p.task.form;
         return short_sides(f, t) || (f.tiled && std::min(f.extent_a, f.extent_b) < t.nd_packed_min_axis);
       },
       "src's fastest axis and dst's differ, one's run shorter than `nd_packed_max_run` bytes or one's axis shorter "
       "than `nd_packed_min_axis` elements",
       "short axes packed several to a tile side: longer runs on both sides"},
      {"tiles", &engines::permute_tiled, [](const Plan&, const Tuning&) { return true; },
       "src's fastest axis and dst's differ", "any strides, any alignment"},
      {"contiguous_rows", &engines::permute_row_vectors,
       [](const Plan& p, const Tuning& t) {
         const int64_t e = p.task.form.elem_bytes;
         const int64_t least =
             e == 8 ? t.nd_row_vectors_min_run_8 : e == 1 ? t.nd_row_vectors_min_run_1 : t.nd_row_vectors_min_run;
         return e <= t.nd_row_vectors_max_elem && p.params<layout::NdRowVectors>().row_bytes >= least;
       },
       "one axis fastest on both sides and contiguous on both, elements of at most `nd_row_vectors_max_elem` bytes, "
       "rows of at least `nd_row_vectors_min_run` bytes (8-byte elements: `nd_row_vectors_min_run_8`; 1-byte: "
       "`nd_row_vectors_min_run_1`)",
       "whole rows at any alignment: 16-byte stores, 16-byte loads shifted where src and dst differ in alignment"},
      {"narrow_rows", &engines::permute_packed,
       [](const Plan& p, const Tuning& t) {
         const int64_t e = p.task.form.elem_bytes;
         const int64_t run = p.task.form.extent_a * e;
         return e <= 2 || (e == 4 && (run > t.nd_packed_rows_min_run || run < t.nd_packed_rows_short_run));
       },
       "one axis fastest on both sides, elements of 1 or 2 bytes, or of 4 in rows longer than "
       "`nd_packed_rows_min_run` or shorter than `nd_packed_rows_short_run`",
       "narrow elements: permute_rows' element-wise index math per element falls behind"},
      {"rows", &engines::permute_rows, [](const Plan&, const Tuning&) { return true; },
       "one axis is fastest on both sides", "nothing to turn"},
  };
  return table;
}

bool choose_nd(const layout::PermuteAxes& reduced, const void* src, void* dst, const char* kernel, const Device& d,
               Choice* out, std::string* why, bool handed_over) {
  layout::NdForm form;
  const char* reason = nullptr;
  if (!layout::nd_form(reduced, &form, &reason)) {
    *why = reason ? reason : "it has no N-D form";
    return false;
  }
  const Task task = Task::of(form, src, dst);
  if (kernel) {
    const Engine* e = find_engine(kernel, Input::nd_form);
    if (!e) {
      *why = std::string("no N-D kernel is named ") + kernel;
      return false;
    }
    if (const Support s = plan_engine(*e, task, d, {}, &out->plan); !s.served()) {
      *why = detail::why(s, d);
      return false;
    }
    out->rule = nullptr;
    out->nd_rule = nullptr;
    out->tuning = nullptr;
    return true;
  }
  const Tuning& t = tuning_for(d);
  Support refusal = refused("no N-D kernel serves it");
  for (const NdRule& r : nd_rules()) {
    if (r.handed_over != handed_over) continue;
    if (const Support s = plan_engine(*r.engine, task, d, {}, &out->plan); !s.served()) {
      refusal = s;
      continue;
    }
    if (!r.applies(out->plan, t)) {
      refusal = refused("no rule took it");
      continue;
    }
    out->rule = nullptr;
    out->nd_rule = &r;
    out->tuning = &t;
    return true;
  }
  out->plan.engine = nullptr;
  *why = detail::why(refusal, d);
  return false;
}

}  // namespace xpose::detail
