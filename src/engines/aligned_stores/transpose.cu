// aligned_stores: for rows that are not 16-byte aligned, or dst pitches that put every
// other dst row in the middle of a 32-byte sector (each costs vec_swizzled and the TMA
// kernels much of their speed: docs/experiments.md, 5).
// Src rows come in along their length (coalesced) into a shared tile as 16-byte vectors:
// where src rows are not 16-byte aligned, the aligned vectors around each 16-byte chunk,
// its bytes shifted out in registers. Each dst row's piece goes out as 16-byte vectors
// shifted to start on a 32-byte sector (layout::AlignedDstTile), so the L2 sees whole
// sectors. Vectors that reach past the matrix load or store their elements one by one.
#include "engines/aligned_stores/block.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"

namespace xpose::engines {
namespace {

using namespace aligned;

// src_bytes: p.src_span_bytes(), the batch's span from p.src (no vector is read past it).
template <int E, Staging How>
__global__ void __launch_bounds__(TileOf<E, How>::threads)
    transpose_aligned_stores(Problem p, int64_t src_bytes, TileOrigin o) {
  using A = TileOf<E, How>;
  __shared__ alignas(16) Elem<E> tile[StagedTile<A>::size];
  const int64_t b = o.batch + blockIdx.z;
  const layout::TilePos pos = block_pos(o);
  const int64_t r0 = (o.row_tile + pos.y) * A::piece - A::max_shift;  // first staged src row
  const int64_t c0 = (o.col_tile + pos.x) * A::cols;
  const unsigned char* const low = static_cast<const unsigned char*>(p.src);
  const SrcSpan span{low, low + src_bytes};
  aligned_stores_block<E, How>(tile, p, Pitched{p.ld_src}, Pitched{p.ld_dst},
                               static_cast<const Elem<E>*>(p.src) + b * p.stride_src,
                               static_cast<Elem<E>*>(p.dst) + b * p.stride_dst, r0, c0, p.ld_dst * E % 32 == 0, span);
}

Support supports(const Task& t, const Device& d) {
  if (Support s = detail::needs_built_device(d); !s.served()) return s;
  if (t.problem.elem_bytes == 16)
    return detail::refused(detail::Refusal::other,
                           "aligned_stores moves elements of 1, 2, 4 or 8 bytes (16-byte "
                           "elements are always whole vectors)");
  return detail::served();
}

// Row tiles are the shifted pieces (one more block row than rows / piece where the last
// pieces start early). The variant: 1 where every src row starts on 16 bytes (16-byte
// loads), else 0 (shifted 16-byte loads); it picks the tile (TileOf, with_aligned_dst_tile).
Support plan(Plan* plan, const Device&, const PlanOptions& o) {
  const Problem& p = plan->task.problem;
  const Staging how = p.src_rows_aligned_16() ? vectors : shifted;
  return with_elem_bytes_up_to_8(
      p.elem_bytes, detail::refused("aligned_stores moves elements of at most 8 bytes"), [&](auto e) {
        layout::with_aligned_dst_tile(decltype(e)::value, how == vectors, [&](auto a) {
          using A = decltype(a);
          Tiles& t = tile_plan(plan, A::piece, A::cols, {uint32_t(A::threads), 1, 1});
          t.walk.row_tiles = A::row_blocks(p.rows);
          t.by_column = o.tiles_by_column;
          plan->grid = layout::first_grid(t.walk);
        });
        plan->variant = how;
        plan->variant_name = how == vectors ? "16-byte loads" : "shifted 16-byte loads";
        return detail::served();
      });
}

cudaError_t launch(const Plan& plan, cudaStream_t s) {
  const Problem& p = plan.task.problem;
  return with_elem_bytes_up_to_8(p.elem_bytes, cudaErrorNotSupported, [&](auto e) {
    constexpr int E = decltype(e)::value;
    const int64_t src_bytes = p.src_span_bytes();
    return plan.variant == vectors ? launch_tiles(transpose_aligned_stores<E, vectors>, plan, s, p, src_bytes)
                                   : launch_tiles(transpose_aligned_stores<E, shifted>, plan, s, p, src_bytes);
  });
}

}  // namespace

const Engine aligned_stores = {
    "aligned_stores",
    "16-byte loads (where src rows are not 16-byte aligned, the aligned vectors around each chunk, shifted); 16-byte "
    "dst stores shifted to start on 32-byte sectors",
    "256/E src rows (+ up to 32/E - 1) x 64 src cols staged (bytes from aligned rows: 128 + 31 x 128), 256 threads",
    Input::transpose,
    supports,
    plan,
    launch,
    tiles_text,
    /*takes_tile_order=*/true};

}  // namespace xpose::engines
