// Shared test helpers: fresh random data, poisoned and guarded output images, the GPU
// probe, and device buffers.
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cpu/reference.hpp"
#include "api/validate.hpp"
#include "xpose/xpose.h"

namespace xpose::testing {

// A new seed every run, printed on failure so a failing run can be replayed.
inline uint64_t fresh_seed() {
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

// A random test's trial count: `usual`, or XPOSE_TEST_TRIALS where set (the compute-sanitizer
// runs of tools/gpu-check draw fewer). Thresholds on what the trials covered scale with it
// (covered_floor).
inline int trials(int usual) {
  const char* env = std::getenv("XPOSE_TEST_TRIALS");
  const int n = env ? std::atoi(env) : 0;
  return n > 0 ? n : usual;
}

// How many of n random draws must have covered something that `floor` of `usual` draws
// cover: `floor` at the usual count or more; scaled, and halved for the noise of a few dozen
// draws, below it.
inline int covered_floor(int n, int usual, int floor) {
  return n >= usual ? floor * n / usual : floor * n / usual / 2;
}

inline void fill_random(std::vector<uint8_t>& bytes, uint64_t seed) {
  std::mt19937_64 rng(seed);
  size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    const uint64_t v = rng();
    std::memcpy(&bytes[i], &v, 8);
  }
  for (; i < bytes.size(); ++i) bytes[i] = uint8_t(rng());
}

// Bytes around every output that no call may touch.
constexpr size_t guard_bytes = 256;
constexpr uint8_t poison = 0xA5;

// One request laid out in host images: src (random), and dst (poisoned) with guard
// bands before and after and `offset` elements of misalignment at the front of each.
struct Images {
  detail::Problem problem;  // resolved; pointers are offsets into the images below
  std::vector<uint8_t> src, dst;
  size_t src_offset = 0, dst_offset = 0;  // bytes from the image start to element 0

  // dst as it must look after a correct call: the reference result inside the matrix,
  // poison in the guard bands and in every ld and stride gap.
  std::vector<uint8_t> expected() const {
    std::vector<uint8_t> want(dst.size(), poison);
    detail::Problem p = problem;
    p.src = src.data() + src_offset;
    p.dst = want.data() + dst_offset;
    cpu::transpose(p);
    return want;
  }
};

// Returns false (with the reason) when the request itself is invalid.
inline bool make_images(const detail::Args& args, int64_t src_offset_elems, int64_t dst_offset_elems, uint64_t seed,
                        Images* out, std::string* why) {
  detail::Args a = args;
  a.src = reinterpret_cast<const void*>(uintptr_t(64 * 1024));  // placeholders with room for any alignment
  a.dst = reinterpret_cast<void*>(uintptr_t(1) << 46);
  detail::Problem p;
  const detail::Result e = detail::resolve_transpose(a, &p);
  if (e.failed()) {
    *why = e.message;
    return false;
  }
  const int64_t E = p.elem_bytes;
  out->problem = p;
  out->src_offset = size_t(src_offset_elems * E);
  out->dst_offset = guard_bytes + size_t(dst_offset_elems * E);
  out->src.resize(out->src_offset + size_t(p.src_span_bytes()));
  out->dst.assign(out->dst_offset + size_t(p.dst_span_bytes()) + guard_bytes, poison);
  fill_random(out->src, seed);
  return true;
}

// Index of the first differing byte, or -1.
inline int64_t first_difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return int64_t(i);
  return -1;
}

// Where a byte of the dst image lies, in words a failing test can act on.
inline std::string locate(const Images& im, int64_t byte) {
  const int64_t off = byte - int64_t(im.dst_offset);
  if (off < 0) return "in the guard band before dst";
  const detail::Problem& p = im.problem;
  const int64_t e = off / p.elem_bytes;
  const int64_t b = e / p.stride_dst, in_b = e % p.stride_dst, j = in_b / p.ld_dst, i = in_b % p.ld_dst;
  if (b >= p.batch || j >= p.cols || i >= p.rows)
    return "outside the matrix (guard band or ld/stride gap) at dst element " + std::to_string(e);
  return "dst batch " + std::to_string(b) + " row " + std::to_string(j) + " col " + std::to_string(i);
}

inline bool gpu_available(std::string* why) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    *why = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();
    return false;
  }
  if (count == 0) {
    *why = "no CUDA device";
    return false;
  }
  return true;
}

#define XPOSE_REQUIRE_GPU()                                           \
  do {                                                                \
    std::string xpose_why_;                                           \
    if (!::xpose::testing::gpu_available(&xpose_why_)) GTEST_SKIP() << xpose_why_; \
  } while (0)

#define XPOSE_CUDA_OK(call) ASSERT_EQ(cudaSuccess, (call)) << #call

// Device memory holding a host image, freed on scope exit.
class DeviceImage {
 public:
  explicit DeviceImage(const std::vector<uint8_t>& image) : size_(image.size()) {
    if (cudaMalloc(&ptr_, size_ ? size_ : 1) != cudaSuccess) {
      ptr_ = nullptr;
      return;
    }
    if (cudaMemcpy(ptr_, image.data(), size_, cudaMemcpyHostToDevice) != cudaSuccess) {
      cudaFree(ptr_);
      ptr_ = nullptr;
    }
  }
  ~DeviceImage() { cudaFree(ptr_); }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;

  bool ok() const { return ptr_ != nullptr; }
  uint8_t* data() const { return static_cast<uint8_t*>(ptr_); }
  std::vector<uint8_t> read() const {
    std::vector<uint8_t> out(size_);
    if (cudaMemcpy(out.data(), ptr_, size_, cudaMemcpyDeviceToHost) != cudaSuccess) out.clear();
    return out;
  }

 private:
  void* ptr_ = nullptr;
  size_t size_ = 0;
};

}  // namespace xpose::testing
