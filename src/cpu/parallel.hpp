// How the CPU path spreads work over the cores, and calls a template on the element size:
// one place for the thread pool and the size switch its loops share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

#include "layout/elem_size.hpp"

namespace xpose::cpu {

// The cores to spread over (at least one), read once: std::thread::hardware_concurrency()
// reads sysfs on every call (with glibc), a cost every small call would pay.
inline int64_t cores() {
  static const int64_t n = std::max(1u, std::thread::hardware_concurrency());
  return n;
}

// Runs work() on the calling thread and on up to `threads` - 1 more, and returns when all
// have returned. A thread that cannot be started (EAGAIN: a process or address-space limit)
// is not an error: the ones running share the work, the caller's own at least, so a call
// never fails or ends the process for want of threads; it only runs on fewer cores.
template <class Work>
void run_on_threads(int threads, const Work& work) {
  std::vector<std::thread> pool;
  try {
    pool.reserve(size_t(std::max(threads - 1, 0)));
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  } catch (const std::exception&) {  // std::system_error or std::bad_alloc: go on with those started
  }
  work();
  for (auto& t : pool) t.join();
}

// Calls item(i) once for every 0 <= i < items, the items taken in turn by up to one thread per
// `per_thread` of the `elements` moved (at least one, at most one a core).
template <class Item>
void for_each_item(int64_t items, int64_t elements, int64_t per_thread, const Item& item) {
  const int64_t wanted = std::min<int64_t>(items, elements / per_thread + 1);
  std::atomic<int64_t> next{0};
  run_on_threads(int(std::min<int64_t>(wanted, cores())), [&] {
    for (int64_t i = next++; i < items; i = next++) item(i);
  });
}

using layout::with_elem_bytes;  // f(std::integral_constant<int, E>{}) for elem_bytes E

}  // namespace xpose::cpu
