// The Python package's native part: the xpose calls on raw addresses. xpose/__init__.py
// reads the arrays (through __array_interface__ / __cuda_array_interface__), checks them,
// allocates results in the caller's library, and passes addresses, extents and strides
// here; errors come back as xpose::Error and leave as ValueError or RuntimeError.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <vector>

#include "xpose/distributed.hpp"
#include "xpose/xpose.h"
#include "xpose/xpose.hpp"

namespace nb = nanobind;
using namespace nb::literals;

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
