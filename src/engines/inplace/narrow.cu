// In-place transposition of narrow rectangles: the passes of layout::NarrowShape on the view of
// m rows of k (the matrix itself if tall; for a wide one, the view's transposition undone, each
// pass inverted, in reverse order), each reading and writing the matrix once, coalesced:
//   aside:  the last r rows (m = q b + r; b: 512 bytes of elements, at most m / 8) copied to
//           the workspace;
//   turn:   each block of b x k elements (16 KiB at most, contiguous; a matrix of 32 KiB or
//           less is one block, and the only pass) turned to k x b through shared memory;
//   pieces: the q x k pieces of b elements transposed, moved along their cycles by the chains
//           of chains.cuh (a bit a piece);
//   spread: rows 1 .. k - 1 of the k x q b result moved to their places c m, right by c r, in
//           chunks of 16 KiB taken in ticket order (layout::NarrowSpread): a block reads its
//           chunk into shared memory, says so, waits until every chunk its destination
//           overlaps has read its own (earlier tickets, on blocks already running), then
//           writes it;
//   aside:  the last r rows written to column q b of each row.
#include "engines/inplace/narrow.hpp"

#include <algorithm>

#include "engines/inplace/c2r.hpp"
#include "engines/inplace/chains.cuh"
#include "layout/grid.hpp"

namespace xpose::engines::narrow {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kChunkBytes = 16 << 10;  // a spread chunk
constexpr int kSpreadBlocksPerSm = 8;

size_t round256(int64_t x) { return size_t((x + 255) / 256 * 256); }

struct Sizes {
  layout::NarrowShape s;
  bool inverse = false;
  int word = 1;                 // the spread's word: divides r E, q b E, m k E and the base
  layout::NarrowSpread spread;  // in words
  int64_t tickets = 0;          // the spread's chunks, all matrices
  size_t bits = 0, flags = 0, aside = 0;  // workspace parts
};

Sizes sizes_of(const InplaceProblem& t) {
  Sizes z;
  z.inverse = t.rows < t.cols;
  z.s = layout::narrow_shape(t.rows, t.cols, t.elem_bytes);
  const int64_t E = t.elem_bytes, q = z.s.q, r = z.s.r, k = z.s.k;
  z.word = chains::widest_word({r * E, q * z.s.b * E, z.s.m * k * E, int64_t(reinterpret_cast<uintptr_t>(t.data))});
  if (q > 0 && r > 0) {
    layout::NarrowShape w = z.s;  // the spread in words
    w.m = z.s.m * E / z.word, w.b = z.s.b * E / z.word, w.r = r * E / z.word;
    z.spread = layout::narrow_spread(w, z.inverse, kChunkBytes / z.word);
    z.tickets = z.spread.per_matrix() * t.batch;
  }
  z.bits = q > 1 ? round256((q * k * t.batch + 31) / 32 * 4) : 0;
  z.flags = z.tickets > 0 ? round256((z.tickets + 1) * 4) : 0;
  z.aside = size_t(r * k * E * t.batch);
  return z;
}

// Each block of R x C elements (matrix blockIdx.y + z0, block blockIdx.x) becomes C x R,
// through shared memory in C rows of `pitch` (ld E / 4 odd: a warp's column reads meet no bank
// twice, for 4 bytes and less).
template <int E>
__global__ void __launch_bounds__(kThreads) narrow_turn(Elem<E>* data, int64_t matrix, layout::FastDivmod by_c,
                                                        layout::FastDivmod by_r, int pitch, int64_t z0) {
  extern __shared__ uint4 turn_words[];
  Elem<E>* const tile = reinterpret_cast<Elem<E>*>(turn_words);
  const uint32_t R = by_r.divisor, C = by_c.divisor, count = R * C;
  Elem<E>* const base = data + (z0 + blockIdx.y) * matrix + int64_t(blockIdx.x) * count;
  constexpr int kBatch = 8;
  for (uint32_t first = threadIdx.x; first < count; first += kBatch * kThreads) {
    Elem<E> v[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u)
      if (first + u * kThreads < count) v[u] = base[first + u * kThreads];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const uint32_t idx = first + u * kThreads;
      if (idx < count) {
        uint32_t y;
        const uint32_t x = by_c.divmod(idx, &y);
        tile[y * pitch + x] = v[u];
      }
    }
  }
  __syncthreads();
  for (uint32_t o = threadIdx.x; o < count; o += kThreads) {
    uint32_t x;
    const uint32_t y = by_r.divmod(o, &x);
    base[o] = tile[y * pitch + x];
  }
}

// The last r rows of each matrix and the workspace (to_aside: into it; else out of it): as they
// are, r rows of k after the q b whole ones (!Scatter), or element (x, c) at c m + q b + x, the
// place of column c's last r elements in the k x m result (Scatter).
template <int E, bool Scatter>
__global__ void __launch_bounds__(kThreads) narrow_aside(Elem<E>* data, Elem<E>* aside, layout::NarrowShape s,
                                                         int64_t count, bool to_aside) {
  const int64_t per = s.r * s.k, whole = s.q * s.b;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < count; i += int64_t(gridDim.x) * kThreads) {
    const int64_t z = i / per, e = i - z * per;
    Elem<E>* const m = data + z * s.m * s.k;
    Elem<E>* const a = aside + z * per;
    if constexpr (Scatter) {  // e = c r + x: along the matrix's row c
      const int64_t c = e / s.r, x = e - c * s.r;
      Elem<E>& at = m[c * s.m + whole + x];
      if (to_aside)
        a[x * s.k + c] = at;
      else
        at = a[x * s.k + c];
    } else {
      Elem<E>& at = m[whole * s.k + e];
      if (to_aside)
        a[e] = at;
      else
        at = a[e];
    }
  }
}

// The spread: blocks take chunks in ticket order (flags[tickets] counts the tickets out).
template <int V>
__global__ void __launch_bounds__(kThreads) narrow_spread(Elem<V>* data, uint32_t* flags, layout::NarrowSpread d,
                                                          int64_t matrix_words, int64_t tickets) {
  constexpr int kWords = int(kChunkBytes / V);
  __shared__ Elem<V> held[kWords];
  __shared__ int64_t taken;
  for (;;) {
    if (threadIdx.x == 0) taken = atomicAdd(flags + tickets, 1u);
    __syncthreads();
    const int64_t t = taken;
    if (t >= tickets) return;
    const layout::NarrowSpread::Chunk c = d.at(t);
    Elem<V>* const m = data + c.matrix * matrix_words;
    const int count = int(c.count);
    constexpr int kBatch = 64 / V < 8 ? 64 / V : 8;  // 64 bytes a thread in flight
    for (int first = threadIdx.x; first < count; first += kBatch * kThreads) {
      Elem<V> v[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (first + u * kThreads < count) v[u] = __ldcg(m + c.src + first + u * kThreads);
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (first + u * kThreads < count) held[first + u * kThreads] = v[u];
    }
    __syncthreads();  // every element of the chunk read (in shared memory)
    if (threadIdx.x == 0) {
      __threadfence();
      atomicExch(flags + t, 1u);
      for (int64_t x = c.dst, first, end; x < c.dst + c.count; x = end) {
        const int64_t u = d.next_read(c.matrix, x, &first, &end);
        if (u < 0 || first >= c.dst + c.count) break;
        while (*reinterpret_cast<volatile uint32_t*>(flags + u) == 0) {
        }
      }
      __threadfence();
    }
    __syncthreads();  // every chunk the destination overlaps has read its elements
    for (int i = threadIdx.x; i < count; i += kThreads) __stcg(m + c.dst + i, held[i]);
    __syncthreads();  // held and taken free for the next chunk
  }
}

}  // namespace

bool takes(const InplaceProblem& t) {
  return c2r::takes(t) && std::min(t.rows, t.cols) <= layout::narrow_max_side;
}

const char* refusal(const InplaceProblem& t) {
  const Sizes z = sizes_of(t);
  if (z.s.q * z.s.k * t.batch >= (int64_t(1) << 32) || z.tickets >= (int64_t(1) << 32) - 1 ||
      z.s.q >= (int64_t(1) << 31))
    return "narrow rectangles (a side of 32 elements or fewer) are transposed in place on the GPU in batches of fewer "
           "than 2^32 pieces of 512 bytes";
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
  return with_elem_bytes_up_to_8(t.elem_bytes, cudaErrorInvalidValue, [&](auto e) -> cudaError_t {
    constexpr int E = decltype(e)::value;
    Elem<E>* const data = static_cast<Elem<E>*>(t.data);
    Elem<E>* const aside = reinterpret_cast<Elem<E>*>(ws + z.bits + z.flags);
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
      int pitch = int(R);  // ld: pitch E / 4 odd for 4 bytes and less, pitch odd for 8
      while (E <= 4 ? (pitch * E % 4 != 0 || pitch * E / 4 % 2 == 0) : pitch % 2 == 0) ++pitch;
      const size_t smem = size_t(C) * pitch * E;
      if (smem > (48 << 10))
        if (cudaError_t err = cudaFuncSetAttribute(narrow_turn<E>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
            err != cudaSuccess)
          return err;
      for (int64_t z0 = 0; z0 < t.batch; z0 += layout::max_grid_yz) {
        const dim3 grid(unsigned(s.q), unsigned(std::min<int64_t>(layout::max_grid_yz, t.batch - z0)));
        narrow_turn<E><<<grid, kThreads, smem, stream>>>(data, s.m * s.k, layout::FastDivmod(uint32_t(C)),
                                                         layout::FastDivmod(uint32_t(R)), pitch, z0);
        if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) return err;
      }
      return cudaSuccess;
    };
    const auto pieces = [&]() -> cudaError_t {
      if (s.q <= 1) return cudaSuccess;  // a 1 x k transposition moves nothing
      const int64_t piece_bytes = s.b * E;
      const int word = chains::widest_word({piece_bytes, s.m * s.k * E, int64_t(reinterpret_cast<uintptr_t>(t.data))});
      const int64_t vecs = piece_bytes / word;
      const chains::UnitPieces map{layout::UnitWalk(layout::narrow_pieces(s, z.inverse), 1), vecs,
                                   s.m * s.k * E / word};
      const auto launch = chains::plan_launch(map, piece_bytes, word, s.q * s.k, s.q * s.k * t.batch);
      return with_elem_bytes(word, [&](auto w) {
        return chains::move<decltype(w)::value>(launch, t.data, bits, sm_count, stream);
      });
    };
    const auto spread = [&]() -> cudaError_t {
      if (z.tickets == 0) return cudaSuccess;
      if (cudaError_t err = cudaMemsetAsync(flags, 0, z.flags, stream); err != cudaSuccess) return err;
      const unsigned grid = unsigned(std::min<int64_t>(z.tickets, int64_t(sm_count) * kSpreadBlocksPerSm));
      return with_elem_bytes(z.word, [&](auto w) -> cudaError_t {
        constexpr int V = decltype(w)::value;
        narrow_spread<V><<<grid, kThreads, 0, stream>>>(static_cast<Elem<V>*>(t.data), flags, z.spread,
                                                        s.m * s.k * E / V, z.tickets);
        return cudaGetLastError();
      });
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

}  // namespace xpose::engines::narrow
