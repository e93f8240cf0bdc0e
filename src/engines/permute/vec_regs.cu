// permute_vec_regs: V x V blocks of src's and dst's fastest axes turned in registers, 16-byte
// vectors on both sides (V = 16 / element size), for whole aligned vectors (layout::NdVecRegs).
#include <string>

#include "engines/common.cuh"
#include "engines/engines.hpp"
#include "engines/launch.cuh"
#include "engines/vector.cuh"

namespace xpose::engines {
namespace {

using layout::NdForm;
using layout::NdVecRegs;

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

Support plan(Plan* p, const Device&, const PlanOptions&) {
  const char* why = nullptr;
  layout::NdVecRegs& g = p->make<layout::NdVecRegs>();
  if (!layout::nd_vec_regs(p->task.form, reinterpret_cast<uintptr_t>(p->task.src),
                           reinterpret_cast<uintptr_t>(p->task.dst), &g, &why))
    return detail::refused(why);
  p->block = {uint32_t(layout::nd_regs_threads), 1, 1};
  p->grid = {uint32_t(g.blocks()), 1, 1};
  return detail::served();
}

cudaError_t launch(const Plan& p, cudaStream_t stream) {
  return with_elem_bytes(p.task.form.elem_bytes, [&](auto size) {
    constexpr int E = decltype(size)::value;
    permute_vec_regs<E><<<to_dim3(p.grid), to_dim3(p.block), 0, stream>>>(static_cast<const Elem<E>*>(p.task.src),
                                                                          static_cast<Elem<E>*>(p.task.dst),
                                                                          p.task.form, p.params<layout::NdVecRegs>());
    return cudaGetLastError();
  });
}

std::string text(const Plan& p) {
  const auto s = [](int64_t v) { return std::to_string(v); };
  const layout::NdVecRegs& g = p.params<layout::NdVecRegs>();
  return s(g.vec) + "x" + s(g.vec) + " blocks of dst's fastest axis (" + s(p.task.form.extent_b) + ") by src's (" +
         s(p.task.form.extent_a) + ") turned in registers, 16-byte vectors on both sides, " + s(g.lanes_a.divisor) +
         " threads along src's, " + s(g.per_thread) + " blocks a thread";
}

}  // namespace

const Engine permute_vec_regs = {
    "permute_vec_regs",
    "V x V blocks of src's and dst's fastest axes turned in registers, 16-byte vectors on both sides",
    "",
    Input::nd_form,
    any_task,
    plan,
    launch,
    text};

}  // namespace xpose::engines
