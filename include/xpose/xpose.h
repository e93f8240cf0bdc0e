/* xpose: matrix transpose on NVIDIA GPUs at the speed of a memory copy.
 *
 * The C ABI. Every function returns a status; a failed call leaves a one-line message
 * for the calling thread in xpose_last_error() and writes nothing to dst. */
#ifndef XPOSE_XPOSE_H
#define XPOSE_XPOSE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

/* The version, defined here once: CMake's project version, the Python package's and
   xpose_version() are read from these three lines. */
#define XPOSE_VERSION_MAJOR 0
#define XPOSE_VERSION_MINOR 2
#define XPOSE_VERSION_PATCH 0

/* What the shared library exports: this API and nothing else. */
#if defined(__GNUC__) || defined(__clang__)
#define XPOSE_API __attribute__((visibility("default")))
#else
#define XPOSE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  XPOSE_SUCCESS = 0,
  XPOSE_ERROR_INVALID_ARGUMENT = 1, /* the request itself is wrong */
  XPOSE_ERROR_NOT_SUPPORTED = 2,    /* valid, but this build or device cannot serve it */
  XPOSE_ERROR_CUDA = 3              /* a CUDA call failed */
} xpose_status_t;

/* dst[b*stride_dst + j*ld_dst + i] = src[b*stride_src + i*ld_src + j]
   for 0 <= b < batch, 0 <= i < rows, 0 <= j < cols. All counts are in elements.
   ld_src = 0 means cols, ld_dst = 0 means rows,
   stride_src = 0 means rows*ld_src, stride_dst = 0 means cols*ld_dst.
   ld and batch strides that address nothing (one row, one column, batch 1) are ignored.
   No two dst elements may share memory: batches may interleave where that is proven (a
   layout that does not nest and cannot be proven distinct within a bounded search is refused,
   saying so). src and dst sit on their element's alignment (8 bytes for 16-byte elements).
   Enqueued on `stream`; returns without waiting for the GPU. Error messages are one line:
   a caller's string (a kernel name) comes back quoted, control characters escaped. */
XPOSE_API xpose_status_t xpose_transpose(const void *src, void *dst,
                                         int64_t rows, int64_t cols, int64_t elem_bytes,
                                         int64_t ld_src, int64_t ld_dst,
                                         int64_t batch, int64_t stride_src, int64_t stride_dst,
                                         cudaStream_t stream);

/* The same with one named kernel instead of the automatic choice. An unknown name is
   XPOSE_ERROR_INVALID_ARGUMENT; XPOSE_ERROR_NOT_SUPPORTED where that kernel cannot
   serve this request (alignment, architecture, ...), with the reason in xpose_last_error(). */
XPOSE_API xpose_status_t xpose_transpose_with(const char *kernel, const void *src, void *dst,
                                              int64_t rows, int64_t cols, int64_t elem_bytes,
                                              int64_t ld_src, int64_t ld_dst,
                                              int64_t batch, int64_t stride_src, int64_t stride_dst,
                                              cudaStream_t stream);

/* In place: each of the `batch` dense row-major rows x cols matrices at data (rows*cols
   elements apart) becomes its dense row-major cols x rows transpose in the same memory.
   workspace: device memory of at least the bytes xpose_transpose_inplace_workspace gives for
   the layout (16-byte aligned, apart from the matrices; NULL and 0 where that is 0): the call
   never allocates. Square matrices need no workspace: tile pairs swapped across the diagonal,
   each element read and written once. Narrow ones (a short side of up to 6144 elements of 1
   byte, 3072 of 2, 384 of 4 to 16; g = gcd(rows, cols) with g * elem_bytes under a piece) go
   through blocks of rows turned, their column pieces (512 bytes, 32-496 past 384 columns)
   moved along their cycles and rows spread apart; their workspace is a bit a piece, a word a
   16 KiB chunk and the rows past the last whole block (under 192 KiB and 1/8 of a matrix; none
   for matrices of 32 KiB or less). Other rectangular matrices whose
   sides share a factor g of 16 bytes or more (g * elem_bytes >= 16) need a bit of workspace for
   each row of g elements, or for each piece of one where a row of over 1 KiB is cut into pieces
   (at most 1/128 of the matrix's bytes): the g x g blocks are turned in place, then the rows of
   g elements moved along their permutation's cycles. Other rectangles go through four passes
   over the rows of their short side (Catanzaro, Keller and Garland's decomposition: columns
   rotated where g > 1, rows permuted, columns shifted, row pieces of 128-column strips moved
   along their cycles); their workspace is a bit a row piece (at most 1/1024 of the matrix, and
   a bit a row of the long side for a last strip narrower than 128 columns, 64 of 8-byte
   elements) and, past 65535 rows of the long side, 127 rows of the short side every 32768 or
   more (under 0.4%): under 1% of the matrix where the short side is 16 bytes or more. Both
   sides over 160 KiB sharing under 16 bytes, or sides sharing over 96 KiB:
   XPOSE_ERROR_NOT_SUPPORTED on the GPU (the C++ xpose::transpose_inplace_host serves any shape
   in host memory).
   data sits on its element's alignment (8 bytes for 16-byte elements). On any error nothing is
   written. Enqueued on `stream`. */
XPOSE_API xpose_status_t xpose_transpose_inplace(void *data, int64_t rows, int64_t cols, int64_t elem_bytes,
                                                 int64_t batch, void *workspace, size_t workspace_bytes,
                                                 cudaStream_t stream);
/* The workspace bytes xpose_transpose_inplace needs for this layout on the current device, into
   *bytes; the same errors as the call for the layout (XPOSE_ERROR_NOT_SUPPORTED where it is not
   served). */
XPOSE_API xpose_status_t xpose_transpose_inplace_workspace(int64_t rows, int64_t cols, int64_t elem_bytes,
                                                           int64_t batch, size_t *bytes);

/* FP8 quantization in one pass: a rows x cols matrix x (element (i, j) at x[i*ld + j]) of
   fp32, bf16 or fp16, scaled and cast to FP8 (round to nearest even, saturating; NaN to the
   format's NaN with x's sign), written as it is (data: rows x cols codes, row-major) and
   transposed (data_t: cols x rows), with the scales of each and the amax of x (max |x|, NaN
   ignored). Scales follow TransformerEngine's conventions, which cuBLASLt's FP8 GEMMs read: an
   fp32 scale is fp8_max / amax (1 where amax is 0, infinite or NaN), and what is written is its
   inverse (scale_inv); MXFP8's E8M0 codes round amax / fp8_max up to a power of two. The
   transpose's blocks are in its own coordinates (1 x 128 row blocks of data_t are 128 x 1
   column blocks of x; MXFP8's 1 x 32 blocks run along data_t's rows). */
typedef enum { XPOSE_QUANTIZE_FP32 = 0, XPOSE_QUANTIZE_BF16 = 1, XPOSE_QUANTIZE_FP16 = 2 } xpose_quantize_input_t;
typedef enum { XPOSE_FP8_E4M3 = 0, XPOSE_FP8_E5M2 = 1 } xpose_fp8_t;
typedef enum {
  XPOSE_SCALING_TENSOR_GIVEN = 0, /* one fp32 scale, desc.scale (delayed scaling) */
  XPOSE_SCALING_TENSOR_AMAX = 1,  /* one fp32 scale from x's amax (current scaling): needs the amax output */
  XPOSE_SCALING_BLOCKS = 2,       /* one fp32 scale a block_rows x block_cols block (DeepSeek-V3: 1 x 128, 128 x 128) */
  XPOSE_SCALING_MX = 3            /* MXFP8: one E8M0 scale a 1 x 32 block */
} xpose_scaling_t;
typedef enum {
  XPOSE_SCALES_ROW_MAJOR = 0,    /* [blocks down][blocks across]: K-major */
  XPOSE_SCALES_COLUMN_MAJOR = 1, /* [blocks across][blocks down, padded to 16 bytes]: MN-major (DeepGEMM's
                                    TMA-aligned scales, FlashInfer's scale_major_mode "MN") */
  XPOSE_SCALES_TILED_128X4 = 2   /* MXFP8 only: cuBLASLt's 1D block scaling factors layout (128 x 4 tiles
                                    of 512 bytes, rows padded to 128 and scales to 4) */
} xpose_scale_layout_t;

typedef struct {
  size_t struct_size;             /* sizeof(xpose_quantize_desc_t), as xpose_quantize_desc_init sets it */
  int32_t input;                  /* an xpose_quantize_input_t (the enums' values as fixed-size fields) */
  int64_t rows, cols, ld;         /* ld 0: cols */
  int32_t format;                 /* an xpose_fp8_t */
  int32_t scaling;                /* an xpose_scaling_t */
  int32_t scale_layout;           /* an xpose_scale_layout_t */
  int32_t block_rows, block_cols; /* XPOSE_SCALING_BLOCKS: powers of two up to 128, 32 elements or more */
  int32_t pow2_scales;            /* TENSOR_AMAX and BLOCKS: scales rounded down to a power of two */
  float scale;                    /* TENSOR_GIVEN: the scale (data = x * scale) */
} xpose_quantize_desc_t;

/* The defaults: fp32 input, E4M3, current scaling, row-major scales, 1 x 128 blocks, scale 1. */
XPOSE_API void xpose_quantize_desc_init(xpose_quantize_desc_t *desc);

/* Bytes of the scales of data (transposed 0) or of data_t (transposed 1), padding included:
   4 a scale_inv, 1 an E8M0 code; 4 for the tensor recipes. */
XPOSE_API xpose_status_t xpose_quantize_scales_bytes(const xpose_quantize_desc_t *desc, int transposed,
                                                     size_t *bytes);

/* Enqueues the quantization on `stream`; never waits, never allocates. Outputs are optional
   (NULL: not computed; at least one), device memory, apart from x and from each other: data
   (rows*cols bytes), data_t (rows*cols), scales and scales_t (xpose_quantize_scales_bytes; fp32
   scales 4-byte aligned; padding written 0), amax (one float). x on its element's alignment.
   Current scaling reduces x's amax into *amax first and reads it back (two passes over x). An x
   of no elements (rows or cols 0) writes nothing, amax included (xpose.quantize's Python paths
   give amax 0 and a tensor recipe's scales 1 / its scale, 1 for current scaling). */
XPOSE_API xpose_status_t xpose_quantize(const xpose_quantize_desc_t *desc, const void *x, void *data, void *data_t,
                                        void *scales, void *scales_t, float *amax, cudaStream_t stream);

#define XPOSE_MAX_RANK 16

/* dst = src with its axes permuted, as numpy.transpose(src, perm): dst's axis k is src's
   axis perm[k], so dst's extent k is extents[perm[k]]. extents: src's `rank` extents.
   Strides are in elements. src_strides NULL means src is dense row-major; a src stride
   may be 0 (a broadcast axis). dst_strides NULL means dst is dense row-major in its own
   (permuted) shape; otherwise no two dst elements may share memory (as for xpose_transpose:
   proven, or refused). 0 <= rank <= XPOSE_MAX_RANK;
   an extent of 0 is success with nothing launched. Enqueued on `stream`. */
XPOSE_API xpose_status_t xpose_permute(const void *src, void *dst, int rank, const int64_t *extents,
                                       const int *perm, int64_t elem_bytes,
                                       const int64_t *src_strides, const int64_t *dst_strides,
                                       cudaStream_t stream);
/* The same with one named kernel instead of the automatic choice. */
XPOSE_API xpose_status_t xpose_permute_with(const char *kernel, const void *src, void *dst, int rank,
                                            const int64_t *extents, const int *perm, int64_t elem_bytes,
                                            const int64_t *src_strides, const int64_t *dst_strides,
                                            cudaStream_t stream);

/* A plan: a transpose or permutation of one layout, checked and its kernel chosen once, on
   the device current when it is made, for executing again and again on any src and dst of
   that layout (cuFFT's and cuTT's plan/execute split). An execute re-checks only what can
   change with the pointers: null, alignment, src and dst overlapping, and that the current
   device is the plan's and reaches both; then it launches the kept plan, or, for bases whose
   remainders modulo 16 differ from those it was planned for, the automatic choice's (or the
   named kernel's) plan for them. A plan is immutable: threads and streams may execute it
   concurrently; destroy it once no call is using it.

   The layout arguments are xpose_transpose's / xpose_permute's. src and dst: bases like those
   the plan will execute on (only their addresses modulo 16 are read; NULL for 16-byte-aligned
   ones, as cudaMalloc gives). kernel: NULL for the automatic choice, else a name
   xpose_transpose_with / xpose_permute_with take. *plan is NULL after a failure. */
typedef struct xpose_plan *xpose_plan_t;
XPOSE_API xpose_status_t xpose_plan_transpose(xpose_plan_t *plan, const char *kernel, const void *src,
                                              const void *dst, int64_t rows, int64_t cols, int64_t elem_bytes,
                                              int64_t ld_src, int64_t ld_dst, int64_t batch, int64_t stride_src,
                                              int64_t stride_dst);
XPOSE_API xpose_status_t xpose_plan_permute(xpose_plan_t *plan, const char *kernel, const void *src,
                                            const void *dst, int rank, const int64_t *extents, const int *perm,
                                            int64_t elem_bytes, const int64_t *src_strides,
                                            const int64_t *dst_strides);
/* Enqueues the plan's transpose or permutation of src into dst on `stream`; never waits. */
XPOSE_API xpose_status_t xpose_plan_execute(xpose_plan_t plan, const void *src, void *dst, cudaStream_t stream);
/* One line: what an execute on the bases it was planned for launches, and why ("" for NULL).
   Owned by the plan. */
XPOSE_API const char *xpose_plan_explain(xpose_plan_t plan);
XPOSE_API void xpose_plan_destroy(xpose_plan_t plan); /* NULL is accepted */

XPOSE_API const char *xpose_status_string(xpose_status_t status);
XPOSE_API const char *xpose_last_error(void); /* this thread's message for its last failed call */
/* The library's version, "MAJOR.MINOR.PATCH" of the macros above as the library was built. */
XPOSE_API const char *xpose_version(void);

#ifdef __cplusplus
}
#endif

#endif /* XPOSE_XPOSE_H */
