// A host model of shared-memory banks: 32 banks, each 4 bytes wide. One warp-wide
// access of W bytes per thread is served in phases of 128/W threads (W >= 8) or all
// 32 at once (W <= 4); within a phase, threads touching the same 4-byte word share it,
// and each further distinct word in a bank costs one more wavefront.
//
// The replays below walk one tile the way the kernels do, through the same layout and
// thread -> element functions (smem_layout.hpp), and report the worst access.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "layout/smem_layout.hpp"

namespace xpose::layout {

constexpr int banks = 32, bank_bytes = 4;

inline int bank_of(int64_t byte_address) { return int((byte_address / bank_bytes) % banks); }

// Wavefronts one warp instruction needs; `addresses` holds the active threads' byte
// addresses in lane order.
inline int wavefronts(const std::vector<int64_t>& addresses, int access_bytes) {
  const size_t per_phase = access_bytes <= 4 ? 32 : size_t(128 / access_bytes);
  int total = 0;
  for (size_t first = 0; first < addresses.size(); first += per_phase) {
    std::vector<int64_t> words;  // the phase's distinct words, sorted
    const size_t last = std::min(addresses.size(), first + per_phase);
    for (size_t t = first; t < last; ++t)
      for (int64_t w = addresses[t] / bank_bytes; w <= (addresses[t] + access_bytes - 1) / bank_bytes; ++w)
        words.push_back(w);
    std::sort(words.begin(), words.end());
    words.erase(std::unique(words.begin(), words.end()), words.end());
    int in_bank[banks] = {}, worst = 0;
    for (int64_t w : words) worst = std::max(worst, ++in_bank[w % banks]);
    total += worst;
  }
  return total;
}

// How many times slower than conflict-free an instruction is: 1 means no conflict.
inline int conflict_ways(const std::vector<int64_t>& addresses, int access_bytes) {
  const int phases = access_bytes <= 4 ? 1 : int((addresses.size() * access_bytes + 127) / 128);
  return (wavefronts(addresses, access_bytes) + phases - 1) / phases;
}

struct Ways { int store = 0, load = 0; };  // worst over the tile's smem stores and loads

// The classic kernels (smem, smem_padded, smem_swizzled): every warp, every step.
template <int E, class Tile>
Ways classic_tile_ways() {
  Ways worst;
  for (int ty = 0; ty < classic::block_y; ++ty)
    for (int j = 0; j < classic::per_thread; ++j) {
      std::vector<int64_t> st, ld;
      for (int tx = 0; tx < classic::block_x; ++tx) {
        const auto w = classic::load_coord(tx, ty, j), r = classic::store_coord(tx, ty, j);
        st.push_back(int64_t(Tile::at(w.r, w.c)) * E);
        ld.push_back(int64_t(Tile::at(r.r, r.c)) * E);
      }
      worst.store = std::max(worst.store, conflict_ways(st, E));
      worst.load = std::max(worst.load, conflict_ways(ld, E));
    }
  return worst;
}

// vec_swizzled: element k of every thread's vector is one warp instruction.
template <int E>
Ways vec_tile_ways() {
  using V = VecTile<E>;
  Ways worst;
  for (int item = 0; item < V::per_thread; ++item)
    for (int warp = 0; warp < V::threads / 32; ++warp)
      for (int k = 0; k < V::vec; ++k) {
        std::vector<int64_t> st, ld;
        for (int lane = 0; lane < 32; ++lane) {
          const int v = item * V::threads + warp * 32 + lane;
          const auto w = V::load_coord(v, k), r = V::store_coord(v, k);
          st.push_back(int64_t(V::Layout::at(w.r, w.c)) * E);
          ld.push_back(int64_t(V::Layout::at(r.r, r.c)) * E);
        }
        worst.store = std::max(worst.store, conflict_ways(st, E));
        worst.load = std::max(worst.load, conflict_ways(ld, E));
      }
  return worst;
}

// The in-place pairs' packed tiles (1- and 2-byte elements): word stores of K x K blocks turned
// in registers (word j k of every thread's chunk is one instruction), 16-byte loads of turned rows.
template <int E>
Ways packed_pair_ways() {
  using T = PackedPairTile<E>;
  Ways worst;
  for (int warp = 0; warp < T::threads / 32; ++warp)
    for (int w = 0; w < T::vec; ++w) {  // column c + w of each thread's chunk
      std::vector<int64_t> st;
      for (int lane = 0; lane < 32; ++lane) {
        const auto e = T::load_coord(warp * 32 + lane);
        st.push_back(int64_t(T::at(e.c + w, e.r / T::K)) * 4);
      }
      worst.store = std::max(worst.store, conflict_ways(st, 4));
    }
  for (int first = 0; first < T::side * T::chunks_a_row; first += 32) {
    std::vector<int64_t> ld;
    for (int lane = 0; lane < 32; ++lane) {
      const auto e = T::store_coord(first + lane);
      ld.push_back(int64_t(T::at(e.c, e.r / T::K)) * 4);
    }
    worst.load = std::max(worst.load, conflict_ways(ld, 16));
  }
  return worst;
}

}  // namespace xpose::layout
