// In-place transposition of narrow rectangles: the passes of layout::NarrowShape on the view of
// m rows of k (the matrix itself if tall; for a wide one, the view's transposition undone, each
// pass inverted, in reverse order), each reading and writing the matrix once, coalesced:
//   aside:  the last r rows (m = q b + r; b: layout::narrow_column_bytes(k) of elements, 512
//           bytes up to k = 384, at most m / 8) copied to the workspace;
//   turn:   each block of b x k elements (at most 192 KiB, contiguous; a matrix of 32 KiB or
//           less is one block, and the only pass) turned to k x b through shared memory
//           (narrow_turn for k under 32, narrow_turn_rows from 32);
//   pieces: the q x k pieces of b elements transposed, moved along their cycles by the chains
//           of chains.cuh (a bit a piece);
//   spread: rows 1 .. k - 1 of the k x q b result moved to their places c m, right by c r, in
//           chunks of 16 KiB taken in ticket order (layout::NarrowSpread): a block reads its
//           chunk into shared memory, says so, waits until every chunk its destination
//           overlaps has read its own (earlier tickets, on blocks already running), then
//           writes it;
//   aside:  the last r rows written to column q b of each row.
#include "engines/inplace/inplace.hpp"

#include <algorithm>

#include "engines/async_copy.cuh"
#include "engines/inplace/chains.cuh"
#include "engines/inplace/elem.cuh"
#include "layout/grid.hpp"

namespace xpose::engines::narrow {
namespace {

constexpr int kThreads = 256;
constexpr uint32_t kWordsInColumns = 192;  // the turn reads 16-byte words into tiles of at most this many columns
constexpr int64_t kChunkBytes = 16 << 10;  // a spread chunk
constexpr int kSpreadBlocksPerSm = 6;  // 16 KiB of shared memory each

size_t round256(int64_t x) { return size_t((x + 255) / 256 * 256); }

struct Sizes {
  layout::NarrowShape s;
  bool inverse = false;
  layout::NarrowSpread spread;
  int64_t tickets = 0;          // the spread's chunks, all matrices
  size_t bits = 0, flags = 0, aside = 0;  // workspace parts
};

Sizes sizes_of(const InplaceProblem& t) {
  Sizes z;
  z.inverse = t.rows < t.cols;
  z.s = layout::narrow_shape(t.rows, t.cols, t.elem_bytes);
  const int64_t E = t.elem_bytes, q = z.s.q, r = z.s.r, k = z.s.k;
  if (q > 0 && r > 0) {
    z.spread = layout::narrow_spread(z.s, z.inverse, kChunkBytes / E);
    z.tickets = z.spread.per_matrix() * t.batch;
  }
  z.bits = q > 1 ? round256((q * k * t.batch + 31) / 32 * 4) : 0;
  z.flags = z.tickets > 0 ? round256((z.tickets + 1) * 4) : 0;
  z.aside = size_t(r * k * E * t.batch);
  return z;
}

// Each block of R x C elements (matrix blockIdx.y + z0, block blockIdx.x) becomes C x R,
// through shared memory in C rows of `pitch` (pitch E / 4 odd, or pitch odd for 8 bytes: a
// warp's elements written down a column meet no bank twice). 1- and 2-byte elements of a block
// on 16 bytes are written as 4-byte words of 4 / E elements each, and read as 16-byte words
// where the tile has few columns. The turn of short sides under layout::narrow_turn_rows_from
// (narrow_turn_rows the others): there its tiles of few columns ran the whole transposition 4-8
// points ahead of narrow_turn_rows (H200, 2026-11-29: u8 22369623 x 3 20.1 against 10.3% of a
// copy, fp32 2097152 x 8 34.0 against 26.1, fp32 1100003 x 16 25.4 against 22.2).
template <int E>
__global__ void __launch_bounds__(kThreads) narrow_turn(InplaceElem<E>* data, int64_t matrix, layout::FastDivmod by_c,
                                                        layout::FastDivmod by_r, int pitch, int64_t z0) {
  extern __shared__ uint4 turn_words[];
  InplaceElem<E>* const tile = reinterpret_cast<InplaceElem<E>*>(turn_words);
  const uint32_t R = by_r.divisor, C = by_c.divisor, count = R * C;
  InplaceElem<E>* const base = data + (z0 + blockIdx.y) * matrix + int64_t(blockIdx.x) * count;
  const auto put = [&](uint32_t idx, InplaceElem<E> v) {
    uint32_t y;
    const uint32_t x = by_c.divmod(idx, &y);
    tile[y * pitch + x] = v;
  };
  const auto get = [&](uint32_t o) {
    uint32_t x;
    const uint32_t y = by_r.divmod(o, &x);
    return tile[y * pitch + x];
  };
  constexpr int kBatch = 8;
  // A 16-byte word's elements go down a tile column one a thread, its neighbour's 16 / E rows
  // further: spread over the banks where the tile has few columns (the forward turn's k, up to
  // 192 measured), 16-way conflicts where it has b (the inverse's 256 or 512, u8 29 x 4668160:
  // 18.0 -> 13.5% of a copy).
  const bool words = E <= 2 && reinterpret_cast<uintptr_t>(base) % 16 == 0 && count * E % 16 == 0,
             words_in = words && C <= kWordsInColumns;
  if constexpr (E <= 2) if (words_in) {
    constexpr int kPer = 16 / E;  // elements a 16-byte word
    const uint4* const from = reinterpret_cast<const uint4*>(base);
    const uint32_t loads = count / kPer;
    constexpr int kWords = 4;  // 64 bytes a thread in flight
    for (uint32_t first = threadIdx.x; first < loads; first += kWords * kThreads) {
      uint4 v[kWords];
#pragma unroll
      for (int u = 0; u < kWords; ++u)
        if (first + u * kThreads < loads) v[u] = from[first + u * kThreads];
#pragma unroll
      for (int u = 0; u < kWords; ++u) {
        if (first + u * kThreads >= loads) continue;
        InplaceElem<E> e[kPer];
        memcpy(e, &v[u], 16);
#pragma unroll
        for (int i = 0; i < kPer; ++i) put((first + u * kThreads) * kPer + i, e[i]);
      }
    }
  }
  if (!words_in) {
    for (uint32_t first = threadIdx.x; first < count; first += kBatch * kThreads) {
      InplaceElem<E> v[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (first + u * kThreads < count) v[u] = base[first + u * kThreads];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (first + u * kThreads < count) put(first + u * kThreads, v[u]);
    }
  }
  __syncthreads();
  if constexpr (E <= 2) if (words) {
    constexpr int kPer = 4 / E;  // elements a 4-byte word
    uint32_t* const to = reinterpret_cast<uint32_t*>(base);
    for (uint32_t w = threadIdx.x; w < count / kPer; w += kThreads) {
      InplaceElem<E> e[kPer];
#pragma unroll
      for (int i = 0; i < kPer; ++i) e[i] = get(w * kPer + i);
      uint32_t word;
      memcpy(&word, e, 4);
      to[w] = word;
    }
  }
  if (!words)
    for (uint32_t o = threadIdx.x; o < count; o += kThreads) base[o] = get(o);
}

// Blocks of R x C elements turned to C x R, a lane a 16-byte word of a row of the side that is
// not staged as it is (the short side's k rows, layout::narrow_turn_rows_from or more):
//   Gather: the block staged as it is (cp.async, every word in flight at once), then each dst
//     row (C of them, R elements each) gathered down the stage's column;
//   !Gather: each src row (R of them, C elements) loaded and scattered into the stage in dst's
//     order, then the stage copied out as it is.
// Gather where dst's rows are whole words (the forward turn), !Gather where src's are (the
// inverse). A warp takes `rows` consecutive rows (layout::narrow_turn_warp_rows), 32 / rows
// words of each. Global memory moves as the aligned 16-byte words around the block
// (layout::TurnFrame; the stage holds them as they are), whole words as words, the first and last
// (shared with the neighbours where a block starts inside a word: batches of matrices whose bytes
// are not a multiple of 16) an element at a time. H200, 2026-11-29, Nsight Compute: narrow_turn
// took u8 104192 x 671's turn 262 us (byte loads, a block an SM: DRAM 9% busy), a lane a row 32
// bytes of it 79 us (each 16-byte store its own L2 sector write: L2 81% busy, DRAM 34%); whole
// transpositions against narrow_turn in one call: u8 104192 x 671 11.2 -> 19.9% of a copy,
// 376429 x 1139 9.6 -> 18.6, 67001 x 401 9.0 -> 16.2, 211 x 318023 13.0 -> 20.2, fp16 60013 x
// 500 15.1 -> 22.5, fp32 300 x 55933 18.4 -> 22.5; fp64 262144 x 32 37.0 -> 35.6.
constexpr int kRowThreads = 512, kRowItems = 4;  // threads a block, words a lane has in flight
template <int E, bool Gather>
__global__ void __launch_bounds__(kRowThreads) narrow_turn_rows(InplaceElem<E>* data, int64_t matrix, uint32_t R,
                                                                uint32_t C, uint32_t rows, int64_t z0) {
  using T = InplaceElem<E>;
  constexpr int P = 16 / E;  // elements a word
  extern __shared__ uint4 turn_words[];
  const uint32_t count = R * C;
  T* const base = data + (z0 + blockIdx.y) * matrix + int64_t(blockIdx.x) * count;
  // The block's place in its first word: a whole number of elements but for 16-byte elements on
  // 8 bytes, which move as elements, no word whole.
  const uint32_t offset = uint32_t(reinterpret_cast<uintptr_t>(base) % 16), framed = offset % E == 0;
  const layout::TurnFrame f{int32_t(Gather ? C : R), int32_t(Gather ? R : C), P, int32_t(framed ? offset / E : 0)};
  T* const stage = reinterpret_cast<T*>(turn_words) + f.shift;  // the block's elements
  uint4* const words = reinterpret_cast<uint4*>(base - f.shift);  // global memory's, when framed
  const uint32_t frame_words = (f.shift + count + P - 1) / P;
  const auto copy = [&](uint32_t w, bool to_stage) {  // frame word w, first or last: element by element
    for (int i = 0; i < P; ++i) {
      const int32_t o = int32_t(w * P + i) - f.shift;
      if (o < 0 || o >= int32_t(count)) continue;
      if (to_stage) stage[o] = base[o];
      else base[o] = stage[o];
    }
  };
  const auto inner = [&](uint32_t w) { return framed && w * P >= uint32_t(f.shift) && (w + 1) * P <= f.shift + count; };
  if constexpr (Gather) {
    for (uint32_t w = threadIdx.x; w < frame_words; w += kRowThreads)
      if (inner(w)) copy_async<16>(turn_words + w, words + w);
      else copy(w, true);
    wait_async_all();
    __syncthreads();
  }
  const uint32_t lane = threadIdx.x % 32, warps = kRowThreads / 32, across = 32 / rows;
  const uint32_t r = lane % rows, c = lane / rows, pieces = f.words_a_row(), groups = (pieces + across - 1) / across;
  const uint32_t items = (f.rows() + rows - 1) / rows * groups, N = f.n;
  // A block on 16 bytes takes each word's elements from its own row, as a word; one off them,
  // every word by TurnFrame's rule (per lane, a lane on a row's first word took it while the
  // others did not, and every warp ran both: fp16 1915 x 17663 x 7's inverse turn 577 us against
  // 352 for 1915 x 17664 x 7; that rule for every block took u8 104192 x 671 from 22.7 to 14.9% of
  // a copy, H200).
  const bool plain = framed && f.shift == 0;
  for (uint32_t first = threadIdx.x / 32; first < items; first += kRowItems * warps) {
    uint4 v[kRowItems];
    uint32_t rho[kRowItems], p[kRowItems];
    bool any[kRowItems], whole[kRowItems];
#pragma unroll
    for (int u = 0; u < kRowItems; ++u) {
      const uint32_t it = first + u * warps, g = it / groups;
      rho[u] = g * rows + r, p[u] = (it - g * groups) * across + c;
      any[u] = it < items && rho[u] < uint32_t(f.rows()) && p[u] < pieces;
      whole[u] = any[u] && framed && f.whole(int32_t(rho[u]), int32_t(p[u]));
      if (!any[u]) continue;
      T* const e = reinterpret_cast<T*>(&v[u]);
      if constexpr (Gather) {
        if (plain) {
#pragma unroll
          for (int i = 0; i < P; ++i) e[i] = stage[(p[u] * P + i) * N + rho[u]];
        } else {
#pragma unroll
          for (int i = 0; i < P; ++i) {
            const int32_t o = f.element(int32_t(rho[u]), int32_t(p[u]), i);
            if (o >= 0 && o < int32_t(count)) e[i] = stage[f.stage(int32_t(rho[u]), int32_t(p[u]), i)];
          }
        }
      } else if (whole[u]) {
        v[u] = __ldcg(words + rho[u] * pieces + p[u]);
      } else {
#pragma unroll
        for (int i = 0; i < P; ++i) {
          const int32_t o = f.element(int32_t(rho[u]), int32_t(p[u]), i);
          if (o >= 0 && o < int32_t(count)) e[i] = base[o];
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kRowItems; ++u) {
      if (!any[u]) continue;
      const T* const e = reinterpret_cast<const T*>(&v[u]);
      if constexpr (!Gather) {
        if (plain) {
#pragma unroll
          for (int i = 0; i < P; ++i) stage[(p[u] * P + i) * N + rho[u]] = e[i];
        } else {
#pragma unroll
          for (int i = 0; i < P; ++i) {
            const int32_t o = f.element(int32_t(rho[u]), int32_t(p[u]), i);
            if (o >= 0 && o < int32_t(count)) stage[f.stage(int32_t(rho[u]), int32_t(p[u]), i)] = e[i];
          }
        }
      } else if (whole[u]) {
        __stcg(words + rho[u] * pieces + p[u], v[u]);
      } else {
#pragma unroll
        for (int i = 0; i < P; ++i) {
          const int32_t o = f.element(int32_t(rho[u]), int32_t(p[u]), i);
          if (o >= 0 && o < int32_t(count)) base[o] = e[i];
        }
      }
    }
  }
  if constexpr (!Gather) {
    __syncthreads();
    for (uint32_t w = threadIdx.x; w < frame_words; w += kRowThreads)
      if (inner(w)) __stcg(words + w, turn_words[w]);
      else copy(w, false);
  }
}

// The last r rows of each matrix and the workspace (to_aside: into it; else out of it): as they
// are, r rows of k after the q b whole ones (!Scatter), or element (x, c) at c m + q b + x, the
// place of column c's last r elements in the k x m result (Scatter).
template <int E, bool Scatter>
__global__ void __launch_bounds__(kThreads) narrow_aside(InplaceElem<E>* data, InplaceElem<E>* aside, layout::NarrowShape s,
                                                         int64_t count, bool to_aside) {
  const int64_t per = s.r * s.k, whole = s.q * s.b;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < count; i += int64_t(gridDim.x) * kThreads) {
    const int64_t z = i / per, e = i - z * per;
    InplaceElem<E>* const m = data + z * s.m * s.k;
    InplaceElem<E>* const a = aside + z * per;
    if constexpr (Scatter) {  // e = c r + x: along the matrix's row c
      const int64_t c = e / s.r, x = e - c * s.r;
      InplaceElem<E>& at = m[c * s.m + whole + x];
      if (to_aside)
        a[x * s.k + c] = at;
      else
        at = a[x * s.k + c];
    } else {
      InplaceElem<E>& at = m[whole * s.k + e];
      if (to_aside)
        a[e] = at;
      else
        at = a[e];
    }
  }
}

// The spread: blocks take chunks in ticket order (flags[tickets] counts the tickets out). A
// chunk's bytes are read as the aligned 16-byte words around them (those past the matrices'
// span [low, high) byte by byte) and written as aligned 16-byte words shifted out of shared
// memory, its first and last words byte by byte: no element size or shift narrows the words.
__global__ void __launch_bounds__(kThreads, 4) narrow_spread(unsigned char* data, uint32_t* flags, layout::NarrowSpread d,
                                                          int elem_bytes, int64_t matrix_bytes, int64_t tickets,
                                                          const unsigned char* low, const unsigned char* high) {
  constexpr int kWords = int(kChunkBytes / 16) + 2;  // a chunk's aligned words, and 16 bytes read past them
  constexpr int kBatch = 4;                          // words a thread has in flight
  __shared__ uint4 held[kWords + 1];
  __shared__ int64_t taken;
  const unsigned char* const bytes = reinterpret_cast<const unsigned char*>(held);
  for (;;) {
    if (threadIdx.x == 0) taken = atomicAdd(flags + tickets, 1u);
    __syncthreads();
    const int64_t t = taken;
    if (t >= tickets) return;
    const layout::NarrowSpread::Chunk c = d.at(t);
    unsigned char* const m = data + c.matrix * matrix_bytes;
    const uintptr_t from = reinterpret_cast<uintptr_t>(m + c.src * elem_bytes), first_word = from & ~uintptr_t(15);
    const int n = int(c.count * elem_bytes), words = int((from + n + 15 - first_word) / 16);
    for (int w0 = threadIdx.x; w0 < words; w0 += kBatch * kThreads) {
      uint4 v[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int w = w0 + u * kThreads;
        const unsigned char* const p = reinterpret_cast<const unsigned char*>(first_word) + 16 * w;
        if (w < words && p >= low && p + 16 <= high) v[u] = __ldcg(reinterpret_cast<const uint4*>(p));
      }
#pragma unroll
      for (int u = 0; u < kBatch; ++u) {
        const int w = w0 + u * kThreads;
        const unsigned char* const p = reinterpret_cast<const unsigned char*>(first_word) + 16 * w;
        if (w >= words) continue;
        held[w] = p >= low && p + 16 <= high ? v[u] : load_within(p, low, high);
      }
    }
    __syncthreads();  // every byte of the chunk read (in shared memory)
    if (threadIdx.x == 0) {
      __threadfence();
      atomicExch(flags + t, 1u);
      for (int64_t x = c.dst, begin, end; x < c.dst + c.count; x = end) {
        const int64_t u = d.next_read(c.matrix, x, &begin, &end);
        if (u < 0 || begin >= c.dst + c.count) break;
        while (*reinterpret_cast<volatile uint32_t*>(flags + u) == 0) {
        }
      }
      __threadfence();
    }
    __syncthreads();  // every chunk the destination overlaps has read its bytes
    const uintptr_t to = reinterpret_cast<uintptr_t>(m + c.dst * elem_bytes), first_out = to & ~uintptr_t(15);
    const int outs = int((to + n + 15 - first_out) / 16);
    for (int w = threadIdx.x; w < outs; w += kThreads) {
      const uintptr_t at = first_out + 16 * uintptr_t(w);
      const int64_t o = int64_t(at - to) + int64_t(from - first_word);  // at's source byte in held (o >= -15)
      const int64_t a = o & 3, x0 = o - a;  // word x0 / 4 of held, a bytes in (word -1: the first word's cut bytes)
      const uint32_t* const x = reinterpret_cast<const uint32_t*>(bytes + x0);
      const auto word = [&](int i) { return x0 + 4 * i >= 0 && x0 + 4 * i < 16 * (kWords + 1) ? x[i] : 0u; };
      const uint32_t v0 = word(0), v1 = word(1), v2 = word(2), v3 = word(3), v4 = a ? word(4) : 0;
      const uint4 v = make_uint4(__funnelshift_r(v0, v1, 8 * a), __funnelshift_r(v1, v2, 8 * a),
                                 __funnelshift_r(v2, v3, 8 * a), __funnelshift_r(v3, v4, 8 * a));
      store_part(reinterpret_cast<unsigned char*>(at), v, int(max(int64_t(0), int64_t(to) - int64_t(at))),
                 int(min(int64_t(16), int64_t(to) + n - int64_t(at))));
    }
    __syncthreads();  // held and taken free for the next chunk
  }
}

bool takes(const InplaceProblem& t) {
  return layout::narrow_takes(t.rows, t.cols, t.elem_bytes);
}

const char* refusal(const InplaceProblem& t) {
  const Sizes z = sizes_of(t);
  if (z.s.q * z.s.k * t.batch >= (int64_t(1) << 32) || z.tickets >= (int64_t(1) << 32) - 1 ||
      z.s.q >= (int64_t(1) << 31))
    return "narrow rectangles (a short side of at most 384-6144 elements) are transposed in place on the GPU in batches "
           "of fewer than 2^32 column pieces (512 bytes each up to 384 columns)";
  return nullptr;
}

size_t workspace_bytes(const InplaceProblem& t) {
  const Sizes z = sizes_of(t);
  return z.bits + z.flags + z.aside;
}

std::string describe(const InplaceProblem& t) {
  const Sizes z = sizes_of(t);
  const auto n = [](int64_t v) { return std::to_string(v); };
  std::string text = "narrow: " + std::string(z.inverse ? "the view " + n(z.s.m) + " x " + n(z.s.k) + "'s transposition undone: " : "");
  if (z.s.q == 1 && z.s.r == 0) return text + "each matrix turned whole in shared memory; no workspace";
  text += "blocks of " + n(z.s.b) + " rows of " + n(z.s.k) + " turned, " + n(z.s.q * z.s.k) + " pieces of " + n(z.s.b) +
          " elements moved along their cycles";
  if (z.tickets > 0) text += ", rows spread apart by " + n(z.s.r) + " elements a row (chunks of 16 KiB)";
  if (z.s.r > 0) text += ", the last " + n(z.s.r) + " rows through the workspace";
  return text + (z.inverse ? ", each pass undone, in reverse order" : "") + "; workspace " + n(workspace_bytes(t)) +
         " bytes";
}

cudaError_t transpose(const InplaceProblem& t, void* workspace, int sm_count, cudaStream_t stream) {
  const Sizes z = sizes_of(t);
  const layout::NarrowShape& s = z.s;
  auto* const ws = static_cast<unsigned char*>(workspace);
  uint32_t* const bits = reinterpret_cast<uint32_t*>(ws);
  uint32_t* const flags = reinterpret_cast<uint32_t*>(ws + z.bits);
  const int64_t matrix_bytes = s.m * s.k * t.elem_bytes;
  return with_elem_bytes(t.elem_bytes, [&](auto e) -> cudaError_t {
    constexpr int E = decltype(e)::value;
    InplaceElem<E>* const data = static_cast<InplaceElem<E>*>(t.data);
    InplaceElem<E>* const aside = reinterpret_cast<InplaceElem<E>*>(ws + z.bits + z.flags);
    const auto rest = [&](bool scatter, bool to_aside) -> cudaError_t {
      const int64_t count = s.r * s.k * t.batch;
      if (count == 0) return cudaSuccess;
      const unsigned grid = unsigned(std::min<int64_t>((count + kThreads - 1) / kThreads, int64_t(sm_count) * 8));
      if (scatter)
        narrow_aside<E, true><<<grid, kThreads, 0, stream>>>(data, aside, s, count, to_aside);
      else
        narrow_aside<E, false><<<grid, kThreads, 0, stream>>>(data, aside, s, count, to_aside);
      return cudaGetLastError();
    };
    const auto turn = [&](int64_t R, int64_t C) -> cudaError_t {
      if (s.q == 0) return cudaSuccess;
      const size_t smem_rows = size_t(R * C * E) + 16;  // and the frame's word more
      const bool gather = R * E % 16 == 0,
                 by_rows = s.k >= layout::narrow_turn_rows_from && (gather || C * E % 16 == 0);
      const auto rows_kernel = gather ? narrow_turn_rows<E, true> : narrow_turn_rows<E, false>;
      const uint32_t warp_rows = uint32_t(layout::narrow_turn_warp_rows(s.k, E));
      int pitch = int(R);  // ld: pitch E / 4 odd for 4 bytes and less, pitch odd for 8
      while (E <= 4 ? (pitch * E % 4 != 0 || pitch * E / 4 % 2 == 0) : pitch % 2 == 0) ++pitch;
      const size_t smem = by_rows ? smem_rows : size_t(C) * pitch * E;
      if (smem > (48 << 10)) {
        const cudaError_t err =
            by_rows ? cudaFuncSetAttribute(rows_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem))
                    : cudaFuncSetAttribute(narrow_turn<E>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
        if (err != cudaSuccess) return err;
      }
      for (int64_t z0 = 0; z0 < t.batch; z0 += layout::max_grid_yz) {
        const dim3 grid(unsigned(s.q), unsigned(std::min<int64_t>(layout::max_grid_yz, t.batch - z0)));
        if (by_rows)
          rows_kernel<<<grid, kRowThreads, smem, stream>>>(data, s.m * s.k, uint32_t(R), uint32_t(C), warp_rows, z0);
        else
          narrow_turn<E><<<grid, kThreads, smem, stream>>>(data, s.m * s.k, layout::FastDivmod(uint32_t(C)),
                                                           layout::FastDivmod(uint32_t(R)), pitch, z0);
        if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
      }
      return cudaSuccess;
    };
    const auto pieces = [&]() -> cudaError_t {
      if (s.q <= 1) return cudaSuccess;  // a 1 x k transposition moves nothing
      const int64_t piece_bytes = s.b * E;
      const int word = chains::widest_word(  // the matrices' bytes apart only where there are several
          {piece_bytes, t.batch > 1 ? matrix_bytes : piece_bytes, int64_t(reinterpret_cast<uintptr_t>(t.data))});
      const layout::UnitWalk walk(layout::narrow_pieces(s, z.inverse), 1);
      // Matrices (or data) off 4 bytes: framed 16-byte words. H200, same call against 1- and
      // 2-byte words: fp16 1915 x 17663 x 7 10.6 -> 12.8% of a copy, u8 1073 x 29339 x 5 8.6 ->
      // 12.9, u8 2001 x 45013 x 3 9.1 -> 12.5; against 4- and 8-byte words a point slower (fp32 203
      // x 100003 x 3 22.8 -> 21.8, fp64 101 x 30011 x 3 23.3 -> 22.3).
      if (word <= 2 && piece_bytes % 16 == 0) {
        const uintptr_t lead = reinterpret_cast<uintptr_t>(t.data) % 16;
        const auto launch = chains::plan_framed_launch(chains::UnitPieces{walk, piece_bytes, matrix_bytes}, piece_bytes,
                                                       uint32_t(lead), matrix_bytes * t.batch, s.q * s.k, s.q * s.k * t.batch);
        return chains::move<16, chains::UnitPieces, true>(launch, static_cast<unsigned char*>(t.data) - lead, bits, sm_count,
                                                         stream);
      }
      const chains::UnitPieces map{walk, piece_bytes / word, matrix_bytes / word};
      const auto launch = chains::plan_launch(map, piece_bytes, word, s.q * s.k, s.q * s.k * t.batch);
      return with_elem_bytes(word, [&](auto w) {
        return chains::move<decltype(w)::value>(launch, t.data, bits, sm_count, stream);
      });
    };
    const auto spread = [&]() -> cudaError_t {
      if (z.tickets == 0) return cudaSuccess;
      if (cudaError_t err = cudaMemsetAsync(flags, 0, z.flags, stream); err != cudaSuccess) return err;
      const unsigned grid = unsigned(std::min<int64_t>(z.tickets, int64_t(sm_count) * kSpreadBlocksPerSm));
      unsigned char* const base = static_cast<unsigned char*>(t.data);
      narrow_spread<<<grid, kThreads, 0, stream>>>(base, flags, z.spread, int(E), matrix_bytes, z.tickets, base,
                                                   base + matrix_bytes * t.batch);
      return cudaGetLastError();
    };
    cudaError_t err = cudaSuccess;
    const auto then = [&](auto&& pass) {
      if (err == cudaSuccess) err = pass();
    };
    if (!z.inverse) {
      then([&] { return rest(false, true); });
      then([&] { return turn(s.b, s.k); });
      then(pieces);
      then(spread);
      then([&] { return rest(true, false); });
    } else {
      then([&] { return rest(true, true); });
      then(spread);
      then(pieces);
      then([&] { return turn(s.k, s.b); });
      then([&] { return rest(false, false); });
    }
    return err;
  });
}

}  // namespace

const InplacePath path = {"narrow", takes, refusal, workspace_bytes, describe, transpose};

}  // namespace xpose::engines::narrow
