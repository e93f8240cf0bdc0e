// xpose's permutation as an XLA FFI custom call, for xpose.jax under jax.jit: the same
// operation as permute_dims on JAX's dense row-major buffers, on the CUDA stream XLA hands
// over (or on the CPU path for arrays on the host). Leading axes beyond the permutation's rank
// are batch axes vmap added ("broadcast_all"): they stay where they are.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jax_ffi.hpp"
#include "xla/ffi/api/ffi.h"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace ffi = xla::ffi;

namespace {

ffi::Error invalid(const std::string& message) {
  return ffi::Error::InvalidArgument("xpose.jax.permute_dims: " + message);
}

// The element size of a buffer's type: 1, 2, 4, 8 or 16 bytes; 0 for types xpose does not
// move (tokens, and the sub-byte types, which XLA may pack).
int64_t element_bytes(ffi::DataType type) {
  switch (type) {
    case ffi::DataType::INVALID:
    case ffi::DataType::TOKEN:
    case ffi::DataType::S1:
    case ffi::DataType::S2:
    case ffi::DataType::S4:
    case ffi::DataType::U1:
    case ffi::DataType::U2:
    case ffi::DataType::U4:
    case ffi::DataType::F4E2M1FN:
      return 0;
    default:
      return int64_t(ffi::ByteWidth(type));
  }
}

// The call's full permutation: vmap's leading batch axes in place, then `perm` after them.
ffi::Error full_permutation(const ffi::AnyBuffer& x, const ffi::AnyBuffer& y, ffi::Span<const int64_t> perm,
                            std::vector<int64_t>* extents, std::vector<int>* axes, int64_t* elem) {
  const auto dims = x.dimensions();
  const int64_t rank = int64_t(dims.size()), k = int64_t(perm.size());
  if (rank > XPOSE_MAX_RANK) return invalid("x has " + std::to_string(rank) + " axes; xpose permutes at most 16");
  if (k > rank) return invalid("perm has more entries than x has axes");
  *elem = element_bytes(x.element_type());
  if (*elem == 0) return invalid("x's element type is not one of 1, 2, 4, 8 or 16 bytes");
  if (y.element_type() != x.element_type()) return invalid("the result's element type differs from x's");
  extents->assign(dims.begin(), dims.end());
  axes->clear();
  for (int64_t a = 0; a < rank - k; ++a) axes->push_back(int(a));
  for (int64_t p : perm) {
    if (p < 0 || p >= k) return invalid("perm is not a permutation of the last " + std::to_string(k) + " axes");
    axes->push_back(int(rank - k + p));
  }
  const auto out_dims = y.dimensions();
  if (int64_t(out_dims.size()) != rank) return invalid("the result's rank differs from x's");
  for (int64_t i = 0; i < rank; ++i)
    if (out_dims[size_t(i)] != (*extents)[size_t((*axes)[size_t(i)])])
      return invalid("the result's shape is not x's permuted by perm");
  return ffi::Error::Success();
}

ffi::Error permute_cuda(cudaStream_t stream, int32_t device, ffi::AnyBuffer x, ffi::Span<const int64_t> perm,
                        ffi::Result<ffi::AnyBuffer> y) {
  std::vector<int64_t> extents;
  std::vector<int> axes;
  int64_t elem = 0;
  if (ffi::Error e = full_permutation(x, *y, perm, &extents, &axes, &elem); e.failure()) return e;
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) current = -1;
  if (current != device) cudaSetDevice(device);
  const xpose_status_t status = xpose_permute(x.untyped_data(), y->untyped_data(), int(extents.size()),
                                              extents.data(), axes.data(), elem, nullptr, nullptr, stream);
  if (current >= 0 && current != device) cudaSetDevice(current);
  if (status == XPOSE_SUCCESS) return ffi::Error::Success();
  return ffi::Error(status == XPOSE_ERROR_CUDA ? ffi::ErrorCode::kInternal : ffi::ErrorCode::kInvalidArgument,
                    std::string("xpose.jax.permute_dims: ") + xpose_last_error());
}

ffi::Error permute_cpu(ffi::AnyBuffer x, ffi::Span<const int64_t> perm, ffi::Result<ffi::AnyBuffer> y) {
  std::vector<int64_t> extents;
  std::vector<int> axes;
  int64_t elem = 0;
  if (ffi::Error e = full_permutation(x, *y, perm, &extents, &axes, &elem); e.failure()) return e;
  try {
    xpose::permute_host(x.untyped_data(), y->untyped_data(), elem, xpose::PermuteShape{extents, axes, {}, {}});
  } catch (const xpose::Error& e) {
    return invalid(e.what());
  }
  return ffi::Error::Success();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_jax_permute_cuda, permute_cuda,
                              ffi::Ffi::Bind()
                                  .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                  .Ctx<ffi::DeviceOrdinal>()
                                  .Arg<ffi::AnyBuffer>()
                                  .Attr<ffi::Span<const int64_t>>("perm")
                                  .Ret<ffi::AnyBuffer>());

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_jax_permute_cpu, permute_cpu,
                              ffi::Ffi::Bind().Arg<ffi::AnyBuffer>().Attr<ffi::Span<const int64_t>>("perm").Ret<ffi::AnyBuffer>());

namespace xpose_python {

void* jax_permute_cuda() { return reinterpret_cast<void*>(xpose_jax_permute_cuda); }
void* jax_permute_cpu() { return reinterpret_cast<void*>(xpose_jax_permute_cpu); }

}  // namespace xpose_python
