// The Python boundary's primitives (probe.py times them): nb::ndarray import of any array,
// read-only or writable, beside the raw-address call xpose makes today.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/vector.h>
namespace nb = nanobind;
int64_t take(nb::ndarray<nb::ro> x) { return x.ndim() ? x.shape(0) + x.stride(0) : 0; }
int64_t take_w(nb::ndarray<> x) { return x.ndim() ? x.shape(0) + x.stride(0) : 0; }
int64_t take2(nb::ndarray<nb::ro> x, nb::ndarray<> y, const std::vector<int>& axes, uintptr_t s) { return x.shape(0) + y.shape(0) + axes.size() + s; }
int64_t raw(uintptr_t a, uintptr_t b, int64_t e, const std::vector<int64_t>& ext, const std::vector<int>& p, const std::vector<int64_t>& s1, const std::vector<int64_t>& s2) { return a + b + e + ext.size(); }
NB_MODULE(probe, mod) { mod.def("take", &take); mod.def("take_w", &take_w); mod.def("take2", &take2); mod.def("raw", &raw); }
