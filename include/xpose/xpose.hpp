// xpose: the C++ API, over the same engine as the C ABI in xpose.h.
//
//   xpose::transpose(src, dst, rows, cols, stream);           // typed, throws xpose::Error
//   xpose::transpose(src, dst, xpose::Shape{...}, stream);    // ld, batch and strides
//   xpose::kernel_list();                                     // the named kernels
//   xpose::permute_kernel_list();                             // and the N-D ones
//   xpose::explain_choice(src, dst, sizeof(T), shape);        // what would run, and why
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "xpose/xpose.h"

namespace xpose {

// A failed call: the C status and the library's one-line message.
class XPOSE_API Error : public std::runtime_error {
 public:
  Error(xpose_status_t status, const std::string& message) : std::runtime_error(message), status_(status) {}
  xpose_status_t status() const noexcept { return status_; }

 private:
  xpose_status_t status_;
};

// The problem description, counts in elements; 0 means the default, as in xpose.h.
struct Shape {
  int64_t rows = 0, cols = 0;
  int64_t ld_src = 0, ld_dst = 0;
  int64_t batch = 1, stride_src = 0, stride_dst = 0;
};

struct KernelInfo {
  std::string name;     // what xpose_transpose_with takes
  std::string summary;  // one line: the technique
};

// Every named kernel, in ladder order (slowest technique first).
XPOSE_API std::vector<KernelInfo> kernel_list();
// The N-D permutation kernels xpose_permute_with takes besides those, in the order the
// automatic choice tries them.
XPOSE_API std::vector<KernelInfo> permute_kernel_list();

// A request's layout with every default resolved: ld and batch strides filled in, and
// pitches that address nothing (one row, one column, batch 1) at their packed values.
struct Layout {
  Shape shape;
  int64_t elem_bytes = 0;
  int64_t bytes = 0;           // rows x cols x batch x elem_bytes: what each side holds
  int64_t src_span_bytes = 0;  // from src's first element to one past its last
  int64_t dst_span_bytes = 0;  // likewise for dst: what a caller allocates
};

// Checks a request as xpose_transpose would, pointers aside, and resolves its defaults.
// Throws xpose::Error (XPOSE_ERROR_INVALID_ARGUMENT) where the request is wrong.
XPOSE_API Layout resolve(int64_t elem_bytes, const Shape& shape);

// What a call would launch on the current device, and why, without launching it.
struct Explanation {
  std::string kernel;  // the kernel's name
  std::string rule;    // the automatic choice's rule (README, "The automatic choice"); empty when named
  std::string tuning;  // the tuning record the device selected; empty when named
  std::string text;    // one line: rule, kernel, grid, block, tile, and why
};

// `kernel` null or empty means the automatic choice. Throws xpose::Error where the call
// would fail (an empty problem explains itself as nothing to do).
XPOSE_API Explanation explain_choice(const void* src, void* dst, int64_t elem_bytes, const Shape& shape,
                           const char* kernel = nullptr);

// explain_choice(...).text for the automatic choice.
XPOSE_API std::string explain(const void* src, void* dst, int64_t elem_bytes, const Shape& shape);

// The automatic choice as data: its rules in the order they are tried, and the tuning
// records whose thresholds they read (one per GPU family, the defaults last).
struct RuleInfo {
  std::string id, kernel;
  std::string condition;  // in words; `name` is the tuning parameter of that name
  std::string reason;     // why that kernel there
  std::string launch;     // the kernel's launch, in words
  bool built = true;      // false where this build lacks the kernel (the rule is skipped)
};
XPOSE_API std::vector<RuleInfo> rules();
// The same for permutations that are no batched transpose once reduced: the N-D kernels' rules.
XPOSE_API std::vector<RuleInfo> permute_rules();

struct TuningParameter {
  std::string name, meaning;
  bool bytes = false;  // a size in bytes (else a count)
};
XPOSE_API std::vector<TuningParameter> tuning_parameters();

struct TuningRecord {
  std::string name;            // "H100", "H200", "other GPUs"
  std::string selects;         // which devices take it, in words
  std::vector<int64_t> values; // one per tuning_parameters(), in order
};
XPOSE_API std::vector<TuningRecord> tuning_records();

// The name of the record the current device selects. Throws xpose::Error without a device.
XPOSE_API std::string current_tuning();

// The CPU path: the reference transpose on host memory, using all cores. Same
// semantics and argument checks as the GPU path (less the device-pointer checks). Where the
// process cannot start threads (a process or address-space limit), it runs on those it has,
// the caller's own at least: never an error for want of threads.
XPOSE_API void transpose_host(const void* src, void* dst, int64_t elem_bytes, const Shape& shape);

inline void check(xpose_status_t status) {
  if (status != XPOSE_SUCCESS) throw Error(status, xpose_last_error());
}

// Untyped: elem_bytes is 1, 2, 4, 8 or 16. `kernel` null or empty means the automatic choice.
inline void transpose(const void* src, void* dst, int64_t elem_bytes, const Shape& s, cudaStream_t stream = nullptr,
                      const char* kernel = nullptr) {
  check(kernel && *kernel ? xpose_transpose_with(kernel, src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst,
                                                 s.batch, s.stride_src, s.stride_dst, stream)
                          : xpose_transpose(src, dst, s.rows, s.cols, elem_bytes, s.ld_src, s.ld_dst, s.batch,
                                            s.stride_src, s.stride_dst, stream));
}

// In place (xpose_transpose_inplace): each of `batch` dense rows x cols matrices at data becomes
// its dense cols x rows transpose in the same memory; `workspace` at least
// transpose_inplace_workspace's bytes of device memory (none for square matrices).
inline size_t transpose_inplace_workspace(int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch = 1) {
  size_t bytes = 0;
  check(xpose_transpose_inplace_workspace(rows, cols, elem_bytes, batch, &bytes));
  return bytes;
}
inline void transpose_inplace(void* data, int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch = 1,
                              void* workspace = nullptr, size_t workspace_bytes = 0, cudaStream_t stream = nullptr) {
  check(xpose_transpose_inplace(data, rows, cols, elem_bytes, batch, workspace, workspace_bytes, stream));
}
// What xpose_transpose_inplace runs for this layout (data: a base like the one it will run on,
// null for a 16-byte-aligned one), in one line. Throws xpose::Error where the call would fail.
XPOSE_API std::string explain_inplace(int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch = 1,
                                      const void* data = nullptr);
// The CPU path on host memory, every shape, all cores; the same argument checks.
XPOSE_API void transpose_inplace_host(void* data, int64_t elem_bytes, int64_t rows, int64_t cols, int64_t batch = 1);

// FP8 quantization (xpose_quantize): desc from xpose_quantize_desc_init; each output optional.
struct QuantizeOutputs {
  void* data = nullptr;
  void* data_t = nullptr;
  void* scales = nullptr;
  void* scales_t = nullptr;
  float* amax = nullptr;
};
inline void quantize(const xpose_quantize_desc_t& desc, const void* x, const QuantizeOutputs& out,
                     cudaStream_t stream = nullptr) {
  check(xpose_quantize(&desc, x, out.data, out.data_t, out.scales, out.scales_t, out.amax, stream));
}
inline size_t quantize_scales_bytes(const xpose_quantize_desc_t& desc, bool transposed) {
  size_t bytes = 0;
  check(xpose_quantize_scales_bytes(&desc, transposed ? 1 : 0, &bytes));
  return bytes;
}
// The CPU path on host memory: the reference the GPU is checked against, bit for bit (one core).
XPOSE_API void quantize_host(const xpose_quantize_desc_t& desc, const void* x, const QuantizeOutputs& out);

// An N-D permutation (xpose_permute): dst = numpy.transpose(src, perm). Counts in elements;
// empty strides mean dense row-major (src in its shape, dst in the permuted shape).
struct PermuteShape {
  std::vector<int64_t> extents;  // src's extents
  std::vector<int> perm;         // dst axis k is src axis perm[k]
  std::vector<int64_t> src_strides, dst_strides;
};

// The sizes of a PermuteShape's vectors agree (else xpose::Error, invalid argument).
inline void check_sizes(const PermuteShape& s) {
  const size_t rank = s.extents.size();
  const auto refuse = [&](const char* what, size_t n) {
    throw Error(XPOSE_ERROR_INVALID_ARGUMENT, std::string(what) + " has " + std::to_string(n) + " entries; extents has " +
                                                  std::to_string(rank));
  };
  if (s.perm.size() != rank) refuse("perm", s.perm.size());
  if (!s.src_strides.empty() && s.src_strides.size() != rank) refuse("src_strides", s.src_strides.size());
  if (!s.dst_strides.empty() && s.dst_strides.size() != rank) refuse("dst_strides", s.dst_strides.size());
}

// Untyped: elem_bytes is 1, 2, 4, 8 or 16. `kernel` null or empty means the automatic choice.
inline void permute(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& s,
                    cudaStream_t stream = nullptr, const char* kernel = nullptr) {
  check_sizes(s);
  const int64_t* src_strides = s.src_strides.empty() ? nullptr : s.src_strides.data();
  const int64_t* dst_strides = s.dst_strides.empty() ? nullptr : s.dst_strides.data();
  const int rank = s.extents.size() > size_t(XPOSE_MAX_RANK) ? XPOSE_MAX_RANK + 1 : int(s.extents.size());
  check(kernel && *kernel ? xpose_permute_with(kernel, src, dst, rank, s.extents.data(), s.perm.data(), elem_bytes,
                                               src_strides, dst_strides, stream)
                          : xpose_permute(src, dst, rank, s.extents.data(), s.perm.data(), elem_bytes, src_strides,
                                          dst_strides, stream));
}

template <class T>
void permute(const T* src, T* dst, const PermuteShape& s, cudaStream_t stream = nullptr, const char* kernel = nullptr) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "xpose permutes elements of 1, 2, 4, 8 or 16 bytes");
  permute(static_cast<const void*>(src), static_cast<void*>(dst), int64_t(sizeof(T)), s, stream, kernel);
}

// What xpose_permute would launch, and why (the permutation's normalized form, and the rule
// and kernel of the transpose it is). Throws xpose::Error where the call would fail.
XPOSE_API Explanation explain_permute(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& shape,
                                      const char* kernel = nullptr);

// The CPU path for permutations: the reference on host memory, with the same checks.
XPOSE_API void permute_host(const void* src, void* dst, int64_t elem_bytes, const PermuteShape& shape);

// A plan (xpose.h's xpose_plan_t), owned: a layout checked and its kernel chosen once on the
// current device, executed on any src and dst of that layout. Move-only; const members may be
// called from several threads at once.
//
//   auto plan = xpose::Plan::permute(sizeof(float), {{8, 64, 3}, {2, 0, 1}});
//   plan.execute(src, dst, stream);   // as often as needed
class Plan {
 public:
  // `src` and `dst`: bases like those it will execute on (only their addresses modulo 16 are
  // read; null for aligned ones). `kernel` null or empty: the automatic choice.
  static Plan transpose(int64_t elem_bytes, const Shape& s, const char* kernel = nullptr, const void* src = nullptr,
                        const void* dst = nullptr) {
    Plan p;
    check(xpose_plan_transpose(&p.plan_, kernel && *kernel ? kernel : nullptr, src, dst, s.rows, s.cols, elem_bytes,
                               s.ld_src, s.ld_dst, s.batch, s.stride_src, s.stride_dst));
    return p;
  }
  static Plan permute(int64_t elem_bytes, const PermuteShape& s, const char* kernel = nullptr,
                      const void* src = nullptr, const void* dst = nullptr) {
    check_sizes(s);
    Plan p;
    const int rank = s.extents.size() > size_t(XPOSE_MAX_RANK) ? XPOSE_MAX_RANK + 1 : int(s.extents.size());
    check(xpose_plan_permute(&p.plan_, kernel && *kernel ? kernel : nullptr, src, dst, rank, s.extents.data(),
                             s.perm.data(), elem_bytes, s.src_strides.empty() ? nullptr : s.src_strides.data(),
                             s.dst_strides.empty() ? nullptr : s.dst_strides.data()));
    return p;
  }

  Plan(Plan&& other) noexcept : plan_(other.plan_) { other.plan_ = nullptr; }
  Plan& operator=(Plan&& other) noexcept {
    if (this != &other) {
      xpose_plan_destroy(plan_);
      plan_ = other.plan_;
      other.plan_ = nullptr;
    }
    return *this;
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() { xpose_plan_destroy(plan_); }

  void execute(const void* src, void* dst, cudaStream_t stream = nullptr) const {
    check(xpose_plan_execute(plan_, src, dst, stream));
  }
  std::string explain() const { return xpose_plan_explain(plan_); }
  xpose_plan_t get() const noexcept { return plan_; }  // null once moved from

 private:
  Plan() = default;
  xpose_plan_t plan_ = nullptr;
};

// Typed: any trivially copyable T of 1, 2, 4, 8 or 16 bytes (int8_t, __half, float,
// double, cuDoubleComplex, ...).
template <class T>
void transpose(const T* src, T* dst, const Shape& s, cudaStream_t stream = nullptr, const char* kernel = nullptr) {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16,
                "xpose transposes elements of 1, 2, 4, 8 or 16 bytes");
  transpose(static_cast<const void*>(src), static_cast<void*>(dst), int64_t(sizeof(T)), s, stream, kernel);
}

template <class T>
void transpose(const T* src, T* dst, int64_t rows, int64_t cols, cudaStream_t stream = nullptr) {
  transpose(src, dst, Shape{rows, cols}, stream);
}

}  // namespace xpose
