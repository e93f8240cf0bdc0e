// FP8 quantization for the recipes staged.cu does not serve (blocks of other shapes: 8 x 8,
// 16 x 16, 8 x 32, ..) and its entry point: one block a 128 x 128 tile of x, read once as
// 16-byte vectors into registers (a thread four consecutive rows of one 16-byte column chunk,
// twice or four times), both outputs written from there:
//   data    each thread's row pieces quantized in registers and stored (a warp's lanes cover
//           whole 128-byte output rows);
//   data_t  each thread turns its 4 rows x 16/E columns into one 4-code word a column, staged
//           in a column-major tile of codes (the word index swizzled by the column chunk, so
//           that neither the word stores nor the 16-byte reads meet in a bank), then stored as
//           16-byte vectors of whole 128-byte data_t rows.
// Block amaxes come from two small tables of partial maxima in shared memory (each row's
// maximum over a chunk; each column's over a group of four rows) reduced by segments: any block
// shape the recipe names, 1 x 32 up to 128 x 128. The tile's amax comes from registers. The
// cast is the hardware's cvt.rn.satfinite (sm_89 and later; this file is built for
// XPOSE_TMA_ARCHITECTURES alone), NaN given the sign of x as the reference does.
#include <algorithm>
#include <tuple>
#include <type_traits>

#include "engines/early_launch.cuh"
#include "engines/quantize/fp8.cuh"
#include "engines/quantize/quantize.hpp"
#include "layout/micro_block.hpp"

namespace xpose::engines {
namespace {

using layout::QuantizeRecipe;
using layout::Scaling;

constexpr int kTile = 128, kThreads = 256, kWarps = kThreads / 32;
constexpr int kAmaxInFlight = 4;  // the amax pass's 16-byte loads a thread before it reduces any
constexpr int kGroups = kTile / 4;  // groups of four rows a tile

// The tile's thread map for E-byte input elements.
template <int E>
struct Map {
  static constexpr int V = 16 / E;          // elements a vector
  static constexpr int VPR = kTile / V;     // vectors a tile row: 32 (fp32) or 16 (2-byte)
  static constexpr int HR = 32 / VPR;       // row groups a warp covers at once: 1 or 2
  static constexpr int IT = kGroups / (kWarps * HR);  // row groups a thread holds: 4 or 2
  static constexpr int W = V * E / 4;       // 32-bit words a vector
};

// Shared memory of a block: partial maxima, the block scales of both outputs, and the codes of
// data_t (over the column partials, once the scales are read from them).
template <int E>
struct Shared {
  float row_part[kTile][Map<E>::VPR];  // row r's max |x| over vector chunk v
  union {
    float col_part[kGroups][kTile];     // column c's max |x| over rows 4g .. 4g + 3
    uint32_t codes[kTile][kGroups];     // data_t: column c's codes, four rows a word (swizzled)
  };
  float row_scale[kTile * kTile / 32];  // data's blocks (at most 512 a tile), the factor x takes
  float col_scale[kTile * kTile / 32];  // data_t's
  float warp_max[kWarps];
};

// Where column c's partial over row group g sits in its row of Shared::col_part: c with its
// low bits turned by c's 32-column quarter (and, for 2-byte input, by which of a warp's two row
// groups g is), so that a warp's lanes, each writing 16 / E consecutive columns, meet in no bank.
template <int E>
__device__ __forceinline__ int col_slot(int g, int c) {
  return c ^ (c >> 5) ^ ((g & (Map<E>::HR - 1)) << 2);
}

// Element e of a vector's words as fp32: E = 4 fp32, E = 2 bf16 (Brain) or fp16.
template <int E, bool Brain, bool Nans = false>
__device__ __forceinline__ float element(const uint32_t (&w)[Map<E>::W], int e) {
  if constexpr (E == 4)
    return __uint_as_float(w[e]);
  else
    return widen<Brain, Nans>(w[e / 2], e % 2);
}

// One output's block scales, from the tile's partial maxima (Shared::row_part, col_part). The
// output's blocks are br x bc in its own coordinates, kTile / br down and kTile / bc across the
// tile; block (bi, bj) of data covers x's rows bi*br.. and columns bj*bc..; of data_t (x's
// transpose), x's rows bj*bc.. and columns bi*br.. . Its rectangle of x is read from the column
// partials (four rows each) where it has four rows or more, else from the row partials (its
// columns then hold whole chunks: a block has 32 elements at least). `lanes` threads reduce a
// block, as many as the blocks leave room for. Writes each block's factor (what its data is
// multiplied by) to `scale` and the scale output, where given, for blocks inside the matrix.
template <int E>
__device__ void block_scales(const QuantizeRecipe& r, const Shared<E>& sh, bool transposed, int64_t i0, int64_t j0,
                             int R, int C, const layout::ScaleIndex& index, float tile_max, float* scale, void* out) {
  using M = Map<E>;
  int64_t br64, bc64;
  layout::block_shape(r, &br64, &bc64);
  // Every extent here is a power of two (quantize_refusal): shifts, not divisions.
  const int br = int(br64), bc = int(bc64), br_bits = __ffs(br) - 1, bc_bits = __ffs(bc) - 1;
  const int across_bits = 7 - bc_bits, blocks = 1 << (7 - br_bits + across_bits);  // kTile = 2^7
  const int nr = transposed ? bc : br, nc = transposed ? br : bc;  // the block's rectangle of x
  const bool whole = nr == kTile && nc == kTile, by_groups = nr >= 4;
  const int part_rows = by_groups ? nr / 4 : nr, part_cols = by_groups ? nc : nc / M::V;
  const int col_bits = __ffs(part_cols) - 1, per_block = part_rows * part_cols;
  int lane_bits = 0;
  while (!whole && lane_bits < 5 && (blocks << lane_bits) < kThreads && (1 << lane_bits) < per_block) ++lane_bits;
  const int lanes = 1 << lane_bits;
  // Row partials four at a time where a block's run of them is whole 16-byte vectors.
  const bool quads = E == 2 && !by_groups && part_cols % 4 == 0;
  // The output's first block of the tile, and the tile's extent inside the matrix.
  const int64_t first_bi = (transposed ? j0 : i0) >> br_bits, first_bj = (transposed ? i0 : j0) >> bc_bits;
  const int valid_r = transposed ? C : R, valid_c = transposed ? R : C;
  for (int first = 0; first < blocks; first += kThreads >> lane_bits) {
    const int blk = first + (int(threadIdx.x) >> lane_bits), l = int(threadIdx.x) & (lanes - 1);
    const int bi = blk >> across_bits, bj = blk & ((1 << across_bits) - 1);
    float m = whole ? tile_max : 0.0f;
    if (blk < blocks && !whole) {
      const int xr = transposed ? bj << bc_bits : bi << br_bits, xc = transposed ? bi << br_bits : bj << bc_bits;
      if (by_groups) {  // groups xr / 4 .., columns xc ..
#pragma unroll(E == 2 ? 4 : 1)
        for (int i = l; i < per_block; i += lanes) {
          const int g = (xr >> 2) + (i >> col_bits);
          m = fmaxf(m, sh.col_part[g][col_slot<E>(g, xc + (i & (part_cols - 1)))]);
        }
      } else if (quads) {  // rows xr .., chunks xc / V .., four a load
        const int quads_a_row_bits = col_bits - 2;
#pragma unroll(E == 2 ? 4 : 1)
        for (int i = l; i < per_block / 4; i += lanes) {
          const float4 q = *reinterpret_cast<const float4*>(
              &sh.row_part[xr + (i >> quads_a_row_bits)][xc / M::V + 4 * (i & ((1 << quads_a_row_bits) - 1))]);
          m = fmaxf(m, fmaxf(fmaxf(q.x, q.y), fmaxf(q.z, q.w)));
        }
      } else {
        for (int i = l; i < per_block; i += lanes)
          m = fmaxf(m, sh.row_part[xr + (i >> col_bits)][xc / M::V + (i & (part_cols - 1))]);
      }
    }
    for (int s = lanes / 2; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, s, lanes));
    if (blk < blocks && l == 0) {
      const bool inside = (bi << br_bits) < valid_r && (bj << bc_bits) < valid_c;
      scale[blk] = block_factor(r, m, out, index(first_bi + bi, first_bj + bj), out && inside);
    }
  }
}

// An output's blocks in its own coordinates (br x bc, powers of two: shifts), and how many a
// tile has across.
struct Blocks {
  int br_bits, bc_bits, across_bits;
};

__device__ __forceinline__ Blocks blocks_of(const QuantizeRecipe& r) {
  int64_t br, bc;
  layout::block_shape(r, &br, &bc);
  const int rb = __ffs(int(br)) - 1, cb = __ffs(int(bc)) - 1;
  return {rb, cb, 7 - cb};  // kTile = 2^7
}

struct Flags {  // what the host found aligned
  bool x_vectors;  // x and its pitch on 16 bytes: 16-byte loads
  bool data_words;  // data and cols on 16 / E codes: a vector's codes in one store
  bool data_t_vectors;  // data_t and rows on 16 bytes
};

// How the recipe's factors fall on a thread's elements, fixed at compile time (this file's
// recipes: staged.cu serves the 1 x K blocks):
//   same        one factor for an x block in both outputs (the tensor recipes, square blocks):
//               data's codes, turned in registers, are data_t's;
//   general     any other block shape: factors looked up element by element.
enum class Scheme : uint8_t { same, general };

Scheme scheme_of(const QuantizeRecipe& r) {
  if (layout::tensor_scaled(r)) return Scheme::same;
  int64_t br, bc;
  layout::block_shape(r, &br, &bc);
  return br == bc ? Scheme::same : Scheme::general;
}

// A thread's elements: four rows of one chunk, IT times (w), and where they sit.
template <int E>
struct Held {
  uint32_t w[Map<E>::IT][4][Map<E>::W];
};

// Reads the tile into `held`, reduces its maxima and writes the scales: whether the tile needs
// the NaN path, and the tensor's factor (1 for block recipes).
template <int E, bool Brain, Scheme S, bool Edge>
__device__ __forceinline__ bool load_and_scale(const QuantizeRecipe& r, const void* x, int64_t ld, uint8_t* data,
                                               uint8_t* data_t, void* scales, void* scales_t, float* amax,
                                               const Flags& flags, const layout::ScaleIndex& index,
                                               const layout::ScaleIndex& index_t, Shared<E>& sh, int64_t i0,
                                               int64_t j0, int R, int C, Held<E>& held, float* tensor_factor) {
  using M = Map<E>;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int v = lane % M::VPR, h = lane / M::VPR, c0 = v * M::V;  // this thread's column chunk
  const auto group = [&](int it) { return (it * kWarps + warp) * M::HR + h; };
  const bool chunk_inside = !Edge || c0 + M::V <= C;

  // x, every load in flight first; in an edge tile, vectors the edge cuts element by element.
  auto& w = held.w;
#pragma unroll
  for (int it = 0; it < M::IT; ++it)
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const int rr = 4 * group(it) + k;
      const unsigned char* row = static_cast<const unsigned char*>(x) + ((i0 + rr) * ld + j0 + c0) * E;
      if (!Edge || (rr < R && chunk_inside && flags.x_vectors)) {
        const uint4 u = *reinterpret_cast<const uint4*>(row);
        w[it][k][0] = u.x, w[it][k][1] = u.y, w[it][k][2] = u.z, w[it][k][3] = u.w;
      } else {
#pragma unroll
        for (int q = 0; q < M::W; ++q) w[it][k][q] = 0;
        if (rr < R)
#pragma unroll
          for (int e = 0; e < M::V; ++e) {
            if (c0 + e >= C) continue;
            uint32_t bits;
            if constexpr (E == 4)
              bits = reinterpret_cast<const uint32_t*>(row)[e];
            else
              bits = reinterpret_cast<const uint16_t*>(row)[e];
            w[it][k][e * E / 4] |= bits << (E == 4 ? 0 : 16 * (e % 2));
          }
      }
    }

  // Partial maxima (each row over the chunk, each column over the four rows), the tile's, and
  // whether any x is NaN. 2-byte inputs compare two elements an instruction, exactly.
  float tile_max = 0.0f;
  bool any_nan = false;
#pragma unroll
  for (int it = 0; it < M::IT; ++it) {
    const int g = group(it);
    if constexpr (E == 2) {
      uint32_t col[M::W] = {}, nan = 0;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        uint32_t row = 0;
#pragma unroll
        for (int q = 0; q < M::W; ++q) {
          const uint32_t a = w[it][k][q] & 0x7FFF7FFFu;
          row = hmax2<Brain>(row, a, false), col[q] = hmax2<Brain>(col[q], a, false), nan = hmax2<Brain>(nan, a, true);
        }
        const float m = fmaxf(widen<Brain>(row, 0), widen<Brain>(row, 1));
        sh.row_part[4 * g + k][v] = m;
        tile_max = fmaxf(tile_max, m);
      }
      const float n0 = widen<Brain>(nan, 0), n1 = widen<Brain>(nan, 1);
      any_nan |= n0 != n0 || n1 != n1;
#pragma unroll
      for (int e = 0; e < M::V; ++e) sh.col_part[g][col_slot<E>(g, c0 + e)] = element<E, Brain>(col, e);
    } else {
      float col[M::V] = {}, nan = 0.0f;
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float row = 0.0f;
#pragma unroll
        for (int e = 0; e < M::V; ++e) {
          const float a = __uint_as_float(w[it][k][e]);
          row = amax_of(row, a), col[e] = amax_of(col[e], a), nan = max_keeping_nan(nan, a);
        }
        sh.row_part[4 * g + k][v] = row;
        tile_max = fmaxf(tile_max, row);
      }
      any_nan |= nan != nan;
#pragma unroll
      for (int e = 0; e < M::V; ++e) sh.col_part[g][col_slot<E>(g, c0 + e)] = col[e];
    }
  }
  for (int s = 16; s > 0; s /= 2) tile_max = fmaxf(tile_max, __shfl_xor_sync(0xFFFFFFFFu, tile_max, s));
  if (lane == 0) sh.warp_max[warp] = tile_max;
  // A given scale that is 0, infinite or NaN makes NaN of finite or infinite x too: then every
  // tile takes the NaN path.
  const bool odd_scale = r.scaling == Scaling::tensor_given && !(fabsf(r.scale) > 0.0f && fabsf(r.scale) < INFINITY);
  const bool nans = __syncthreads_or(any_nan || odd_scale);
  tile_max = sh.warp_max[0];
#pragma unroll
  for (int i = 1; i < kWarps; ++i) tile_max = fmaxf(tile_max, sh.warp_max[i]);
  if (amax && r.scaling != Scaling::tensor_amax && threadIdx.x == 0)
    atomicMax(reinterpret_cast<unsigned*>(amax), __float_as_uint(tile_max));  // non-negative: bits order

  // The scales: one for the tensor (given, or from the amax its first pass reduced), or the
  // blocks' from the partial maxima (data_t's from data's where they are the same).
  const bool tensor = layout::tensor_scaled(r);
  if (r.scaling == Scaling::tensor_amax) wait_for_prior_grid();  // the amax pass's result
  const float tensor_scale = tensor ? layout::tensor_scale(r, r.scaling == Scaling::tensor_amax ? *amax : 0.0f) : 1.0f;
  if (tensor) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      if (scales) *static_cast<float*>(scales) = 1.0f / tensor_scale;
      if (scales_t) *static_cast<float*>(scales_t) = 1.0f / tensor_scale;
    }
  } else {
    if (data || scales || (data_t && S == Scheme::same))
      block_scales<E>(r, sh, false, i0, j0, R, C, index, tile_max, sh.row_scale, scales);
    if ((data_t && S != Scheme::same) || scales_t)
      block_scales<E>(r, sh, true, i0, j0, R, C, index_t, tile_max, sh.col_scale, scales_t);
  }
  __syncthreads();  // the scales are in, the column partials read: their space takes the codes
  *tensor_factor = tensor_scale;
  return nans;
}

// Both outputs from the held elements and the scales in shared memory.
template <int E, bool Brain, Scheme S, bool Edge, bool Nans, layout::Fp8 Kind>
__device__ __forceinline__ void write_outputs(const QuantizeRecipe& r, int64_t rows, int64_t cols, uint8_t* data,
                                              uint8_t* data_t, const Flags& flags, Shared<E>& sh, int64_t i0,
                                              int64_t j0, int R, int C, const Held<E>& held, float tensor_scale) {
  using M = Map<E>;
  const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
  const int v = lane % M::VPR, h = lane / M::VPR, c0 = v * M::V;
  const auto group = [&](int it) { return (it * kWarps + warp) * M::HR + h; };
  const bool chunk_inside = !Edge || c0 + M::V <= C;
  const bool tensor = layout::tensor_scaled(r);
  const auto& w = held.w;
  const Blocks b = blocks_of(r);
  // data's factor for row rr, column c; data_t's for x's row rr, column c (data_t's block (c / br, rr / bc)).
  const auto row_factor = [&](int rr, int c) {
    return tensor ? tensor_scale : sh.row_scale[((rr >> b.br_bits) << b.across_bits) + (c >> b.bc_bits)];
  };
  const auto col_factor = [&](int rr, int c) {
    return sh.col_scale[((c >> b.br_bits) << b.across_bits) + (rr >> b.bc_bits)];
  };

#pragma unroll
  for (int it = 0; it < M::IT; ++it) {
    const int g = group(it);
    uint32_t codes[4][M::V / 4];  // data's codes of rows 4g + k, four a word
    if (data || (data_t && S == Scheme::same)) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int rr = 4 * g + k;
        const float chunk_factor = S != Scheme::general ? row_factor(rr, c0) : 0.0f;
#pragma unroll
        for (int e = 0; e < M::V; e += 2) {
          const float sa = S != Scheme::general ? chunk_factor : row_factor(rr, c0 + e);
          const float sb = S != Scheme::general ? chunk_factor : row_factor(rr, c0 + e + 1);
          const uint32_t pair = quantize_pair<Nans, Kind>(element<E, Brain, Nans>(w[it][k], e), sa, element<E, Brain, Nans>(w[it][k], e + 1), sb);
          if (e % 4 == 0)
            codes[k][e / 4] = pair;
          else
            codes[k][e / 4] |= pair << 16;
        }
        if (!data || (Edge && (rr >= R || c0 >= C))) continue;
        uint8_t* out = data + (i0 + rr) * cols + j0 + c0;
        if (!Edge || (chunk_inside && flags.data_words)) {
          if constexpr (M::V == 8)
            *reinterpret_cast<uint2*>(out) = make_uint2(codes[k][0], codes[k][1]);
          else
            *reinterpret_cast<uint32_t*>(out) = codes[k][0];
        } else {
#pragma unroll
          for (int e = 0; e < M::V; ++e)
            if (c0 + e < C) out[e] = uint8_t(codes[k][e / 4] >> (8 * (e % 4)));
        }
      }
    }
    if (!data_t) continue;
    // data_t: column c0 + e's codes of rows 4g .. 4g + 3 as one word.
    uint32_t words[M::V];
    if constexpr (S == Scheme::same) {
#pragma unroll
      for (int q = 0; q < M::V / 4; ++q) {
        const uint32_t rows4[4] = {codes[0][q], codes[1][q], codes[2][q], codes[3][q]};
        uint32_t cols4[4];
        layout::transpose_micro(rows4, cols4);
#pragma unroll
        for (int t = 0; t < 4; ++t) words[4 * q + t] = cols4[t];
      }
    } else {
#pragma unroll
      for (int e = 0; e < M::V; ++e) {
        const int c = c0 + e;
        const float f0 = col_factor(4 * g, c), f1 = col_factor(4 * g + 1, c);
        const float f2 = col_factor(4 * g + 2, c), f3 = col_factor(4 * g + 3, c);
        words[e] = quantize_pair<Nans, Kind>(element<E, Brain, Nans>(w[it][0], e), f0, element<E, Brain, Nans>(w[it][1], e), f1) |
                   quantize_pair<Nans, Kind>(element<E, Brain, Nans>(w[it][2], e), f2, element<E, Brain, Nans>(w[it][3], e), f3)
                       << 16;
      }
    }
#pragma unroll
    for (int e = 0; e < M::V; ++e) sh.codes[c0 + e][g ^ (M::HR * v)] = words[e];
  }
  __syncthreads();
  if (!data_t) return;
  // Column c's 128 codes are data_t's row piece: 8 lanes a row, 16 bytes each.
  const int q = lane % 8;
#pragma unroll
  for (int step = 0; step < kTile / (kWarps * 4); ++step) {
    const int c = (step * kWarps + warp) * 4 + lane / 8;
    if (Edge && c >= C) continue;
    const int swz = M::HR * (c / M::V);
    const uint4 u = *reinterpret_cast<const uint4*>(&sh.codes[c][(4 * q) ^ (swz & ~3)]);
    const uint32_t in[4] = {u.x, u.y, u.z, u.w};
    uint32_t out[4];
    const int m = swz & 3;
#pragma unroll
    for (int t = 0; t < 4; ++t) out[t] = m == 0 ? in[t] : m == 1 ? in[t ^ 1] : m == 2 ? in[t ^ 2] : in[t ^ 3];
    uint8_t* dst = data_t + (j0 + c) * rows + i0 + 16 * q;
    const int first = 16 * q;
    if (!Edge || (first + 16 <= R && flags.data_t_vectors)) {
      *reinterpret_cast<uint4*>(dst) = make_uint4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
      for (int t = 0; t < 16; ++t)
        if (first + t < R) dst[t] = uint8_t(out[t / 4] >> (8 * (t % 4)));
    }
  }
}

template <int E, bool Brain, Scheme S, bool Edge>
__device__ __forceinline__ void quantize_tile(const QuantizeRecipe& r, const void* x, int64_t rows, int64_t cols,
                                              int64_t ld, uint8_t* data, uint8_t* data_t, void* scales, void* scales_t,
                                              float* amax, const Flags& flags, const layout::ScaleIndex& index,
                                              const layout::ScaleIndex& index_t, Shared<E>& sh, int64_t i0, int64_t j0,
                                              int R, int C) {
  Held<E> held;
  float tensor_scale;
  const bool nans = load_and_scale<E, Brain, S, Edge>(r, x, ld, data, data_t, scales, scales_t, amax, flags, index,
                                                      index_t, sh, i0, j0, R, C, held, &tensor_scale);
  // The format and the NaN path as instantiations: a branch on either inside the loops costs a
  // register move or a predicated fix-up an element. Edge tiles and the general scheme (rare)
  // take the NaN-safe path only, which is right for every tile.
  constexpr layout::Fp8 e4m3 = layout::Fp8::e4m3, e5m2 = layout::Fp8::e5m2;
  if constexpr (Edge || S == Scheme::general) {
    if (r.out == e4m3)
      write_outputs<E, Brain, S, Edge, true, e4m3>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
    else
      write_outputs<E, Brain, S, Edge, true, e5m2>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
    return;
  }
  if (nans && r.out == e4m3)
    write_outputs<E, Brain, S, Edge, true, e4m3>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
  else if (nans)
    write_outputs<E, Brain, S, Edge, true, e5m2>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
  else if (r.out == e4m3)
    write_outputs<E, Brain, S, Edge, false, e4m3>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
  else
    write_outputs<E, Brain, S, Edge, false, e5m2>(r, rows, cols, data, data_t, flags, sh, i0, j0, R, C, held, tensor_scale);
}

// One block a tile; whole tiles with every pointer and pitch aligned take the path without
// bounds checks.
template <int E, bool Brain, Scheme S>
__global__ void __launch_bounds__(kThreads, 2)
    quantize_tiles(const QuantizeRecipe r, const void* x, int64_t rows, int64_t cols, int64_t ld, uint8_t* data,
                   uint8_t* data_t, void* scales, void* scales_t, float* amax, Flags flags,
                   const layout::ScaleIndex index, const layout::ScaleIndex index_t) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  Shared<E>& sh = *reinterpret_cast<Shared<E>*>(smem_bytes);
  // 32-bit tile arithmetic (fewer than 2^31 tiles: quantize_refusal); a 64-bit division costs
  // every thread about 70 instructions.
  const unsigned tiles_c = unsigned((cols + kTile - 1) >> 7);  // kTile = 2^7
  // Current scaling walks the tiles backwards: its amax pass read x forwards, so the tiles read
  // last are the ones still in L2.
  const unsigned tile = r.scaling == Scaling::tensor_amax ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
  const int64_t i0 = int64_t(tile / tiles_c) * kTile, j0 = int64_t(tile % tiles_c) * kTile;
  const int R = int(min(int64_t(kTile), rows - i0)), C = int(min(int64_t(kTile), cols - j0));
  if constexpr (S != Scheme::general) {  // the general scheme's block shapes are rare: one path
    if (R == kTile && C == kTile && flags.x_vectors && flags.data_words && flags.data_t_vectors) {
      quantize_tile<E, Brain, S, false>(r, x, rows, cols, ld, data, data_t, scales, scales_t, amax, flags, index,
                                        index_t, sh, i0, j0, R, C);
      return;
    }
  }
  quantize_tile<E, Brain, S, true>(r, x, rows, cols, ld, data, data_t, scales, scales_t, amax, flags, index, index_t,
                                   sh, i0, j0, R, C);
}

// The tensor's amax, for Scaling::tensor_amax, before any block scales with it: dense rows (ld ==
// cols) as one run, 16-byte loads from its first 16-byte boundary (the elements before it and
// after the last whole vector one by one), kAmaxInFlight of them a thread before it reduces any (a
// load past the end reads nothing and counts 0); padded rows element by element; one atomic a block.
template <int E, bool Brain>
__global__ void __launch_bounds__(kThreads, 8)
    quantize_amax_pass(const void* x, int64_t rows, int64_t cols, int64_t ld, float* amax) {
  using M = Map<E>;
  let_dependents_start();  // the quantize kernel, launched early, waits for this pass's end
  __shared__ float warp_max[kWarps];
  float m = 0.0f;
  const auto one = [&](int64_t at) {
    uint32_t words[M::W] = {};
    words[0] = E == 4 ? static_cast<const uint32_t*>(x)[at] : static_cast<const uint16_t*>(x)[at];
    m = amax_of(m, element<E, Brain>(words, 0));
  };
  const int64_t stride = int64_t(gridDim.x) * kThreads, first = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (ld == cols) {  // one flat run of rows * cols elements: the elements before its first 16 bytes, vectors, the rest
    const int64_t n = rows * cols;
    const int64_t head = min(n, int64_t(((16 - (reinterpret_cast<uintptr_t>(x) & 15)) & 15) / E));
    const int64_t full = (n - head) / M::V;
    const uint4* v = reinterpret_cast<const uint4*>(static_cast<const unsigned char*>(x) + head * E);
    if (first < head) one(first);
    for (int64_t i = first; i < full; i += kAmaxInFlight * stride) {
      uint4 u[kAmaxInFlight];
#pragma unroll
      for (int k = 0; k < kAmaxInFlight; ++k) u[k] = i + k * stride < full ? v[i + k * stride] : uint4{};
#pragma unroll
      for (int k = 0; k < kAmaxInFlight; ++k) {
        const uint32_t words[M::W] = {u[k].x, u[k].y, u[k].z, u[k].w};
#pragma unroll
        for (int e = 0; e < M::V; ++e) m = amax_of(m, element<E, Brain>(words, e));
      }
    }
    for (int64_t i = head + full * M::V + first; i < n; i += stride) one(i);
  } else {
    for (int64_t r = blockIdx.x; r < rows; r += gridDim.x)
      for (int64_t j = threadIdx.x; j < cols; j += kThreads) one(r * ld + j);
  }
  for (int s = 16; s > 0; s /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, s));
  if (threadIdx.x % 32 == 0) warp_max[threadIdx.x / 32] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int w = 1; w < kWarps; ++w) m = fmaxf(m, warp_max[w]);
    atomicMax(reinterpret_cast<unsigned*>(amax), __float_as_uint(m));  // non-negative: bits order
  }
}

bool power_of_two_up_to_tile(int v) { return v >= 1 && v <= kTile && (v & (v - 1)) == 0; }

bool aligned(const void* p, uintptr_t n) { return reinterpret_cast<uintptr_t>(p) % n == 0; }

}  // namespace

// The compute capabilities this build carries the kernels' machine code for (CMake's
// XPOSE_TMA_ARCHITECTURES, as the TMA engines): the cast to FP8 is sm_89's and later's.
#ifndef XPOSE_TMA_CCS
#define XPOSE_TMA_CCS 90
#endif
constexpr int built_ccs[] = {XPOSE_TMA_CCS};

const char* quantize_device_refusal(int cc) {
  for (const int built : built_ccs)
    if (built == cc) return nullptr;
  return "the FP8 kernels are built for the compute capabilities of XPOSE_TMA_ARCHITECTURES (9.0 by default); "
         "xpose::quantize_host serves host memory";
}

const char* quantize_refusal(const QuantizeTask& t) {
  const QuantizeRecipe& r = t.recipe;
  if ((t.rows - 1) / kTile + 1 > INT32_MAX / ((t.cols - 1) / kTile + 1))
    return "the matrix has more than 2^31 tiles of 128 x 128 (one launch's grid)";
  if (r.scaling == Scaling::blocks &&
      (!power_of_two_up_to_tile(r.block_rows) || !power_of_two_up_to_tile(r.block_cols) ||
       r.block_rows * r.block_cols < 32))
    return "the GPU path takes blocks of powers of two up to 128 a side and of 32 elements or more";
  return nullptr;
}

cudaError_t quantize(const QuantizeTask& t, const detail::Device& device, cudaStream_t stream) {
  if (t.amax) {
    if (cudaError_t e = cudaMemsetAsync(t.amax, 0, sizeof(float), stream); e != cudaSuccess) return e;
  }
  if (t.rows == 0 || t.cols == 0) return cudaSuccess;
  // Entries no block owns are 0 (the blocks' are written over); shapes that fill the layout's
  // tiles have none, and no memset.
  const size_t bytes = size_t(layout::scale_bytes(t.recipe));
  for (const auto& [scales, R, C] : {std::tuple{t.scales, t.rows, t.cols}, std::tuple{t.scales_t, t.cols, t.rows}})
    if (scales && layout::scales_padded(t.recipe, R, C))
      if (cudaError_t e = cudaMemsetAsync(scales, 0, size_t(layout::scale_count(t.recipe, R, C)) * bytes, stream);
          e != cudaSuccess)
        return e;
  const int64_t E = input_bytes(t.input);
  const Flags flags{aligned(t.x, 16) && (t.ld * E) % 16 == 0,
                    aligned(t.data, uintptr_t(16 / E)) && t.cols % (16 / E) == 0,
                    aligned(t.data_t, 16) && t.rows % 16 == 0};
  const auto by_scheme = [&](auto e, auto brain) -> cudaError_t {
    constexpr int E = decltype(e)::value;
    constexpr bool B = decltype(brain)::value;
    if (t.recipe.scaling == Scaling::tensor_amax) {  // x's amax first
      const int64_t sms = device.sm_count, per_block = int64_t(kThreads) * (16 / E) * kAmaxInFlight;
      const unsigned blocks = unsigned(std::max<int64_t>(1, std::min<int64_t>(8 * sms, (t.rows * t.cols + per_block - 1) / per_block)));
      quantize_amax_pass<E, B><<<blocks, kThreads, 0, stream>>>(t.x, t.rows, t.cols, t.ld, t.amax);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    if (quantize_staged_serves(t)) return quantize_staged(t, device.id, stream);
    const auto run = [&](auto scheme) -> cudaError_t {
      constexpr auto kernel = quantize_tiles<E, B, decltype(scheme)::value>;
      const int smem = int(sizeof(Shared<E>));
      if (cudaError_t e = detail::allow_dynamic_smem<kernel>(device.id, smem); e != cudaSuccess) return e;
      const int64_t tiles = ((t.rows - 1) / kTile + 1) * ((t.cols - 1) / kTile + 1);
      return launch_maybe_early(t.recipe.scaling == Scaling::tensor_amax, kernel, dim3(unsigned(tiles)), dim3(kThreads),
                                size_t(smem), stream, t.recipe, t.x, t.rows, t.cols, t.ld, t.data, t.data_t, t.scales,
                                t.scales_t, t.amax, flags, layout::scale_index(t.recipe, t.rows, t.cols),
                                layout::scale_index(t.recipe, t.cols, t.rows));
    };
    return scheme_of(t.recipe) == Scheme::same ? run(std::integral_constant<Scheme, Scheme::same>{})
                                               : run(std::integral_constant<Scheme, Scheme::general>{});
  };
  using yes = std::true_type;
  using no = std::false_type;
  switch (t.input) {
    case QuantizeInputType::fp32: return by_scheme(std::integral_constant<int, 4>{}, no{});
    case QuantizeInputType::bf16: return by_scheme(std::integral_constant<int, 2>{}, yes{});
    case QuantizeInputType::fp16: return by_scheme(std::integral_constant<int, 2>{}, no{});
  }
  return cudaErrorInvalidValue;
}

}  // namespace xpose::engines
