// xpose over NCCL, in C++: xpose_nccl.h's transpose with the pipelining options of
// xpose::dist::Plan, throwing xpose::Error where the C functions return a status. The
// arguments mean what they mean in xpose_nccl.h.
#pragma once

#include "xpose/distributed.hpp"
#include "xpose/xpose_nccl.h"

namespace xpose::nccl {

XPOSE_API size_t workspace_bytes(const int64_t* row_offsets, const int64_t* col_offsets, int64_t batch,
                                 int64_t elem_bytes, ncclComm_t comm, const dist::Options& options = {});

XPOSE_API void transpose(const void* src, int64_t ld_src, void* dst, int64_t ld_dst, const int64_t* row_offsets,
                         const int64_t* col_offsets, int64_t batch, int64_t elem_bytes, void* workspace,
                         size_t workspace_bytes, ncclComm_t comm, cudaStream_t stream,
                         const dist::Options& options = {});

}  // namespace xpose::nccl
