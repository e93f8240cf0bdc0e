// FP8 quantization for tensor scales and blocks of K columns (1 x K: MXFP8, DeepSeek-V3's
// 1 x 128 activations; K x K: its 128 x 128 weights; K = 32, 64 or 128): one block of 256
// threads a 128 x 128 tile of x, copied into shared memory (its chunks placed by
// layout::staged_chunk) and read from there twice, so that no thread holds the tile
// (quantize.cu's kernel, which serves the other block shapes, holds it in registers at two
// blocks an SM):
//   data    a thread a 32-element row segment: its max |x| (1 x K: K / 32 neighbouring lanes
//           make a block's; K x K: a step before, a warp a block), the factor and scale, and
//           its 32 codes, two 16-byte stores that two lanes make whole sectors of;
//   data_t  a thread a 32-row segment of one column (of two for 2-byte inputs: a word a row):
//           its max |x| (1 x K: a block's K / 32 segments, in other warps, meet in shared
//           memory), factor, scale and 32 codes, which go back through shared memory so that
//           data_t's rows are stored as whole 128-byte lines.
// Tiles at the matrix's edges and rows off 16 bytes (odd sides, views) move the same way: x's
// chunks from the aligned 16-byte words around them, shifted; data's and data_t's rows from
// shared memory as whole 32-byte sectors, and a byte a lane where they share a sector with their
// neighbours (engines/words.cuh's store_four_runs).
#include <algorithm>
#include <type_traits>

#include "engines/async_copy.cuh"
#include "engines/early_launch.cuh"
#include "engines/quantize/fp8.cuh"
#include "engines/quantize/quantize.hpp"
#include "engines/words.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/fast_divmod.hpp"

namespace xpose::engines {
namespace {

using layout::Fp8;
using layout::QuantizeRecipe;

constexpr int kTile = 128, kThreads = 256, kWarps = kThreads / 32;
constexpr int kSeg = 32, kSegs = kTile / kSeg;  // a segment's elements; segments a tile row or column

template <int E>
struct Stage {
  static constexpr int row_bytes = kTile * E, chunks = row_bytes / 16, seg_chunks = kSeg * E / 16;
  static constexpr int seg_words = kSeg * E / 4;  // 32-bit words a row segment
  static constexpr int P = 4 / E;                 // columns a word
  // data_t's codes wait in registers for the stage to be read and go back through it (fp32), or
  // go to a buffer of their own at once (2-byte inputs: holding them spilled at 64 registers;
  // fp32 with the buffer would fit 2 blocks an SM, not 3).
  static constexpr bool hold_codes = E == 4;
  unsigned char x[kTile][row_bytes];  // chunk c of row r at chunk layout::staged_chunk(E, r, c)
  // data_t's codes (layout::code_chunk_at) where they do not go back through x; before them,
  // data's codes, four rows a warp at a time, where the rows pass stores them by sectors.
  unsigned char codes_t[hold_codes ? kWarps * 4 * kTile : kTile * kTile];
  float seg_max[kSegs][kTile];        // data_t, K > 32: each column's max |x| over each row segment
  uint32_t scale_t[kTile][kSegs];     // data_t's scales (column c's K-row blocks), stored after the tile
  float row_seg_max[kTile][kSegs];    // Same, K x K blocks: each row's max |x| over each segment
  float block_f[kSegs][kSegs];        // Same, K x K blocks: block (bi, bj)'s factor
  float warp_max[kWarps];
};

// store_four_runs, runs of a whole tile's kTile bytes (most tiles) known at compile time: their sector
// cuts fold to a few instructions.
template <class At>
__device__ __forceinline__ void store_tile_runs(unsigned char* first, int64_t pitch, int live, int bytes, const At& at) {
  if (bytes == kTile)
    store_four_runs(first, pitch, live, std::integral_constant<int, kTile>{}, at);
  else
    store_four_runs(first, pitch, live, bytes, at);
}

// Where element (r, c) of the tile sits in its staged row, in bytes.
template <int E>
__device__ __forceinline__ int staged_byte(int r, int c) {
  return layout::staged_chunk(E, r, (c * E) >> 4) * 16 + ((c * E) & 15);
}

// Element p of word w as fp32: fp32 (E = 4), or half p of a bf16 (Brain) or fp16 pair.
template <int E, bool Brain, bool Nans>
__device__ __forceinline__ float element(uint32_t w, int p) {
  if constexpr (E == 4)
    return __uint_as_float(w);
  else
    return widen<Brain, Nans>(w, p);
}

// max |x| of the elements of words w (two columns apart where m1, for 2-byte inputs), and
// whether any is NaN. With the sign bits cleared, the bits order as the values do and a NaN's
// above an infinity's: one unsigned maximum (three operands an instruction) gives both. Only
// where there is a NaN is the NaN-ignoring maximum taken again, its words read(q) from the
// stage (reading w there spilled 152 bytes for fp16, 80 for bf16).
template <int E, bool Brain, int N, class Read>
__device__ __forceinline__ void max_of(const uint32_t (&w)[N], const Read& read, float* m, bool* nan,
                                       float* m1 = nullptr) {
  if constexpr (E == 2) {
    uint32_t top = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) top = __vmaxu2(top, w[q] & 0x7FFF7FFFu);
    constexpr uint32_t inf = Brain ? 0x7F80u : 0x7C00u;
    *nan = (top & 0xFFFFu) > inf || (top >> 16) > inf;
    if (*nan) {  // again with the NaNs as 0
      top = 0;
      for (int q = 0; q < N; ++q) {
        const uint32_t a = read(q) & 0x7FFF7FFFu;
        top = __vmaxu2(top, a & ~__vcmpgtu2(a, inf | inf << 16));
      }
    }
    if (m1) {
      *m = widen<Brain>(top, 0), *m1 = widen<Brain>(top, 1);
    } else {
      *m = fmaxf(widen<Brain>(top, 0), widen<Brain>(top, 1));
    }
  } else {
    uint32_t top = 0;
#pragma unroll
    for (int q = 0; q < N; ++q) top = max(top, w[q] & 0x7FFFFFFFu);
    *nan = top > 0x7F800000u;
    if (*nan) {
      float t = 0.0f;
      for (int q = 0; q < N; ++q) t = amax_of(t, __uint_as_float(read(q)));
      top = __float_as_uint(t);
    }
    *m = __uint_as_float(top);
  }
}

// The 32 codes of a row segment (words w, every element in order) scaled by f.
template <int E, bool Brain, bool Nans, Fp8 Kind>
__device__ __forceinline__ void row_codes(const uint32_t (&w)[Stage<E>::seg_words], float f, uint32_t (&codes)[8]) {
#pragma unroll
  for (int e = 0; e < kSeg; e += 2) {
    float a, b;
    if constexpr (E == 4)
      a = __uint_as_float(w[e]), b = __uint_as_float(w[e + 1]);
    else
      a = element<E, Brain, Nans>(w[e / 2], 0), b = element<E, Brain, Nans>(w[e / 2], 1);
    const uint32_t pair = quantize_pair<Nans, Kind>(a, f, b, f);
    codes[e / 4] = e % 4 == 0 ? pair : codes[e / 4] | pair << 16;
  }
}

// The 32 codes of column p of a column segment (a word a row) scaled by f.
template <int E, bool Brain, bool Nans, Fp8 Kind>
__device__ __forceinline__ void column_codes(const uint32_t (&w)[kSeg], int p, float f, uint32_t (&codes)[8]) {
#pragma unroll
  for (int k = 0; k < kSeg; k += 2) {
    const uint32_t pair =
        quantize_pair<Nans, Kind>(element<E, Brain, Nans>(w[k], p), f, element<E, Brain, Nans>(w[k + 1], p), f);
    codes[k / 4] = k % 4 == 0 ? pair : codes[k / 4] | pair << 16;
  }
}

template <int E, bool Brain, bool Same, Fp8 Kind>
__device__ __forceinline__ void quantize_tile(const QuantizeRecipe& r, const void* x, int64_t rows, int64_t cols,
                                              int64_t ld, uint8_t* data, uint8_t* data_t, void* scales,
                                              void* scales_t, float* amax, bool x_vectors, bool d_vectors,
                                              bool t_vectors,
                                              const layout::ScaleIndex& index, const layout::ScaleIndex& index_t,
                                              Stage<E>& st, int64_t i0, int64_t j0, int R, int C) {
  using S = Stage<E>;
  const unsigned char* const xb = static_cast<const unsigned char*>(x);
  // The tile into the stage: 16-byte chunks by cp.async where it is whole and aligned.
  if (R == kTile && C == kTile && x_vectors) {
    // A thread's chunks: column chunk c of rows r0, r0 + step, ..: one place in its row (the
    // place turns with the row's parity alone, and step is even), one pitch apart in x.
    constexpr int step = kThreads / S::chunks;
    static_assert(step % 2 == 0, "a thread's rows keep their parity");
    const int r0 = int(threadIdx.x) / S::chunks, c = int(threadIdx.x) % S::chunks;
    unsigned char* to = &st.x[r0][layout::staged_chunk(E, r0, c) * 16];
    const unsigned char* from = xb + ((i0 + r0) * ld + j0) * E + c * 16;
    const int64_t pitch = step * ld * E;
#pragma unroll
    for (int k = 0; k < kTile / step; ++k, to += step * S::row_bytes, from += pitch) copy_async<16>(to, from);
    commit_async();
    wait_async_all();
  } else {
    // Edge tiles and x's rows off 16 bytes (an odd width, a view). Where every row starts on 4
    // bytes (fp32; 2-byte inputs of an even ld on 4 bytes) they go by cp.async words, 16 bytes
    // where every row of x is on 16 bytes, else 4, straight to their staged places; the words
    // the matrix's edges cut through shared stores, zeros past the matrix. Otherwise (2-byte
    // inputs) chunk by chunk out of the aligned 16-byte words around them, shifted (H200 s164:
    // bf16 8192x8191, every other row by words and the rest shifted, lost 3 points to this).
    const auto row_start = [&](int r) { return xb + ((i0 + r) * ld + j0) * E; };
    const bool on4 = !(reinterpret_cast<uintptr_t>(row_start(0)) & 3) && (ld * E) % 4 == 0;
    const auto words = [&](auto width) {
      // A thread's words: word w of rows r0, r0 + step, ..: one staged place, one pitch apart in x.
      constexpr int V = decltype(width)::value, per_row = S::row_bytes / V, step = kThreads / per_row;
      static_assert(step % 2 == 0, "a thread's rows keep their parity");
      const int r0 = int(threadIdx.x) / per_row, w = int(threadIdx.x) % per_row;
      const int in = min(V, max(0, C * E - w * V));  // the word's bytes inside the matrix
      unsigned char* to = &st.x[r0][layout::staged_chunk(E, r0, w * V / 16) * 16 + w * V % 16];
      const unsigned char* from = row_start(r0) + w * V;
      const int64_t pitch = step * ld * E;
#pragma unroll 8
      for (int k = 0; k < kTile / step; ++k, to += step * S::row_bytes, from += pitch) {
        const int n = r0 + k * step < R ? in : 0;
        if (n == V) {
          copy_async<V>(to, from);
        } else if constexpr (V == 16) {
          *reinterpret_cast<uint4*>(to) = n ? load_within(from, from, from + n) : make_uint4(0, 0, 0, 0);
        } else {  // 4 bytes: 2 of them (2-byte inputs) or none
          *reinterpret_cast<uint32_t*>(to) = n ? *reinterpret_cast<const uint16_t*>(from) : 0u;
        }
      }
      commit_async();
    };
    if (x_vectors)
      words(std::integral_constant<int, 16>());
    else if (E == 4 || on4)
      words(std::integral_constant<int, 4>());
    else if constexpr (E == 2) {
      // A few chunks a round, every load of the round in flight; words that reach past x's
      // bytes are read within them.
      constexpr int step = kThreads / S::chunks, per = kTile / step, round = 4;
      static_assert(step % 2 == 0 && per % round == 0, "a thread's rows keep their parity; whole rounds");
      const int r0 = int(threadIdx.x) / S::chunks, c = int(threadIdx.x) % S::chunks;
      const int in_row = min(16, C * E - 16 * c);  // the chunk's bytes inside the matrix (<= 0: none)
      const unsigned char* const high = xb + ((rows - 1) * ld + cols) * E;
      const unsigned char* from = row_start(r0) + c * 16;
      const int64_t pitch = step * ld * E;
      unsigned char* to = &st.x[r0][layout::staged_chunk(E, r0, c) * 16];
#pragma unroll 1
      for (int k0 = 0; k0 < per; k0 += round) {
        uint4 a[round], b[round];
        int skew[round];
#pragma unroll
        for (int k = 0; k < round; ++k) {
          const unsigned char* const at = from + k * pitch;
          skew[k] = int(reinterpret_cast<uintptr_t>(at) & 15);
          a[k] = b[k] = make_uint4(0, 0, 0, 0);
          if (r0 + (k0 + k) * step < R && in_row > 0) {
            const unsigned char* const word = at - skew[k];
            a[k] = word >= xb && word + 16 <= high ? *reinterpret_cast<const uint4*>(word) : load_within(word, xb, high);
            if (skew[k])
              b[k] = word + 32 <= high ? *reinterpret_cast<const uint4*>(word + 16) : load_within(word + 16, xb, high);
          }
        }
#pragma unroll
        for (int k = 0; k < round; ++k) {
          uint4 v = shift_bytes(a[k], b[k], skew[k]);
          if (in_row < 16) {  // the matrix's last column chunk: zeros past it
            const auto keep = [&](uint32_t w, int q) {
              const int n = in_row - 4 * q;
              return n >= 4 ? w : n <= 0 ? 0u : w & ((1u << (8 * n)) - 1);
            };
            v = make_uint4(keep(v.x, 0), keep(v.y, 1), keep(v.z, 2), keep(v.w, 3));
          }
          *reinterpret_cast<uint4*>(to + k * step * S::row_bytes) = v;
        }
        from += round * pitch, to += round * step * S::row_bytes;
      }
    }
    wait_async_all();
  }
  __syncthreads();

  // Blocks of K columns (1 x K, or K x K where Same), K = 32, 64 or 128; a tensor recipe (Same)
  // has one factor for every element.
  const bool tensor = Same && layout::tensor_scaled(r);
  int64_t k64 = kSeg, unused;
  if (!tensor) layout::block_shape(r, &unused, &k64);
  const int k_bits = __ffs(int(k64)) - 1;
  const int sharing = Same ? 1 : 1 << (k_bits - 5);  // row blocks: segments a block, 1, 2 or 4
  // A given scale that is 0, infinite or NaN makes NaN of finite or infinite x too: the NaN path
  // for every element.
  const bool odd_scale =
      tensor && r.scaling == layout::Scaling::tensor_given && !(fabsf(r.scale) > 0.0f && fabsf(r.scale) < INFINITY);
  // Row segment u of the thread (u = 0, 1: segment sg of row rr = first_row + 64 u): its words,
  // max |x| and whether it holds a NaN. A row's chunks turn with its parity alone, so both
  // segments' chunks sit at the same places of their rows.
  constexpr int row_step = kThreads / kSegs;
  static_assert(row_step % 2 == 0, "a thread's rows keep their parity");
  const int first_row = int(threadIdx.x) / kSegs, sg = int(threadIdx.x) % kSegs;
  const auto row_segment = [&](int u, int* rr, uint32_t (&w)[S::seg_words], float* m, bool* nan) {
    *rr = first_row + u * row_step;
    const unsigned char* const row = &st.x[first_row][0] + u * row_step * S::row_bytes;
    const auto chunk = [&](int i) {
      return reinterpret_cast<const uint4*>(row + layout::staged_chunk(E, first_row, sg * S::seg_chunks + i) * 16);
    };
#pragma unroll
    for (int i = 0; i < S::seg_chunks; ++i) {
      const uint4 v = *chunk(i);
      w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
    }
    max_of<E, Brain>(w, [&](int q) { return reinterpret_cast<const uint32_t*>(chunk(q / 4))[q % 4]; }, m, nan);
  };
  float thread_max = 0.0f, tensor_factor = 1.0f;
  const bool square = Same && !tensor;  // K x K blocks: their maxima before either pass
  if constexpr (Same) {
    if (tensor) {
      if (r.scaling == layout::Scaling::tensor_amax) wait_for_prior_grid();  // the amax pass's result
      tensor_factor = layout::tensor_scale(r, r.scaling == layout::Scaling::tensor_amax ? *amax : 0.0f);
      if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (scales) *static_cast<float*>(scales) = 1.0f / tensor_factor;
        if (scales_t) *static_cast<float*>(scales_t) = 1.0f / tensor_factor;
      }
    } else {
      // Each row segment's max |x|, then a warp a block: its K rows' K / 32 segments.
#pragma unroll
      for (int u = 0; u < kTile * kSegs / kThreads; ++u) {
        int rr;
        uint32_t w[S::seg_words];
        float m;
        bool nan;
        row_segment(u, &rr, w, &m, &nan);
        st.row_seg_max[rr][sg] = m;
        thread_max = fmaxf(thread_max, m);
      }
      __syncthreads();
      const int side_bits = 7 - k_bits, per_row_bits = k_bits - 5;  // blocks a tile side; segments a block row
      const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
      for (int b = warp; b < 1 << (2 * side_bits); b += kWarps) {
        const int bi = b >> side_bits, bj = b & ((1 << side_bits) - 1);
        float m = 0.0f;
        for (int e = lane; e < 1 << (k_bits + per_row_bits); e += 32)
          m = fmaxf(m, st.row_seg_max[(bi << k_bits) + (e >> per_row_bits)]
                                     [(bj << per_row_bits) + (e & ((1 << per_row_bits) - 1))]);
        for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
        if (lane == 0) {
          uint32_t bits;
          st.block_f[bi][bj] = block_factor(r, m, &bits);
          if ((bi << k_bits) < R && (bj << k_bits) < C) {
            if (scales) store_scale(r, scales, index((i0 >> k_bits) + bi, (j0 >> k_bits) + bj), bits);
            if (scales_t) store_scale(r, scales_t, index_t((j0 >> k_bits) + bj, (i0 >> k_bits) + bi), bits);
          }
        }
      }
      __syncthreads();
    }
  }
  // Block (bi, bj)'s factor where Same (x's rows bi K .., columns bj K ..).
  const auto same_factor = [&](int rr, int c) {
    return tensor ? tensor_factor : st.block_f[rr >> k_bits][c >> k_bits];
  };

  // data: a thread a row segment, twice; lanes 4j .. 4j + 3 hold row j's four. It also finds
  // the tile's max |x| where it runs (data_t's pass where only that is asked; the blocks' step
  // for K x K blocks).
  const bool columns_pass = data_t || (!Same && scales_t);
  const bool rows_pass = data || (!Same && scales) || (!square && !columns_pass);
  // The tile's first row scale (1 x K blocks), its first row of codes.
  const int64_t row_scales = Same || !scales ? 0 : index(i0, j0 >> k_bits);
  uint8_t* const codes_row = data ? data + (i0 + first_row) * cols + j0 : nullptr;
  if (rows_pass) {
#pragma unroll
    for (int u = 0; u < kTile * kSegs / kThreads; ++u) {
      int rr;
      uint32_t w[S::seg_words];
      float m;
      bool nan;
      row_segment(u, &rr, w, &m, &nan);
      nan = nan || odd_scale;
      if (!square) thread_max = fmaxf(thread_max, m);
      const bool inside = rr < R && sg * kSeg < C;
      float f;
      if constexpr (Same) {
        f = same_factor(rr, sg * kSeg);
      } else {
        for (int o = 1; o < sharing; o *= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
        f = block_factor(r, m, scales, row_scales + index.local(rr, sg >> (k_bits - 5)),
                         scales && inside && (sg & (sharing - 1)) == 0);
      }
      if (data) {
        uint32_t codes[8];
        if (nan)
          row_codes<E, Brain, true, Kind>(w, f, codes);
        else
          row_codes<E, Brain, false, Kind>(w, f, codes);
        if (!(R == kTile && C == kTile && d_vectors)) {
          // Edge tiles and data's rows off 16 bytes: the warp's eight rows (lanes 4j .. 4j + 3
          // row j's segments) four at a time through its part of codes_t (a row's chunk j at
          // 16 (j ^ (row & 1)): no bank conflicts), stored by sectors (store_four_runs).
          const int lane = int(threadIdx.x) % 32, warp_row0 = rr - lane / 4;
          unsigned char* const scratch = st.codes_t + int(threadIdx.x) / 32 * 4 * kTile;
          const auto at = [&](int q, int e) { return scratch + q * kTile + (e ^ (q & 1) << 4); };
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            if (lane / 16 == h) {
              const int q = lane / 4 % 4;
              *reinterpret_cast<uint4*>(at(q, 32 * sg)) = make_uint4(codes[0], codes[1], codes[2], codes[3]);
              *reinterpret_cast<uint4*>(at(q, 32 * sg + 16)) = make_uint4(codes[4], codes[5], codes[6], codes[7]);
            }
            __syncwarp();
            const int row0 = warp_row0 + 4 * h;
            store_tile_runs(data + (i0 + row0) * cols + j0, cols, min(4, R - row0), C, at);
            __syncwarp();
          }
          continue;
        }
        // Two neighbouring lanes (segments 2j, 2j + 1 of a row) trade halves, so that each
        // 16-byte store of the pair fills one 32-byte sector (each lane's own halves made two
        // half-sector writes a sector).
        uint8_t* const pair = codes_row + u * row_step * cols + (sg & ~1) * kSeg;
        const bool odd = sg & 1;
        uint32_t got[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) got[k] = __shfl_xor_sync(0xFFFFFFFFu, odd ? codes[k] : codes[4 + k], 1);
        // even: its first half, then the odd lane's first; odd: the even lane's second, then its own
        const uint4 first = odd ? make_uint4(got[0], got[1], got[2], got[3])
                                : make_uint4(codes[0], codes[1], codes[2], codes[3]);
        const uint4 second = odd ? make_uint4(codes[4], codes[5], codes[6], codes[7])
                                 : make_uint4(got[0], got[1], got[2], got[3]);
        *reinterpret_cast<uint4*>(pair + 16 * odd) = first;
        *reinterpret_cast<uint4*>(pair + kSeg + 16 * odd) = second;
      }
    }
  }

  // data_t: a thread a row segment of P columns (a word a row); a warp's lanes, neighbouring
  // words of one row, read 128 bytes at a time.
  if (columns_pass) {
    // data's rows stored by sectors passed through codes_t, which data_t's codes fill next
    if (rows_pass && data && data_t && !S::hold_codes && !(R == kTile && C == kTile && d_vectors)) __syncthreads();
    constexpr int P = S::P, groups = kTile / P, units = groups * kSegs / kThreads;
    const auto word = [&](int cg, int rs, int k) {  // row 32 rs + k's word of column group cg
      const int rr = rs * kSeg + k;
      return *reinterpret_cast<const uint32_t*>(&st.x[rr][staged_byte<E>(rr, cg * P)]);
    };
    const auto words = [&](int u, uint32_t (&w)[kSeg], int* cg, int* rs) {
      const int q = int(threadIdx.x) + u * kThreads;
      *cg = q % groups, *rs = q / groups;
#pragma unroll
      for (int k = 0; k < kSeg; ++k) w[k] = word(*cg, *rs, k);
    };
    const auto column_max = [&](const uint32_t (&w)[kSeg], int cg, int rs, float (&m)[P], bool* nan) {
      const auto read = [&](int k) { return word(cg, rs, k); };
      if constexpr (P == 2)
        max_of<E, Brain>(w, read, &m[0], nan, &m[1]);
      else
        max_of<E, Brain>(w, read, &m[0], nan);
    };
    // A block's segments meet in shared memory (1 x K, K > 32): where a thread has one unit
    // (2-byte inputs) it keeps its words across the barrier, else it reads them again.
    constexpr bool keep = units == 1;
    const bool meet = !Same && sharing > 1;
    uint32_t kept[keep ? kSeg : 1];
    if (meet) {
#pragma unroll
      for (int u = 0; u < units; ++u) {
        uint32_t w[kSeg];
        int cg, rs;
        words(u, w, &cg, &rs);
        float m[P];
        bool nan;
        column_max(w, cg, rs, m, &nan);
#pragma unroll
        for (int p = 0; p < P; ++p) st.seg_max[rs][cg * P + p] = m[p];
        if constexpr (keep)
#pragma unroll
          for (int k = 0; k < kSeg; ++k) kept[k] = w[k];
      }
      __syncthreads();
    }
    unsigned char* const t = S::hold_codes ? &st.x[0][0] : st.codes_t;
    const auto stage_codes = [&](int c, int rs, const uint32_t (&cc)[8]) {  // row c's codes 32 rs ..
#pragma unroll
      for (int h = 0; h < 2; ++h)
        *reinterpret_cast<uint4*>(t + layout::code_chunk_at(c, 2 * rs + h, P)) =
            make_uint4(cc[4 * h], cc[4 * h + 1], cc[4 * h + 2], cc[4 * h + 3]);
    };
    uint32_t held[S::hold_codes ? units : 1][P][8];
#pragma unroll
    for (int u = 0; u < units; ++u) {
      uint32_t w[kSeg];
      int cg, rs;
      if (keep && meet) {
        const int q = int(threadIdx.x) + u * kThreads;
        cg = q % groups, rs = q / groups;
#pragma unroll
        for (int k = 0; k < kSeg; ++k) w[k] = kept[keep ? k : 0];
      } else {
        words(u, w, &cg, &rs);
      }
      float m[P];
      bool nan;
      column_max(w, cg, rs, m, &nan);
      nan = nan || odd_scale;
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const int c = cg * P + p;
        if (!rows_pass && !square) thread_max = fmaxf(thread_max, m[p]);
        float f;
        if constexpr (Same) {
          f = same_factor(rs * kSeg, c);
        } else {
          float block_max = m[p];
          if (sharing > 1) {
            block_max = 0.0f;
            for (int j = 0; j < sharing; ++j) block_max = fmaxf(block_max, st.seg_max[(rs & ~(sharing - 1)) + j][c]);
          }
          uint32_t bits;
          f = block_factor(r, block_max, &bits);
          if ((rs & (sharing - 1)) == 0) st.scale_t[c][rs >> (k_bits - 5)] = bits;
        }
        if (data_t) {
          uint32_t (&cc)[8] = held[S::hold_codes ? u : 0][p];
          if (nan)
            column_codes<E, Brain, true, Kind>(w, p, f, cc);
          else
            column_codes<E, Brain, false, Kind>(w, p, f, cc);
          if constexpr (!S::hold_codes) stage_codes(c, rs, cc);
        }
      }
    }
    // data_t's 128 x 128 codes through shared memory, so that its rows go out as whole 128-byte
    // lines (a thread's 32 codes of a row alone made 32-byte pieces of 32 rows a warp store: 60%
    // of a copy for bf16 MXFP8 on the H200); its scales too, a column's neighbouring lanes.
    if (data_t && S::hold_codes) {
      __syncthreads();  // every thread has read the stage's x
#pragma unroll
      for (int u = 0; u < units; ++u) {
        const int q = int(threadIdx.x) + u * kThreads, cg = q % groups, rs = q / groups;
#pragma unroll
        for (int p = 0; p < P; ++p) stage_codes(cg * P + p, rs, held[S::hold_codes ? u : 0][p]);
      }
    }
    __syncthreads();
    if (!Same && scales_t) {
      const int across_bits = 7 - k_bits;  // blocks a column of the tile: 128 / K
      const int64_t first = index_t(j0, i0 >> k_bits);
      for (int q = int(threadIdx.x); q < kTile << across_bits; q += kThreads) {
        const int c = q >> across_bits, rb = q & ((1 << across_bits) - 1);
        if (c < C && (rb << k_bits) < R) store_scale(r, scales_t, first + index_t.local(c, rb), st.scale_t[c][rb]);
      }
    }
    if (data_t && R == kTile && C == kTile && t_vectors) {
      // Column c0 + 32 k's chunk j, k = 0 .. 3: its place in t is chunk_at0 + 32 k 128 (code_chunk_at's
      // turn is (c / P) % 8, the same for each k), its place in data_t 32 k rows apart.
      const int c0 = int(threadIdx.x) / 8, j = int(threadIdx.x) % 8, chunk_at0 = layout::code_chunk_at(c0, j, P);
      uint8_t* const to = data_t + (j0 + c0) * rows + i0 + 16 * j;
#pragma unroll
      for (int k = 0; k < kTile * 8 / kThreads; ++k)
        *reinterpret_cast<uint4*>(to + k * (kThreads / 8) * rows) =
            *reinterpret_cast<const uint4*>(t + chunk_at0 + k * (kThreads / 8) * kTile);
    } else if (data_t) {
      // Edge tiles and data_t's rows off 16 bytes: a warp four rows at a time, each row's R
      // codes stored by sectors (store_four_runs) from its chunks in t.
      const int warp = int(threadIdx.x) / 32;
#pragma unroll 1
      for (int c0 = 4 * warp; c0 < C; c0 += 4 * kWarps)
        store_tile_runs(data_t + (j0 + c0) * rows + i0, rows, min(4, C - c0), R, [&](int q, int e) {
          return t + layout::code_byte_at(c0 + q, e, P);
        });
    }
  }

  if (amax && r.scaling != layout::Scaling::tensor_amax) {  // the tile's max |x| (NaN ignored), one atomic a tile
    for (int o = 16; o > 0; o /= 2) thread_max = fmaxf(thread_max, __shfl_xor_sync(0xFFFFFFFFu, thread_max, o));
    if (threadIdx.x % 32 == 0) st.warp_max[threadIdx.x / 32] = thread_max;
    __syncthreads();
    if (threadIdx.x == 0) {
      float m = st.warp_max[0];
#pragma unroll
      for (int i = 1; i < kWarps; ++i) m = fmaxf(m, st.warp_max[i]);
      atomicMax(reinterpret_cast<unsigned*>(amax), __float_as_uint(m));  // non-negative: bits order
    }
  }
}

template <int E, bool Brain, bool Same, Fp8 Kind>
__global__ void __launch_bounds__(kThreads, E == 2 ? 4 : 3)
    quantize_staged(const QuantizeRecipe r, const void* x, int64_t rows, int64_t cols, int64_t ld, uint8_t* data,
                    uint8_t* data_t, void* scales, void* scales_t, float* amax, bool x_vectors, bool d_vectors,
                    bool t_vectors,
                    const layout::FastDivmod tiles_c, const layout::ScaleIndex index,
                    const layout::ScaleIndex index_t) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  Stage<E>& st = *reinterpret_cast<Stage<E>*>(smem_bytes);
  // Current scaling walks the tiles backwards: its amax pass read x forwards, so the tiles read
  // last are the ones still in L2.
  const unsigned tile = r.scaling == layout::Scaling::tensor_amax ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  uint32_t tile_c;
  const int64_t i0 = int64_t(tiles_c.divmod(tile, &tile_c)) * kTile, j0 = int64_t(tile_c) * kTile;
  const int R = int(min(int64_t(kTile), rows - i0)), C = int(min(int64_t(kTile), cols - j0));
  quantize_tile<E, Brain, Same, Kind>(r, x, rows, cols, ld, data, data_t, scales, scales_t, amax, x_vectors, d_vectors,
                                      t_vectors,
                                      index, index_t, st, i0, j0, R, C);
}

// Whose rows are whole 16-byte vectors, base and pitch: x's, data's and data_t's.
struct RowsOn16 {
  bool x, data, data_t;
};
RowsOn16 rows_on16(const QuantizeTask& t) {
  const auto on16 = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  return {on16(t.x) && (t.ld * input_bytes(t.input)) % 16 == 0, on16(t.data) && t.cols % 16 == 0,
          on16(t.data_t) && t.rows % 16 == 0};
}

// Same: one factor for an x block in both outputs (tensor scales, K x K blocks)
template <int E, bool Brain, bool Same, Fp8 Kind>
cudaError_t launch_kind(const QuantizeTask& t, int device, cudaStream_t stream) {
  constexpr auto kernel = quantize_staged<E, Brain, Same, Kind>;
  const int smem = int(sizeof(Stage<E>));
  if (cudaError_t e = detail::allow_dynamic_smem<kernel>(device, smem); e != cudaSuccess) return e;
  const RowsOn16 on16 = rows_on16(t);
  // 32-bit: quantize_refusal
  const int64_t tiles_c = (t.cols - 1) / kTile + 1, tiles = ((t.rows - 1) / kTile + 1) * tiles_c;
  // Current scaling's kernel starts early: its tile's loads overlap the amax pass's end.
  return launch_maybe_early(t.recipe.scaling == layout::Scaling::tensor_amax, kernel, dim3(unsigned(tiles)),
                            dim3(kThreads), size_t(smem), stream, t.recipe, t.x, t.rows, t.cols, t.ld, t.data,
                            t.data_t, t.scales, t.scales_t, t.amax, on16.x, on16.data, on16.data_t,
                            layout::FastDivmod(uint32_t(tiles_c)), layout::scale_index(t.recipe, t.rows, t.cols),
                            layout::scale_index(t.recipe, t.cols, t.rows));
}

template <int E, bool Brain, bool Same>
cudaError_t launch_same(const QuantizeTask& t, int device, cudaStream_t stream) {
  return t.recipe.out == Fp8::e4m3 ? launch_kind<E, Brain, Same, Fp8::e4m3>(t, device, stream)
                                   : launch_kind<E, Brain, Same, Fp8::e5m2>(t, device, stream);
}

template <int E, bool Brain>
cudaError_t launch(const QuantizeTask& t, int device, cudaStream_t stream) {
  int64_t br, bc;
  layout::block_shape(t.recipe, &br, &bc);
  return layout::tensor_scaled(t.recipe) || br != 1 ? launch_same<E, Brain, true>(t, device, stream)
                                                     : launch_same<E, Brain, false>(t, device, stream);
}

}  // namespace

bool quantize_staged_serves(const QuantizeTask& t) {
  const QuantizeRecipe& r = t.recipe;
  // Tensor scales of fp32 stay with quantize.cu's kernel where x's, data's and data_t's rows are
  // all 16-byte aligned: 97-99% of a copy there, 1-2 points behind here (H200, the commit that
  // brought them here). Off 16 bytes that kernel goes element by element: here, on random draws
  // (H200, s156), 30% of a copy there against 52% here where rows were odd.
  if (layout::tensor_scaled(r)) {
    const RowsOn16 on16 = rows_on16(t);
    return t.input != QuantizeInputType::fp32 || !(on16.x && (!t.data || on16.data) && (!t.data_t || on16.data_t));
  }
  int64_t br, bc;
  layout::block_shape(r, &br, &bc);
  return (br == 1 || br == bc) && (bc == 32 || bc == 64 || bc == 128);
}

cudaError_t quantize_staged(const QuantizeTask& t, int device, cudaStream_t stream) {
  switch (t.input) {
    case QuantizeInputType::fp32: return launch<4, false>(t, device, stream);
    case QuantizeInputType::bf16: return launch<2, true>(t, device, stream);
    case QuantizeInputType::fp16: return launch<2, false>(t, device, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace xpose::engines
