#pragma once
// Marks functions that run on the host (tests, planner) and on the device (kernels).
#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__
#else
#define XPOSE_HD
#endif

// Unrolls the next loop in device code (host compilers would warn about the pragma).
#if defined(__CUDA_ARCH__)
#define XPOSE_UNROLL _Pragma("unroll")
#else
#define XPOSE_UNROLL
#endif
