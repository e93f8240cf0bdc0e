#include "cpu/micro_kernels.hpp"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace xpose::cpu {
namespace {

#if defined(__x86_64__)

// N x N elements of 16 / N bytes in SSE2 registers by a perfect shuffle: log2(N) stages of
// unpacks, each pairing row k with row k + N/2 into rows 2k and 2k + 1; after the last, row j
// holds column j.
template <int N, class Lo, class Hi>
void shuffle_transpose(const unsigned char* src, int64_t lds, unsigned char* dst, int64_t ldd, Lo lo, Hi hi) {
  __m128i x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * lds));
  for (int rows = 1; rows < N; rows *= 2) {
    for (int k = 0; k < N / 2; ++k) {
      y[2 * k] = lo(x[k], x[k + N / 2]);
      y[2 * k + 1] = hi(x[k], x[k + N / 2]);
    }
    for (int i = 0; i < N; ++i) x[i] = y[i];
  }
  for (int j = 0; j < N; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + j * ldd), x[j]);
}

void transpose_16x16_u8(const unsigned char* src, int64_t lds, unsigned char* dst, int64_t ldd) {
  shuffle_transpose<16>(src, lds, dst, ldd, [](__m128i a, __m128i b) { return _mm_unpacklo_epi8(a, b); },
                        [](__m128i a, __m128i b) { return _mm_unpackhi_epi8(a, b); });
}

void transpose_8x8_u16(const unsigned char* src, int64_t lds, unsigned char* dst, int64_t ldd) {
  shuffle_transpose<8>(src, lds, dst, ldd, [](__m128i a, __m128i b) { return _mm_unpacklo_epi16(a, b); },
                       [](__m128i a, __m128i b) { return _mm_unpackhi_epi16(a, b); });
}

// 8x8 of 4 bytes in AVX2: unpacks within 128-bit lanes, shuffles, then lane permutes.
__attribute__((target("avx2"))) void transpose_8x8_u32(const unsigned char* src, int64_t lds, unsigned char* dst,
                                                       int64_t ldd) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + i * lds));
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
  for (int j = 0; j < 8; ++j) _mm256_storeu_ps(reinterpret_cast<float*>(dst + j * ldd), r[j]);
}

// 4x4 of 8 bytes in AVX2.
__attribute__((target("avx2"))) void transpose_4x4_u64(const unsigned char* src, int64_t lds, unsigned char* dst,
                                                       int64_t ldd) {
  __m256d r[4], t[4];
  for (int i = 0; i < 4; ++i) r[i] = _mm256_loadu_pd(reinterpret_cast<const double*>(src + i * lds));
  t[0] = _mm256_unpacklo_pd(r[0], r[1]);
  t[1] = _mm256_unpackhi_pd(r[0], r[1]);
  t[2] = _mm256_unpacklo_pd(r[2], r[3]);
  t[3] = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t[0], t[2], 0x20);
  r[1] = _mm256_permute2f128_pd(t[1], t[3], 0x20);
  r[2] = _mm256_permute2f128_pd(t[0], t[2], 0x31);
  r[3] = _mm256_permute2f128_pd(t[1], t[3], 0x31);
  for (int j = 0; j < 4; ++j) _mm256_storeu_pd(reinterpret_cast<double*>(dst + j * ldd), r[j]);
}

#endif

}  // namespace

Micro micro_kernel(int64_t elem_bytes) {
#if defined(__x86_64__)
  static const bool avx2 = __builtin_cpu_supports("avx2");
  switch (elem_bytes) {
    case 1: return {16, transpose_16x16_u8, "sse2 16x16"};
    case 2: return {8, transpose_8x8_u16, "sse2 8x8"};
    case 4: return avx2 ? Micro{8, transpose_8x8_u32, "avx2 8x8"} : Micro{};
    case 8: return avx2 ? Micro{4, transpose_4x4_u64, "avx2 4x4"} : Micro{};
    default: return {};
  }
#else
  (void)elem_bytes;
  return {};
#endif
}

}  // namespace xpose::cpu
