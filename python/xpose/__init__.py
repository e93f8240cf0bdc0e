"""xpose: tensor layout changes on NVIDIA GPUs at the speed of a memory copy.

    import xpose
    y = xpose.permute_dims(x, (0, 2, 3, 1))   # the Python array API's names
    z = xpose.matrix_transpose(x)             # the last two axes swapped, any rank >= 2

`permute` (NumPy's reading of axes: None reverses them) and `transpose` (= matrix_transpose,
with a named kernel if wanted) are the same operations under the names xpose had first.
PyTorch and CuPy arrays on a CUDA device run on that library's current stream and never
synchronize; NumPy arrays and PyTorch CPU tensors run on the CPU path; arrays of other
libraries that speak DLPack (JAX, ...) come back as their own library's arrays. Any element
of 1, 2, 4, 8 or 16 bytes, any strides (broadcast axes included). The checks run in the
native boundary (python/src/xpose_ext.cpp), in the caller's terms; every message is one line
beginning "xpose.<function>: ". Subclasses are their library's arrays: a new result for an
ndarray subclass is x.__array_wrap__(result), as NumPy makes one (np.matrix stays a matrix);
masked arrays are refused (their mask would not move).
"""

import collections.abc
import itertools
import operator
import sys

from . import _xpose
__version__ = _xpose.version()

__all__ = ["permute_dims", "matrix_transpose", "permute", "transpose", "kernels", "Plan", "transpose_inplace",
           "quantize", "Quantized"]


def _error(kind, message, fn="transpose"):
    return kind(f"xpose.{fn}: " + message)


def kernels():
    """The named kernels `transpose(kernel=...)` accepts besides "auto", in ladder order."""
    return list(_xpose.kernel_names())


def _library(x):
    """"numpy", "torch" or "cupy" where x is an array of that library (a subclass included),
    else None. A library not yet imported holds no array of its own: none is imported here."""
    for name, kind in (("numpy", "ndarray"), ("torch", "Tensor"), ("cupy", "ndarray")):
        lib = sys.modules.get(name)
        if lib is not None and isinstance(x, getattr(lib, kind, ())):
            return name
    return None


def _check_torch_out(x, out, fn):
    """Refuses, as torch does, an out that autograd or inference mode forbids writing."""
    torch = sys.modules["torch"]
    if out.is_inference() and not torch.is_inference_mode_enabled():
        raise _error(RuntimeError, "out is an inference tensor: in-place update to an inference tensor outside "
                                   "InferenceMode is not allowed (make a clone outside InferenceMode)", fn)
    if torch.is_grad_enabled() and (out.requires_grad or x.requires_grad):
        raise _error(RuntimeError, "functions with out=... arguments don't support automatic differentiation, "
                                   "but one of the arguments requires grad (call without out, or under "
                                   "torch.no_grad())", fn)


def _torch_stream(index):
    """PyTorch's current stream on CUDA device `index`, as a pointer."""
    torch = sys.modules["torch"]
    try:
        return torch._C._cuda_getCurrentRawStream(index)  # what Inductor's kernels launch on
    except AttributeError:  # a PyTorch without it
        return torch.cuda.current_stream(index).cuda_stream


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


def permute_dims(x, axes, out=None):
    """`x` with its axes permuted, as the Python array API's `permute_dims`: the result's axis k
    is x's axis axes[k] (negative axes count from the end); any rank up to 16.

    x may have any strides (broadcast axes included: stride 0); the result is a new dense array
    of x's library, or `out`, which must have the result's shape and dtype, live where x does,
    be writable, give every element memory of its own (any other strides; batches that
    interleave are served where the library proves them distinct) and share no byte with x.
    NumPy arrays and PyTorch CPU tensors run on the CPU path; PyTorch and CuPy arrays on a GPU
    on their library's current stream, never synchronizing. Arrays of other libraries that
    speak DLPack (JAX, ...) come back as their own library's arrays (no `out` for them). Raises
    TypeError for an array type or element size xpose does not serve, ValueError for a layout
    or `out` it cannot use (saying why), RuntimeError where PyTorch would refuse to write `out`
    (autograd, inference tensors) or CUDA fails; nothing is written when a check fails.
    PyTorch tensors without `out` go through the custom op `torch.ops.xpose.permute` where it
    adds something (torch.compile, autograd, tracing, meta tensors)."""
    if type(x) in _NATIVE and not _compiling():
        y = _xpose.plain_call("permute_dims", x, axes, out)
        if y is not None:
            return y
    return _permute(x, axes, out, "permute_dims")


def matrix_transpose(x, out=None):
    """The last two axes of `x` swapped (any rank of 2 or more), as the Python array API's
    `matrix_transpose`: `permute_dims(x, (..., -1, -2))`, under the same rules."""
    if type(x) in _NATIVE and not _compiling():
        y = _xpose.plain_call("matrix_transpose", x, None, out)
        if y is not None:
            return y
    return _matrix_transpose(x, out, "auto", "matrix_transpose")


def permute(x, dims=None, out=None):
    """`permute_dims` under NumPy's name and reading: `numpy.transpose(x, dims)` made dense;
    `dims` None reverses the axes."""
    if type(x) in _NATIVE and not _compiling():
        y = _xpose.plain_call("permute", x, dims, out)
        if y is not None:
            return y
    return _permute(x, dims, out, "permute")


def transpose(x, out=None, kernel="auto"):
    """`matrix_transpose`: the last two axes swapped (2-D, a 3-D batch of matrices, or more
    axes), under the same rules. `kernel` names one of `xpose.kernels()` instead of the
    automatic choice (GPU arrays only)."""
    if type(x) in _NATIVE and kernel == "auto" and not _compiling():
        y = _xpose.plain_call("transpose", x, None, out)
        if y is not None:
            return y
    return _matrix_transpose(x, out, kernel, "transpose")


class Plan:
    """`permute_dims(x, axes, out)` for one layout, checked and planned once.

        plan = xpose.Plan(x, (0, 2, 3, 1))   # x: an array like those the plan will take
        y = plan(x)                          # any x of that layout; or plan(x, out=y)

    `x` (and `out`, where given) are PyTorch tensors or CuPy arrays on a CUDA device; the plan is
    for arrays of their shape, strides, dtype and device (out=None: a new dense result), at
    addresses like theirs. A call checks that its arrays have that layout (ValueError if not),
    re-checks only their addresses, and enqueues the kernel on the library's current stream; it
    never synchronizes. `explain()`: what it launches, and why. Calls to `permute_dims` cache
    plans by layout already: a Plan saves the remaining checks and states the layout once."""

    __slots__ = ("_native", "_lib", "_dtype", "_shape")

    def __init__(self, x, axes, out=None, kernel="auto"):
        fn = "Plan"
        lib = _library(x)
        if lib not in ("torch", "cupy"):
            raise _error(TypeError, "x must be a PyTorch tensor or a CuPy array on a CUDA device, not "
                                    f"{type(x).__module__}.{type(x).__name__} (xpose.permute_dims serves the rest)",
                         fn)
        if kernel != "auto":
            kernel = _check_kernel(kernel, fn)
        dims = _check_dims(axes, x.ndim, fn)
        self._lib, self._dtype = lib, x.dtype
        self._shape = tuple(x.shape[d] for d in dims)
        fx = _fields(x, lib, "x", fn)
        if out is None:  # a new dense result, at an aligned address
            dense, step = [], 1
            for n in reversed(self._shape):
                dense.append(step)
                step *= n
            fo = (0, self._shape, tuple(reversed(dense)), fx[3], fx[4])
        else:
            self._check_out(x, out, fn)
            fo = _fields(out, lib, "out", fn)
        self._native = _xpose.ArrayPlan(fn, *fx[:3], *fo[:3], fx[3], fx[4], dims, kernel)
        if lib == "torch":
            _seen_torch()
            if type(x) is _PLAIN:  # plain tensors of x's dtype are then served without a Python check
                self._native.plain_dtype(x)

    def _check_out(self, x, out, fn):
        _check_out_of(self._lib, x, out, fn)
        if self._lib == "torch":
            _check_torch_out(x, out, fn)

    def __call__(self, x, out=None):
        if type(x) is _PLAIN:
            y = self._native.call_plain(x, out)
            if y is not None:
                return y
        fn = "Plan"
        if _library(x) != self._lib or x.dtype != self._dtype:
            raise _error(TypeError, f"x is {type(x).__module__}.{type(x).__name__} of {getattr(x, 'dtype', None)}; "
                                    f"the plan is for {_TITLES[self._lib]} arrays of {self._dtype}", fn)
        if _TORCH_EXCHANGE and type(x) is _TENSOR and (out is None or type(out) is _TENSOR):
            # Fields, stream and a new result through PyTorch's C functions (the native boundary).
            _gpu_tensor(x, "x", fn)
            if out is not None:
                self._check_out(x, out, fn)
                _gpu_tensor(out, "out", fn)
            return self._native.execute_torch(x, out)
        fx = _fields(x, self._lib, "x", fn)
        if out is None:
            if self._lib == "torch":
                out = x.new_empty(self._shape)
            else:
                with x.device:
                    out = sys.modules["cupy"].empty(self._shape, x.dtype)
        else:
            self._check_out(x, out, fn)
        fo = _fields(out, self._lib, "out", fn)
        index = fx[4]
        stream = _torch_stream(index) if self._lib == "torch" else \
            sys.modules["cupy"].cuda.get_current_stream(index).ptr
        self._native.execute(*fx[:3], *fo[:3], fx[3], index, stream)
        return out

    def explain(self):
        """One line: what a call launches on arrays at addresses like the plan's, and why."""
        return self._native.explain()


def _gpu_tensor(a, what, fn):
    """The CUDA device index of a PyTorch tensor a plan can take."""
    index = _check_torch_tensor(a, what, fn)
    if index < 0:
        raise _error(TypeError, f"{what} is on the CPU; plans run on a GPU (xpose.permute_dims serves the CPU)", fn)
    return index


def _fields(a, lib, what, fn):
    """(address, shape, strides in elements, element size, CUDA device) of a PyTorch tensor or
    CuPy array on a CUDA device."""
    if lib == "torch":
        return a.data_ptr(), a.shape, a.stride(), a.element_size(), _gpu_tensor(a, what, fn)
    size = a.itemsize
    if any(st % size for st in a.strides):
        raise _error(ValueError, f"{what} has strides {a.strides} (bytes) that are not whole elements of {size} "
                                 "bytes", fn)
    return a.data.ptr, a.shape, tuple(st // size for st in a.strides), size, a.device.id


def _library_of(x):
    """_library(x), read first from x's type's module: under torch.compile a tensor's library is
    known without sys.modules, whose dict Dynamo would wrap (and trip on where another thread
    imports meanwhile)."""
    root = type(x).__module__.partition(".")[0]
    return root if root in ("torch", "numpy", "cupy") else _library(x)


def _matrix_transpose(x, out, kernel, fn):
    np = None if type(x) is _TENSOR else sys.modules.get("numpy")  # a tensor: no sys.modules (see _library_of)
    if type(x) is _TENSOR or (np is not None and type(x) is np.ndarray):  # the common cases first
        nd = x.ndim
        if nd >= 2:
            return _permute(x, list(range(nd - 2)) + [nd - 1, nd - 2], out, fn, kernel)
    if _library(x) is None and _foreign(x) and not _is_jax(x):  # its axes are known once seen through DLPack
        return _via_dlpack(x, out, lambda v: _matrix_transpose(v, None, kernel, fn), fn)
    nd = getattr(x, "ndim", None)
    if isinstance(nd, int) and nd < 2:
        raise _error(ValueError, f"x must have at least 2 axes (..., rows, cols); got {nd}-D", fn)
    dims = list(range(nd - 2)) + [nd - 1, nd - 2] if isinstance(nd, int) else None
    return _permute(x, dims, out, fn, kernel)

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
    if type(dims) in (list, tuple) and len(dims) == nd:  # the common case, read in one pass
        axes, seen = [], 0
        for d in dims:
            if type(d) is not int:
                break
            d = d + nd if d < 0 else d
            if not 0 <= d < nd or seen >> d & 1:
                break
            seen |= 1 << d
            axes.append(d)
        else:
            return axes
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


_TENSOR = None  # torch.Tensor, once a tensor has been seen: plain tensors take the fewest steps
_TORCH_OPS = None  # xpose._torch, once imported


def _permute(x, axes, out, fn, kernel="auto"):
    """Every public function's body: x's library found, axes read, the result allocated in that
    library, and the native boundary called (it checks the rest, in the caller's terms)."""
    if type(x) is _TENSOR and kernel == "auto":  # a plain PyTorch tensor: the common case first
        dims = _check_dims(axes, x.dim(), fn)
        if out is None:
            return (_TORCH_OPS or _torch_ops()).permute(x, dims, fn)
        return _permute_torch(x, dims, out, fn)
    np = sys.modules.get("numpy")
    if np is not None and type(x) is np.ndarray and (out is None or type(out) is np.ndarray) and \
            kernel == "auto" and not x.dtype.hasobject:
        # A plain NumPy array (no subclass, mask or named kernel to see to): the fewest steps
        # (in C++ once seen: _xpose.plain_call takes the same ones).
        if _NDARRAY is None:
            _seen_numpy(np)
        dims = _check_dims(axes, x.ndim, fn)
        if out is None:
            out = np.empty([x.shape[d] for d in dims], x.dtype)
        elif out.dtype != x.dtype or not out.flags.writeable:
            return _permute_numpy(x, dims, out, fn, kernel)  # which says what is wrong
        _call_arrays(fn, x, out, dims, 0, kernel)
        return out
    lib = _library(x)
    if lib is None:
        if _is_jax(x) and _jax_custom_call():
            return _permute_jax(x, axes, out, fn, kernel)
        if _foreign(x):
            return _via_dlpack(x, out, lambda v: _permute(v, axes, None, fn, kernel), fn)
        raise _error(TypeError, "x must be a PyTorch tensor, a CuPy array or a NumPy array (or an array that "
                                f"speaks DLPack), not {type(x).__module__}.{type(x).__name__}", fn)
    if kernel != "auto":
        kernel = _check_kernel(kernel, fn)
    if lib == "torch":
        _seen_torch()
        dims = _check_dims(axes, x.dim(), fn)
        if out is None:
            return (_TORCH_OPS or _torch_ops()).permute(x, dims, fn, kernel)
        return _permute_torch(x, dims, out, fn, kernel)
    if x.ndim > 16:
        raise _error(ValueError, f"x has {x.ndim} axes; xpose permutes at most 16", fn)
    dims = _check_dims(axes, x.ndim, fn)
    if lib == "numpy":
        return _permute_numpy(x, dims, out, fn, kernel)
    return _permute_cupy(x, dims, out, fn, kernel)


_TORCH_EXCHANGE = False  # whether torch.Tensor offers DLPack's C exchange API (PyTorch 2.10 and later)
# torch.Tensor where the native boundary serves plain tensors in eager mode itself
# (_xpose.torch_call, through plain_call: the checks of _permute_torch and _torch._plain_eager,
# made without a Python frame; None where anything is not plain, and this layer takes the call). Never under
# torch.compile's tracing, which records the custom op instead.
_PLAIN = None
# The types whose plain arrays _xpose.plain_call serves before this layer: _PLAIN's, and
# numpy.ndarray once a NumPy array has been seen (its fast path below, in C++).
_NATIVE = ()
_NDARRAY = None


def _seen_numpy(np):
    global _NDARRAY, _NATIVE
    _NDARRAY = np.ndarray
    if _xpose.use_numpy_fast(np):
        _NATIVE += (np.ndarray,)


def _compiling():
    return False  # until torch is seen: torch.compiler.is_compiling from then on


def _seen_torch():
    global _TENSOR, _TORCH_EXCHANGE, _PLAIN, _NATIVE, _compiling
    if _TENSOR is not None:  # once: the exchange table is read when torch is first seen
        return
    torch = sys.modules["torch"]
    tensor = torch.Tensor
    _TORCH_EXCHANGE = _xpose.use_torch_exchange(tensor)
    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if _TORCH_EXCHANGE and compiling is not None and _xpose.use_torch_fast(torch):
        _compiling, _PLAIN, _NATIVE = compiling, tensor, _NATIVE + (tensor,)
    _TENSOR = tensor


def _torch_ops():
    global _TORCH_OPS
    from . import _torch

    _TORCH_OPS = _torch
    return _torch


def _is_jax(x):
    jax = sys.modules.get("jax")
    return jax is not None and isinstance(x, getattr(jax, "Array", ()))


def _jax_custom_call():
    return hasattr(_xpose, "jax_targets")


def _permute_jax(x, axes, out, fn, kernel):
    """A JAX array (or a tracer under jax.jit) through xpose.jax's custom call: the result stays
    on x's device without a copy, and traces, vmaps and differentiates as JAX's own ops do."""
    if out is not None:
        raise _error(TypeError, "x is a JAX array, and JAX arrays are immutable: call without out", fn)
    if kernel != "auto":
        raise _error(ValueError, f"kernel {kernel!r}: JAX arrays take the automatic choice", fn)
    from . import jax as xpose_jax

    return xpose_jax._permute(x, tuple(_check_dims(axes, x.ndim, fn)))


def _check_kernel(kernel, fn):
    if not isinstance(kernel, str):
        raise _error(TypeError, f"kernel must be a string, not {type(kernel).__name__}", fn)
    kernel = str.__str__(kernel)  # a plain str: a subclass's own __eq__ or __repr__ play no part
    if kernel != "auto" and kernel not in _kernel_names():
        raise _error(ValueError, f"unknown kernel {kernel!r}; known: auto, " + ", ".join(_kernel_names()), fn)
    return kernel


_KERNELS = []


def _kernel_names():
    if not _KERNELS:
        _KERNELS.extend(_xpose.kernel_names())
    return _KERNELS


def _check_out_of(lib, x, out, fn):
    """What Python knows best of `out`: its library and dtype (the native side checks the rest)."""
    kind = _library(out)
    if kind != lib:
        what = f"a {_TITLES[kind]} array" if kind else f"{type(out).__module__}.{type(out).__name__}"
        raise _error(TypeError, f"out must be a {_TITLES[lib]} array, as x is, not {what}", fn)
    if out.dtype != x.dtype:
        raise _error(ValueError, f"out has dtype {out.dtype}; x has dtype {x.dtype}", fn)


def _refuse_masked(a, what, fn):
    ma = sys.modules.get("numpy.ma")
    if ma is not None and isinstance(a, ma.MaskedArray):  # its mask would be lost or left stale
        raise _error(TypeError, f"{what} is a masked array ({type(a).__name__}), whose mask xpose would not move: "
                                f"pass {what}.data or {what}.filled(...), or permute the data and the mask "
                                "(numpy.ma.getmaskarray) separately", fn)


# Elements nanobind's ndarray cannot name (byte-swapped, datetimes, structured, void) move as the
# unsigned integers of their size: a permutation moves bytes.
_RAW = {1: "u1", 2: "u2", 4: "u4", 8: "u8", 16: "c16"}


def _call_arrays(fn, x, out, dims, stream, kernel):
    """The native boundary on two arrays nanobind's ndarray reads; where it cannot, the reason."""
    if _xpose.permute_arrays(fn, x, out, dims, stream, kernel):
        return
    if 0 in x.shape:  # nothing to move, whatever the strides: out's shape is all there is to check
        shape = tuple(x.shape[d] for d in dims)
        if tuple(out.shape) != shape:
            raise _error(ValueError, f"out has shape {tuple(out.shape)}; the result's shape is {shape}", fn)
        return
    for a, what in ((x, "x"), (out, "out")):
        if a.itemsize not in _RAW:
            raise _error(TypeError, f"{what} has {a.itemsize}-byte elements ({a.dtype}); xpose moves elements of "
                                    "1, 2, 4, 8 or 16 bytes", fn)
        if any(s % a.itemsize for n, s in zip(a.shape, a.strides) if n > 1):
            raise _error(ValueError, f"{what}'s strides {tuple(a.strides)} (bytes) are not whole {a.itemsize}-byte "
                                     "elements", fn)
    if not _xpose.permute_arrays(fn, x.view(_RAW[x.itemsize]), out.view(_RAW[out.itemsize]), dims, stream, kernel):
        raise _error(TypeError, f"x ({x.dtype}) cannot be read as an array of {x.itemsize}-byte elements", fn)


def _permute_numpy(x, dims, out, fn, kernel):
    np = sys.modules["numpy"]
    _refuse_masked(x, "x", fn)
    if x.dtype.hasobject:
        raise _error(TypeError, f"x holds Python objects (dtype {x.dtype}); xpose moves elements of 1, 2, 4, 8 "
                                "or 16 bytes", fn)
    if out is None:
        result = np.empty(tuple(x.shape[d] for d in dims), x.dtype)
    else:
        _check_out_of("numpy", x, out, fn)
        _refuse_masked(out, "out", fn)
        if not out.flags.writeable:  # also for an empty out: a read-only array is never a result
            raise _error(ValueError, "out is read-only (flags.writeable is False); pass a writable array", fn)
        result = out
    _call_arrays(fn, x, result, dims, 0, kernel)
    return out if out is not None else _like(x, result, None)


def _permute_cupy(x, dims, out, fn, kernel):
    cupy = sys.modules["cupy"]
    device = x.device
    if out is None:
        with device:
            result = cupy.empty(tuple(x.shape[d] for d in dims), x.dtype)
    else:
        _check_out_of("cupy", x, out, fn)
        result = out
    _call_arrays(fn, x, result, dims, cupy.cuda.get_current_stream(device.id).ptr, kernel)
    return result


def _check_torch_tensor(t, what, fn):
    """t's CUDA device index, or -1 for the CPU; refuses other devices and tensors whose memory
    does not hold their values as strided elements."""
    if t.is_cuda:
        index = t.get_device()
    elif t.is_cpu:
        index = -1
    else:
        raise _error(ValueError, f"{what} is on {t.device}; xpose serves CUDA devices and the CPU", fn)
    if t.layout != sys.modules["torch"].strided or t.is_quantized:
        raise _error(TypeError, f"{what} is a {'quantized' if t.is_quantized else t.layout} tensor; xpose moves the "
                                "elements of dense (strided) tensors", fn)
    if t.is_conj() or t.is_neg():
        lazy, fix = ("conjugated", "resolve_conj()") if t.is_conj() else ("negated", "resolve_neg()")
        raise _error(ValueError, f"{what} is a lazily {lazy} view whose memory holds the values before that; call "
                                 f"{what}.{fix} first", fn)
    return index


def _permute_torch(x, dims, out, fn, kernel="auto"):
    """PyTorch tensors: plain ones through DLPack's C exchange API where PyTorch offers it (the
    native boundary reads their fields, the stream and allocates the result), else as their
    fields (PyTorch reads them faster than it exports DLPack)."""
    index = _check_torch_tensor(x, "x", fn)
    if out is not None:
        if type(out) is not _TENSOR or out.dtype != x.dtype:  # a plain tensor of x's dtype needs no more
            _check_out_of("torch", x, out, fn)
        if _check_torch_tensor(out, "out", fn) != index:
            raise _error(ValueError, f"out is on {out.device}; x is on {x.device}", fn)
        _check_torch_out(x, out, fn)
    if _TORCH_EXCHANGE and type(x) is _TENSOR and (out is None or type(out) is _TENSOR):
        return _xpose.permute_torch(fn, x, out, dims, kernel)
    if out is None:
        out = x.new_empty([x.shape[d] for d in dims])
    stream = _torch_stream(index) if index >= 0 else 0
    _xpose.permute_fields(fn, x.data_ptr(), x.shape, x.stride(), out.data_ptr(), out.shape, out.stride(),
                          x.element_size(), index, dims, stream, kernel)
    return out


from ._inplace import transpose_inplace  # noqa: E402 (they use the helpers above)
from ._quantize import Quantized, quantize  # noqa: E402
