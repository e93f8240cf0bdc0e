"""Host microseconds per call of the pieces a Python boundary is made of, for NumPy, PyTorch,
CuPy and JAX arrays on the GPU machine: nanobind's nb::ndarray import (DLPack or the buffer
protocol), the tensor attributes a raw-address call reads, result allocation, the current
stream, and each library's own permute-and-copy for scale. Best of 5 repeats of N calls.
    python3 probe.py   (with probe.*.so built beside it: cmake -S . -B b && cmake --build b)"""
import sys
import timeit

sys.path.insert(0, "b")
import probe  # noqa: E402

N = 3000


def us(f, n=N):
    f()
    return min(timeit.repeat(f, number=n, repeat=5)) / n * 1e6


def row(lib, what, f):
    try:
        print(f"| {lib} | {what} | {us(f):.2f} |", flush=True)
    except Exception as e:  # a primitive a library lacks
        print(f"| {lib} | {what} | {type(e).__name__}: {str(e).splitlines()[0][:80]} |", flush=True)


print("| library | what | host us/call |\n|---|---|---:|")
import numpy as np  # noqa: E402

a = np.random.rand(64, 64).astype(np.float32)
b = np.empty((64, 64), np.float32)
row("numpy", "nb::ndarray<ro> import", lambda: probe.take(a))
row("numpy", "nb::ndarray import x, out + axes", lambda: probe.take2(a, b, [1, 0], 0))
row("numpy", "raw call incl. .ctypes.data", lambda: probe.raw(a.ctypes.data, b.ctypes.data, 4, [64, 64], [1, 0], [64, 1], [64, 1]))
row("numpy", "np.copyto(b, a.T)", lambda: np.copyto(b, a.T))

try:
    import torch
    x = torch.randn(64, 64, device="cuda")
    y = torch.empty(64, 64, device="cuda")
    idx = x.device.index
    row("torch", "nb::ndarray<ro> import (__dlpack__)", lambda: probe.take(x))
    row("torch", "nb::ndarray import x, out + axes", lambda: probe.take2(x, y, [1, 0], 0))
    row("torch", "x.__dlpack__()", lambda: x.__dlpack__())
    row("torch", "x.__dlpack__(stream=-1)", lambda: x.__dlpack__(stream=-1))
    row("torch", "data_ptr, shape, stride, element_size", lambda: (x.data_ptr(), x.shape, x.stride(), x.element_size()))
    row("torch", "x.device", lambda: x.device)
    row("torch", "x.dtype, x.is_cuda, x.requires_grad", lambda: (x.dtype, x.is_cuda, x.requires_grad))
    row("torch", "_cuda_getCurrentRawStream", lambda: torch._C._cuda_getCurrentRawStream(idx))
    row("torch", "torch.empty(shape, dtype, device)", lambda: torch.empty((64, 64), dtype=x.dtype, device=x.device))
    row("torch", "x.new_empty(shape)", lambda: x.new_empty((64, 64)))
    row("torch", "torch.empty_strided", lambda: torch.empty_strided((64, 64), (64, 1), dtype=x.dtype, device=x.device))
    row("torch", "x.permute(1, 0).contiguous()", lambda: x.permute(1, 0).contiguous())
    row("torch", "x.t().contiguous()", lambda: x.t().contiguous())
    row("torch", "y.copy_(x.t())", lambda: y.copy_(x.t()))
    x3 = torch.randn(8, 16, 32, device="cuda")
    row("torch", "x.permute(2, 0, 1).contiguous()", lambda: x3.permute(2, 0, 1).contiguous())
    row("torch", "torch.is_grad_enabled, is_inference", lambda: (torch.is_grad_enabled(), x.is_inference()))
    torch.cuda.synchronize()
except ImportError as e:
    print(f"| torch | absent | {e} |")

try:
    import cupy as cp
    c = cp.random.rand(64, 64, dtype=cp.float32)
    d = cp.empty((64, 64), cp.float32)
    row("cupy", "nb::ndarray<ro> import", lambda: probe.take(c))
    row("cupy", "nb::ndarray import x, out + axes", lambda: probe.take2(c, d, [1, 0], 0))
    row("cupy", "get_current_stream().ptr", lambda: cp.cuda.get_current_stream().ptr)
    row("cupy", "cp.empty", lambda: cp.empty((64, 64), cp.float32))
    row("cupy", "cp.ascontiguousarray(c.T)", lambda: cp.ascontiguousarray(c.T))
    cp.cuda.Device().synchronize()
except ImportError as e:
    print(f"| cupy | absent | {e} |")

try:
    import jax
    import jax.numpy as jnp
    j = jnp.ones((64, 64), jnp.float32)
    jb = jnp.ones((64, 64), jnp.bfloat16)
    row("jax", "nb::ndarray<ro> import", lambda: probe.take(j))
    row("jax", "nb::ndarray<ro> import bf16", lambda: probe.take(jb))
    jt = jax.jit(lambda v: v.T)
    row("jax", "jit(v.T) call", lambda: jt(j))
    print("jax devices:", jax.devices())
except ImportError as e:
    print(f"| jax | absent | {e} |")
