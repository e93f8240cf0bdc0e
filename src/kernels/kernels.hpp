// The kernel descriptors each kernel file defines; registry.cpp lists them.
#pragma once

#include "registry.hpp"

namespace xpose::kernels {
extern const detail::Kernel naive_read, naive_write;       // naive.cu
extern const detail::Kernel smem, smem_padded, smem_swizzled;  // smem.cu
extern const detail::Kernel vec_swizzled;                  // vec_swizzled.cu
extern const detail::Kernel tma_plain, tma_swizzle128, tma_batched;  // tma/tma.cu
extern const detail::Kernel tma_pipeline;                          // tma/tma_pipeline.cu
}  // namespace xpose::kernels
