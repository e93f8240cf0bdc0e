// permute_packed: tiles of several axes on each side through shared memory, for permutations
// whose fastest axis is short on either side (layout::NdPacked): src rows as aligned 16-byte
// chunks where they are contiguous (permute_packed_chunks; byte tiles whose dst lines lie in
// src's rows stored as 4-byte words: permute_packed_lines), else element by element.
#include <algorithm>
#include <string>

#include "engines/async_copy.cuh"
#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/nd_packed.hpp"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdPacked;

// Waits until at most `pending` of the thread's groups are in flight (the same for the whole
// block: a uniform branch).
__device__ __forceinline__ void wait_async_up_to(uint32_t pending) {
  static_assert(layout::nd_packed_max_stages == 8, "a case for every stage count");
  switch (pending) {
    case 0: wait_async<0>(); break;
    case 1: wait_async<1>(); break;
    case 2: wait_async<2>(); break;
    case 3: wait_async<3>(); break;
    case 4: wait_async<4>(); break;
    case 5: wait_async<5>(); break;
    default: wait_async<6>(); break;
  }
}

// The 4-byte word of the bytes staged at `at`, `step` bytes apart.
__device__ __forceinline__ uint32_t gather_word(const unsigned char* at, uint32_t step) {
  const uint32_t b0 = at[0], b1 = at[step], b2 = at[2 * step], b3 = at[3 * step];
  return __byte_perm(__byte_perm(b0, b1, 0x0040), __byte_perm(b2, b3, 0x0040), 0x5410);
}

// The block builds the four offset tables of its tile's rows and rests in shared memory, and
// each thread reads its elements' src and dst offsets and staged places from them once; then
// it moves every gridDim.x-th tile, staged in shared memory and stored in dst's order. The
// tables and the staged tiles share the dynamic shared memory; after them a ring of two
// batches of nd_packed_ring tile origins, which the first warp works out a lane a tile a
// batch ahead (each tile's divisions and 64-bit sums, done by every warp, took about half of
// the kernel's instructions: Nsight Compute source counters, H200, u8 2x18x383x2757 (2,3,1,0));
// every thread reads a tile's origin from it.
// Element by element (Chunks false): a thread's loads of the next tile are in flight in its
// registers while it stores this one. By chunks: each src row of a tile is copied as the
// aligned 16-byte chunks around it into one of t.stages stages, t.stages - 1 tiles ahead, and
// each thread stores its elements, or (Lines: NdPacked::lines) its words of the tile's lines:
// its interior words whole, its edge words a byte at a time.
template <int E, bool Chunks, bool Lines = false>
__device__ __forceinline__ void move_packed(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm& f,
                                            const NdPacked& t) {
  constexpr int threads = layout::nd_packed_threads, per_thread = layout::NdPackedOf<E, Chunks>::per_thread;
  constexpr int slots = layout::nd_packed_chunk_slots;
  constexpr uint32_t ring_size = layout::nd_packed_ring;
  extern __shared__ __align__(16) unsigned char smem[];
  int2* const store_row = reinterpret_cast<int2*>(smem);  // (dst, staged); 8-byte entries first
  int2* const store_rest = store_row + t.store_row;
  int32_t* const load_row = reinterpret_cast<int32_t*>(store_rest + t.store_rest);
  int32_t* const load_rest = load_row + t.load_row;
  longlong2* const ring = reinterpret_cast<longlong2*>(smem + t.ring_at);  // (src, dst) origins
  const uint32_t tiles = layout::nd_packed_block_tiles(t.items, gridDim.x, blockIdx.x);
  // The first warp writes the origins of the block's tiles batch * ring_size + lane into half
  // batch % 2 of the ring.
  const auto fill = [&](uint32_t batch) {
    const uint32_t j = batch * ring_size + threadIdx.x;
    if (threadIdx.x < ring_size && j < tiles) {
      int64_t s, d;
      layout::nd_packed_origin(f, t, blockIdx.x + j * gridDim.x, &s, &d);
      ring[(batch & 1) * ring_size + threadIdx.x] = make_longlong2(s, d);
    }
  };
  const auto origin = [&](uint32_t j) { return ring[(j / ring_size & 1) * ring_size + j % ring_size]; };
  fill(0);
  for (uint32_t n = threadIdx.x; n < t.load_row; n += threads) load_row[n] = t.load_row_at(n).src;
  for (uint32_t n = threadIdx.x; n < t.load_rest; n += threads) load_rest[n] = t.load_rest_at(n).src;
  for (uint32_t n = threadIdx.x; n < t.store_row; n += threads) {
    const auto o = t.store_row_at(n);
    store_row[n] = make_int2(o.dst, int32_t(o.staged));
  }
  for (uint32_t n = threadIdx.x; n < t.store_rest; n += threads) {
    const auto o = t.store_rest_at(n);
    store_rest[n] = make_int2(o.dst, int32_t(o.staged));
  }
  __syncthreads();
  // Element by element: load place in the low half of staged[r], store place in the high.
  // By chunks: the store place as NdPacked::chunks keeps it; and the thread's chunks: its
  // row's src offset in bytes, and its place in a stage with its index in the row (<< 16).
  int32_t from[per_thread], to[per_thread];
  uint32_t staged[per_thread];
  int32_t chunk_from[slots];
  uint32_t chunk_at[slots];
  int live = 0, live_chunks = 0;  // the thread's elements in a tile; its chunks
  static_assert(!Lines || E == 1, "words of bytes");
  constexpr int word_rounds = Lines ? layout::nd_packed_word_rounds : 1;
  constexpr int edge_rounds = Lines ? layout::nd_packed_edge_rounds : 1;
  layout::NdPacked::Word inner[word_rounds], edge[edge_rounds];  // Lines: the thread's words
  int live_inner = 0, live_edge = 0;
  if constexpr (Lines) {
#pragma unroll
    for (int r = 0; r < word_rounds; ++r) {
      const uint32_t n = threadIdx.x + r * threads;
      if (n < t.line_count * t.inner_words) {
        inner[r] = t.word(n, false);
        live_inner = r + 1;
      }
    }
#pragma unroll
    for (int r = 0; r < edge_rounds; ++r) {
      const uint32_t n = threadIdx.x + r * threads;
      if (n < t.line_count * t.edge_words) {
        edge[r] = t.word(n, true);
        live_edge = r + 1;
      }
    }
  }
#pragma unroll
  for (int r = 0; r < per_thread; ++r) {
    const uint32_t l = threadIdx.x + r * threads;
    if (!Lines && l < t.volume) {
      uint32_t i, j;
      const uint32_t k = t.load_div.divmod(l, &i), m = t.store_div.divmod(l, &j);
      const int2 row = store_row[j], rest = store_rest[m];
      to[r] = row.x + rest.x;
      if constexpr (Chunks) {
        to[r] *= E;  // bytes (nd_packed_chunks keeps a tile's dst bytes within 32 bits)
        staged[r] = uint32_t(row.y) + uint32_t(rest.y);
      } else {
        from[r] = load_row[i] + load_rest[k];
        staged[r] = (i + t.ld * k) | uint32_t(row.y + rest.y) << 16;
      }
      live = r + 1;
    }
  }
  if constexpr (Chunks) {
#pragma unroll
    for (int r = 0; r < slots; ++r) {
      const uint32_t q = threadIdx.x + r * threads;
      if (q < t.load_rest * t.seg_chunks) {
        uint32_t c;
        const uint32_t k = t.by_seg_chunks.divmod(q, &c);
        chunk_from[r] = load_rest[k] * E;
        chunk_at[r] = (k * t.seg_pitch + 16 * c) | c << 16;
        live_chunks = r + 1;
      }
    }
  }
  __syncthreads();  // the tables are the tiles' memory from here
  if constexpr (Chunks) {
    const unsigned char* const low = reinterpret_cast<const unsigned char*>(src);
    const unsigned char* const high = low + t.src_bytes;
    const uint32_t row_bytes = t.load_row * E, stages = t.stages;
    // Copies tile j's rows into stage j % stages: chunk c of a row whose first element lies at
    // `at` is the aligned 16 bytes c * 16 past `at` rounded down; a chunk that reaches past src's
    // span is copied byte by byte, its bytes inside it.
    const auto issue = [&](uint32_t j, unsigned char* stage) {
      const unsigned char* const base = low + origin(j).x * E;
#pragma unroll
      for (int r = 0; r < slots; ++r) {
        if (r >= live_chunks) break;
        const unsigned char* const at = base + chunk_from[r];
        const uint32_t shift = uint32_t(reinterpret_cast<uintptr_t>(at)) & 15, c = chunk_at[r] >> 16;
        if (16 * c >= shift + row_bytes) continue;  // past the row's last chunk
        const unsigned char* const chunk = at - shift + 16 * c;
        unsigned char* const to_place = stage + (chunk_at[r] & 0xffff);
        if (chunk >= low && chunk + 16 <= high) {
          copy_async<16>(to_place, chunk);
        } else {
          for (int b = 0; b < 16; ++b)
            if (chunk + b >= low && chunk + b < high) to_place[b] = chunk[b];
        }
      }
    };
    unsigned char* const last_stage = smem + (stages - 1) * t.stage_bytes;
    unsigned char* stage = smem;  // tile j's
    for (uint32_t p = 0; p + 1 < stages; ++p) {
      if (p < tiles) issue(p, smem + p * t.stage_bytes);
      commit_async();
    }
    for (uint32_t j = 0;; ++j) {
      wait_async_up_to(stages - 2);  // tile j's chunks, of this thread
      __syncthreads();          // of every thread; and every store of tile j - 1 has read its stage
      // The batch after the next into the half the last batch's tiles have left (see below).
      if (j % ring_size == 0) fill(j / ring_size + 1);
      // Tile j + stages - 1 into tile j - 1's stage, the one before tile j's.
      if (j + stages - 1 < tiles) issue(j + stages - 1, stage == smem ? last_stage : stage - t.stage_bytes);
      commit_async();
      const longlong2 o = origin(j);
      const uint32_t shift = (t.src_low + uint32_t(o.x) * E) & 15;  // the tile origin's
      unsigned char* const d = reinterpret_cast<unsigned char*>(dst + o.y);
      if constexpr (Lines) {
        const uint32_t d_low = uint32_t(reinterpret_cast<uintptr_t>(d));
        uint32_t words[word_rounds];  // every shared load out before the first store
        int32_t at[word_rounds];
#pragma unroll
        for (int r = 0; r < word_rounds; ++r) {
          if (r < live_inner) {
            const layout::NdPacked::PlacedWord w = t.place(inner[r], d_low, shift);
            words[r] = gather_word(stage + w.place, t.line_step);
            at[r] = w.to;
          }
        }
#pragma unroll
        for (int r = 0; r < word_rounds; ++r)
          if (r < live_inner) *reinterpret_cast<uint32_t*>(d + at[r]) = words[r];
#pragma unroll
        for (int r = 0; r < edge_rounds; ++r) {
          if (r < live_edge) {
            const layout::NdPacked::PlacedWord w = t.place(edge[r], d_low, shift);
            const int32_t first = edge[r].first - int32_t(w.lead);  // the line's byte of q = 0
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (first + q >= 0 && first + q < int32_t(t.line_elems))
                d[w.to + q] = stage[w.place + q * t.line_step];  // the place modulo 2^32
          }
        }
      } else {
        Elem<E> v[per_thread];  // every shared load out before the first store
#pragma unroll
        for (int r = 0; r < per_thread; ++r) {
          const uint32_t place = (staged[r] & 0xfffff) + ((shift + (staged[r] >> 20)) & 15);
          if (r < live) v[r] = *reinterpret_cast<const Elem<E>*>(stage + place);
        }
#pragma unroll
        for (int r = 0; r < per_thread; ++r)
          if (r < live) *reinterpret_cast<Elem<E>*>(d + uint32_t(to[r])) = v[r];  // zero-extended: no register
      }
      if (j + 1 >= tiles) break;
      stage = stage == last_stage ? smem : stage + t.stage_bytes;
    }
    return;
  } else {
    Elem<E>* const tile = reinterpret_cast<Elem<E>*>(smem);
    Elem<E> v[per_thread];
    // Issues the loads of the block's tile j into v; its dst origin in *d.
    const auto load = [&](uint32_t j, Elem<E>** d) {
      const longlong2 o = origin(j);
      const Elem<E>* const s = src + o.x;
      *d = dst + o.y;
#pragma unroll
      for (int r = 0; r < per_thread; ++r)
        if (r < live) v[r] = s[from[r]];
    };
    Elem<E>* d;
    load(0, &d);
    for (uint32_t j = 0;; ++j) {
#pragma unroll
      for (int r = 0; r < per_thread; ++r)
        if (r < live) tile[staged[r] & 0xffff] = v[r];
      __syncthreads();
      // The batch after the next into the half the last batch's tiles have left: every thread
      // read their origins (a load runs a tile ahead, chunks at most 7) before this barrier,
      // and reads the new ones only after a later one.
      if (j % ring_size == 0) fill(j / ring_size + 1);
      // The next tile's loads go out before this one's stores: a block keeps its loads in
      // flight while it stores.
      const bool more = j + 1 < tiles;
      Elem<E>* d_next = nullptr;
      if (more) load(j + 1, &d_next);
#pragma unroll
      for (int r = 0; r < per_thread; ++r)
        if (r < live) d[to[r]] = tile[staged[r] >> 16];
      if (!more) break;
      __syncthreads();  // every store has read its place before the next tile is staged
      d = d_next;
    }
  }
}

template <int E>
__global__ void __launch_bounds__(layout::nd_packed_threads, layout::nd_packed_blocks_per_sm(false, E))
    permute_packed(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdPacked t) {
  move_packed<E, false>(src, dst, f, t);
}
template <int E>
__global__ void __launch_bounds__(layout::nd_packed_threads, layout::nd_packed_blocks_per_sm(true, E))
    permute_packed_chunks(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f,
                          const NdPacked t) {
  move_packed<E, true>(src, dst, f, t);
}
template <int E>
__global__ void __launch_bounds__(layout::nd_packed_threads, layout::nd_packed_blocks_per_sm(true, E, true))
    permute_packed_lines(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f,
                         const NdPacked t) {
  move_packed<E, true, true>(src, dst, f, t);
}

Support plan(Plan* p, const Device& device, const PlanOptions&) {
  const char* why = nullptr;
  NdPacked& t = p->make<NdPacked>();
  const int src_low = int(reinterpret_cast<uintptr_t>(p->task.src) % 16);
  if (!layout::nd_packed(&p->task.form, &t, &why, 0, src_low)) return detail::refused(why);
  p->block = {uint32_t(layout::nd_packed_threads), 1, 1};
  p->grid = {layout::nd_packed_grid(t, p->task.form.elem_bytes, device.sm_count), 1, 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    const NdPacked& t = p.params<NdPacked>();
    auto kernel = t.chunks ? permute_packed_chunks<E> : permute_packed<E>;
    if constexpr (E == 1)
      if (t.lines) kernel = permute_packed_lines<E>;
    kernel<<<to_dim3(p.grid), to_dim3(p.block), t.smem_bytes, stream>>>(
        static_cast<const Elem<E>*>(p.task.src), static_cast<Elem<E>*>(p.task.dst), p.task.form, t);
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) { return layout::text(p.params<NdPacked>()); }

}  // namespace

const Engine permute_packed = {
    "permute_packed",
    "tiles of several axes on each side through shared memory, for short fastest axes: src rows "
    "as aligned 16-byte chunks several tiles ahead where contiguous (bytes stored as 4-byte "
    "words where dst's lines lie in them), else element by element",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text};

}  // namespace xpose::engines
