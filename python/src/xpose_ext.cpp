// The Python package's native part. permute_arrays, permute_torch and permute_fields are the
// array boundary: xpose/__init__.py hands them the arrays (any DLPack or buffer-protocol array
// through nanobind's ndarray; plain PyTorch tensors through DLPack's C exchange API, which also
// gives PyTorch's stream and allocates the result; other PyTorch tensors as their fields) and
// the axes it has read; everything else is checked here, in the caller's terms, and the
// library is called. plain_call serves plain PyTorch tensors and NumPy arrays before the
// Python layer runs at all (torch_call, numpy_call). Errors leave as TypeError, ValueError or
// RuntimeError, one line each, beginning "xpose.<function>: ". transpose_/permute_host and
// _device are the C calls on raw addresses, unchecked here: the package does not use them;
// tools/experiments time the C ABI's own cost through them. torch_quantize is xpose.quantize's
// eager PyTorch path (its outputs allocated through the same exchange); quantize its other
// arrays' (addresses the Python layer checked). DistPlan is xpose.distributed's.
#include <cuda_runtime_api.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <cstdint>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#ifdef XPOSE_JAX_FFI
#include "jax_ffi.hpp"
#endif
#include "dlpack_exchange.hpp"
#include "xpose/distributed.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace nb = nanobind;
using namespace nb::literals;
namespace dl = xpose_python::dl;

namespace {

xpose::Shape shape_of(int64_t rows, int64_t cols, int64_t ld_src, int64_t ld_dst, int64_t batch, int64_t stride_src,
                      int64_t stride_dst) {
  return xpose::Shape{rows, cols, ld_src, ld_dst, batch, stride_src, stride_dst};
}

void transpose_host(uintptr_t src, uintptr_t dst, int64_t elem_bytes, int64_t rows, int64_t cols, int64_t ld_src,
                    int64_t ld_dst, int64_t batch, int64_t stride_src, int64_t stride_dst) {
  xpose::transpose_host(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), elem_bytes,
                        shape_of(rows, cols, ld_src, ld_dst, batch, stride_src, stride_dst));
}

void transpose_device(uintptr_t src, uintptr_t dst, int64_t elem_bytes, int64_t rows, int64_t cols, int64_t ld_src,
                      int64_t ld_dst, int64_t batch, int64_t stride_src, int64_t stride_dst, uintptr_t stream,
                      const std::string& kernel) {
  const auto s = reinterpret_cast<cudaStream_t>(stream);
  xpose::check(kernel == "auto"
                   ? xpose_transpose(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), rows, cols,
                                     elem_bytes, ld_src, ld_dst, batch, stride_src, stride_dst, s)
                   : xpose_transpose_with(kernel.c_str(), reinterpret_cast<const void*>(src),
                                          reinterpret_cast<void*>(dst), rows, cols, elem_bytes, ld_src, ld_dst, batch,
                                          stride_src, stride_dst, s));
}

// The current device for a scope: `device` (none given: < 0), then back to the caller's.
class OnDevice {
 public:
  explicit OnDevice(int device) : device_(device) {
    if (device_ < 0 || cudaGetDevice(&current_) != cudaSuccess) current_ = -1;
    if (current_ >= 0 && current_ != device_) cudaSetDevice(device_);
  }
  ~OnDevice() {
    if (current_ >= 0 && current_ != device_) cudaSetDevice(current_);
  }

 private:
  int device_, current_ = -1;
};

// In place: each of `batch` dense rows x cols matrices at data becomes its cols x rows transpose.
void transpose_inplace_host(uintptr_t data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch) {
  xpose::transpose_inplace_host(reinterpret_cast<void*>(data), elem_bytes, rows, cols, batch);
}

// The device workspace bytes the GPU path needs for this layout (0 for square matrices); the
// layouts it does not serve are refused, saying why, before anything is written.
size_t transpose_inplace_workspace(int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch, int device) {
  const OnDevice on(device);
  return xpose::transpose_inplace_workspace(elem_bytes, rows, cols, batch);
}

void transpose_inplace_device(uintptr_t data, int64_t rows, int64_t cols, int64_t elem_bytes, int64_t batch,
                              uintptr_t workspace, size_t workspace_bytes, uintptr_t stream, int device) {
  const OnDevice on(device);  // the C ABI runs on the current device, which must be data's
  xpose::transpose_inplace(reinterpret_cast<void*>(data), elem_bytes, rows, cols, batch,
                           reinterpret_cast<void*>(workspace), workspace_bytes, reinterpret_cast<cudaStream_t>(stream));
}

// FP8 quantization's descriptor from the Python call's fields.
xpose_quantize_desc_t quantize_desc(int input, int64_t rows, int64_t cols, int64_t ld, int format, int scaling,
                                    int scale_layout, int block_rows, int block_cols, bool pow2, double scale) {
  xpose_quantize_desc_t d;
  xpose_quantize_desc_init(&d);
  d.input = input;
  d.rows = rows, d.cols = cols, d.ld = ld;
  d.format = format;
  d.scaling = scaling;
  d.scale_layout = scale_layout;
  d.block_rows = block_rows, d.block_cols = block_cols;
  d.pow2_scales = pow2;
  d.scale = float(scale);
  return d;
}

size_t quantize_scales_bytes(int input, int64_t rows, int64_t cols, int format, int scaling, int scale_layout,
                             int block_rows, int block_cols, bool transposed) {
  return xpose::quantize_scales_bytes(
      quantize_desc(input, rows, cols, 0, format, scaling, scale_layout, block_rows, block_cols, false, 1.0),
      transposed);
}

// Addresses of x and the outputs (0: not written); `stream` < 0 runs the CPU path on host memory,
// else the GPU path on CUDA device `device` (made current for the call).
void quantize(int input, int64_t rows, int64_t cols, int64_t ld, int format, int scaling, int scale_layout,
              int block_rows, int block_cols, bool pow2, double scale, uintptr_t x, uintptr_t data, uintptr_t data_t,
              uintptr_t scales, uintptr_t scales_t, uintptr_t amax, int64_t stream, int device) {
  const xpose_quantize_desc_t d =
      quantize_desc(input, rows, cols, ld, format, scaling, scale_layout, block_rows, block_cols, pow2, scale);
  const auto ptr = [](uintptr_t a) { return reinterpret_cast<void*>(a); };
  const xpose::QuantizeOutputs out{ptr(data), ptr(data_t), ptr(scales), ptr(scales_t), static_cast<float*>(ptr(amax))};
  if (stream < 0)
    xpose::quantize_host(d, ptr(x), out);
  else {
    const OnDevice on(device);
    xpose::quantize(d, ptr(x), out, reinterpret_cast<cudaStream_t>(uintptr_t(stream)));
  }
}

xpose::PermuteShape permute_shape(const std::vector<int64_t>& extents, const std::vector<int>& perm,
                                  const std::vector<int64_t>& src_strides, const std::vector<int64_t>& dst_strides) {
  return xpose::PermuteShape{extents, perm, src_strides, dst_strides};
}

void permute_host(uintptr_t src, uintptr_t dst, int64_t elem_bytes, const std::vector<int64_t>& extents,
                  const std::vector<int>& perm, const std::vector<int64_t>& src_strides,
                  const std::vector<int64_t>& dst_strides) {
  xpose::permute_host(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), elem_bytes,
                      permute_shape(extents, perm, src_strides, dst_strides));
}

void permute_device(uintptr_t src, uintptr_t dst, int64_t elem_bytes, const std::vector<int64_t>& extents,
                    const std::vector<int>& perm, const std::vector<int64_t>& src_strides,
                    const std::vector<int64_t>& dst_strides, uintptr_t stream) {
  xpose::permute(reinterpret_cast<const void*>(src), reinterpret_cast<void*>(dst), elem_bytes,
                 permute_shape(extents, perm, src_strides, dst_strides), reinterpret_cast<cudaStream_t>(stream));
}

// xpose.distributed's plan: the schedule of one rank, run on addresses; the exchange is
// torch.distributed's.
class DistPlan {
 public:
  DistPlan(const std::vector<int64_t>& row_offsets, const std::vector<int64_t>& col_offsets, int64_t batch,
           int64_t elem_bytes, int64_t ld_src, int64_t ld_dst, int rank)
      : plan_(xpose::dist::Split{row_offsets, col_offsets, batch, elem_bytes, ld_src, ld_dst}, rank) {}
  int steps() const { return plan_.steps(); }
  size_t workspace_bytes() const { return plan_.workspace_bytes(); }
  int64_t src_bytes() const { return plan_.src_bytes(); }
  int64_t dst_bytes() const { return plan_.dst_bytes(); }
  // (peer, offset, bytes, padded) per message of a step.
  std::vector<std::vector<int64_t>> sends(int step) const { return rows(plan_.sends(step)); }
  std::vector<std::vector<int64_t>> recvs(int step) const { return rows(plan_.recvs(step)); }
  void own(uintptr_t src, uintptr_t dst, uintptr_t stream) const {
    plan_.transpose_own(ptr(src), ptr(dst), reinterpret_cast<cudaStream_t>(stream));
  }
  void own_step(int step, uintptr_t src, uintptr_t dst, uintptr_t stream) const {
    plan_.transpose_own(step, ptr(src), ptr(dst), reinterpret_cast<cudaStream_t>(stream));
  }
  void pack(int step, uintptr_t src, uintptr_t ws, uintptr_t stream) const {
    plan_.pack(step, ptr(src), ptr(ws), reinterpret_cast<cudaStream_t>(stream));
  }
  void place(int step, uintptr_t ws, uintptr_t dst, uintptr_t stream) const {
    plan_.place(step, ptr(ws), ptr(dst), reinterpret_cast<cudaStream_t>(stream));
  }
  void own_host(uintptr_t src, uintptr_t dst) const { plan_.transpose_own_host(ptr(src), ptr(dst)); }
  void own_step_host(int step, uintptr_t src, uintptr_t dst) const {
    plan_.transpose_own_host(step, ptr(src), ptr(dst));
  }
  void pack_host(int step, uintptr_t src, uintptr_t ws) const { plan_.pack_host(step, ptr(src), ptr(ws)); }
  void place_host(int step, uintptr_t ws, uintptr_t dst) const { plan_.place_host(step, ptr(ws), ptr(dst)); }

 private:
  static void* ptr(uintptr_t p) { return reinterpret_cast<void*>(p); }
  static std::vector<std::vector<int64_t>> rows(const std::vector<xpose::dist::Message>& list) {
    std::vector<std::vector<int64_t>> out;
    for (const auto& m : list) out.push_back({m.peer, int64_t(m.offset), int64_t(m.bytes), int64_t(m.padded)});
    return out;
  }
  xpose::dist::Plan plan_;
};

// ---- The array boundary ----

constexpr int kMaxRank = XPOSE_MAX_RANK;

// One array as the boundary sees it: its first element, extents, strides in elements, element
// size, and where it lives (a CUDA device, or -1: host memory).
struct View {
  const char* name = "x";
  void* data = nullptr;
  int ndim = 0;
  int64_t shape[kMaxRank] = {}, strides[kMaxRank] = {};
  int64_t itemsize = 0;
  int device = -1;
  dl::DataType dtype{};  // where read through DLPack's exchange
};

[[noreturn]] void raise(PyObject* kind, const std::string& fn, const std::string& message) {
  throw nb::builtin_exception(kind == PyExc_TypeError    ? nb::exception_type::type_error
                              : kind == PyExc_ValueError ? nb::exception_type::value_error
                                                         : nb::exception_type::runtime_error,
                              ("xpose." + fn + ": " + message).c_str());
}

std::string tuple_text(const int64_t* v, int n) {
  std::string t = "(";
  for (int i = 0; i < n; ++i) t += (i ? ", " : "") + std::to_string(v[i]);
  return t + (n == 1 ? ",)" : ")");
}

// The library's messages in the caller's terms: x and out, not src and dst.
std::string user_terms(const std::string& message) {
  static const struct { const char* from; const char* to; } words[] = {
      {"src_strides", "x's strides"}, {"dst_strides", "out's strides"}, {"src", "x"}, {"dst", "out"}};
  std::string out;
  for (size_t i = 0; i < message.size();) {
    const bool boundary = i == 0 || !(std::isalnum(static_cast<unsigned char>(message[i - 1])) || message[i - 1] == '_');
    bool replaced = false;
    for (const auto& w : words) {
      const size_t n = std::strlen(w.from);
      const char next = i + n < message.size() ? message[i + n] : ' ';
      if (boundary && message.compare(i, n, w.from) == 0 && !(std::isalnum(static_cast<unsigned char>(next)) || next == '_')) {
        out += w.to;
        i += n;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += message[i++];
  }
  return out;
}

// Plans by layout (device, element size, extents, axes, strides, kernel, and the bases'
// remainders modulo 16, which is all a plan depends on): a repeated call pays for the checks
// of its bases and the launch only. Read and filled with the GIL held; a plan in use stays
// alive through its shared_ptr when the cache is emptied (at kMaxPlans, all at once).
struct Planned {
  xpose_plan_t plan = nullptr;
  Planned() = default;
  Planned(const Planned&) = delete;
  Planned& operator=(const Planned&) = delete;
  ~Planned() { xpose_plan_destroy(plan); }
};
constexpr size_t kMaxPlans = 1024;

std::string plan_key(const View& x, const View& out, int n, const std::vector<int>& axes, const int64_t* x_strides,
                     const int64_t* out_strides, const std::string& kernel) {
  int64_t fields[3 + 4 * kMaxRank];
  int k = 0;
  fields[k++] = x.device;
  fields[k++] = x.itemsize | int64_t(reinterpret_cast<uintptr_t>(x.data) % 16) << 8 |
                int64_t(reinterpret_cast<uintptr_t>(out.data) % 16) << 16 | int64_t(n) << 24;
  for (int i = 0; i < n; ++i) {
    fields[k++] = x.shape[i];
    fields[k++] = axes[size_t(i)];
    fields[k++] = x_strides[i];
    fields[k++] = out_strides[i];
  }
  std::string key(reinterpret_cast<const char*>(fields), sizeof(int64_t) * size_t(k));
  return key + kernel;
}

// The plan of x's permutation into out (strides as the library reads them), made on x's
// device with the GIL released; the library's message where it cannot be made.
xpose_status_t make_plan(const View& x, const View& out, const std::vector<int>& axes, const int64_t* x_strides,
                         const int64_t* out_strides, const std::string& kernel, Planned* made, std::string* message) {
  nb::gil_scoped_release released;
  const OnDevice on(x.device);
  const xpose_status_t status =
      xpose_plan_permute(&made->plan, kernel == "auto" ? nullptr : kernel.c_str(), x.data, out.data, x.ndim, x.shape,
                         axes.data(), x.itemsize, x_strides, out_strides);
  if (status != XPOSE_SUCCESS) *message = xpose_last_error();
  return status;
}

std::shared_ptr<Planned> cached_plan(const View& x, const View& out, int n, const std::vector<int>& axes,
                                     const int64_t* x_strides, const int64_t* out_strides,
                                     const std::string& kernel) {
  static std::unordered_map<std::string, std::shared_ptr<Planned>> plans;
  std::string key = plan_key(x, out, n, axes, x_strides, out_strides, kernel);
  if (auto found = plans.find(key); found != plans.end()) return found->second;
  auto made = std::make_shared<Planned>();
  std::string unused;
  if (make_plan(x, out, axes, x_strides, out_strides, kernel, made.get(), &unused) != XPOSE_SUCCESS)
    return nullptr;  // the call itself says why
  if (plans.size() >= kMaxPlans) plans.clear();
  plans.emplace(std::move(key), made);
  return made;
}

// The call on the device (current already): through its plan, else uncached (the C ABI's
// message for a layout no plan can be made of).
xpose_status_t execute(const std::shared_ptr<Planned>& plan, const View& x, const View& out, int n,
                       const std::vector<int>& axes, const int64_t* x_strides, const int64_t* out_strides,
                       const std::string& kernel, cudaStream_t s) {
  if (plan) return xpose_plan_execute(plan->plan, x.data, out.data, s);
  return kernel == "auto" ? xpose_permute(x.data, out.data, n, x.shape, axes.data(), x.itemsize, x_strides,
                                          out_strides, s)
                          : xpose_permute_with(kernel.c_str(), x.data, out.data, n, x.shape, axes.data(), x.itemsize,
                                               x_strides, out_strides, s);
}

// x's axes permuted into out: the checks every array needs (the library makes the rest: overlap,
// elements that share memory, alignment, int64 overflow), then the call, on x's device.
// The checks of x, out and axes every call and plan make (the library makes the rest: overlap,
// elements that share memory, alignment, int64 overflow); their strides with those of axes of
// one index at 0. False where the result is empty: nothing to move, nothing more to check.
// The shape of x permuted by `axes` into shape[0, x.ndim), axes checked against x's axes.
void result_shape(const std::string& fn, const View& x, const std::vector<int>& axes, int64_t* shape) {
  const int n = x.ndim;
  if (n > kMaxRank) raise(PyExc_ValueError, fn, "x has " + std::to_string(n) + " axes; xpose permutes at most 16");
  if (int(axes.size()) != n) raise(PyExc_ValueError, fn, "axes has " + std::to_string(axes.size()) +
                                                            " entries for the " + std::to_string(n) + " axes of x");
  for (int k = 0; k < n; ++k) {
    if (axes[size_t(k)] < 0 || axes[size_t(k)] >= n) raise(PyExc_ValueError, fn, "axes is not a permutation of x's axes");
    shape[k] = x.shape[axes[size_t(k)]];
  }
}

bool checked(const std::string& fn, const View& x, const View& out, const std::vector<int>& axes,
             const std::string& kernel, int64_t* x_strides, int64_t* out_strides) {
  const int n = x.ndim;
  int64_t shape[kMaxRank];
  result_shape(fn, x, axes, shape);
  if (out.ndim != n || std::memcmp(out.shape, shape, sizeof(int64_t) * size_t(n)) != 0)
    raise(PyExc_ValueError, fn, "out has shape " + tuple_text(out.shape, out.ndim) + "; the result's shape is " +
                                    tuple_text(shape, n));
  if (out.itemsize != x.itemsize)
    raise(PyExc_ValueError, fn, "out has " + std::to_string(out.itemsize) + "-byte elements; x has " +
                                    std::to_string(x.itemsize) + "-byte elements");
  if (x.itemsize != 1 && x.itemsize != 2 && x.itemsize != 4 && x.itemsize != 8 && x.itemsize != 16)
    raise(PyExc_TypeError, fn, "x has " + std::to_string(x.itemsize) +
                                   "-byte elements; xpose moves elements of 1, 2, 4, 8 or 16 bytes");
  if (out.device != x.device)
    raise(PyExc_ValueError, fn, std::string("out is on ") + (out.device < 0 ? "the host" : "cuda:" + std::to_string(out.device)) +
                                    "; x is on " + (x.device < 0 ? "the host" : "cuda:" + std::to_string(x.device)));
  if (x.device < 0 && kernel != "auto")
    raise(PyExc_ValueError, fn, "kernel '" + kernel + "' runs on a GPU; arrays on the host are permuted on the CPU "
                                "(kernel='auto')");
  for (int k = 0; k < n; ++k) if (shape[k] == 0) return false;
  // Strides of an axis of one index address nothing: whatever they are, they become 0.
  for (int k = 0; k < n; ++k) {
    x_strides[k] = x.shape[k] == 1 ? 0 : x.strides[k];
    out_strides[k] = out.shape[k] == 1 ? 0 : out.strides[k];
  }
  for (const auto& [v, strides] : {std::pair{&x, x_strides}, std::pair{&out, out_strides}})
    for (int k = 0; k < n; ++k)
      if (strides[k] < 0)
        raise(PyExc_ValueError, fn, std::string(v->name) + " has negative strides " + tuple_text(v->strides, n) +
                                        " (in elements); make a copy first");
  return true;
}

[[noreturn]] void raise_status(const std::string& fn, xpose_status_t status, const std::string& message) {
  raise(status == XPOSE_ERROR_CUDA ? PyExc_RuntimeError : PyExc_ValueError, fn, user_terms(message));
}

// x's axes permuted into out: the checks, then the call, on x's device (through the plan cache).
void run(const std::string& fn, const View& x, const View& out, const std::vector<int>& axes, uintptr_t stream,
         const std::string& kernel) {
  const int n = x.ndim;
  int64_t x_strides[kMaxRank], out_strides[kMaxRank];
  if (!checked(fn, x, out, axes, kernel, x_strides, out_strides)) return;
  std::shared_ptr<Planned> plan;
  if (x.device >= 0) plan = cached_plan(x, out, n, axes, x_strides, out_strides, kernel);
  xpose_status_t status;
  std::string message;
  {
    nb::gil_scoped_release released;
    if (x.device < 0) {
      try {
        xpose::permute_host(x.data, out.data, x.itemsize,
                            xpose::PermuteShape{{x.shape, x.shape + n}, {axes.begin(), axes.end()},
                                                {x_strides, x_strides + n}, {out_strides, out_strides + n}});
        status = XPOSE_SUCCESS;
      } catch (const xpose::Error& e) {
        status = e.status();
        message = e.what();
      }
    } else {
      const OnDevice on(x.device);
      status = execute(plan, x, out, n, axes, x_strides, out_strides, kernel, reinterpret_cast<cudaStream_t>(stream));
      if (status != XPOSE_SUCCESS) message = xpose_last_error();
    }
  }
  if (status != XPOSE_SUCCESS) raise_status(fn, status, message);
}

// A DLPack or buffer-protocol array's view, or false where nanobind cannot take it (as
// writable, for out): the caller says why.
template <class Array>
void fill(View* v, const Array& a) {
  v->data = const_cast<void*>(static_cast<const void*>(a.data()));
  v->ndim = int(a.ndim());
  v->itemsize = int64_t(a.itemsize());
  for (int k = 0; k < v->ndim && k < kMaxRank; ++k) v->shape[k] = int64_t(a.shape(size_t(k))), v->strides[k] = a.stride(size_t(k));
  const int type = a.device_type();
  v->device = type == nb::device::cuda::value || type == nb::device::cuda_managed::value ? int(a.device_id()) : -1;
}

// x and out as nanobind's ndarray took them: checked in the caller's terms, then permuted.
void permute_ndarrays(const std::string& fn, const nb::ndarray<nb::ro>& xa, const nb::ndarray<>& oa,
                      const std::vector<int>& axes, uintptr_t stream, const std::string& kernel) {
  if (xa.dtype() != oa.dtype()) raise(PyExc_ValueError, fn, "out's dtype differs from x's");
  if (xa.dtype().lanes != 1)
    raise(PyExc_TypeError, fn, "x's elements are vectors of " + std::to_string(xa.dtype().lanes) + " lanes");
  const int device = xa.device_type();
  if (device != nb::device::cpu::value && device != nb::device::cuda::value && device != nb::device::cuda_managed::value)
    raise(PyExc_ValueError, fn, "x lives on DLPack device type " + std::to_string(device) +
                                    "; xpose serves CUDA devices and the CPU");
  View xv, ov;
  if (xa.ndim() > size_t(kMaxRank)) raise(PyExc_ValueError, fn, "x has " + std::to_string(xa.ndim()) + " axes; xpose permutes at most 16");
  fill(&xv, xa);
  ov.name = "out";
  if (oa.ndim() > size_t(kMaxRank)) raise(PyExc_ValueError, fn, "out has " + std::to_string(oa.ndim()) + " axes");
  fill(&ov, oa);
  run(fn, xv, ov, axes, stream, kernel);
}

// x and out of any library nanobind's ndarray takes. Returns false (nothing done) where x or
// out cannot be taken as such (out: as writable); the Python layer then says why.
bool permute_arrays(const std::string& fn, nb::handle x, nb::handle out, const std::vector<int>& axes,
                    uintptr_t stream, const std::string& kernel) {
  nb::ndarray<nb::ro> xa;
  nb::ndarray<> oa;
  if (!nb::try_cast(x, xa, false) || !nb::try_cast(out, oa, false)) return false;  // never a converted copy
  permute_ndarrays(fn, xa, oa, axes, stream, kernel);
  return true;
}

// An array as its fields (PyTorch's tensors: PyTorch reads them faster than it exports DLPack;
// their dtype, device and PyTorch's own rules were checked in Python): device -1 for the CPU.
View fields_view(const std::string& fn, const char* name, uintptr_t data, const std::vector<int64_t>& shape,
                 const std::vector<int64_t>& strides, int64_t itemsize, int device) {
  if (shape.size() > size_t(kMaxRank))
    raise(PyExc_ValueError, fn, std::string(name) + " has " + std::to_string(shape.size()) +
                                    " axes; xpose permutes at most 16");
  if (strides.size() != shape.size())
    raise(PyExc_ValueError, fn, std::string(name) + " has " + std::to_string(strides.size()) + " strides for " +
                                    std::to_string(shape.size()) + " axes");
  View v;
  v.name = name;
  v.data = reinterpret_cast<void*>(data);
  v.ndim = int(shape.size());
  v.itemsize = itemsize;
  v.device = device;
  std::copy(shape.begin(), shape.end(), v.shape);
  std::copy(strides.begin(), strides.end(), v.strides);
  return v;
}

void permute_fields(const std::string& fn, uintptr_t x_data, const std::vector<int64_t>& x_shape,
                    const std::vector<int64_t>& x_strides, uintptr_t out_data, const std::vector<int64_t>& out_shape,
                    const std::vector<int64_t>& out_strides, int64_t itemsize, int device,
                    const std::vector<int>& axes, uintptr_t stream, const std::string& kernel) {
  run(fn, fields_view(fn, "x", x_data, x_shape, x_strides, itemsize, device),
      fields_view(fn, "out", out_data, out_shape, out_strides, itemsize, device), axes, stream, kernel);
}

// ---- PyTorch tensors through DLPack's C exchange API ----
// Where torch.Tensor carries __dlpack_c_exchange_api__ (PyTorch 2.10 and later), a plain tensor's
// fields, PyTorch's current stream and a new result come from PyTorch's C functions: no Python
// call, no torch.Size or tuple made, no Python argument parsing for the allocation. The Python
// layer has checked what only Python can see (autograd, inference tensors, lazy conjugation).

const dl::ExchangeAPI* torch_exchange = nullptr;

// Whether `tensor_type` (torch.Tensor) offers a version-1 table with the functions used here;
// the boundary takes it from then on.
bool use_torch_exchange(nb::handle tensor_type) {
  nb::object capsule = nb::getattr(tensor_type, "__dlpack_c_exchange_api__", nb::none());
  if (!PyCapsule_CheckExact(capsule.ptr())) return false;
  const auto* header = static_cast<const dl::ExchangeHeader*>(PyCapsule_GetPointer(capsule.ptr(), "dlpack_exchange_api"));
  if (header == nullptr) {
    PyErr_Clear();
    return false;
  }
  while (header != nullptr && header->version.major != 1) header = header->prev_api;
  const auto* api = reinterpret_cast<const dl::ExchangeAPI*>(header);
  if (api == nullptr || api->managed_tensor_allocator == nullptr || api->managed_tensor_to_py_object_no_sync == nullptr ||
      api->dltensor_from_py_object_no_sync == nullptr || api->current_work_stream == nullptr)
    return false;
  torch_exchange = api;
  return true;
}

// A DLPack tensor's view (its fields copied: they are borrowed until control returns to Python).
View dl_view(const std::string& fn, const char* name, const dl::Tensor& t) {
  if (t.ndim < 0 || t.ndim > kMaxRank)
    raise(PyExc_ValueError, fn, std::string(name) + " has " + std::to_string(t.ndim) + " axes; xpose permutes at most 16");
  if (t.dtype.lanes != 1 || t.dtype.bits % 8 != 0)
    raise(PyExc_TypeError, fn, std::string(name) + "'s elements are " + std::to_string(t.dtype.bits) + "-bit values in " +
                                   std::to_string(t.dtype.lanes) + " lanes; xpose moves whole bytes");
  const int32_t type = t.device.device_type;
  if (type != dl::kCUDA && type != dl::kCUDAManaged && type != dl::kCPU && type != dl::kCUDAHost)
    raise(PyExc_ValueError, fn, std::string(name) + " lives on DLPack device type " +
                                    std::to_string(t.device.device_type) + "; xpose serves CUDA devices and the CPU");
  View v;
  v.name = name;
  v.data = static_cast<char*>(t.data) + t.byte_offset;
  v.ndim = t.ndim;
  v.itemsize = t.dtype.bits / 8;
  v.device = type == dl::kCUDA || type == dl::kCUDAManaged ? t.device.device_id : -1;  // pinned: host memory
  int64_t dense = 1;
  for (int k = v.ndim - 1; k >= 0; --k) {
    v.shape[k] = t.shape[k];
    v.strides[k] = t.strides != nullptr ? t.strides[k] : dense;
    dense *= t.shape[k];
  }
  return v;
}

// A Python error the exchange left, as one line of the caller's function.
[[noreturn]] void raise_exchange_error(const std::string& fn, const std::string& what) {
  if (PyErr_Occurred() == nullptr) raise(PyExc_RuntimeError, fn, what + " (PyTorch gave no reason)");
  const nb::python_error e;  // fetched and cleared
  std::string message = nb::str(e.value()).c_str();
  message = message.substr(0, message.find('\n'));  // its first line
  raise(PyExc_RuntimeError, fn, what + ": " + nb::str(e.type().attr("__name__")).c_str() + ": " + message);
}

// A PyTorch tensor's view, through the exchange.
View torch_view(const std::string& fn, const char* name, nb::handle tensor) {
  dl::Tensor t{};
  if (torch_exchange->dltensor_from_py_object_no_sync(tensor.ptr(), &t) != 0)
    raise_exchange_error(fn, std::string(name) + " cannot be read through DLPack");
  View v = dl_view(fn, name, t);
  v.dtype = t.dtype;
  return v;
}

// A new dense PyTorch tensor like x of the given shape (PyTorch's allocator, x's device and
// dtype), owned until handed to Python (give) or dropped with the scope.
class NewTensor {
 public:
  NewTensor(const std::string& fn, const View& like, const int64_t* shape)
      : NewTensor(fn, like.device, like.dtype, like.ndim, shape) {}
  // Of `dtype` and `shape` (ndim axes) on CUDA device `device` (the CPU: < 0).
  NewTensor(const std::string& fn, int device, const dl::DataType& dtype, int ndim, const int64_t* shape) {
    dl::Tensor prototype{};
    prototype.device = {device >= 0 ? dl::kCUDA : dl::kCPU, device >= 0 ? device : 0};
    prototype.ndim = ndim;
    prototype.dtype = dtype;
    prototype.shape = const_cast<int64_t*>(shape);
    std::string failure;
    const auto set_error = [](void* context, const char* kind, const char* message) {
      *static_cast<std::string*>(context) = std::string(kind ? kind : "Error") + ": " + (message ? message : "");
    };
    if (torch_exchange->managed_tensor_allocator(&prototype, &tensor_, &failure, set_error) != 0 || tensor_ == nullptr) {
      tensor_ = nullptr;
      PyErr_Clear();
      failure = failure.substr(0, failure.find('\n'));
      raise(PyExc_RuntimeError, fn, "PyTorch could not allocate the result " + tuple_text(shape, ndim) + ": " + failure);
    }
    view_ = dl_view(fn, "out", tensor_->dl_tensor);
  }
  NewTensor(const NewTensor&) = delete;
  NewTensor& operator=(const NewTensor&) = delete;
  ~NewTensor() {
    if (tensor_ != nullptr && tensor_->deleter != nullptr) tensor_->deleter(tensor_);
  }
  const View& view() const { return view_; }
  // The tensor as a torch.Tensor (PyTorch takes it over, whatever happens).
  nb::object give(const std::string& fn) {
    void* result = nullptr;
    dl::ManagedTensorVersioned* given = tensor_;
    tensor_ = nullptr;
    if (torch_exchange->managed_tensor_to_py_object_no_sync(given, &result) != 0 || result == nullptr)
      raise_exchange_error(fn, "the result cannot be handed to PyTorch");
    return nb::steal(static_cast<PyObject*>(result));
  }

 private:
  dl::ManagedTensorVersioned* tensor_ = nullptr;
  View view_;
};

// PyTorch's current stream on x's device (none for the host).
uintptr_t torch_stream(const std::string& fn, const View& x) {
  void* stream = nullptr;
  if (x.device >= 0 && torch_exchange->current_work_stream(dl::kCUDA, x.device, &stream) != 0)
    raise_exchange_error(fn, "PyTorch's current stream cannot be read");
  return reinterpret_cast<uintptr_t>(stream);
}

// PyTorch tensors x (and out, or a new result) permuted by `axes` on PyTorch's current stream;
// out or the new result.
nb::object permute_torch(const std::string& fn, nb::handle x, nb::handle out, const std::vector<int>& axes,
                         const std::string& kernel) {
  const View xv = torch_view(fn, "x", x);
  const uintptr_t stream = torch_stream(fn, xv);
  if (!out.is_none()) {
    const View ov = torch_view(fn, "out", out);
    if (std::memcmp(&ov.dtype, &xv.dtype, sizeof xv.dtype) != 0) raise(PyExc_ValueError, fn, "out's dtype differs from x's");
    run(fn, xv, ov, axes, stream, kernel);
    return nb::borrow(out);
  }
  int64_t shape[kMaxRank];
  result_shape(fn, xv, axes, shape);
  NewTensor result(fn, xv, shape);
  run(fn, xv, result.view(), axes, stream, kernel);
  return result.give(fn);
}

// ---- Plain PyTorch tensors in eager mode, without a Python frame ----
// xpose's public functions hand a plain torch.Tensor here first. Where everything is plain (x and
// out exact torch.Tensors that DLPack's exchange reads, on a CUDA device or the CPU, not lazily
// conjugated or negated; axes a list or tuple of ints; nothing for autograd to record or refuse;
// for a new result, no tracing, torch function or dispatch mode or functorch transform active)
// the call is served here as the Python layer would serve it; anything else returns None and
// the Python layer takes the call (and says what is wrong). The conditions are those of
// _permute_torch, _check_torch_tensor, _check_torch_out and _torch._plain_eager (the exchange
// refuses sparse, quantized and meta tensors itself).
struct TorchQueries {
  PyTypeObject* tensor = nullptr;
  nb::object grad_enabled, tracing, function_modes, dispatch_modes, functorch;
  nb::object is_conj = nb::str("is_conj"), is_neg = nb::str("is_neg"), is_inference = nb::str("is_inference"),
             requires_grad = nb::str("requires_grad");
};
TorchQueries* torch_queries = nullptr;  // set once, kept for the module's life

// Whether torch (the module) has every query the fast path asks; from then on it is used.
bool use_torch_fast(nb::handle torch) {
  if (torch_exchange == nullptr) return false;
  auto q = std::make_unique<TorchQueries>();
  try {
    nb::object tensor = torch.attr("Tensor");
    nb::object C = torch.attr("_C");
    q->grad_enabled = torch.attr("is_grad_enabled");
    q->tracing = C.attr("_is_tracing");
    q->function_modes = C.attr("_len_torch_function_stack");
    q->dispatch_modes = C.attr("_len_torch_dispatch_stack");
    q->functorch = C.attr("_are_functorch_transforms_active");
    if (!PyType_Check(tensor.ptr())) return false;
    q->tensor = reinterpret_cast<PyTypeObject*>(tensor.release().ptr());  // a reference kept
  } catch (const nb::python_error&) {
    return false;  // a PyTorch without one of them: the Python layer serves every call
  }
  if (torch_queries == nullptr) torch_queries = q.release();
  return true;
}

// The Python truth of a new reference (consumed); a query that fails counts as true, so that
// the Python layer takes the call.
bool truthy(PyObject* value) {
  const int t = value != nullptr ? PyObject_IsTrue(value) : -1;
  Py_XDECREF(value);
  if (t < 0) PyErr_Clear();
  return t != 0;
}
bool attr_true(nb::handle o, const nb::object& name) { return truthy(PyObject_GetAttr(o.ptr(), name.ptr())); }
bool method_true(nb::handle o, const nb::object& name) { return truthy(PyObject_CallMethodNoArgs(o.ptr(), name.ptr())); }
bool call_true(const nb::object& f) { return truthy(PyObject_CallNoArgs(f.ptr())); }

// t's view where t is a plain tensor (above), else false.
bool plain_view(const TorchQueries& q, nb::handle t, const char* name, View* v) {
  if (Py_TYPE(t.ptr()) != q.tensor) return false;
  dl::Tensor d{};
  if (torch_exchange->dltensor_from_py_object_no_sync(t.ptr(), &d) != 0) {
    PyErr_Clear();
    return false;
  }
  const int32_t type = d.device.device_type;
  if (d.ndim < 0 || d.ndim > kMaxRank || d.dtype.lanes != 1 || d.dtype.bits % 8 != 0 ||
      (type != dl::kCUDA && type != dl::kCPU && type != dl::kCUDAHost))
    return false;
  if (method_true(t, q.is_conj) || method_true(t, q.is_neg)) return false;
  *v = dl_view("", name, d);
  v->dtype = d.dtype;
  return true;
}

// out's view where out is a plain tensor of `dtype` on `device` that PyTorch lets a call with
// x write (not an inference tensor; no gradient to refuse), else false.
bool plain_out(const TorchQueries& q, nb::handle x, nb::handle out, const dl::DataType& dtype, int device, View* ov) {
  return plain_view(q, out, "out", ov) && std::memcmp(&ov->dtype, &dtype, sizeof dtype) == 0 && ov->device == device &&
         !method_true(out, q.is_inference) &&
         !(call_true(q.grad_enabled) && (attr_true(x, q.requires_grad) || attr_true(out, q.requires_grad)));
}

// The axes of a plain call: a list or tuple of nd ints (negative ones from the end), each axis
// once; None reverses them where `reverse_none` (NumPy's reading). False: the Python layer reads them.
bool plain_axes(nb::handle axes, int nd, bool reverse_none, std::vector<int>* out) {
  if (axes.is_none()) {
    for (int k = nd - 1; k >= 0; --k) out->push_back(k);
    return reverse_none;
  }
  PyObject* seq = axes.ptr();
  if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) return false;
  if (PySequence_Fast_GET_SIZE(seq) != nd) return false;
  PyObject** items = PySequence_Fast_ITEMS(seq);
  uint32_t seen = 0;
  for (int k = 0; k < nd; ++k) {
    if (!PyLong_CheckExact(items[k])) return false;
    int overflow = 0;
    long d = PyLong_AsLongAndOverflow(items[k], &overflow);
    if (overflow != 0) return false;
    if (d < 0) d += nd;
    if (d < 0 || d >= nd || (seen >> d & 1u) != 0) return false;
    seen |= 1u << d;
    out->push_back(int(d));
  }
  return true;
}

// The axes of xpose.<fn>(x of nd axes, axes): fn "matrix_transpose" and "transpose" swap the
// last two (axes unread); the others read axes as plain_axes does. False: the Python layer
// reads them (and says what is wrong).
bool plain_dims(const std::string& fn, int nd, nb::handle axes, std::vector<int>* dims) {
  if (fn == "matrix_transpose" || fn == "transpose") {
    if (nd < 2) return false;
    for (int k = 0; k < nd; ++k) dims->push_back(k);
    std::swap((*dims)[size_t(nd) - 1], (*dims)[size_t(nd) - 2]);
    return true;
  }
  return plain_axes(axes, nd, fn == "permute", dims);
}

// xpose.<fn>(x, axes, out) where all is plain, else None. fn "matrix_transpose" and "transpose"
// swap the last two axes (axes unread).
nb::object torch_call(const std::string& fn, nb::handle x, nb::handle axes, nb::handle out) {
  const TorchQueries* q = torch_queries;
  View xv, ov;
  if (q == nullptr || !plain_view(*q, x, "x", &xv)) return nb::none();
  std::vector<int> dims;
  if (!plain_dims(fn, xv.ndim, axes, &dims)) return nb::none();
  if (out.is_none()) {
    if ((call_true(q->grad_enabled) && attr_true(x, q->requires_grad)) || call_true(q->tracing) || call_true(q->function_modes) ||
        call_true(q->dispatch_modes) || call_true(q->functorch))
      return nb::none();
    int64_t shape[kMaxRank];
    result_shape(fn, xv, dims, shape);
    NewTensor result(fn, xv, shape);
    run(fn, xv, result.view(), dims, torch_stream(fn, xv), "auto");
    return result.give(fn);
  }
  if (!plain_out(*q, x, out, xv.dtype, xv.device, &ov))
    return nb::none();  // the Python layer serves it, or says what is wrong in PyTorch's terms
  run(fn, xv, ov, dims, torch_stream(fn, xv), "auto");
  return nb::borrow(out);
}

// ---- Plain NumPy arrays, without a Python frame ----
// The Python layer's fast path for an exact numpy.ndarray (and out one, or None) in C++: the same
// steps (axes read, a new result from numpy.empty, permute_arrays), None wherever that path would
// hand the call on (axes it must read, an out of another dtype or read-only, an array nanobind's
// ndarray does not take), so that messages stay the Python layer's.
struct NumpyQueries {
  PyTypeObject* ndarray = nullptr;
  nb::object empty, dtype = nb::str("dtype");
};
NumpyQueries* numpy_queries = nullptr;  // set once, kept for the module's life

// Whether numpy (the module) has what numpy_call uses; from then on it is used.
bool use_numpy_fast(nb::handle numpy) {
  auto q = std::make_unique<NumpyQueries>();
  try {
    nb::object ndarray = numpy.attr("ndarray");
    q->empty = numpy.attr("empty");
    if (!PyType_Check(ndarray.ptr())) return false;
    q->ndarray = reinterpret_cast<PyTypeObject*>(ndarray.release().ptr());  // a reference kept
  } catch (const nb::python_error&) {
    return false;
  }
  if (numpy_queries == nullptr) numpy_queries = q.release();
  return true;
}

nb::object numpy_call(const NumpyQueries& q, const std::string& fn, nb::handle x, nb::handle axes, nb::handle out) {
  if (!out.is_none() && Py_TYPE(out.ptr()) != q.ndarray) return nb::none();
  nb::ndarray<nb::ro> xa;
  if (!nb::try_cast(x, xa, false) || xa.ndim() > size_t(kMaxRank)) return nb::none();
  std::vector<int> dims;
  if (!plain_dims(fn, int(xa.ndim()), axes, &dims)) return nb::none();
  nb::object result = nb::borrow(out);
  if (out.is_none()) {
    std::vector<int64_t> shape;
    for (const int d : dims) shape.push_back(int64_t(xa.shape(size_t(d))));
    result = q.empty(nb::cast(shape), x.attr(q.dtype));
  }
  nb::ndarray<> oa;
  if (!nb::try_cast(result, oa, false) || oa.dtype() != xa.dtype()) return nb::none();
  permute_ndarrays(fn, xa, oa, dims, 0, "auto");  // x taken once
  return result;
}

// xpose.<fn>(x, axes, out) for a plain PyTorch tensor (torch_call) or NumPy array (numpy_call)
// x, else None.
nb::object plain_call(const std::string& fn, nb::handle x, nb::handle axes, nb::handle out) {
  if (numpy_queries != nullptr && Py_TYPE(x.ptr()) == numpy_queries->ndarray)
    return numpy_call(*numpy_queries, fn, x, axes, out);
  return torch_call(fn, x, axes, out);
}

// xpose.quantize(x, ...) of a plain PyTorch CUDA tensor x in eager mode (no gradient asked,
// no tracing, mode or transform active): the request's descriptor fields as the Python layer
// checked them from x, which they must describe; every output a new tensor on x's device
// (PyTorch's allocator; None where not wanted: `want` of data, data_t, scales, scales_t,
// amax), the call on PyTorch's current stream. A tuple (data, data_t, scales, scales_t, amax),
// or None where the Python path must take the call (an empty x, whose amax it zeroes; a
// PyTorch whose DLPack has no float8).
nb::object torch_quantize(nb::handle x, int input, int64_t rows, int64_t cols, int64_t ld, int format, int scaling,
                          int scale_layout, int block_rows, int block_cols, bool pow2, double scale,
                          const std::array<bool, 5>& want, const std::vector<int64_t>& scales_shape,
                          const std::vector<int64_t>& scales_t_shape) {
  static const std::string fn = "quantize";
  const TorchQueries* q = torch_queries;
  View xv;
  if (rows == 0 || cols == 0 || q == nullptr || !plain_view(*q, x, "x", &xv) || xv.device < 0 || xv.ndim != 2 ||
      xv.shape[0] != rows || xv.shape[1] != cols || (call_true(q->grad_enabled) && attr_true(x, q->requires_grad)) ||
      call_true(q->tracing) || call_true(q->function_modes) || call_true(q->dispatch_modes) || call_true(q->functorch))
    return nb::none();
  // DLPack's type codes (dlpack.h 1.1): float, float8_e4m3fn, float8_e5m2, float8_e8m0fnu
  constexpr uint8_t kFloat = 2, kE4m3fn = 10, kE5m2 = 12, kE8m0fnu = 14;
  const dl::DataType fp8{format == 0 ? kE4m3fn : kE5m2, 8, 1};
  const dl::DataType scale_type = scaling == 3 ? dl::DataType{kE8m0fnu, 8, 1} : dl::DataType{kFloat, 32, 1};
  const dl::DataType fp32{kFloat, 32, 1};
  const int64_t none[1] = {0}, data_shape[2] = {rows, cols}, data_t_shape[2] = {cols, rows};
  const struct {
    dl::DataType dtype;
    int ndim;
    const int64_t* shape;
  } outputs[5] = {{fp8, 2, data_shape},
                  {fp8, 2, data_t_shape},
                  {scale_type, int(scales_shape.size()), scales_shape.data()},
                  {scale_type, int(scales_t_shape.size()), scales_t_shape.data()},
                  {fp32, 0, none}};
  std::optional<NewTensor> made[5];  // the outputs asked for (None for the others: no allocation)
  void* at[5] = {};
  for (int k = 0; k < 5; ++k) {
    if (!want[size_t(k)]) continue;
    try {
      made[k].emplace(fn, xv.device, outputs[k].dtype, outputs[k].ndim, outputs[k].shape);
    } catch (const std::exception&) {  // nanobind's exceptions too
      if (k < 4) return nb::none();  // float8 refused: PyTorch's own allocation (the Python path) then
      throw;
    }
    at[k] = made[k]->view().data;
  }
  {
    const xpose_quantize_desc_t d =
        quantize_desc(input, rows, cols, ld, format, scaling, scale_layout, block_rows, block_cols, pow2, scale);
    const xpose::QuantizeOutputs out{at[0], at[1], at[2], at[3], static_cast<float*>(at[4])};
    const uintptr_t stream = torch_stream(fn, xv);
    nb::gil_scoped_release released;
    const OnDevice on(xv.device);
    xpose::quantize(d, xv.data, out, reinterpret_cast<cudaStream_t>(stream));
  }
  nb::object given[5];
  for (int k = 0; k < 5; ++k) given[k] = made[k] ? made[k]->give(fn) : nb::none();
  return nb::make_tuple(given[0], given[1], given[2], given[3], given[4]);
}

// xpose.Plan's native half: a permutation of one layout of x and out (as fields), checked and
// planned once on their device; execute takes arrays of that layout and re-checks their bases.
class ArrayPlan {
 public:
  ArrayPlan(const std::string& fn, uintptr_t x_data, const std::vector<int64_t>& x_shape,
            const std::vector<int64_t>& x_strides, uintptr_t out_data, const std::vector<int64_t>& out_shape,
            const std::vector<int64_t>& out_strides, int64_t itemsize, int device, const std::vector<int>& axes,
            const std::string& kernel)
      : fn_(fn), axes_(axes), kernel_(kernel) {
    x_ = fields_view(fn, "x", x_data, x_shape, x_strides, itemsize, device);
    out_ = fields_view(fn, "out", out_data, out_shape, out_strides, itemsize, device);
    if (device < 0) raise(PyExc_TypeError, fn, "plans run on a GPU; x is on the host (call xpose.permute_dims)");
    int64_t xs[kMaxRank] = {}, os[kMaxRank] = {};
    empty_ = !checked(fn, x_, out_, axes_, kernel_, xs, os);
    if (!empty_) {  // compared at execute as the library reads them
      std::copy(xs, xs + x_.ndim, x_.strides);
      std::copy(os, os + out_.ndim, out_.strides);
    }
    std::string message;
    if (const xpose_status_t status = make_plan(x_, out_, axes_, x_.strides, out_.strides, kernel_, &plan_, &message);
        status != XPOSE_SUCCESS)
      raise_status(fn, status, message);
  }

  void execute(uintptr_t x_data, const std::vector<int64_t>& x_shape, const std::vector<int64_t>& x_strides,
               uintptr_t out_data, const std::vector<int64_t>& out_shape, const std::vector<int64_t>& out_strides,
               int64_t itemsize, int device, uintptr_t stream) const {
    const View x = fields_view(fn_, "x", x_data, x_shape, x_strides, itemsize, device);
    const View out = fields_view(fn_, "out", out_data, out_shape, out_strides, itemsize, device);
    launch(x, out, stream);
  }

  // PyTorch tensors through DLPack's exchange: out, or a new dense result (PyTorch's allocator).
  nb::object execute_torch(nb::handle x, nb::handle out) const {
    const View xv = torch_view(fn_, "x", x);
    const uintptr_t stream = torch_stream(fn_, xv);
    if (!out.is_none()) {
      launch(xv, torch_view(fn_, "out", out), stream);
      return nb::borrow(out);
    }
    same_layout(xv, x_);  // before anything is allocated
    NewTensor result(fn_, xv, out_.shape);
    launch(xv, result.view(), stream);
    return result.give(fn_);
  }

  // A plain PyTorch tensor's dtype (through DLPack's exchange), for call_plain.
  void plain_dtype(nb::handle x) {
    const TorchQueries* q = torch_queries;
    View v;
    if (q != nullptr && plain_view(*q, x, "x", &v)) dtype_ = v.dtype, plain_ = true;
  }

  // Plain PyTorch tensors of the plan's dtype on a CUDA device (out as plain_out takes it),
  // served without a Python check; else None, and xpose.Plan's Python half takes the call.
  nb::object call_plain(nb::handle x, nb::handle out) const {
    const TorchQueries* q = torch_queries;
    View xv, ov;
    if (!plain_ || q == nullptr || !plain_view(*q, x, "x", &xv) || xv.device < 0 ||
        std::memcmp(&xv.dtype, &dtype_, sizeof dtype_) != 0)
      return nb::none();
    const uintptr_t stream = torch_stream(fn_, xv);
    if (out.is_none()) {
      same_layout(xv, x_);  // before anything is allocated
      NewTensor result(fn_, xv, out_.shape);
      launch(xv, result.view(), stream);
      return result.give(fn_);
    }
    if (!plain_out(*q, x, out, dtype_, xv.device, &ov)) return nb::none();
    launch(xv, ov, stream);
    return nb::borrow(out);
  }

  std::string explain() const { return xpose_plan_explain(plan_.plan); }

 private:
  // x into out, each checked to have the plan's layout, on `stream` of x's device.
  void launch(const View& x, const View& out, uintptr_t stream) const {
    same_layout(x, x_);
    same_layout(out, out_);
    if (empty_) return;
    xpose_status_t status;
    std::string message;
    {
      nb::gil_scoped_release released;
      const OnDevice on(x.device);
      status = xpose_plan_execute(plan_.plan, x.data, out.data, reinterpret_cast<cudaStream_t>(stream));
      if (status != XPOSE_SUCCESS) message = xpose_last_error();
    }
    if (status != XPOSE_SUCCESS) raise_status(fn_, status, message);
  }

  // `v` is laid out as `planned` (strides of axes of one index aside), else ValueError.
  void same_layout(const View& v, const View& planned) const {
    bool same = v.ndim == planned.ndim && v.itemsize == planned.itemsize && v.device == planned.device;
    for (int k = 0; same && k < v.ndim; ++k)
      same = v.shape[k] == planned.shape[k] && (empty_ || v.shape[k] == 1 || v.strides[k] == planned.strides[k]);
    if (same) return;
    const auto where = [](int d) { return d < 0 ? std::string("the host") : "cuda:" + std::to_string(d); };
    raise(PyExc_ValueError, fn_, std::string(v.name) + " has shape " + tuple_text(v.shape, v.ndim) + ", strides " +
                                     tuple_text(v.strides, v.ndim) + ", " + std::to_string(v.itemsize) +
                                     "-byte elements on " + where(v.device) + "; the plan is for shape " +
                                     tuple_text(planned.shape, planned.ndim) + ", strides " +
                                     tuple_text(planned.strides, planned.ndim) + ", " +
                                     std::to_string(planned.itemsize) + "-byte elements on " + where(planned.device));
  }

  std::string fn_;
  View x_, out_;
  std::vector<int> axes_;
  std::string kernel_;
  Planned plan_;
  bool empty_ = false;
  bool plain_ = false;  // dtype_ read
  dl::DataType dtype_{};
};

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (const auto& k : xpose::kernel_list()) names.push_back(k.name);
  return names;
}

}  // namespace

NB_MODULE(_xpose, m) {
  m.doc() = "xpose's native calls; use xpose.transpose";
  m.def("version", [] { return xpose_version(); }, "the library's version, MAJOR.MINOR.PATCH of xpose.h");
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const xpose::Error& e) {
      PyErr_SetString(e.status() == XPOSE_ERROR_CUDA ? PyExc_RuntimeError : PyExc_ValueError, e.what());
    }
  });
  m.def("transpose_host", &transpose_host, "src"_a, "dst"_a, "elem_bytes"_a, "rows"_a, "cols"_a, "ld_src"_a,
        "ld_dst"_a, "batch"_a, "stride_src"_a, "stride_dst"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("transpose_device", &transpose_device, "src"_a, "dst"_a, "elem_bytes"_a, "rows"_a, "cols"_a, "ld_src"_a,
        "ld_dst"_a, "batch"_a, "stride_src"_a, "stride_dst"_a, "stream"_a, "kernel"_a,
        nb::call_guard<nb::gil_scoped_release>());
  m.def("permute_host", &permute_host, "src"_a, "dst"_a, "elem_bytes"_a, "extents"_a, "perm"_a, "src_strides"_a,
        "dst_strides"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("permute_device", &permute_device, "src"_a, "dst"_a, "elem_bytes"_a, "extents"_a, "perm"_a, "src_strides"_a,
        "dst_strides"_a, "stream"_a, nb::call_guard<nb::gil_scoped_release>());
  m.def("kernel_names", &kernel_names);
  const auto no_gil = nb::call_guard<nb::gil_scoped_release>();
  m.def("transpose_inplace_host", &transpose_inplace_host, "data"_a, "rows"_a, "cols"_a, "elem_bytes"_a, "batch"_a,
        no_gil);
  m.def("transpose_inplace_workspace", &transpose_inplace_workspace, "rows"_a, "cols"_a, "elem_bytes"_a, "batch"_a,
        "device"_a);
  m.def("transpose_inplace_device", &transpose_inplace_device, "data"_a, "rows"_a, "cols"_a, "elem_bytes"_a,
        "batch"_a, "workspace"_a, "workspace_bytes"_a, "stream"_a, "device"_a, no_gil);
  m.def("quantize_scales_bytes", &quantize_scales_bytes, "input"_a, "rows"_a, "cols"_a, "format"_a, "scaling"_a,
        "scale_layout"_a, "block_rows"_a, "block_cols"_a, "transposed"_a);
  m.def("quantize", &quantize, "input"_a, "rows"_a, "cols"_a, "ld"_a, "format"_a, "scaling"_a, "scale_layout"_a,
        "block_rows"_a, "block_cols"_a, "pow2"_a, "scale"_a, "x"_a, "data"_a, "data_t"_a, "scales"_a, "scales_t"_a,
        "amax"_a, "stream"_a, "device"_a, no_gil);
#ifdef XPOSE_JAX_FFI
  // The XLA FFI handlers (xpose.jax registers them): {target: {platform: capsule}}.
  m.def("jax_targets", [] {
    nb::dict permute, quantize, targets;
    permute["CUDA"] = nb::capsule(xpose_python::jax_permute_cuda());
    permute["cpu"] = nb::capsule(xpose_python::jax_permute_cpu());
    quantize["CUDA"] = nb::capsule(xpose_python::jax_quantize_cuda());
    quantize["cpu"] = nb::capsule(xpose_python::jax_quantize_cpu());
    targets["xpose_permute"] = permute;
    targets["xpose_quantize"] = quantize;
    return targets;
  });
#endif
  m.def("torch_quantize", &torch_quantize, "x"_a, "input"_a, "rows"_a, "cols"_a, "ld"_a, "format"_a, "scaling"_a,
        "scale_layout"_a, "block_rows"_a, "block_cols"_a, "pow2"_a, "scale"_a, "want"_a, "scales_shape"_a,
        "scales_t_shape"_a);
  m.def("permute_arrays", &permute_arrays, "fn"_a, "x"_a, "out"_a, "axes"_a, "stream"_a, "kernel"_a);
  m.def("use_torch_exchange", &use_torch_exchange, "tensor_type"_a);
  m.def("permute_torch", &permute_torch, "fn"_a, "x"_a, "out"_a.none(), "axes"_a, "kernel"_a);
  m.def("use_torch_fast", &use_torch_fast, "torch"_a);
  m.def("torch_call", &torch_call, "fn"_a, "x"_a, "axes"_a.none(), "out"_a.none());
  m.def("use_numpy_fast", &use_numpy_fast, "numpy"_a);
  m.def("plain_call", &plain_call, "fn"_a, "x"_a, "axes"_a.none(), "out"_a.none());
  m.def("permute_fields", &permute_fields, "fn"_a, "x_data"_a, "x_shape"_a, "x_strides"_a, "out_data"_a,
        "out_shape"_a, "out_strides"_a, "itemsize"_a, "device"_a, "axes"_a, "stream"_a, "kernel"_a);
  nb::class_<ArrayPlan>(m, "ArrayPlan")
      .def(nb::init<const std::string&, uintptr_t, const std::vector<int64_t>&, const std::vector<int64_t>&, uintptr_t,
                    const std::vector<int64_t>&, const std::vector<int64_t>&, int64_t, int, const std::vector<int>&,
                    const std::string&>(),
           "fn"_a, "x_data"_a, "x_shape"_a, "x_strides"_a, "out_data"_a, "out_shape"_a, "out_strides"_a,
           "itemsize"_a, "device"_a, "axes"_a, "kernel"_a)
      .def("execute", &ArrayPlan::execute, "x_data"_a, "x_shape"_a, "x_strides"_a, "out_data"_a, "out_shape"_a,
           "out_strides"_a, "itemsize"_a, "device"_a, "stream"_a)
      .def("execute_torch", &ArrayPlan::execute_torch, "x"_a, "out"_a.none())
      .def("plain_dtype", &ArrayPlan::plain_dtype, "x"_a)
      .def("call_plain", &ArrayPlan::call_plain, "x"_a, "out"_a.none())
      .def("explain", &ArrayPlan::explain);
  const auto released = nb::call_guard<nb::gil_scoped_release>();
  nb::class_<DistPlan>(m, "DistPlan")
      .def(nb::init<const std::vector<int64_t>&, const std::vector<int64_t>&, int64_t, int64_t, int64_t, int64_t, int>(),
           "row_offsets"_a, "col_offsets"_a, "batch"_a, "elem_bytes"_a, "ld_src"_a, "ld_dst"_a, "rank"_a)
      .def_prop_ro("steps", &DistPlan::steps)
      .def_prop_ro("workspace_bytes", &DistPlan::workspace_bytes)
      .def_prop_ro("src_bytes", &DistPlan::src_bytes)
      .def_prop_ro("dst_bytes", &DistPlan::dst_bytes)
      .def("sends", &DistPlan::sends)
      .def("recvs", &DistPlan::recvs)
      .def("own", &DistPlan::own, released)
      .def("own_step", &DistPlan::own_step, released)
      .def("pack", &DistPlan::pack, released)
      .def("place", &DistPlan::place, released)
      .def("own_host", &DistPlan::own_host, released)
      .def("own_step_host", &DistPlan::own_step_host, released)
      .def("pack_host", &DistPlan::pack_host, released)
      .def("place_host", &DistPlan::place_host, released);
}
