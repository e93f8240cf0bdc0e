"""xpose: matrix transpose on NVIDIA GPUs at the speed of a memory copy.

    import xpose
    y = xpose.transpose(x)          # x: (rows, cols) or (batch, rows, cols); y: (..., cols, rows)

PyTorch and CuPy arrays on a CUDA device run on that library's current stream and never
synchronize; NumPy arrays (and PyTorch CPU tensors) run on the CPU path. Arrays of other
libraries that speak DLPack (JAX, ...) are seen without a copy as NumPy, PyTorch or CuPy
arrays and get their result back as their own library's array (no `out` for them). Any element of
1, 2, 4, 8 or 16 bytes (bool, fp8, fp16, bf16, fp32, fp64, complex64, complex128, integers).
Rows may be padded or sliced (the last axis contiguous): they are read in place through
their strides. A broadcast axis of x (stride 0) is transposed once and copied along by the
array library itself. The result is an array of the caller's library, or `out` (whose rows
may be padded the same way). Subclasses are their library's arrays: a new result for an
ndarray subclass is x.__array_wrap__(result), as NumPy makes one (np.matrix stays a matrix);
masked arrays are refused (their mask would not move).
"""

import collections.abc
import itertools
import operator
import sys

from . import _xpose
__version__ = _xpose.version()

__all__ = ["transpose", "permute", "kernels"]

_ITEMSIZES = (1, 2, 4, 8, 16)
_COPY_ADVICE = "numpy.ascontiguousarray(x), x.contiguous() or cupy.ascontiguousarray(x)"


def _error(kind, message, fn="transpose"):
    return kind(f"xpose.{fn}: " + message)


def kernels():
    """The named kernels `transpose(kernel=...)` accepts besides "auto", in ladder order."""
    return list(_xpose.kernel_names())


def _alignment(itemsize):
    """The address an element must sit on: its size, but 8 bytes for 16-byte elements (NumPy
    aligns complex128 to 8; the library moves those as 8-byte pairs where needed)."""
    return min(itemsize, 8)


def _library(x):
    """"numpy", "torch" or "cupy" where x is an array of that library (a subclass included),
    else None. A library not yet imported holds no array of its own: none is imported here."""
    for name, kind in (("numpy", "ndarray"), ("torch", "Tensor"), ("cupy", "ndarray")):
        lib = sys.modules.get(name)
        if lib is not None and isinstance(x, getattr(lib, kind, ())):
            return name
    return None


class _Array:
    """What the native call needs to know about one array: its library, where it lives,
    its extents and its strides in elements. Reading it checks only what every use needs
    (a strided array of a served element size); the layout checks differ for x and out."""

    def __init__(self, x, what, fn="transpose", ranks=(2, 3)):
        self.fn = fn
        kind = _library(x)
        self.writable = True
        if kind == "numpy":
            ma = sys.modules.get("numpy.ma")
            if ma is not None and isinstance(x, ma.MaskedArray):  # its mask would be lost or left stale
                raise _error(TypeError, f"{what} is a masked array ({type(x).__name__}), whose mask xpose would "
                                        f"not move: pass {what}.data or {what}.filled(...), or transpose the data "
                                        "and the mask (numpy.ma.getmaskarray) separately", fn)
            if x.dtype.hasobject:
                raise _error(TypeError, f"{what} holds Python objects (dtype {x.dtype}); "
                                        "xpose moves elements of 1, 2, 4, 8 or 16 bytes", fn)
            self.ptr, self.shape, self.itemsize = x.ctypes.data, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), None, x.dtype
            self.writable = bool(x.flags.writeable)
        elif kind == "torch":
            import torch

            device = x.device  # each read of Tensor.device makes a new object: read it once
            if device.type not in ("cuda", "cpu"):
                raise _error(ValueError, f"{what} is on {device}; xpose serves CUDA devices and the CPU", fn)
            if x.layout != torch.strided or x.is_quantized:
                raise _error(TypeError, f"{what} is a {'quantized' if x.is_quantized else x.layout} tensor; "
                                        "xpose moves the elements of dense (strided) tensors", fn)
            if x.is_conj() or x.is_neg():
                lazy = "conjugated" if x.is_conj() else "negated"
                fix = "resolve_conj()" if x.is_conj() else "resolve_neg()"
                raise _error(ValueError, f"{what} is a lazily {lazy} view whose memory holds the values before "
                                         f"that; call {what}.{fix} first", fn)
            itemsize = x.element_size()
            self.ptr, self.shape, self.itemsize = x.data_ptr(), tuple(x.shape), itemsize
            self.byte_strides = tuple(s * itemsize for s in x.stride())
            self.device = device if device.type == "cuda" else None
            self.dtype = x.dtype
        elif kind == "cupy":
            self.ptr, self.shape, self.itemsize = x.data.ptr, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), x.device, x.dtype
        else:
            raise _error(TypeError, f"{what} must be a PyTorch tensor, a CuPy array or a NumPy array, "
                                    f"not {type(x).__module__}.{type(x).__name__}", fn)
        self.kind, self.array, self.what = kind, x, what
        if self.itemsize not in _ITEMSIZES:
            raise _error(TypeError, f"{what} has {self.itemsize}-byte elements ({self.dtype}); "
                                    "xpose moves elements of 1, 2, 4, 8 or 16 bytes", fn)
        if ranks and len(self.shape) not in ranks:
            raise _error(ValueError, f"{what} must be 2-D (rows, cols) or 3-D (batch, rows, cols); "
                                     f"got {len(self.shape)}-D", fn)
        # An axis of one index addresses nothing, and an empty array nothing at all: such
        # strides, whatever they are, are never used.
        used = [n > 1 and 0 not in self.shape for n in self.shape]
        if any(s % self.itemsize for u, s in zip(used, self.byte_strides) if u):
            raise _error(ValueError, f"{what}'s strides {self.byte_strides} (bytes) are not whole "
                                     f"{self.itemsize}-byte elements", fn)
        self.strides = tuple(s // self.itemsize if u else 0 for u, s in zip(used, self.byte_strides))

    def empty(self):
        return 0 in self.shape

    def broadcast_axes(self):
        """The axes that repeat one element (stride 0, more than one index)."""
        return [a for a, (n, s) in enumerate(zip(self.shape, self.strides)) if n > 1 and s == 0]

    def check_common_layout(self):
        """What both sides need: no negative strides, a last axis of adjacent elements,
        data aligned to the element size."""
        what = self.what
        if min(self.strides) < 0:
            raise _error(ValueError, f"{what} has negative strides {self.strides} (in elements); make a copy first "
                                     f"({_COPY_ADVICE})")
        if self.shape[-1] > 1 and self.strides[-1] not in (0, 1):
            if what == "out":
                raise _error(ValueError, f"out's last axis has stride {self.strides[-1]}; xpose writes rows whose "
                                         "elements are adjacent (stride 1): pass an out whose last axis is "
                                         "contiguous")
            raise _error(ValueError, f"x's last axis has stride {self.strides[-1]}; xpose reads rows whose "
                                     f"elements are adjacent (stride 1). Make a copy with a contiguous last axis "
                                     f"first ({_COPY_ADVICE})")
        if self.ptr % _alignment(self.itemsize):
            raise _error(ValueError, f"{what}'s data at address {self.ptr:#x} is not aligned to its "
                                     f"{self.itemsize}-byte elements; make an aligned copy first "
                                     f"(numpy.array({what}) allocates one)")

    def check_readable(self):
        """x, once its broadcast axes are taken at index 0: rows that do not overlap."""
        rows, cols = self.shape[-2:]
        s_row = self.strides[-2]
        if rows > 1 and 0 < s_row < cols:
            raise _error(ValueError, f"x's rows overlap: shape {self.shape} with strides {self.strides} "
                                     f"(in elements) starts a row every {s_row} elements but rows hold {cols}; "
                                     f"make a copy first ({_COPY_ADVICE})")

    def check_distinct(self):
        """out: no broadcast axis. Whether other strides give every element memory of its own
        the library decides (it proves layouts that interleave distinct, names two indices at
        one element, or says it cannot prove it) before anything is written."""
        if self.broadcast_axes():
            axis = self.broadcast_axes()[0]
            raise _error(ValueError, f"out's axis {axis} has stride 0 (a broadcast axis of shape {self.shape}): "
                                     "its elements share memory; pass an out with memory of its own for every "
                                     "element")
        rows, cols = self.shape[-2:]
        if rows > 1 and cols > 1 and self.strides[-2] < cols:  # its rows overlap (the last axis is contiguous)
            raise _error(ValueError, f"out's elements overlap one another: shape {self.shape} with strides "
                                     f"{self.strides} (in elements) starts a row every {self.strides[-2]} elements "
                                     f"but rows hold {cols}; pass an out with memory of its own for every element")

    def matrix_layout(self):
        """(batch, rows, cols, ld, batch_stride) for the C call, ld and stride 0 where unused."""
        batch = self.shape[0] if len(self.shape) == 3 else 1
        rows, cols = self.shape[-2:]
        if self.empty():  # nothing to read: any strides will do
            return batch, rows, cols, 0, 0
        return batch, rows, cols, (self.strides[-2] if rows > 1 else 0), (self.strides[0] if batch > 1 else 0)

    def span(self):
        """The byte range the array touches (empty arrays touch nothing)."""
        if self.empty():
            return self.ptr, self.ptr
        last = sum((n - 1) * s for n, s in zip(self.shape, self.strides))
        return self.ptr, self.ptr + last * self.itemsize + self.itemsize


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


def _check_torch_out(x, out):
    """Refuses, as torch does, an out that autograd or inference mode forbids writing."""
    import torch

    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise _error(RuntimeError, "out is an inference tensor: in-place update to an inference tensor outside "
                                   "InferenceMode is not allowed (make a clone outside InferenceMode)")
    if torch.is_grad_enabled() and (out.requires_grad or x.requires_grad):
        raise _error(RuntimeError, "functions with out=... arguments don't support automatic differentiation, "
                                   "but one of the arguments requires grad (call without out, or under "
                                   "torch.no_grad())")


def _check_out(src, out, shape):
    dst = _Array(out, "out")
    if dst.kind != src.kind:
        raise _error(TypeError, f"out is a {dst.kind} array but x is a {src.kind} array")
    if dst.shape != shape:
        raise _error(ValueError, f"out has shape {dst.shape}; the result's shape is {shape}")
    if dst.dtype != src.dtype:
        raise _error(ValueError, f"out has dtype {dst.dtype}; x has dtype {src.dtype}")
    if dst.device != src.device:
        raise _error(ValueError, f"out is on {dst.device or 'the host'}; x is on {src.device or 'the host'}")
    if dst.kind == "torch":
        _check_torch_out(src.array, out)
    if not dst.writable:  # also for an empty out: a read-only array is never a result
        raise _error(ValueError, "out is read-only (flags.writeable is False); pass a writable array")
    if dst.empty():
        return dst
    dst.check_common_layout()
    dst.check_distinct()
    (a0, a1), (b0, b1) = src.span(), dst.span()
    if a0 < b1 and b0 < a1:
        raise _error(ValueError, "out overlaps x; a transpose cannot run in place")
    return dst


def _on_device(src):
    """The context that makes x's GPU current (for the C call and the library's own copy)."""
    if src.device is None:
        import contextlib

        return contextlib.nullcontext()
    if src.kind == "torch":
        import torch

        if src.device.index == torch.cuda.current_device():  # already current: no switch and back
            import contextlib

            return contextlib.nullcontext()
        return torch.cuda.device(src.device)
    return src.device  # a CuPy Device is its own context


def _torch_stream(device):
    """PyTorch's current stream on `device` (a CUDA torch.device), as a pointer."""
    import torch

    try:
        return torch._C._cuda_getCurrentRawStream(device.index)  # what Inductor's kernels launch on
    except AttributeError:  # a PyTorch without it
        return torch.cuda.current_stream(device).cuda_stream


def _launch(src, dst, kernel):
    """The C call on two checked arrays of equal rank (dst has src's last two extents swapped)."""
    batch, rows, cols, ld_src, stride_src = src.matrix_layout()
    _, _, _, ld_dst, stride_dst = dst.matrix_layout()
    args = (src.ptr, dst.ptr, src.itemsize, rows, cols, ld_src, ld_dst, batch, stride_src, stride_dst)
    try:
        if src.device is None:
            _xpose.transpose_host(*args)
        elif src.kind == "torch":
            _xpose.transpose_device(*args, _torch_stream(src.device), kernel)
        else:
            import cupy

            _xpose.transpose_device(*args, cupy.cuda.get_current_stream().ptr, kernel)
    except ValueError as e:  # the library's last line of defence speaks its C terms; say whose call it was
        raise _error(ValueError, str(e)) from None


def _copy_along(out, axes):
    """Fills each of out's `axes` from its index 0, one axis at a time: before step k, index 0
    of axes[k] holds the values every index must hold, over index 0 of the axes after it."""
    nd = len(out.shape)
    for k, axis in enumerate(axes):
        index = [slice(None)] * nd
        for later in axes[k + 1:]:
            index[later] = slice(0, 1)
        to, frm = list(index), list(index)
        to[axis], frm[axis] = slice(1, None), slice(0, 1)
        out[tuple(to)] = out[tuple(frm)]  # disjoint regions; NumPy, PyTorch and CuPy broadcast the same way


_DL_CPU, _DL_CUDA = 1, 2  # DLPack's device types
_TITLES = {"numpy": "NumPy", "torch": "PyTorch", "cupy": "CuPy"}


def _foreign(x):
    """An array of another library that speaks DLPack (JAX, ...)."""
    return _library(x) is None and hasattr(x, "__dlpack__") and hasattr(x, "__dlpack_device__")


def _home(x):
    """Where a foreign x comes from: (library, name, from_dlpack). library is the top-level module
    of x's type ("" where that is no library: builtins, __main__); from_dlpack hands a result
    back to x's library (the module's own, its .numpy's or its .dlpack's), None where none
    offers one (the result stays the array xpose made), and name is the library it gives."""
    module = getattr(type(x), "__module__", None)
    root = module.split(".")[0] if isinstance(module, str) else ""
    if not root.isidentifier() or root in ("builtins", "__main__"):  # no library (nor a line break)
        root = ""
    if root in ("jax", "jaxlib"):
        import jax.dlpack

        return root, "jax", jax.dlpack.from_dlpack
    lib = sys.modules.get(root) if root else None
    for owner in (lib, getattr(lib, "numpy", None), getattr(lib, "dlpack", None)):
        back = getattr(owner, "from_dlpack", None) if owner is not None else None
        if callable(back):
            name = getattr(owner, "__name__", None)
            name = name.split(".")[0] if isinstance(name, str) and name.split(".")[0].isidentifier() else root
            return root, _TITLES.get(name, name), back
    return root, None, None


def _dlpack_device(x, label, fn):
    """x.__dlpack_device__() as DLPack defines it, a (device type, device id) pair of integers."""
    try:
        device = x.__dlpack_device__()
    except Exception as e:  # a broken protocol is x's fault, and says so in one line
        raise _error(TypeError, f"x ({label}) has a __dlpack_device__() that raised {type(e).__name__}; "
                                "xpose reads arrays of other libraries through DLPack", fn) from e
    try:
        if not isinstance(device, tuple) or len(device) != 2:
            raise TypeError
        return operator.index(device[0]), operator.index(device[1])
    except TypeError:
        got = f"a {type(device).__name__}" if not isinstance(device, tuple) else f"{len(device)} values" \
            if len(device) != 2 else f"({type(device[0]).__name__}, {type(device[1]).__name__})"
        raise _error(TypeError, f"x ({label}) has a __dlpack_device__() that returned {got}, not a "
                                "(device type, device id) pair of integers", fn) from None


def _via_dlpack(x, out, call, fn):
    """Runs `call` on x seen without a copy through DLPack (NumPy on the host; PyTorch, or CuPy
    without it, on a GPU, on that library's current stream) and hands the result back to x's
    library the same way."""
    library, name, back = _home(x)
    label = library or type(x).__name__
    if out is not None:
        comes_back = f"a {name} array" if name else "a NumPy array, or a PyTorch or CuPy one for x on a GPU"
        raise _error(TypeError, f"out must be a NumPy, PyTorch or CuPy array; x is a "
                                f"{library + ' array' if library else label}: call without out (the result "
                                f"comes back as {comes_back})", fn)
    device_type, device_id = _dlpack_device(x, label, fn)
    if device_type == _DL_CPU:
        import contextlib

        import numpy as np

        see, device = np.from_dlpack, contextlib.nullcontext()
    elif device_type == _DL_CUDA:
        try:
            import torch

            see, device = torch.from_dlpack, torch.cuda.device(device_id)
        except ImportError:
            import cupy

            see, device = cupy.from_dlpack, cupy.cuda.Device(device_id)
    else:
        raise _error(ValueError, f"x ({label}) lives on DLPack device type {device_type}; xpose serves CUDA "
                                 "devices and the CPU", fn)
    with device:
        try:
            seen = see(x)
        except (BufferError, TypeError, ValueError) as e:  # what DLPack cannot export (byte-swapped, ...)
            raise _error(TypeError, f"x ({label}) cannot be read through DLPack: {type(e).__name__}: "
                                    f"{str(e)!r}", fn) from e
        result = call(seen)
    return back(result) if back is not None else result


def _like(x, result, out):
    """A new result for x of an ndarray subclass as NumPy makes one from x: x.__array_wrap__(result),
    a view of x's type finalized from x (np.matrix, np.recarray stay so; np.memmap gives a
    plain ndarray). `out` and every other result as it is."""
    np = sys.modules.get("numpy")
    if out is not None or np is None or type(x) is np.ndarray or not isinstance(x, np.ndarray):
        return result
    return x.__array_wrap__(result)


def transpose(x, out=None, kernel="auto"):
    """Transposes the last two axes of `x` (2-D, 3-D for a batch of matrices, or more axes:
    then it is `permute(x, (..., -1, -2))`, with permute's rules for x and `out`).

    Returns `out` if given (it must have the result's shape and dtype, a contiguous last
    axis (its rows may be padded or sliced, like x's), memory of its own for every element,
    be writable, live where `x` does and not overlap it), else a new array of x's library.
    A broadcast axis of `x` (stride 0: numpy.broadcast_to, Tensor.expand) is served: xpose
    transposes index 0 of it and the array library copies that result along the axis.
    `kernel` names one of `xpose.kernels()` instead of the automatic choice (GPU arrays
    only). Raises TypeError for an array type or element size xpose does not serve,
    ValueError for a layout, `out` or kernel it cannot use, RuntimeError where PyTorch would
    refuse to write `out` (autograd, inference tensors) or CUDA fails; on any error nothing
    is written to `out`. PyTorch tensors without `out` go through the custom op
    `torch.ops.xpose.transpose`, so the call works under torch.compile, torch.jit.trace and
    on meta tensors and carries a gradient (the gradient of a transpose is the transpose of
    the gradient); a plain tensor in eager mode with nothing to record runs the op's
    implementation directly (the same result without the op's dispatch cost).
    """
    if _foreign(x):
        return _via_dlpack(x, out, lambda v: transpose(v, kernel=kernel), "transpose")
    nd = getattr(x, "ndim", None)
    if isinstance(nd, int) and nd > 3 and isinstance(kernel, str) and kernel == "auto":
        return _transpose_nd(x, out, nd)
    if out is None and _library(x) == "torch":
        from . import _torch

        return _torch.transpose(x, kernel)
    return _like(x, _transpose(x, out, kernel), out)


def _transpose_nd(x, out, nd):
    """x of 4 or more axes: the permutation (..., -1, -2), under transpose's name."""
    dims = list(range(nd - 2)) + [nd - 1, nd - 2]
    if out is None and _library(x) == "torch":
        from . import _torch

        try:
            return _torch.permute(x, dims)
        except (TypeError, ValueError, RuntimeError) as e:  # its checks speak as xpose.permute
            message = str(e)
            if not message.startswith("xpose.permute: "):
                raise
            raise type(e)("xpose.transpose: " + message[len("xpose.permute: "):]) from None
    return _like(x, _permute(x, dims, out, fn="transpose"), out)


def _transpose(x, out=None, kernel="auto"):
    src = _Array(x, "x")
    if not isinstance(kernel, str):
        raise _error(TypeError, f"kernel must be a string, not {type(kernel).__name__}")
    kernel = str.__str__(kernel)  # a plain str: a subclass's own __eq__ or __repr__ play no part
    if kernel != "auto" and kernel not in kernels():
        raise _error(ValueError, f"unknown kernel {kernel!r}; known: auto, " + ", ".join(kernels()))
    if src.device is None and kernel != "auto":
        raise _error(ValueError, f"kernel {kernel!r} runs on a GPU; arrays on the host are transposed "
                                 "on the CPU (kernel='auto')")

    # x's broadcast axes are read at index 0 only; the rest of x must be a layout the C call reads.
    nd = len(src.shape)
    repeated = src.broadcast_axes()
    if not src.empty():
        src.check_common_layout()
    inner = src
    if repeated and not src.empty():
        inner = _Array(x[tuple(slice(0, 1) if a in repeated else slice(None) for a in range(nd))], "x")
    if not inner.empty():
        inner.check_readable()

    shape = src.shape[:-2] + (src.shape[-1], src.shape[-2])
    dst = _Array(_allocate(src, shape), "out") if out is None else _check_out(src, out, shape)
    out = dst.array
    if src.empty():
        return out

    # x's axis -2 is out's axis -1 and the reverse; a batch axis stays where it is.
    swap = {nd - 2: nd - 1, nd - 1: nd - 2}
    along = [swap.get(a, a) for a in repeated]
    target = dst
    if along:
        target = _Array(out[tuple(slice(0, 1) if a in along else slice(None) for a in range(nd))], "out")
    with _on_device(src):
        _launch(inner, target, kernel)
        _copy_along(out, along)
    return out


def permute(x, dims=None, out=None):
    """`x` with its axes permuted: the result's axis k is x's axis dims[k], as
    `numpy.transpose(x, dims)` (negative axes count from the end, None reverses the axes);
    any rank up to 16.

    Returns `out` if given (the result's shape and dtype, writable, where `x` lives, memory of
    its own for every element, any non-negative strides, not overlapping x), else a new dense
    array of x's library. x may have any non-negative strides, broadcast axes (stride 0)
    included. NumPy arrays and PyTorch CPU tensors run on the CPU path. On the GPU a
    permutation that reduces to a batched 2-D transpose or a copy once unit axes are dropped
    and axes that stay together are fused (NCHW <-> NHWC, (B, S, H, D) -> (B, H, S, D) with
    D of at most 16 bytes, reversed volumes) runs through the transpose engines; any other
    through the N-D kernels (tiles of src's and dst's fastest axes). Errors
    are TypeError or ValueError (RuntimeError where CUDA fails); nothing is written to `out`
    when a check fails.
    """
    if _foreign(x):
        return _via_dlpack(x, out, lambda v: permute(v, dims), "permute")
    if out is None and _library(x) == "torch":
        from . import _torch

        return _torch.permute(x, _check_dims(dims, x.dim()))
    return _like(x, _permute(x, dims, out), out)


def _axis(d):
    """One axis number as NumPy reads it: an integer by operator.index, bools refused (NumPy
    takes neither True nor numpy.bool_ for an axis)."""
    np = sys.modules.get("numpy")
    if isinstance(d, bool) or (np is not None and isinstance(d, np.bool_)):
        raise TypeError
    return operator.index(d)


def _check_dims(dims, nd, fn="permute"):
    """dims as numpy.transpose reads its axes: None reverses them; a sequence (not a str,
    bytes, set, dict or iterator) of nd integers, negative ones counting from the end, each
    axis once; a single integer is one axis (a 1-D x). Its length is known before an entry is
    read and at most 64 are, so an endless or huge input is never consumed. The axes, from 0."""
    if dims is None:
        return list(range(nd - 1, -1, -1))
    kind = type(dims)
    # One axis, told from a sequence without trying (torch.compile traces this, and cannot
    # trace an exception caught on the way).
    if hasattr(kind, "__index__") and (not hasattr(kind, "__len__") or getattr(dims, "ndim", None) == 0):
        try:
            axes = [_axis(dims)]
        except TypeError:
            raise _error(TypeError, f"dims must be a sequence of axis numbers (int) or None, not {kind.__name__}",
                         fn) from None
    else:
        if isinstance(dims, (str, bytes, bytearray, collections.abc.Mapping)) or \
                not (hasattr(kind, "__len__") and hasattr(kind, "__getitem__")):
            raise _error(TypeError, f"dims must be a sequence of axis numbers (int) or None, not "
                                    f"{kind.__name__}", fn) from None
        try:
            n = len(dims)
        except (TypeError, ValueError, OverflowError):  # a 0-d array, a __len__ that fails
            raise _error(TypeError, f"dims must be a sequence of axis numbers (int) or None, not "
                                    f"{kind.__name__}", fn) from None
        if n > 64:  # NumPy's limit on axes too: any longer dims is refused unread
            raise _error(ValueError, f"dims has {n} entries, so it is not a permutation of the {nd} axes of x",
                         fn) from None
        axes = []
        for k, d in enumerate(itertools.islice(iter(dims), n)):
            try:
                axes.append(_axis(d))
            except TypeError:
                raise _error(TypeError, f"dims[{k}] is a {type(d).__name__}, not an axis number (int)",
                             fn) from None
    if len(axes) != nd or sorted(d % nd if -nd <= d < nd else -1 for d in axes) != list(range(nd)):
        raise _error(ValueError, f"dims {tuple(axes)} is not a permutation of the {nd} axes of x", fn)
    return [d % nd for d in axes]


def _permute(x, dims, out=None, fn="permute"):
    src = _Array(x, "x", fn, ranks=None)
    nd = len(src.shape)
    if nd > 16:
        raise _error(ValueError, f"x has {nd} axes; xpose permutes at most 16", fn)
    dims = _check_dims(dims, nd, fn)
    shape = tuple(src.shape[d] for d in dims)
    if not src.empty():
        if min(src.strides, default=0) < 0:
            raise _error(ValueError, f"x has negative strides {src.strides} (in elements); make a copy first "
                                     f"({_COPY_ADVICE})", fn)
        if src.ptr % _alignment(src.itemsize):
            raise _error(ValueError, f"x's data at address {src.ptr:#x} is not aligned to its {src.itemsize}-byte "
                                     "elements; make an aligned copy first", fn)
    if out is None:
        dst = _Array(_allocate(src, shape), "out", fn, ranks=None)
    else:
        dst = _Array(out, "out", fn, ranks=None)
        if dst.kind != src.kind:
            raise _error(TypeError, f"out is a {dst.kind} array but x is a {src.kind} array", fn)
        if dst.shape != shape:
            raise _error(ValueError, f"out has shape {dst.shape}; the result's shape is {shape}", fn)
        if dst.dtype != src.dtype:
            raise _error(ValueError, f"out has dtype {dst.dtype}; x has dtype {src.dtype}", fn)
        if dst.device != src.device:
            raise _error(ValueError, f"out is on {dst.device or 'the host'}; x is on {src.device or 'the host'}",
                         fn)
        if dst.kind == "torch":
            _check_torch_out(src.array, out)
        if not dst.writable:
            raise _error(ValueError, "out is read-only (flags.writeable is False); pass a writable array", fn)
        if not dst.empty():
            if min(dst.strides, default=0) < 0:
                raise _error(ValueError, f"out has negative strides {dst.strides} (in elements)", fn)
            if dst.ptr % _alignment(dst.itemsize):
                raise _error(ValueError, f"out's data at address {dst.ptr:#x} is not aligned to its "
                                         f"{dst.itemsize}-byte elements", fn)
    result = dst.array
    if src.empty():
        return result
    args = (src.ptr, dst.ptr, src.itemsize, list(src.shape), dims, list(src.strides), list(dst.strides))
    try:
        with _on_device(src):
            if src.device is None:
                _xpose.permute_host(*args)
            elif src.kind == "torch":
                _xpose.permute_device(*args, _torch_stream(src.device))
            else:
                import cupy

                _xpose.permute_device(*args, cupy.cuda.get_current_stream().ptr)
    except ValueError as e:  # the library's checks (dst strides that share memory, overlap) in its C terms
        raise _error(ValueError, str(e), fn) from None
    return result
