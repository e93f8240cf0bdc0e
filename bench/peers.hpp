// The peers xpose is measured against, in the same process and on the same buffers:
// cuBLAS geam (op(A) = A^T; S/D/Z serve 4-, 8- and 16-byte elements, one call per matrix
// of a batch) and cuBLASLt's cublasLtMatrixTransform (strided batches in one call; int8,
// fp16, fp32, fp64 and complex fp64 serve 1, 2, 4, 8 and 16 bytes).
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>

#include <memory>
#include <string>
#include <vector>

#include "problem.hpp"  // bench/problem.hpp
#include "timer.hpp"

namespace xpose::bench {

struct Peer {
  std::string name;
  Work run;
};

// Owns the library handles for the whole run.
class PeerLibraries {
 public:
  PeerLibraries();  // throws std::runtime_error when a handle cannot be created
  ~PeerLibraries();
  PeerLibraries(const PeerLibraries&) = delete;
  PeerLibraries& operator=(const PeerLibraries&) = delete;

  // The peers for one problem on its buffers. Each is tried once on `stream`; the ones
  // that cannot serve it are left out, with "name: why" appended to *skipped.
  std::vector<Peer> for_problem(const Problem& p, cudaStream_t stream, std::vector<std::string>* skipped);

 private:
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
};

}  // namespace xpose::bench
