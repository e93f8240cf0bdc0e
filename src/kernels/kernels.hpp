// The kernel descriptors each kernel file defines; registry.cpp lists them.
#pragma once

#include "registry.hpp"

namespace xpose::kernels {
extern const detail::Kernel naive_read, naive_write;       // naive.cu
extern const detail::Kernel smem, smem_padded, smem_swizzled;  // smem.cu
extern const detail::Kernel vec_swizzled;                  // vec_swizzled.cu
extern const detail::Kernel skinny;                        // skinny.cu
extern const detail::Kernel tiny_batched;                  // tiny_batched.cu
extern const detail::Kernel aligned_stores;                // aligned_stores.cu
extern const detail::Kernel tma_plain, tma_swizzle128, tma_batched;  // tma/tma.cu
extern const detail::Kernel tma_pipeline;                          // tma/tma_pipeline.cu
#ifdef XPOSE_HAVE_CUTE
extern const detail::Kernel cute_naive_read, cute_naive_write, cute_smem_conflict_read,  // cute/cute_tile.cu
    cute_smem_conflict_write, cute_padded, cute_swizzled, cute_vectorized, cute_vectorized_swizzled;
extern const detail::Kernel cute_tma;  // cute/cute_tma.cu
#endif
}  // namespace xpose::kernels
