#include "core/device.hpp"

#include <mutex>

namespace xpose::detail {

Result read_device(int id, Device* out) {
  Device d;
  d.id = id;
  int major = 0, minor = 0, l2 = 0, mem_khz = 0, bus_bits = 0, pageable = 0;
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&d.smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&d.reserved_smem_per_block, cudaDevAttrReservedSharedMemoryPerBlock, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, id));
  d.cc = major * 10 + minor;
  d.l2_bytes = l2;
  d.memory_gbps = 2.0 * double(mem_khz) * 1e3 * (bus_bits / 8.0) / 1e9;
  d.pageable_access = pageable != 0;
  *out = d;
  return ok();
}

Result current_device(Device* out) {
  static std::mutex mutex;
  static Device known[max_cached_devices];
  static std::atomic<bool> ready[max_cached_devices] = {};
  int id = 0;
  XPOSE_TRY_CUDA(cudaGetDevice(&id));
  if (id < 0 || id >= max_cached_devices) return read_device(id, out);
  if (!ready[id].load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!ready[id].load(std::memory_order_relaxed)) {
      if (Result e = read_device(id, &known[id]); e.failed()) return e;
      ready[id].store(true, std::memory_order_release);
    }
  }
  *out = known[id];
  return ok();
}

}  // namespace xpose::detail
