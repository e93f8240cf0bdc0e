// The engines each file under src/engines/ defines, 2-D and N-D; the dispatch layer lists them.
#pragma once

#include "core/engine.hpp"
#include "core/nd_engine.hpp"

namespace xpose::engines {
using detail::Engine;
extern const Engine naive_read, naive_write;         // naive.cu
extern const Engine smem, smem_padded, smem_swizzled;  // smem.cu
extern const Engine vec_swizzled;                    // vec_swizzled.cu
extern const Engine skinny;                          // skinny.cu
extern const Engine tiny_batched;                    // tiny_batched.cu
extern const Engine aligned_stores;                  // aligned_stores.cu
extern const Engine tma_plain, tma_swizzle128, tma_batched;  // tma/tma.cu
extern const Engine tma_pipeline;                            // tma/tma_pipeline.cu
#ifdef XPOSE_HAVE_CUTE
extern const Engine cute_naive_read, cute_naive_write, cute_smem_conflict_read,  // cute/cute_tile.cu
    cute_smem_conflict_write, cute_padded, cute_swizzled, cute_vectorized, cute_vectorized_swizzled;
extern const Engine cute_tma;  // cute/cute_tma.cu
#endif

// The N-D engines (core/nd_engine.hpp).
extern const detail::NdEngine permute_vec_regs;        // permute/vec_regs.cu
extern const detail::NdEngine permute_vec_tiled;       // permute/vec_tiled.cu
extern const detail::NdEngine permute_aligned_stores;  // aligned_stores.cu, beside the 2-D kernel whose blocks it runs
extern const detail::NdEngine permute_row_vectors;     // permute/row_vectors.cu
extern const detail::NdEngine permute_packed;          // permute/packed.cu
extern const detail::NdEngine permute_tiled;           // permute/tiled.cu
extern const detail::NdEngine permute_rows;            // permute/rows.cu
}  // namespace xpose::engines
