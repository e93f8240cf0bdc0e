// DLPack's C exchange API (DLPack 1.2 and later), declared as the boundary uses it: a producer
// library (PyTorch 2.10 and later) puts a capsule named "dlpack_exchange_api" on its array type
// as __dlpack_c_exchange_api__, holding a table of C functions that read an array's fields,
// give the library's current stream and allocate arrays, with no Python call in between.
// The layouts are DLPack's ABI (dlpack.h, version 1.x); only what xpose_ext.cpp reads is named.
#pragma once

#include <cstdint>

namespace xpose_python::dl {

enum DeviceType : int32_t { kCPU = 1, kCUDA = 2, kCUDAHost = 3, kCUDAManaged = 13 };

struct Device {
  int32_t device_type;
  int32_t device_id;
};

struct DataType {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
};

struct Tensor {
  void* data;
  Device device;
  int32_t ndim;
  DataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means dense (row-major) before DLPack 1.2
  uint64_t byte_offset;
};

struct Version {
  uint32_t major;
  uint32_t minor;
};

struct ManagedTensorVersioned {
  Version version;
  void* manager_ctx;
  void (*deleter)(ManagedTensorVersioned* self);
  uint64_t flags;
  Tensor dl_tensor;
};

struct ExchangeHeader {
  Version version;
  ExchangeHeader* prev_api;  // an older table, for consumers of an older major version
};

struct ExchangeAPI {
  ExchangeHeader header;
  // A new array of the prototype's dtype, ndim, shape and device; SetError is called exactly
  // when it fails (returning nonzero).
  int (*managed_tensor_allocator)(Tensor* prototype, ManagedTensorVersioned** out, void* error_ctx,
                                  void (*set_error)(void* error_ctx, const char* kind, const char* message));
  int (*managed_tensor_from_py_object_no_sync)(void* py_object, ManagedTensorVersioned** out);
  // Takes ownership of `tensor` and gives the library's array (a new reference).
  int (*managed_tensor_to_py_object_no_sync)(ManagedTensorVersioned* tensor, void** out_py_object);
  // The fields of a Python array into `out`, borrowed until control returns to Python; may be NULL.
  int (*dltensor_from_py_object_no_sync)(void* py_object, Tensor* out);
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_current_stream);
};

}  // namespace xpose_python::dl
