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

// dst (cols x rows, rows ldd elements apart) = src (rows x cols, lds apart) transposed: the
// whole K x K squares through `micro` (column squares outer, so that each dst row's bytes are
// written one after another), the rest element by element. One thread: callers spread blocks.
template <class T>
void transpose_block(const T* src, int64_t lds, T* dst, int64_t ldd, int64_t rows, int64_t cols, const Micro& micro) {
  const int64_t k = micro.k;
  int64_t i_end = 0, j_end = 0;  // the squares cover [0, i_end) x [0, j_end)
  if (k > 0) {
    i_end = rows / k * k, j_end = cols / k * k;
    for (int64_t j = 0; j < j_end; j += k)
      for (int64_t i = 0; i < i_end; i += k)
        micro.run(reinterpret_cast<const unsigned char*>(src + i * lds + j), lds * int64_t(sizeof(T)),
                  reinterpret_cast<unsigned char*>(dst + j * ldd + i), ldd * int64_t(sizeof(T)));
  }
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = (i < i_end ? j_end : 0); j < cols; ++j) dst[j * ldd + i] = src[i * lds + j];
}

}  // namespace xpose::cpu
