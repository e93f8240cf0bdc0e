// cuTENSOR's permutation (cutensorPermute) as xpose-permute-bench's N-D peer: built only where
// CMake found cuTENSOR (XPOSE_CUTENSOR_ROOT, e.g. an unpacked cutensor-cu13 wheel).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace xpose::bench {

class CutensorPermute {
 public:
  // dst = src with its axes permuted (dst axis k is src axis perm[k]), both dense row-major, in
  // the bench's dtype names; null with *why where cuTENSOR does not serve that type or failed.
  static std::unique_ptr<CutensorPermute> make(const std::string& dtype, const std::vector<int64_t>& extents,
                                               const std::vector<int>& perm, std::string* why);
  ~CutensorPermute();
  CutensorPermute(const CutensorPermute&) = delete;
  CutensorPermute& operator=(const CutensorPermute&) = delete;

  // Enqueues the permutation on `stream`; the error in words, empty on success.
  std::string run(const void* src, void* dst, cudaStream_t stream) const;

 private:
  CutensorPermute() = default;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace xpose::bench
