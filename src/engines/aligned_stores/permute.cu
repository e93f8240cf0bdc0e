// permute_aligned_stores: aligned_stores' blocks (engines/aligned_stores/block.cuh) for each outer
// index of a permutation whose src fastest axis is contiguous in src and dst's in dst
// (layout::NdAlignedStores), at any alignment.
#include <string>
#include <type_traits>
#include <utility>

#include "engines/aligned_stores/block.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/permute_nd.hpp"

namespace xpose::engines {
namespace {

using namespace aligned;

// The N-D form's blocks (layout::NdAlignedStores): p holds the 2-D transpose of one outer
// index (t.rows by t.cols), its src rows starting at rows(r) and dst rows at cols(c) (pitched,
// or split where an outer axis joined them); block (y, z) takes outer index y + z * gridDim.y
// (no loop over outer indices: one took up to 94 registers a thread).
template <int E, Staging How, class Rows, class Cols>
__global__ void __launch_bounds__(TileOf<E, How>::threads)
    permute_aligned_stores(Problem p, const layout::NdForm f, const layout::NdAlignedStores t, const Rows rows,
                           const Cols cols) {
  using A = TileOf<E, How>;
  __shared__ alignas(16) Elem<E> tile[StagedTile<A>::size];
  __shared__ int64_t row_start[std::is_same_v<Rows, Pitched> ? 1 : A::rows];
  __shared__ int64_t col_start[std::is_same_v<Cols, Pitched> ? 1 : A::cols];
  const uint64_t o = blockIdx.y + uint64_t(blockIdx.z) * t.outer_y;
  if (o >= f.outer_count) return;
  int64_t s, d;
  f.outer_offsets(uint32_t(o), &s, &d);
  const int64_t r0 = t.first_row(blockIdx.x, A::piece, A::max_shift), c0 = t.first_col(blockIdx.x, A::cols);
  const auto row_map = tabled(rows, row_start, r0, A::rows);
  const auto col_map = tabled(cols, col_start, c0, A::cols);
  if constexpr (!std::is_same_v<Rows, Pitched> || !std::is_same_v<Cols, Pitched>) __syncthreads();
  const unsigned char* const low = static_cast<const unsigned char*>(p.src);
  aligned_stores_block<E, How>(tile, p, row_map, col_map, static_cast<const Elem<E>*>(p.src) + s,
                               static_cast<Elem<E>*>(p.dst) + d, r0, c0, t.dst_cols_one_shift,
                               SrcSpan{low, low + t.src_bytes});
}

Support plan(Plan* p, const Device&, const PlanOptions&) {
  layout::NdAlignedStores& t = p->make<layout::NdAlignedStores>();
  const char* why = nullptr;
  if (!layout::nd_aligned_stores(&p->task.form, reinterpret_cast<uintptr_t>(p->task.src), &t, &why))
    return detail::refused(why);
  const int threads = layout::with_aligned_dst_tile(p->task.form.elem_bytes, t.src_rows_aligned,
                                                    [](auto a) { return decltype(a)::threads; });
  p->block = {uint32_t(threads), 1, 1};
  p->grid = {t.blocks(), t.outer_y, t.outer_z};
  return detail::served();
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const layout::NdForm& f = plan.task.form;
  const layout::NdAlignedStores& t = plan.params<layout::NdAlignedStores>();
  Problem p;
  p.src = plan.task.src;
  p.dst = plan.task.dst;
  p.rows = t.rows, p.cols = t.cols, p.elem_bytes = f.elem_bytes;
  p.ld_src = f.src_b, p.ld_dst = f.dst_a;
  p.batch = 1;
  return with_elem_bytes_up_to_8(f.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const dim3 grid = to_dim3(plan.grid), block = to_dim3(plan.block);
    const auto run = [&](auto rows, auto cols) {
      if (t.src_rows_aligned)
        permute_aligned_stores<E, vectors><<<grid, block, 0, s>>>(p, f, t, rows, cols);
      else
        permute_aligned_stores<E, shifted><<<grid, block, 0, s>>>(p, f, t, rows, cols);
    };
    const Pitched rows{f.src_b}, cols{f.dst_a};
    if (t.row_fused > 1 && t.col_fused > 1)
      run(t.src_rows, t.dst_cols);
    else if (t.row_fused > 1)
      run(t.src_rows, cols);
    else if (t.col_fused > 1)
      run(rows, t.dst_cols);
    else
      run(rows, cols);
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  const layout::NdForm& f = p.task.form;
  const layout::NdAlignedStores& t = p.params<layout::NdAlignedStores>();
  const auto [piece, cols] = layout::with_aligned_dst_tile(f.elem_bytes, t.src_rows_aligned, [](auto a) {
    return std::pair<int, int>(decltype(a)::piece, decltype(a)::cols);
  });
  return s(piece) + "x" + s(cols) + " blocks of dst's fastest axis (" + s(f.extent_b) +
         (t.row_fused > 1 ? " x " + s(t.row_fused) + " of the axis dst continues it with" : "") + ") by src's (" +
         s(f.extent_a) + (t.col_fused > 1 ? " x " + s(t.col_fused) + " of the axis src continues it with" : "") +
         "), 16-byte " + (t.src_rows_aligned ? "loads" : "loads shifted from the aligned vectors around them") +
         ", 16-byte stores on 32-byte sectors" + (t.rows_first ? ", row blocks first" : "");
}

}  // namespace

const Engine permute_aligned_stores = {
    "permute_aligned_stores",
    "aligned_stores' tiles of src's and dst's fastest axes, each contiguous on its side, at any alignment: 16-byte "
    "loads (shifted where rows are not aligned) and 16-byte stores on 32-byte sectors",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text};

}  // namespace xpose::engines
