// Asynchronous copies from global to shared memory (cp.async, sm_80 on): the data goes to
// shared memory without passing through a register, so a thread can have many in flight.
// permute_packed's chunk stages and the in-place chains' rings load through them.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace xpose::engines {

// V = 4, 8 or 16 bytes, `to` and `from` aligned to V. 16 bytes bypass L1 (.cg); 4 and 8 have
// only the L1-allocating form (.ca).
template <int V>
__device__ __forceinline__ void copy_async(void* to, const void* from) {
  static_assert(V == 4 || V == 8 || V == 16, "cp.async moves 4, 8 or 16 bytes");
  const uint32_t at = uint32_t(__cvta_generic_to_shared(to));
  if constexpr (V == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(at), "l"(from) : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(at), "l"(from), "n"(V) : "memory");
}

// The thread's copies since the last commit become one group.
__device__ __forceinline__ void commit_async() { asm volatile("cp.async.commit_group;" ::: "memory"); }

// Waits until at most N of the thread's groups are in flight; other threads' copies are seen
// after a barrier.
template <int N>
__device__ __forceinline__ void wait_async() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Waits for every copy of the thread, committed or not.
__device__ __forceinline__ void wait_async_all() { asm volatile("cp.async.wait_all;" ::: "memory"); }

}  // namespace xpose::engines
