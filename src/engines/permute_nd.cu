#include "engines/permute_nd.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

#include "engines/common.cuh"
#include "engines/vector.cuh"

namespace xpose::detail {
namespace {

using engines::Elem;
using engines::Vector;
using layout::nd_block_rows;
using layout::nd_tile;
using layout::NdForm;
using layout::NdRowsChunk;
using layout::NdVecRegs;
using layout::NdVecTiles;

// A tile of (outer index, b) rows by a columns, several swizzled slabs (NdVecTiles), per
// loop step: every src row piece loaded as a 16-byte vector before the first shared-memory
// store, then each dst row piece gathered from its slab and stored as one vector. Where each
// tile row starts in src and dst (-1: outside the problem) and where each tile column's dst
// row starts are found once, a thread each, into shared memory, so that a vector's address
// is a table lookup and an add.
template <int E>
__global__ void __launch_bounds__(layout::NdVecTile<E>::threads, layout::NdVecTile<E>::min_blocks)
    permute_vec_tiled(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdVecTiles t) {
  using V = layout::VecTile<E>;
  using Slab = typename V::Layout;
  using N = layout::NdVecTile<E>;
  constexpr int slabs = N::slabs, most = slabs * V::tile;  // rows or columns at most
  __shared__ Elem<E> smem[slabs * Slab::size];
  __shared__ int64_t row_src[most], row_dst[most], col_dst[most];
  const int64_t a0 = int64_t(blockIdx.x % t.tiles_a) * t.cols();
  const int64_t b0 = int64_t(blockIdx.x / t.tiles_a) << t.sub_shift;
  const int cols = int(min(int64_t(t.cols()), f.extent_a - a0));
  for (int c = threadIdx.x; c < t.cols(); c += N::threads) col_dst[c] = (a0 + c) * f.dst_a;
  for (uint32_t group = blockIdx.y; group < t.groups; group += gridDim.y) {
    const uint32_t first = group * t.subs, live = min(t.subs, f.outer_count - first);
    for (int r = threadIdx.x; r < t.rows; r += N::threads) {
      const uint32_t sub = t.sub_of(r);
      const int64_t b = b0 + t.b_of(r);
      int64_t s = -1, d = -1;
      if (sub < live && b < f.extent_b) {
        f.outer_offsets(first + sub, &s, &d);
        s += b * f.src_b + a0;
        d += b;
      }
      row_src[r] = s;
      row_dst[r] = d;
    }
    __syncthreads();
    Vector<E> in[slabs][N::per_thread];
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i) {
        const auto e = V::load_coord(i * N::threads + threadIdx.x, 0);
        const int c = t.slab_col(j) + e.c;
        const int64_t from = row_src[t.slab_row(j) + e.r];
        in[j][i].bits = make_uint4(0, 0, 0, 0);
        if (from >= 0 && c < cols) in[j][i].bits = *reinterpret_cast<const uint4*>(src + from + c);
      }
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i)
#pragma unroll
        for (int k = 0; k < V::vec; ++k) {
          const auto e = V::load_coord(i * N::threads + threadIdx.x, k);
          smem[j * Slab::size + Slab::at(e.r, e.c)] = in[j][i].e[k];
        }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < slabs; ++j)
#pragma unroll
      for (int i = 0; i < N::per_thread; ++i) {
        const int v = i * N::threads + threadIdx.x;
        const auto e = V::store_coord(v, 0);
        const int c = t.slab_col(j) + e.c;
        const int64_t to = row_dst[t.slab_row(j) + e.r];
        if (to >= 0 && c < cols) {
          Vector<E> out;
#pragma unroll
          for (int k = 0; k < V::vec; ++k) {
            const auto g = V::store_coord(v, k);
            out.e[k] = smem[j * Slab::size + Slab::at(g.r, g.c)];
          }
          __stwb(reinterpret_cast<uint4*>(dst + to + col_dst[c]), engines::whole(out));
        }
      }
    __syncthreads();  // the tile and the row tables are the next step's
  }
}

// Blocks of V x V elements turned in registers (layout::NdVecRegs): each of a thread's units
// loads V vectors along a, one at each of V consecutive b, and stores V vectors along b,
// element k of store j being element j of load k. Every load of the thread's units is in
// flight before its first store; no shared memory, no barrier.
template <int E>
__global__ void __launch_bounds__(layout::nd_regs_threads)
    permute_vec_regs(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdVecRegs t) {
  constexpr int V = 16 / E, per_thread = layout::NdVecRegsOf<E>::per_thread, threads = layout::nd_regs_threads;
  const uint32_t first = blockIdx.x * uint32_t(threads * per_thread) + threadIdx.x;
  Vector<E> in[per_thread][V];
  int64_t to[per_thread];
  bool live[per_thread];
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    const uint32_t u = first + k * threads;
    const auto blk = t.block(u);
    live[k] = u < t.units && blk.live;
    if (live[k]) {
      int64_t s, d;
      f.outer_offsets(blk.outer, &s, &d);
      const int64_t a = int64_t(blk.ia) * V, b = int64_t(blk.ib) * V;
      const Elem<E>* from = src + s + b * f.src_b + a;
#pragma unroll
      for (int i = 0; i < V; ++i) in[k][i].bits = *reinterpret_cast<const uint4*>(from + i * f.src_b);
      to[k] = d + a * f.dst_a + b;
    }
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k)
    if (live[k])
#pragma unroll
      for (int j = 0; j < V; ++j) {
        Vector<E> out;
#pragma unroll
        for (int i = 0; i < V; ++i) out.e[i] = in[k][i].e[j];
        __stwb(reinterpret_cast<uint4*>(dst + to[k] + j * f.dst_a), engines::whole(out));
      }
}

// One 32x32 tile of (a, b) for each outer index the block visits: loads along a (src's
// fastest axis), stores along b (dst's), through a tile padded by one element.
template <int E>
__global__ void permute_tiled(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f) {
  __shared__ Elem<E> tile[nd_tile][nd_tile + 1];
  const int64_t a0 = int64_t(blockIdx.x % f.tiles_a) * nd_tile, b0 = int64_t(blockIdx.x / f.tiles_a) * nd_tile;
  const int x = threadIdx.x, y = threadIdx.y;
  for (uint64_t outer = blockIdx.y; outer < f.outer_count; outer += gridDim.y) {  // 64 bits: no wrap near 2^32
    int64_t s, d;
    f.outer_offsets(uint32_t(outer), &s, &d);
    for (int j = y; j < nd_tile; j += nd_block_rows)
      if (a0 + x < f.extent_a && b0 + j < f.extent_b) tile[j][x] = src[s + (a0 + x) * f.src_a + (b0 + j) * f.src_b];
    __syncthreads();
    for (int j = y; j < nd_tile; j += nd_block_rows)
      if (b0 + x < f.extent_b && a0 + j < f.extent_a) dst[d + (a0 + j) * f.dst_a + (b0 + x) * f.dst_b] = tile[x][j];
    __syncthreads();
  }
}

// Rows along a, the axis fastest on both sides: (outer index, position in the row) as one
// linear index, consecutive threads on consecutive elements, each thread nd_rows_per_thread
// of them with every load in flight before the first store.
template <int E>
__global__ void __launch_bounds__(layout::nd_rows_threads)
    permute_rows(const Elem<E>* __restrict__ src, Elem<E>* __restrict__ dst, const NdForm f, const NdRowsChunk c) {
  constexpr int threads = layout::nd_rows_threads, per_thread = layout::nd_rows_per_thread;
  const uint32_t count = uint32_t(c.count()), first = blockIdx.x * (threads * per_thread) + threadIdx.x;
  Elem<E> v[per_thread];
  int64_t to[per_thread];
#pragma unroll
  for (int k = 0; k < per_thread; ++k) {
    const uint32_t i = first + k * threads;
    if (i < count) {
      uint32_t pos;
      const uint32_t outer = c.length.divmod(i, &pos);
      int64_t s, d;
      f.outer_offsets(c.outer_base + outer, &s, &d);
      const int64_t a = c.a_base + pos;
      v[k] = src[s + a * f.src_a];
      to[k] = d + a * f.dst_a;
    }
  }
#pragma unroll
  for (int k = 0; k < per_thread; ++k)
    if (first + k * threads < count) dst[to[k]] = v[k];
}

const char* const rows_not_tiles =
    "its fastest axis is one on both sides: there are no tiles to turn (permute_rows serves that)";

// Whether `kernel` serves the plan's form; fills the plan's launch where it does.
bool fit(NdKernel kernel, NdPlan* p, const char** why) {
  NdForm& f = p->form;
  const int64_t outer = f.outer_count;
  if (kernel == NdKernel::vec_regs) {
    if (!layout::nd_vec_regs(f, reinterpret_cast<uintptr_t>(p->src), reinterpret_cast<uintptr_t>(p->dst), &p->regs,
                             why))
      return false;
    p->block = {uint32_t(layout::nd_regs_threads), 1, 1};
    p->grid = {uint32_t(p->regs.blocks()), 1, 1};
    return true;
  }
  if (kernel == NdKernel::vec_tiled) {
    if (!layout::nd_vec_tiles(f, reinterpret_cast<uintptr_t>(p->src), reinterpret_cast<uintptr_t>(p->dst), &p->vec,
                              why))
      return false;
    layout::order_outer_for_tiles(p->vec, &f);
    const int threads =
        layout::with_elem_bytes(f.elem_bytes, [](auto e) { return layout::NdVecTile<decltype(e)::value>::threads; });
    p->block = {uint32_t(threads), 1, 1};
    p->grid = {p->vec.tiles_a * p->vec.tiles_b, uint32_t(std::min<int64_t>(p->vec.groups, layout::max_grid_yz)), 1};
    return true;
  }
  if (kernel == NdKernel::aligned_stores) {
    if (!layout::nd_aligned_stores(&f, reinterpret_cast<uintptr_t>(p->src), &p->stores, why)) return false;
    const int threads = layout::with_aligned_dst_tile(f.elem_bytes, [](auto a) { return decltype(a)::threads; });
    p->block = {uint32_t(threads), 1, 1};
    p->grid = {p->stores.blocks(), p->stores.outer_y, p->stores.outer_z};
    return true;
  }
  if (kernel == NdKernel::tiled) {
    if (!f.tiled) *why = rows_not_tiles;
    p->block = {uint32_t(nd_tile), uint32_t(nd_block_rows), 1};
    p->grid = {f.tiles_a * f.tiles_b, uint32_t(std::min<int64_t>(outer, layout::max_grid_yz)), 1};
    return f.tiled;
  }
  if (f.tiled)
    *why = "permute_rows copies rows of an axis fastest on both sides; here src's fastest axis and dst's differ "
           "(permute_vec_tiled or permute_tiled serves that)";
  p->block = {uint32_t(layout::nd_rows_threads), 1, 1};
  return !f.tiled;
}

}  // namespace

bool nd_kernel_of(const char* name, NdKernel* out) {
  for (size_t i = 0; i < std::size(nd_kernel_names); ++i)
    if (std::strcmp(nd_kernel_names[i], name) == 0) {
      *out = NdKernel(i);
      return true;
    }
  return false;
}

bool is_nd_kernel(const char* name) {
  NdKernel unused;
  return nd_kernel_of(name, &unused);
}

bool plan_nd(NdKernel kernel, const layout::NdForm& form, const void* src, void* dst, NdPlan* out, const char** why) {
  NdPlan p;
  p.form = form;
  p.src = src;
  p.dst = dst;
  if (!fit(kernel, &p, why)) return false;
  p.kind = kernel;
  p.kernel = nd_kernel_names[int(kernel)];
  *out = p;
  return true;
}

cudaError_t launch_nd(const NdPlan& p, cudaStream_t stream) {
  const dim3 grid(p.grid.x, p.grid.y, p.grid.z), block(p.block.x, p.block.y, p.block.z);
  return engines::with_elem_bytes(p.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    using T = Elem<E>;
    const T* src = static_cast<const T*>(p.src);
    T* dst = static_cast<T*>(p.dst);
    if (p.kind == NdKernel::vec_regs) {
      permute_vec_regs<E><<<grid, block, 0, stream>>>(src, dst, p.form, p.regs);
    } else if (p.kind == NdKernel::vec_tiled) {
      permute_vec_tiled<E><<<grid, block, 0, stream>>>(src, dst, p.form, p.vec);
    } else if (p.kind == NdKernel::aligned_stores) {
      return engines::launch_permute_aligned_stores(src, dst, p.form, p.stores, stream);
    } else if (p.kind == NdKernel::tiled) {
      permute_tiled<E><<<grid, block, 0, stream>>>(src, dst, p.form);
    } else {
      cudaError_t e = cudaSuccess;
      layout::for_each_rows_chunk(p.form, [&](const NdRowsChunk& c) {
        if (e != cudaSuccess) return;
        constexpr int64_t per_block = layout::nd_rows_threads * layout::nd_rows_per_thread;
        const auto blocks = uint32_t(layout::ceil_div(int64_t(c.count()), per_block));
        permute_rows<E><<<blocks, block, 0, stream>>>(src, dst, p.form, c);
        e = cudaGetLastError();
      });
      return e;
    }
    return cudaGetLastError();
  });
}

std::string describe(const NdPlan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  const layout::NdForm& f = p.form;
  std::string text = std::string(p.kernel) + ": ";
  if (p.kind == NdKernel::vec_regs)
    text += s(p.regs.vec) + "x" + s(p.regs.vec) + " blocks of dst's fastest axis (" + s(f.extent_b) + ") by src's (" +
            s(f.extent_a) + ") turned in registers, 16-byte vectors on both sides, " + s(p.regs.lanes_a.divisor) +
            " threads along src's, " + s(p.regs.per_thread) + " blocks a thread";
  else if (p.kind == NdKernel::vec_tiled)
    text += s(p.vec.rows) + "x" + s(p.vec.cols()) + " tiles (swizzled " + s(p.vec.tile) + "x" + s(p.vec.tile) +
            " slabs) of " + s(p.vec.subs) + " outer indices x dst's fastest axis (" + s(f.extent_b) + ") by src's (" +
            s(f.extent_a) + "), 16-byte vectors on both sides";
  else if (p.kind == NdKernel::aligned_stores)
    text += s(layout::with_aligned_dst_tile(f.elem_bytes, [](auto a) { return decltype(a)::piece; })) +
            "x64 blocks of dst's fastest axis (" + s(f.extent_b) +
            (p.stores.row_fused > 1 ? " x " + s(p.stores.row_fused) + " of the axis dst continues it with" : "") +
            ") by src's (" + s(f.extent_a) +
            (p.stores.col_fused > 1 ? " x " + s(p.stores.col_fused) + " of the axis src continues it with" : "") +
            "), 16-byte " + (p.stores.src_rows_aligned ? "loads" : "loads shifted from the aligned vectors around them") +
            ", 16-byte stores on 32-byte sectors";
  else if (p.kind == NdKernel::tiled)
    text += "32x32 tiles of src's fastest axis (" + s(f.extent_a) + ") and dst's (" + s(f.extent_b) +
            ") through shared memory, element by element";
  else
    text += "rows of the axis fastest on both sides (" + s(f.extent_a) + " elements), " +
            s(layout::nd_rows_per_thread) + " elements a thread";
  text += "; the form: " + layout::text(f) + "; ";
  if (p.kind != NdKernel::rows)
    text += "grid " + s(p.grid.x) + "x" + s(p.grid.y) + ", ";
  text += "block " + s(p.block.x) + "x" + s(p.block.y) + ", " + s(f.elem_bytes) + "-byte elements";
  return text;
}

}  // namespace xpose::detail
