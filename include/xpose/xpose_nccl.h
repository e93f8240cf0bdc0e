/* xpose over NCCL: the transpose of a matrix split by rows over the ranks of a communicator.
 * Built where NCCL is found (libxpose_nccl, CMake target xpose::xpose_nccl).
 *
 * A batch of rows x cols matrices A (row-major, elements of elem_bytes = 1, 2, 4, 8 or 16) is
 * split by rows: rank p holds rows [row_offsets[p], row_offsets[p+1]) of each matrix at src,
 * ld_src elements apart (0: cols), matrices (its rows) * ld_src apart. A^T (cols x rows) is
 * returned split by rows: rank p receives rows [col_offsets[p], col_offsets[p+1]) of each A^T
 * (the columns of A) at dst, ld_dst apart (0: rows), matrices (its columns) * ld_dst apart.
 * row_offsets and col_offsets hold nranks + 1 values each, from 0 to rows (cols), never
 * decreasing (splits may be uneven, and a rank may hold nothing); every rank passes the same
 * lists, batch and element size.
 *
 * Every function returns a status; a failed call leaves a one-line message for the calling
 * thread in xpose_nccl_last_error(), and xpose_nccl_transpose then has enqueued nothing. */
#ifndef XPOSE_XPOSE_NCCL_H
#define XPOSE_XPOSE_NCCL_H

#include <stddef.h>
#include <stdint.h>
#include <nccl.h>

#include "xpose/xpose.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The device memory xpose_nccl_transpose needs on this rank, in bytes (about what it sends
   plus what it receives). */
XPOSE_API xpose_status_t xpose_nccl_transpose_workspace(const int64_t *row_offsets, const int64_t *col_offsets,
                                                        int64_t batch, int64_t elem_bytes, ncclComm_t comm,
                                                        size_t *bytes);

/* Collective: every rank of comm calls it with its own src, dst and workspace (at least the
   size above, 256-byte aligned, device memory of comm's device, which must be the current
   device). Enqueued on `stream`; never synchronizes, never allocates; works under graph
   capture. The exchange runs on an internal stream of xpose's, joined back to `stream`. */
XPOSE_API xpose_status_t xpose_nccl_transpose(const void *src, int64_t ld_src, void *dst, int64_t ld_dst,
                                              const int64_t *row_offsets, const int64_t *col_offsets,
                                              int64_t batch, int64_t elem_bytes, void *workspace,
                                              size_t workspace_bytes, ncclComm_t comm, cudaStream_t stream);

/* Collective and synchronizing: checks that every rank passes the same offsets, batch and
   element size (what no rank can check alone), returning XPOSE_ERROR_INVALID_ARGUMENT on
   every rank where they differ. Allocates and frees a few bytes of device memory per rank,
   and waits for `stream`. Call it once per layout, before the transposes. */
XPOSE_API xpose_status_t xpose_nccl_check(const int64_t *row_offsets, const int64_t *col_offsets, int64_t batch,
                                          int64_t elem_bytes, ncclComm_t comm, cudaStream_t stream);

XPOSE_API const char *xpose_nccl_last_error(void); /* this thread's message for its last failed call */

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_XPOSE_NCCL_H */
