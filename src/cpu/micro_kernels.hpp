// The CPU path's micro-kernels: one K x K block of E-byte elements turned in vector
// registers (dst[j*ldd + i] = src[i*lds + j], pitches in bytes), chosen once for the CPU it
// runs on. x86-64: SSE2 (every such CPU) for 1- and 2-byte elements (16x16 and 8x8 by
// unpack stages), AVX2 where present for 4- and 8-byte elements (8x8 and 4x4 by unpack,
// shuffle and lane permutes). Elsewhere, and for 16-byte elements, none: the caller's
// element loop.
#pragma once

#include <cstdint>

namespace xpose::cpu {

using MicroKernel = void (*)(const unsigned char* src, int64_t lds, unsigned char* dst, int64_t ldd);

struct Micro {
  int k = 0;  // the block's side; 0: no micro-kernel for this element size here
  MicroKernel run = nullptr;
  const char* name = "scalar";
};

Micro micro_kernel(int64_t elem_bytes);

}  // namespace xpose::cpu
