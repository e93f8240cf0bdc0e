// The engines each file under src/engines/ defines, transpose and N-D; the dispatch layer lists them.
#pragma once

#include "core/engine.hpp"

namespace xpose::engines {
using detail::Engine;
extern const Engine naive_read, naive_write;         // naive.cu
extern const Engine smem, smem_padded, smem_swizzled;  // smem.cu
extern const Engine vec_swizzled;                    // vec_swizzled.cu
extern const Engine skinny;                          // skinny.cu
extern const Engine short_lines;                     // short_lines.cu
extern const Engine tiny_batched;                    // tiny_batched.cu
extern const Engine aligned_stores;                  // aligned_stores/transpose.cu
extern const Engine tma_plain, tma_swizzle128, tma_batched;  // tma/tma.cu
extern const Engine tma_pipeline;                            // tma/tma_pipeline.cu
#ifdef XPOSE_HAVE_CUTE
extern const Engine cute_naive_read, cute_naive_write, cute_smem_conflict_read,  // cute/cute_tile.cu
    cute_smem_conflict_write, cute_padded, cute_swizzled, cute_vectorized, cute_vectorized_swizzled;
extern const Engine cute_tma;  // cute/cute_tma.cu
#endif

// The N-D engines (Input::nd_form).
extern const Engine permute_vec_regs;        // permute/vec_regs.cu
extern const Engine permute_vec_tiled;       // permute/vec_tiled.cu
extern const Engine permute_aligned_stores;  // aligned_stores/permute.cu
extern const Engine permute_row_vectors;     // permute/row_vectors.cu
extern const Engine permute_packed;          // permute/packed.cu
extern const Engine permute_tiled;           // permute/tiled.cu
extern const Engine permute_rows;            // permute/rows.cu
extern const Engine permute_gather;          // permute/rows.cu
}  // namespace xpose::engines
