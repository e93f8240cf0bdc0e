// What the library knows about a GPU: the facts the engines and the tuning records depend
// on, read from the device's attributes once per device and kept (a call on the hot path
// asks the runtime only which device is current), and once-per-device values of the
// kernels' own (shared-memory limits already raised, occupancy).
#pragma once

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>

#include "core/status.hpp"

namespace xpose::detail {

struct Device {
  int id = 0;
  int cc = 0;                       // compute capability, major * 10 + minor
  int sm_count = 0;
  int64_t l2_bytes = 0;
  double memory_gbps = 0;           // theoretical: 2 x memory clock x bus width
  int smem_per_sm = 0;              // shared memory per SM, bytes
  int reserved_smem_per_block = 0;  // what the driver keeps of it per block
  bool pageable_access = false;     // the GPU reads pageable host memory coherently
};

// The current device's facts, read once per device.
Result current_device(Device* out);

// The facts of device `id`, read now (current_device caches them). Exposed for tests.
Result read_device(int id, Device* out);

// Devices with an id below this have their values kept; others recompute every time.
constexpr int max_cached_devices = 64;

// One integer per device, computed by the first call that needs it and kept. Reads are
// lock-free; two first calls racing compute the same value twice, which is harmless for
// the idempotent queries kept here. 0 means "not known yet".
class PerDevice {
 public:
  // The value for `device`, computing it with `compute(int* value) -> cudaError_t` once.
  template <class Compute>
  cudaError_t get(int device, int* out, Compute&& compute) {
    if (device >= 0 && device < max_cached_devices) {
      if (const int v = values_[device].load(std::memory_order_acquire); v != 0) {
        *out = v;
        return cudaSuccess;
      }
    }
    int v = 0;
    if (const cudaError_t e = compute(&v); e != cudaSuccess) return e;
    if (device >= 0 && device < max_cached_devices) values_[device].store(v, std::memory_order_release);
    *out = v;
    return cudaSuccess;
  }

 private:
  std::atomic<int> values_[max_cached_devices] = {};
};

// Raises `Kernel`'s dynamic shared-memory limit on `device` (the current one) to at least
// `bytes`, calling the runtime only the first time a larger limit is needed there. Every
// kernel may take 48 KiB without asking.
template <auto Kernel>
cudaError_t allow_dynamic_smem(int device, size_t bytes) {
  static std::atomic<int> allowed[max_cached_devices] = {};
  if (bytes <= 48 * 1024) return cudaSuccess;
  const bool kept = device >= 0 && device < max_cached_devices;
  if (kept && allowed[device].load(std::memory_order_acquire) >= int(bytes)) return cudaSuccess;
  if (const cudaError_t e = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes));
      e != cudaSuccess)
    return e;
  if (kept) {
    int seen = allowed[device].load(std::memory_order_relaxed);
    while (seen < int(bytes) && !allowed[device].compare_exchange_weak(seen, int(bytes))) {
    }
  }
  return cudaSuccess;
}

}  // namespace xpose::detail
