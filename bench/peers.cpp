#include "peers.hpp"

#include <cuComplex.h>

#include <climits>
#include <cstring>
#include <stdexcept>

namespace xpose::bench {
namespace {

std::string status_text(const char* what, cublasStatus_t s) {
  return s == CUBLAS_STATUS_SUCCESS ? std::string() : std::string(what) + ": " + cublasGetStatusName(s);
}

// Scalars alpha = 1 and beta = 0 of any cuBLAS scale type, in host memory.
struct Scalars {
  alignas(16) unsigned char one[16] = {}, zero[16] = {};
  explicit Scalars(cudaDataType type) {
    const float f = 1.0f;
    const double d = 1.0;
    const int32_t i = 1;
    if (type == CUDA_R_32F) std::memcpy(one, &f, sizeof f);
    if (type == CUDA_R_64F || type == CUDA_C_64F) std::memcpy(one, &d, sizeof d);
    if (type == CUDA_R_32I) std::memcpy(one, &i, sizeof i);
  }
};

// geam sees our row-major src (rows x cols, ld_src) as a column-major cols x rows matrix A;
// C = A^T is then the column-major rows x cols matrix that is our row-major dst.
Work geam_for(cublasHandle_t h, const Problem& p) {
  return [h, p](cudaStream_t stream) -> std::string {
    if (auto e = status_text("cublasSetStream", cublasSetStream(h, stream)); !e.empty()) return e;
    const int m = int(p.rows), n = int(p.cols), lda = int(p.ld_src), ldc = int(p.ld_dst);
    for (int64_t b = 0; b < p.batch; ++b) {
      const char* a = static_cast<const char*>(p.src) + b * p.stride_src * p.elem_bytes;
      char* c = static_cast<char*>(p.dst) + b * p.stride_dst * p.elem_bytes;
      cublasStatus_t s = CUBLAS_STATUS_NOT_SUPPORTED;
      if (p.elem_bytes == 4) {
        const float one = 1, zero = 0;
        s = cublasSgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const float*>(a), lda, &zero,
                        reinterpret_cast<const float*>(c), ldc, reinterpret_cast<float*>(c), ldc);
      } else if (p.elem_bytes == 8) {
        const double one = 1, zero = 0;
        s = cublasDgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const double*>(a), lda, &zero,
                        reinterpret_cast<const double*>(c), ldc, reinterpret_cast<double*>(c), ldc);
      } else if (p.elem_bytes == 16) {
        const cuDoubleComplex one = make_cuDoubleComplex(1, 0), zero = make_cuDoubleComplex(0, 0);
        s = cublasZgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &one, reinterpret_cast<const cuDoubleComplex*>(a), lda,
                        &zero, reinterpret_cast<const cuDoubleComplex*>(c), ldc, reinterpret_cast<cuDoubleComplex*>(c),
                        ldc);
      }
      if (auto e = status_text("cublas?geam", s); !e.empty()) return e;
    }
    return {};
  };
}

// cublasLtMatrixTransform descriptors for one problem, shared by every call of the peer.
struct LtTransform {
  cublasLtMatrixTransformDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, c = nullptr;
  Scalars scalars;
  bool in_place_b = false;  // pass C as B when the library wants a B even with beta = 0
  explicit LtTransform(cudaDataType scale) : scalars(scale) {}
  ~LtTransform() {
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (desc) cublasLtMatrixTransformDescDestroy(desc);
  }
};

std::string make_layout(cublasLtMatrixLayout_t* out, cudaDataType type, int64_t rows, int64_t cols, int64_t ld,
                        int64_t batch, int64_t stride) {
  if (auto e = status_text("cublasLtMatrixLayoutCreate",
                           cublasLtMatrixLayoutCreate(out, type, uint64_t(rows), uint64_t(cols), ld));
      !e.empty())
    return e;
  const int32_t count = int32_t(batch);
  if (auto e = status_text("batch count", cublasLtMatrixLayoutSetAttribute(*out, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                                           &count, sizeof count));
      !e.empty())
    return e;
  return status_text("batch stride", cublasLtMatrixLayoutSetAttribute(
                                         *out, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
}

std::string lt_call(cublasLtHandle_t h, const LtTransform& t, const Problem& p, cudaStream_t stream) {
  return status_text("cublasLtMatrixTransform",
                     cublasLtMatrixTransform(h, t.desc, t.scalars.one, p.src, t.a, t.scalars.zero,
                                             t.in_place_b ? p.dst : nullptr, t.in_place_b ? t.c : nullptr, p.dst,
                                             t.c, stream));
}

// The transform for p in the given data and scale types, tried once (without B, then
// with B = C); "" and *out set on success.
std::string make_lt(cublasLtHandle_t h, const Problem& p, cudaDataType data, cudaDataType scale,
                    cudaStream_t stream, std::shared_ptr<LtTransform>* out) {
  auto t = std::make_shared<LtTransform>(scale);
  if (auto e = status_text("cublasLtMatrixTransformDescCreate", cublasLtMatrixTransformDescCreate(&t->desc, scale));
      !e.empty())
    return e;
  const cublasOperation_t transpose = CUBLAS_OP_T;
  if (auto e = status_text("TRANSA", cublasLtMatrixTransformDescSetAttribute(
                                         t->desc, CUBLASLT_MATRIX_TRANSFORM_DESC_TRANSA, &transpose, sizeof transpose));
      !e.empty())
    return e;
  // Same column-major view as geam: A is cols x rows (ld_src), C is rows x cols (ld_dst).
  if (auto e = make_layout(&t->a, data, p.cols, p.rows, p.ld_src, p.batch, p.stride_src); !e.empty()) return e;
  if (auto e = make_layout(&t->c, data, p.rows, p.cols, p.ld_dst, p.batch, p.stride_dst); !e.empty()) return e;
  std::string failure = lt_call(h, *t, p, stream);
  if (!failure.empty()) {
    t->in_place_b = true;
    if (lt_call(h, *t, p, stream).empty()) failure.clear();
  }
  if (failure.empty()) *out = t;
  return failure;
}

}  // namespace

PeerLibraries::PeerLibraries() {
  if (cublasCreate(&blas_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
  if (cublasLtCreate(&lt_) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasLtCreate failed");
}

PeerLibraries::~PeerLibraries() {
  if (lt_) cublasLtDestroy(lt_);
  if (blas_) cublasDestroy(blas_);
}

std::vector<Peer> PeerLibraries::for_problem(const Problem& p, cudaStream_t stream,
                                             std::vector<std::string>* skipped) {
  std::vector<Peer> peers;
  const auto tried = [&](const std::string& name, const Work& run) {
    std::string failure = run(stream);
    if (const cudaError_t e = cudaStreamSynchronize(stream); failure.empty() && e != cudaSuccess)
      failure = cudaGetErrorString(e);
    if (failure.empty())
      peers.push_back({name, run});
    else
      skipped->push_back(name + ": " + failure);
  };

  const bool int_dims = p.rows <= INT_MAX && p.cols <= INT_MAX && p.ld_src <= INT_MAX && p.ld_dst <= INT_MAX;
  if (p.elem_bytes == 1 || p.elem_bytes == 2)
    skipped->push_back("cublas_geam: no 1- or 2-byte geam in cuBLAS");
  else if (!int_dims)
    skipped->push_back("cublas_geam: extents or leading dimensions past INT_MAX");
  else
    tried("cublas_geam", geam_for(blas_, p));

  // Data and scale types to try for each element size, in order of preference.
  std::vector<std::pair<cudaDataType, cudaDataType>> types;
  switch (p.elem_bytes) {
    case 1: types = {{CUDA_R_8I, CUDA_R_32F}, {CUDA_R_8I, CUDA_R_32I}}; break;
    case 2: types = {{CUDA_R_16F, CUDA_R_32F}, {CUDA_R_16BF, CUDA_R_32F}}; break;
    case 4: types = {{CUDA_R_32F, CUDA_R_32F}}; break;
    case 8: types = {{CUDA_R_64F, CUDA_R_64F}}; break;
    case 16: types = {{CUDA_C_64F, CUDA_C_64F}}; break;
  }
  std::string why = "no data type to try";
  if (p.batch > INT32_MAX) types.clear(), why = "batch past INT32_MAX";
  for (const auto& [data, scale] : types) {
    std::shared_ptr<LtTransform> t;
    why = make_lt(lt_, p, data, scale, stream, &t);
    if (why.empty()) {
      const cublasLtHandle_t h = lt_;
      tried("cublasLt_transform", [h, t, p](cudaStream_t s) { return lt_call(h, *t, p, s); });
      break;
    }
  }
  if (!why.empty()) skipped->push_back("cublasLt_transform: " + why);
  return peers;
}

}  // namespace xpose::bench
