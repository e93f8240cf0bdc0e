#pragma once
// Marks functions that run on the host (tests, planner) and on the device (kernels).
#if defined(__CUDACC__)
#define XPOSE_HD __host__ __device__
#else
#define XPOSE_HD
#endif
