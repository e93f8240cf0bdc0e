// The XLA FFI handlers of jax_ffi.cpp, for the module to hand to jax.ffi.register_ffi_target.
#pragma once

namespace xpose_python {

void* jax_permute_cuda();
void* jax_permute_cpu();
void* jax_quantize_cuda();
void* jax_quantize_cpu();

}  // namespace xpose_python
