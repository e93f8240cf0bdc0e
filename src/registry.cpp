#include "registry.hpp"

#include <map>
#include <mutex>

#include "cuda_check.hpp"
#include "kernels/kernels.hpp"

namespace xpose::detail {

const std::vector<const Kernel*>& transpose_kernels() {
  static const std::vector<const Kernel*> all = {
      &kernels::naive_read,  &kernels::naive_write,   &kernels::smem,
      &kernels::smem_padded, &kernels::smem_swizzled, &kernels::vec_swizzled, &kernels::skinny, &kernels::tiny_batched, &kernels::aligned_stores,
      &kernels::tma_plain,   &kernels::tma_swizzle128, &kernels::tma_batched,   &kernels::tma_pipeline,
#ifdef XPOSE_HAVE_CUTE
      &kernels::cute_naive_read, &kernels::cute_naive_write, &kernels::cute_smem_conflict_read,
      &kernels::cute_smem_conflict_write, &kernels::cute_padded, &kernels::cute_swizzled,
      &kernels::cute_vectorized, &kernels::cute_vectorized_swizzled, &kernels::cute_tma,
#endif
  };
  return all;
}

const Kernel* find_kernel(std::string_view name) {
  for (const Kernel* k : transpose_kernels())
    if (name == k->name) return k;
  return nullptr;
}

std::string kernel_names() {
  std::string names;
  for (const Kernel* k : transpose_kernels()) names += std::string(k->name) + ", ";
  return names + std::string(copy_kernel_name);
}

// This build carries sm_80 and sm_90a code and compute_80 PTX, so any GPU of
// compute capability 8.0 or newer can run every ladder kernel.
std::string unsupported_device(const Device& d) {
  if (d.cc >= 80) return {};
  return "this build has GPU code for compute capability 8.0 and newer; the device is " +
         std::to_string(d.cc / 10) + "." + std::to_string(d.cc % 10);
}

Error current_device(Device* out) {
  static std::mutex mutex;
  static std::map<int, Device> known;
  int id = 0;
  XPOSE_TRY_CUDA(cudaGetDevice(&id));
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(id); it != known.end()) {
    *out = it->second;
    return ok();
  }
  int major = 0, minor = 0, sms = 0;
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, id));
  XPOSE_TRY_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, id));
  *out = known[id] = Device{id, major * 10 + minor, sms};
  return ok();
}

}  // namespace xpose::detail
