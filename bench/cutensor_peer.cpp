#include "cutensor_peer.hpp"

#include <cutensor.h>

#include <cstring>

namespace xpose::bench {

struct CutensorPermute::State {
  cutensorHandle_t handle = nullptr;
  cutensorTensorDescriptor_t a = nullptr, b = nullptr;
  cutensorOperationDescriptor_t op = nullptr;
  cutensorPlanPreference_t pref = nullptr;
  cutensorPlan_t plan = nullptr;
  alignas(16) unsigned char alpha[16] = {};  // 1 in the operation's scalar type

  ~State() {
    if (plan) cutensorDestroyPlan(plan);
    if (pref) cutensorDestroyPlanPreference(pref);
    if (op) cutensorDestroyOperationDescriptor(op);
    if (b) cutensorDestroyTensorDescriptor(b);
    if (a) cutensorDestroyTensorDescriptor(a);
    if (handle) cutensorDestroy(handle);
  }
};

namespace {

// One in the given scalar type, as the bytes cutensorPermute reads through `alpha`.
bool one_as(cudaDataType_t type, unsigned char* out) {
  const float f = 1.0f;
  const double d = 1.0;
  const uint16_t half_one = 0x3C00, bf16_one = 0x3F80;
  switch (type) {
    case CUDA_R_16F: std::memcpy(out, &half_one, 2); return true;
    case CUDA_R_16BF: std::memcpy(out, &bf16_one, 2); return true;
    case CUDA_R_32F: case CUDA_C_32F: std::memcpy(out, &f, 4); return true;  // imaginary part stays 0
    case CUDA_R_64F: case CUDA_C_64F: std::memcpy(out, &d, 8); return true;
    default: return false;
  }
}

}  // namespace

std::unique_ptr<CutensorPermute> CutensorPermute::make(const std::string& dtype, const std::vector<int64_t>& extents,
                                                       const std::vector<int>& perm, std::string* why) {
  cudaDataType_t type;
  cutensorComputeDescriptor_t compute;
  if (dtype == "fp16") type = CUDA_R_16F, compute = CUTENSOR_COMPUTE_DESC_32F;
  else if (dtype == "bf16") type = CUDA_R_16BF, compute = CUTENSOR_COMPUTE_DESC_32F;
  else if (dtype == "fp32") type = CUDA_R_32F, compute = CUTENSOR_COMPUTE_DESC_32F;
  else if (dtype == "fp64") type = CUDA_R_64F, compute = CUTENSOR_COMPUTE_DESC_64F;
  else if (dtype == "c64") type = CUDA_C_32F, compute = CUTENSOR_COMPUTE_DESC_32F;
  else if (dtype == "c128") type = CUDA_C_64F, compute = CUTENSOR_COMPUTE_DESC_64F;
  else {
    *why = "cuTENSOR permutes 16-, 32- and 64-bit real and complex types, not " + dtype;
    return nullptr;
  }
  const int rank = int(extents.size());
  std::vector<int64_t> src_strides(size_t(rank), 1), dst_strides(size_t(rank), 1);
  std::vector<int64_t> dst_extents(static_cast<size_t>(rank));
  std::vector<int32_t> src_modes(static_cast<size_t>(rank)), dst_modes(static_cast<size_t>(rank));
  for (int k = 0; k < rank; ++k) {
    src_modes[size_t(k)] = k;
    dst_modes[size_t(k)] = perm[size_t(k)];
    dst_extents[size_t(k)] = extents[size_t(perm[size_t(k)])];
  }
  for (int k = rank - 2; k >= 0; --k) {
    src_strides[size_t(k)] = src_strides[size_t(k) + 1] * extents[size_t(k) + 1];
    dst_strides[size_t(k)] = dst_strides[size_t(k) + 1] * dst_extents[size_t(k) + 1];
  }
  std::unique_ptr<CutensorPermute> p(new CutensorPermute);
  p->state_ = std::make_unique<State>();
  State& s = *p->state_;
  cudaDataType_t scalar;
  cutensorStatus_t e = cutensorCreate(&s.handle);
  if (e == CUTENSOR_STATUS_SUCCESS)
    e = cutensorCreateTensorDescriptor(s.handle, &s.a, uint32_t(rank), extents.data(), src_strides.data(), type, 256);
  if (e == CUTENSOR_STATUS_SUCCESS)
    e = cutensorCreateTensorDescriptor(s.handle, &s.b, uint32_t(rank), dst_extents.data(), dst_strides.data(), type,
                                       256);
  if (e == CUTENSOR_STATUS_SUCCESS)
    e = cutensorCreatePermutation(s.handle, &s.op, s.a, src_modes.data(), CUTENSOR_OP_IDENTITY, s.b, dst_modes.data(),
                                  compute);
  if (e == CUTENSOR_STATUS_SUCCESS)
    e = cutensorOperationDescriptorGetAttribute(s.handle, s.op, CUTENSOR_OPERATION_DESCRIPTOR_SCALAR_TYPE, &scalar,
                                                sizeof scalar);
  if (e == CUTENSOR_STATUS_SUCCESS)
    e = cutensorCreatePlanPreference(s.handle, &s.pref, CUTENSOR_ALGO_DEFAULT, CUTENSOR_JIT_MODE_NONE);
  if (e == CUTENSOR_STATUS_SUCCESS) e = cutensorCreatePlan(s.handle, &s.plan, s.op, s.pref, 0);
  if (e != CUTENSOR_STATUS_SUCCESS) {
    *why = std::string("cuTENSOR: ") + cutensorGetErrorString(e);
    return nullptr;
  }
  if (!one_as(scalar, s.alpha)) {
    *why = "cuTENSOR: an unexpected scalar type";
    return nullptr;
  }
  return p;
}

CutensorPermute::~CutensorPermute() = default;

std::string CutensorPermute::run(const void* src, void* dst, cudaStream_t stream) const {
  const State& s = *state_;
  const cutensorStatus_t e = cutensorPermute(s.handle, s.plan, s.alpha, src, dst, stream);
  return e == CUTENSOR_STATUS_SUCCESS ? std::string() : std::string("cuTENSOR: ") + cutensorGetErrorString(e);
}

}  // namespace xpose::bench
