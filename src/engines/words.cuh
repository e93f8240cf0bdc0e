// Bytes off 16 bytes moved as the aligned 16-byte words around them: loaded within a buffer's
// bytes, shifted, stored in part (the in-place kernels; permute_row_vectors; aligned_stores'
// dst edges of bytes), or stored from shared memory by 32-byte sectors (quantize_staged).
#pragma once

#include <cstdint>

#include "engines/common.cuh"
#include "layout/aligned_dst.hpp"
#include "layout/words.hpp"

namespace xpose::engines {

// The aligned 16-byte word at p; its bytes outside [low, high) (the matrices') are not read
// (zeros), so no kernel reads past the caller's buffer.
__device__ __forceinline__ uint4 load_within(const unsigned char* p, const unsigned char* low,
                                             const unsigned char* high) {
  if (p >= low && p + 16 <= high) return __ldcg(reinterpret_cast<const uint4*>(p));
  uint64_t lo = 0, hi = 0;
  for (int i = 0; i < 16; ++i) {
    const uint64_t b = p + i >= low && p + i < high ? uint64_t(p[i]) << (8 * (i % 8)) : 0;
    if (i < 8) lo |= b;
    else hi |= b;
  }
  return make_uint4(uint32_t(lo), uint32_t(lo >> 32), uint32_t(hi), uint32_t(hi >> 32));
}

// Bytes s .. s + 15 (s in 0..15) of a followed by b (little-endian): the 16 bytes that start s
// bytes into the aligned word a (layout::shift_out_chunk, which the CPU tests hold).
__device__ __forceinline__ uint4 shift_bytes(const uint4& a, const uint4& b, int s) {
  const uint32_t w[8] = {a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w};
  uint32_t out[4];
  layout::shift_out_chunk(w, s, out);
  return make_uint4(out[0], out[1], out[2], out[3]);
}

// Bytes [lo, hi) of v into the aligned 16-byte word at `word`, the other bytes left alone: one
// store for the whole word, else layout::word_parts' aligned 8/4/2/1-byte stores.
__device__ __forceinline__ void store_part(unsigned char* word, const uint4& v, int lo, int hi) {
  if (lo == 0 && hi == 16) {
    __stcg(reinterpret_cast<uint4*>(word), v);
    return;
  }
  const uint64_t low = uint64_t(v.x) | uint64_t(v.y) << 32, high = uint64_t(v.z) | uint64_t(v.w) << 32;
  const auto put = [&](int i, int n) {
    const uint64_t bits = (i < 8 ? low : high) >> (8 * (i % 8));
    if (n == 8) __stcg(reinterpret_cast<unsigned long long*>(word + i), (unsigned long long)bits);
    else if (n == 4) __stcg(reinterpret_cast<unsigned*>(word + i), unsigned(bits));
    else if (n == 2) __stcg(reinterpret_cast<unsigned short*>(word + i), (unsigned short)bits);
    else word[i] = (unsigned char)bits;
  };
  layout::word_parts(lo, hi, put);
}

// A warp's runs 0 .. live - 1 (live <= 4) of `bytes` bytes each (1 .. 128), run q from
// first + q pitch, its byte e in shared memory at at(q, e) (16-byte chunks there: at(q, 16 j)
// aligned, at(q, 16 j + b) = at(q, 16 j) + b), stored as layout::SectorRun's pieces: lane 8q + m
// run q's whole vector m, then run by run a lane an edge byte, so that every sector a run shares
// with its neighbours gets the run's bytes from one instruction (as aligned 1/2/4/8-byte parts,
// a shared sector took up to five, and quantize_staged with data_t's rows off 16 bytes ran at
// 2.5x the time of aligned rows, the L2 its limit: H200 s158). 32-bit offsets within the sector
// (the pitch's low bits), the edge bytes' loads before their stores (plain ones, which the
// compiler may reorder; the index math once took most of quantize_staged's instructions, s164).
// `bytes` an int, or a std::integral_constant where the runs' length is known (the cuts then fold).
template <class Bytes, class At>
__device__ __forceinline__ void store_four_runs(unsigned char* first, int64_t pitch, int live, Bytes bytes,
                                                const At& at) {
  const int lane = int(threadIdx.x) % 32, q = lane / 8, m = lane % 8;
  const int first_off = int(reinterpret_cast<uintptr_t>(first) & 31), pitch_off = int(pitch & 31);
  const auto run = [&](int i) { return layout::SectorRun((first_off + i * pitch_off) & 31, bytes); };
  if (q < live) {
    const layout::SectorRun s = run(q);
    if (16 * m < s.mid) {
      const int o = s.head + 16 * m, shift = o & 15, c = o & ~15;
      const uint4 lo = *reinterpret_cast<const uint4*>(at(q, c));
      *reinterpret_cast<uint4*>(first + q * pitch + o) =
          shift ? shift_bytes(lo, *reinterpret_cast<const uint4*>(at(q, c + 16)), shift) : lo;
    }
  }
  // The edge bytes: a run's edges are bytes % 32 or 32 more (never more than 62): lane b's of
  // each run, then, where runs are not whole sectors long (edge tiles), the rest.
  const auto edges = [&](int k) {
    int e[4];
    unsigned char b[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const layout::SectorRun s = run(i);
      e[i] = i < live && lane + k < s.edges() ? s.edge(lane + k) : -1;
      if (e[i] >= 0) b[i] = *at(i, e[i]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
      if (e[i] >= 0) first[i * pitch + e[i]] = b[i];
  };
  edges(0);
  if (bytes % 32) edges(32);
}

}  // namespace xpose::engines
