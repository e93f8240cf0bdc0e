// xpose's permutation and FP8 quantization as XLA FFI custom calls, for xpose.jax under jax.jit:
// the same operations as permute_dims and xpose_quantize on JAX's dense row-major buffers, on the
// CUDA stream XLA hands over (or on the CPU path for arrays on the host). A permutation's leading
// axes beyond its rank are batch axes vmap added ("broadcast_all"): they stay where they are.
#include <cuda_runtime_api.h>
#if defined(__x86_64__) || defined(_M_X64)
#include <xmmintrin.h>
#endif

#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
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

// Runs f on CUDA device `device` (made current for the call, as XLA's stream is that device's).
template <class F>
xpose_status_t on_device(int32_t device, const F& f) {
  int current = -1;
  if (cudaGetDevice(&current) != cudaSuccess) current = -1;
  if (current != device) cudaSetDevice(device);
  const xpose_status_t status = f();
  if (current >= 0 && current != device) cudaSetDevice(current);
  return status;
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
  const xpose_status_t status = on_device(device, [&] {
    return xpose_permute(x.untyped_data(), y->untyped_data(), int(extents.size()), extents.data(), axes.data(), elem,
                         nullptr, nullptr, stream);
  });
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

// XLA's CPU threads run with subnormals flushed to zero (MXCSR's FTZ and DAZ); the reference's
// arithmetic keeps them (an E8M0 scale of 2^-127 is one), so the handler clears both while it runs.
struct KeepSubnormals {
#if defined(__x86_64__) || defined(_M_X64)
  unsigned saved = _mm_getcsr();
  KeepSubnormals() { _mm_setcsr(saved & ~0x8040u); }
  ~KeepSubnormals() { _mm_setcsr(saved); }
#elif defined(__aarch64__)  // FPCR's FZ (bit 24) and FZ16 (bit 19)
  uint64_t saved = fpcr();
  KeepSubnormals() { set_fpcr(saved & ~((uint64_t(1) << 24) | (uint64_t(1) << 19))); }
  ~KeepSubnormals() { set_fpcr(saved); }
  static uint64_t fpcr() {
    uint64_t v;
    asm volatile("mrs %0, fpcr" : "=r"(v));
    return v;
  }
  static void set_fpcr(uint64_t v) { asm volatile("msr fpcr, %0" ::"r"(v)); }
#endif
};

// FP8 quantization: x (rows x cols, fp32, bf16 or fp16) and the five outputs xpose.jax.quantize
// sizes, each written where bit k of `want` is set (data, data_t, scales, scales_t, amax); the
// others are empty buffers. The recipe's codes are the C ABI's (xpose.h).
struct QuantizeCall {
  xpose_quantize_desc_t desc;
  xpose::QuantizeOutputs out;
};

ffi::Error quantize_invalid(const std::string& message) {
  return ffi::Error::InvalidArgument("xpose.jax.quantize: " + message);
}

ffi::Error quantize_call(const ffi::AnyBuffer& x, int64_t format, int64_t scaling, int64_t scale_layout,
                         int64_t block_rows, int64_t block_cols, bool pow2, float scale, int64_t want,
                         ffi::AnyBuffer* const (&outputs)[5], QuantizeCall* call) {
  const auto dims = x.dimensions();
  if (dims.size() != 2) return quantize_invalid("x must be a matrix (rows, cols)");
  if (want < 1 || want > 31) return quantize_invalid("want asks for none of the five outputs, or for a sixth");
  xpose_quantize_desc_init(&call->desc);
  xpose_quantize_desc_t& d = call->desc;
  switch (x.element_type()) {
    case ffi::DataType::F32: d.input = XPOSE_QUANTIZE_FP32; break;
    case ffi::DataType::BF16: d.input = XPOSE_QUANTIZE_BF16; break;
    case ffi::DataType::F16: d.input = XPOSE_QUANTIZE_FP16; break;
    default: return quantize_invalid("x's element type is not float32, bfloat16 or float16");
  }
  for (const int64_t v : {format, scaling, scale_layout, block_rows, block_cols})
    if (v < INT32_MIN || v > INT32_MAX) return quantize_invalid("a recipe field is past 32 bits: " + std::to_string(v));
  d.rows = dims[0], d.cols = dims[1], d.ld = dims[1];
  d.format = int(format), d.scaling = int(scaling), d.scale_layout = int(scale_layout);
  d.block_rows = int(block_rows), d.block_cols = int(block_cols);
  d.pow2_scales = pow2;
  d.scale = scale;
  // Each output asked for holds what the call writes (the target is anyone's to call: a result
  // sized short is refused, never written past).
  // (xpose_quantize_scales_bytes checks the recipe too: an empty x, which the library is not
  // called for, is refused the same.)
  size_t need[5] = {size_t(d.rows * d.cols), size_t(d.rows * d.cols), 0, 0, sizeof(float)};
  for (int t = 0; t < 2; ++t)
    if (xpose_quantize_scales_bytes(&d, t, &need[2 + t]) != XPOSE_SUCCESS) return quantize_invalid(xpose_last_error());
  static const char* const names[5] = {"data", "data_t", "scales", "scales_t", "amax"};
  void* at[5];
  for (int k = 0; k < 5; ++k) {
    at[k] = want >> k & 1 ? outputs[k]->untyped_data() : nullptr;
    if (at[k] && outputs[k]->size_bytes() < need[k])
      return quantize_invalid(std::string(names[k]) + " holds " + std::to_string(outputs[k]->size_bytes()) +
                              " bytes; the call writes " + std::to_string(need[k]));
  }
  call->out = xpose::QuantizeOutputs{at[0], at[1], at[2], at[3], static_cast<float*>(at[4])};
  return ffi::Error::Success();
}

ffi::Error quantize_cuda(cudaStream_t stream, int32_t device, ffi::AnyBuffer x, int64_t format, int64_t scaling,
                         int64_t scale_layout, int64_t block_rows, int64_t block_cols, bool pow2, float scale,
                         int64_t want, ffi::Result<ffi::AnyBuffer> data, ffi::Result<ffi::AnyBuffer> data_t,
                         ffi::Result<ffi::AnyBuffer> scales, ffi::Result<ffi::AnyBuffer> scales_t,
                         ffi::Result<ffi::AnyBuffer> amax) {
  QuantizeCall call;
  ffi::AnyBuffer* const outputs[5] = {&*data, &*data_t, &*scales, &*scales_t, &*amax};
  if (ffi::Error e = quantize_call(x, format, scaling, scale_layout, block_rows, block_cols, pow2, scale, want,
                                   outputs, &call);
      e.failure())
    return e;
  cudaError_t cleared = cudaSuccess;
  const xpose_status_t status = on_device(device, [&] {
    if (call.desc.rows == 0 || call.desc.cols == 0) {  // nothing to read: an amax of 0
      if (call.out.amax) cleared = cudaMemsetAsync(call.out.amax, 0, sizeof(float), stream);
      return cleared == cudaSuccess ? XPOSE_SUCCESS : XPOSE_ERROR_CUDA;
    }
    return xpose_quantize(&call.desc, x.untyped_data(), call.out.data, call.out.data_t, call.out.scales,
                          call.out.scales_t, call.out.amax, stream);
  });
  if (status == XPOSE_SUCCESS) return ffi::Error::Success();
  if (cleared != cudaSuccess)
    return ffi::Error::Internal(std::string("xpose.jax.quantize: clearing amax: ") + cudaGetErrorString(cleared));
  return ffi::Error(status == XPOSE_ERROR_CUDA ? ffi::ErrorCode::kInternal : ffi::ErrorCode::kInvalidArgument,
                    std::string("xpose.jax.quantize: ") + xpose_last_error());
}

ffi::Error quantize_cpu(ffi::AnyBuffer x, int64_t format, int64_t scaling, int64_t scale_layout, int64_t block_rows,
                        int64_t block_cols, bool pow2, float scale, int64_t want, ffi::Result<ffi::AnyBuffer> data,
                        ffi::Result<ffi::AnyBuffer> data_t, ffi::Result<ffi::AnyBuffer> scales,
                        ffi::Result<ffi::AnyBuffer> scales_t, ffi::Result<ffi::AnyBuffer> amax) {
  QuantizeCall call;
  ffi::AnyBuffer* const outputs[5] = {&*data, &*data_t, &*scales, &*scales_t, &*amax};
  if (ffi::Error e = quantize_call(x, format, scaling, scale_layout, block_rows, block_cols, pow2, scale, want,
                                   outputs, &call);
      e.failure())
    return e;
  const KeepSubnormals keep;
  try {
    if (call.desc.rows == 0 || call.desc.cols == 0) {
      if (call.out.amax) std::memset(call.out.amax, 0, sizeof(float));
    } else {
      xpose::quantize_host(call.desc, x.untyped_data(), call.out);
    }
  } catch (const xpose::Error& e) {
    return quantize_invalid(e.what());
  } catch (const std::exception& e) {  // the reference's buffers (std::bad_alloc)
    return ffi::Error::Internal(std::string("xpose.jax.quantize: ") + e.what());
  }
  return ffi::Error::Success();
}

// The recipe's attributes and the five results, as both handlers take them.
template <class Binding>
auto quantize_binding(Binding b) {
  return std::move(b)
      .template Arg<ffi::AnyBuffer>()
      .template Attr<int64_t>("format")
      .template Attr<int64_t>("scaling")
      .template Attr<int64_t>("scale_layout")
      .template Attr<int64_t>("block_rows")
      .template Attr<int64_t>("block_cols")
      .template Attr<bool>("pow2")
      .template Attr<float>("scale")
      .template Attr<int64_t>("want")
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>()
      .template Ret<ffi::AnyBuffer>();
}

}  // namespace

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_jax_quantize_cuda, quantize_cuda,
                              quantize_binding(ffi::Ffi::Bind()
                                                   .Ctx<ffi::PlatformStream<cudaStream_t>>()
                                                   .Ctx<ffi::DeviceOrdinal>()));

XLA_FFI_DEFINE_HANDLER_SYMBOL(xpose_jax_quantize_cpu, quantize_cpu, quantize_binding(ffi::Ffi::Bind()));

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
void* jax_quantize_cuda() { return reinterpret_cast<void*>(xpose_jax_quantize_cuda); }
void* jax_quantize_cpu() { return reinterpret_cast<void*>(xpose_jax_quantize_cpu); }

}  // namespace xpose_python
