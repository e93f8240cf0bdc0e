// permute_packed: tiles of several axes on each side through shared memory, element by
// element, for permutations whose fastest axis is short on either side (layout::NdPacked).
#include <algorithm>
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "layout/nd_packed.hpp"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdPacked;

// The block builds the four offset tables of its tile's rows and rests in shared memory, and
// each thread reads its elements' src and dst offsets and staged places from them once; then
// it moves every gridDim.x-th tile: all its loads in flight, staged, a barrier, stored in
// dst's order. The tables and the staged tile share the dynamic shared memory; after them a
// ring of two batches of nd_packed_ring tile origins, which the first warp works out a lane a
// tile a batch ahead (each tile's divisions and 64-bit sums, done by every warp, took about
// half of the kernel's instructions: Nsight Compute source counters, H200, u8 2x18x383x2757
// (2,3,1,0)); every thread reads a tile's origin from it.
template <int E>
__global__ void __launch_bounds__(layout::nd_packed_threads, layout::nd_packed_min_blocks)
    permute_packed(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdPacked t) {
  constexpr int threads = layout::nd_packed_threads, per_thread = layout::NdPackedOf<E>::per_thread;
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
  fill(0);
  for (uint32_t n = threadIdx.x; n < t.load_row; n += threads) load_row[n] = t.load_row_at(n).src;
  for (uint32_t n = threadIdx.x; n < t.load_rest; n += threads) load_rest[n] = t.load_rest_at(n).src;
  for (uint32_t n = threadIdx.x; n < t.store_row; n += threads) {
    const auto o = t.store_row_at(n);
    store_row[n] = make_int2(o.dst, o.staged);
  }
  for (uint32_t n = threadIdx.x; n < t.store_rest; n += threads) {
    const auto o = t.store_rest_at(n);
    store_rest[n] = make_int2(o.dst, o.staged);
  }
  __syncthreads();
  int32_t from[per_thread], to[per_thread];
  uint32_t staged[per_thread];  // the load's place in the low half, the store's in the high
  int live = 0;                 // the thread's elements in the tile
#pragma unroll
  for (int r = 0; r < per_thread; ++r) {
    const uint32_t l = threadIdx.x + r * threads;
    if (l < t.volume) {
      uint32_t i, j;
      const uint32_t k = t.load_div.divmod(l, &i), m = t.store_div.divmod(l, &j);
      const int2 row = store_row[j], rest = store_rest[m];
      from[r] = load_row[i] + load_rest[k];
      to[r] = row.x + rest.x;
      staged[r] = (i + t.ld * k) | uint32_t(row.y + rest.y) << 16;
      live = r + 1;
    }
  }
  __syncthreads();  // the tables are the tile's memory from here
  Elem<E>* const tile = reinterpret_cast<Elem<E>*>(smem);
  Elem<E> v[per_thread];
  // Issues the loads of the block's tile j into v; its dst origin in *d.
  const auto load = [&](uint32_t j, Elem<E>** d) {
    const longlong2 o = ring[(j / ring_size & 1) * ring_size + j % ring_size];
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
    // read their origins (a load runs a tile ahead) before this barrier, and reads the new
    // ones only after a later one.
    if (j % ring_size == 0) fill(j / ring_size + 1);
    // The next tile's loads go out before this one's stores: a block keeps its loads in flight
    // while it stores.
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

Support plan(Plan* p, const Device& device, const PlanOptions&) {
  const char* why = nullptr;
  NdPacked& t = p->make<NdPacked>();
  if (!layout::nd_packed(&p->task.form, &t, &why)) return detail::refused(why);
  p->block = {uint32_t(layout::nd_packed_threads), 1, 1};
  p->grid = {layout::nd_packed_grid(t.items, device.sm_count), 1, 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    const NdPacked& t = p.params<NdPacked>();
    permute_packed<E><<<to_dim3(p.grid), to_dim3(p.block), t.smem_bytes, stream>>>(
        static_cast<const Elem<E>*>(p.task.src), static_cast<Elem<E>*>(p.task.dst), p.task.form, t);
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) { return layout::text(p.params<NdPacked>()) + ", element by element"; }

}  // namespace

const Engine permute_packed = {
    "permute_packed",
    "tiles of several axes on each side through shared memory, element by element, for short "
    "fastest axes",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text};

}  // namespace xpose::engines
