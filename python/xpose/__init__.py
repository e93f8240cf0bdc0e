"""xpose: matrix transpose on NVIDIA GPUs at the speed of a memory copy.

    import xpose
    y = xpose.transpose(x)          # x: (rows, cols) or (batch, rows, cols); y: (..., cols, rows)

PyTorch and CuPy arrays on a CUDA device run on that library's current stream and never
synchronize; NumPy arrays (and PyTorch CPU tensors) run on the CPU path. Any element of
1, 2, 4, 8 or 16 bytes (bool, fp8, fp16, bf16, fp32, fp64, complex64, complex128, integers).
Rows may be padded or sliced (the last axis contiguous): they are read in place through
their strides. The result is an array of the caller's library, or `out` (whose rows may
be padded the same way).
"""

from . import _xpose

__all__ = ["transpose", "kernels"]

_ITEMSIZES = (1, 2, 4, 8, 16)


def kernels():
    """The named kernels `transpose(kernel=...)` accepts besides "auto", in ladder order."""
    return list(_xpose.kernel_names())


class _Array:
    """What the native call needs to know about one array: its library, where it lives,
    its extents and its strides in elements."""

    def __init__(self, x, what):
        kind = type(x).__module__.split(".")[0]
        if kind == "numpy":
            import numpy as np

            if not isinstance(x, np.ndarray):
                raise TypeError(f"xpose.transpose: {what} must be an array, not {type(x).__name__}")
            if x.dtype.hasobject:
                raise TypeError(f"xpose.transpose: {what} holds Python objects (dtype {x.dtype}); "
                                "xpose moves elements of 1, 2, 4, 8 or 16 bytes")
            self.ptr, self.shape, self.itemsize = x.ctypes.data, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), None, x.dtype
        elif kind == "torch":
            self.ptr, self.shape, self.itemsize = x.data_ptr(), tuple(x.shape), x.element_size()
            self.byte_strides = tuple(s * x.element_size() for s in x.stride())
            self.device = x.device if x.device.type == "cuda" else None
            if x.device.type not in ("cuda", "cpu"):
                raise ValueError(f"xpose.transpose: {what} is on {x.device}; xpose serves CUDA devices and the CPU")
            self.dtype = x.dtype
        elif kind == "cupy":
            self.ptr, self.shape, self.itemsize = x.data.ptr, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), x.device, x.dtype
        else:
            raise TypeError(f"xpose.transpose: {what} must be a PyTorch tensor, a CuPy array or a NumPy array, "
                            f"not {type(x).__module__}.{type(x).__name__}")
        self.kind, self.array = kind, x
        if self.itemsize not in _ITEMSIZES:
            raise TypeError(f"xpose.transpose: {what} has {self.itemsize}-byte elements ({self.dtype}); "
                            "xpose moves elements of 1, 2, 4, 8 or 16 bytes")
        if any(s % self.itemsize for s in self.byte_strides):
            raise ValueError(f"xpose.transpose: {what}'s strides {self.byte_strides} are not whole elements")
        self.strides = tuple(s // self.itemsize for s in self.byte_strides)

    def matrix_layout(self, what):
        """(batch, rows, cols, ld, batch_stride) of a 2-D or 3-D array, ld and stride 0 where unused."""
        if len(self.shape) not in (2, 3):
            raise ValueError(f"xpose.transpose: {what} must be 2-D (rows, cols) or 3-D (batch, rows, cols); "
                             f"got {len(self.shape)}-D")
        batch = self.shape[0] if len(self.shape) == 3 else 1
        rows, cols = self.shape[-2:]
        if 0 in self.shape:  # nothing to read: any strides will do
            return batch, rows, cols, 0, 0
        s_batch = self.strides[0] if len(self.shape) == 3 else 0
        s_row, s_col = self.strides[-2:]
        if cols > 1 and s_col != 1:
            if what == "out":
                raise ValueError(f"xpose.transpose: out's last axis has stride {s_col}; xpose writes rows whose "
                                 "elements are adjacent (stride 1): pass an out whose last axis is contiguous")
            raise ValueError(f"xpose.transpose: {what}'s last axis has stride {s_col}; xpose reads rows whose "
                             "elements are adjacent (stride 1). Make a copy with a contiguous last axis first "
                             "(numpy.ascontiguousarray, tensor.contiguous(), cupy.ascontiguousarray)")
        if min(self.strides, default=0) < 0:
            raise ValueError(f"xpose.transpose: {what} has negative strides {self.strides}; make a copy first")
        return batch, rows, cols, (s_row if rows > 1 else 0), (s_batch if batch > 1 else 0)

    def is_contiguous(self):
        expect, stride = [], 1
        for n in reversed(self.shape):
            expect.append(stride)
            stride *= n
        return all(s == e or n <= 1 for s, e, n in zip(self.strides, reversed(expect), self.shape))

    def span(self):
        """The byte range the array touches (empty arrays touch nothing)."""
        if 0 in self.shape:
            return self.ptr, self.ptr
        last = sum((n - 1) * s for n, s in zip(self.shape, self.byte_strides))
        return self.ptr, self.ptr + last + self.itemsize


def _allocate(src, shape):
    x = src.array
    if src.kind == "numpy":
        import numpy as np

        return np.empty(shape, dtype=x.dtype)
    if src.kind == "torch":
        import torch

        return torch.empty(shape, dtype=x.dtype, device=x.device)
    import cupy

    with x.device:
        return cupy.empty(shape, dtype=x.dtype)


def _stream(src):
    if src.kind == "torch":
        import torch

        return torch.cuda.current_stream(src.device).cuda_stream
    import cupy

    return cupy.cuda.get_current_stream().ptr


def transpose(x, out=None, kernel="auto"):
    """Transposes the last two axes of `x` (2-D, or 3-D for a batch of matrices).

    Returns `out` if given (it must have the result's shape and dtype, a contiguous last
    axis (its rows may be padded or sliced, like x's), live where `x` does and not overlap
    it), else a new array of x's library. `kernel` names one
    of `xpose.kernels()` instead of the automatic choice (GPU arrays only). Raises
    TypeError for an array type or element size xpose does not serve, ValueError for a
    layout, `out` or kernel it cannot use, RuntimeError when CUDA fails; on any error
    nothing is written to `out`. PyTorch tensors without `out` go through the custom op
    `torch.ops.xpose.transpose`, so the call works under torch.compile and carries a
    gradient (the gradient of a transpose is the transpose of the gradient).
    """
    if out is None and type(x).__module__.split(".")[0] == "torch":
        from . import _torch

        return _torch.transpose_op(x, kernel)
    return _transpose(x, out, kernel)


def _transpose(x, out=None, kernel="auto"):
    src = _Array(x, "x")
    batch, rows, cols, ld_src, stride_src = src.matrix_layout("x")
    if not isinstance(kernel, str):
        raise TypeError(f"xpose.transpose: kernel must be a string, not {type(kernel).__name__}")
    if kernel != "auto" and kernel not in kernels():
        raise ValueError(f"xpose.transpose: unknown kernel '{kernel}'; known: auto, " + ", ".join(kernels()))
    if src.device is None and kernel != "auto":
        raise ValueError(f"xpose.transpose: kernel '{kernel}' runs on a GPU; arrays on the host are transposed "
                         "on the CPU (kernel='auto')")

    shape = ((batch,) if len(src.shape) == 3 else ()) + (cols, rows)
    if out is None:
        out = _allocate(src, shape)
        dst = _Array(out, "out")
    else:
        dst = _Array(out, "out")
        if dst.kind != src.kind:
            raise TypeError(f"xpose.transpose: out is a {dst.kind} array but x is a {src.kind} array")
        if dst.shape != shape:
            raise ValueError(f"xpose.transpose: out has shape {dst.shape}; the result's shape is {shape}")
        if dst.dtype != src.dtype:
            raise ValueError(f"xpose.transpose: out has dtype {dst.dtype}; x has dtype {src.dtype}")
        if dst.device != src.device:
            raise ValueError(f"xpose.transpose: out is on {dst.device or 'the host'}; x is on "
                             f"{src.device or 'the host'}")
        (a0, a1), (b0, b1) = src.span(), dst.span()
        if a0 < b1 and b0 < a1:
            raise ValueError("xpose.transpose: out overlaps x; a transpose cannot run in place")
    _, _, _, ld_dst, stride_dst = dst.matrix_layout("out")

    args = (src.ptr, dst.ptr, src.itemsize, rows, cols, ld_src, ld_dst, batch, stride_src, stride_dst)
    if src.device is None:
        _xpose.transpose_host(*args)
    elif src.kind == "torch":
        import torch

        with torch.cuda.device(src.device):
            _xpose.transpose_device(*args, _stream(src), kernel)
    else:
        with src.device:
            _xpose.transpose_device(*args, _stream(src), kernel)
    return out
