"""xpose.transpose_inplace: a dense matrix (or a batch of them) transposed in its own memory."""
import sys

from . import _xpose


def _error(kind, message):
    return kind("xpose.transpose_inplace: " + message)


def _native(call, *args):
    try:
        return call(*args)
    except (ValueError, RuntimeError) as e:  # the library's one-line message, in the caller's terms
        raise type(e)("xpose.transpose_inplace: " + str(e)) from None


def _shape(x, contiguous, itemsize):
    if x.ndim < 2:
        raise _error(ValueError, f"x must have at least 2 axes (..., rows, cols); got {x.ndim}-D")
    if not contiguous:
        raise _error(ValueError, "x must be dense and row-major (C-contiguous): a view's memory is not its own "
                                 "matrix to turn; transpose a contiguous copy, or use xpose.matrix_transpose")
    if itemsize not in (1, 2, 4, 8, 16):
        raise _error(TypeError, f"x has {itemsize}-byte elements; xpose moves elements of 1, 2, 4, 8 or 16 bytes")
    *lead, rows, cols = x.shape
    batch = 1
    for n in lead:
        batch *= n
    return tuple(lead), rows, cols, batch


def transpose_inplace(x):
    """x's memory turned into the transpose of each of its (..., rows, cols) matrices; returns x
    as the (..., cols, rows) view of that memory (x itself keeps its old shape: use the result).

    NumPy arrays and PyTorch CPU tensors run on the CPU path (any shape), PyTorch and CuPy GPU
    arrays on the GPU on their library's current stream, with a workspace from their library's
    allocator (square matrices need none; rectangular ones under 1% of the matrix, or for a
    short side of up to 384-6144 elements under 192 KiB and 1/8 of a matrix; both sides over 160 KiB
    sharing under 16 bytes, or sides sharing over 96 KiB, are refused there with nothing changed). x must be C-contiguous and writable; PyTorch
    tensors go through the op torch.ops.xpose.transpose_inplace_, which torch.compile sees
    mutate x.
    """
    from . import _library_of

    lib = _library_of(x)
    np, cupy = sys.modules.get("numpy") if lib == "numpy" else None, sys.modules.get("cupy") if lib == "cupy" else None
    if lib == "torch":
        import torch

        if x.requires_grad and torch.is_grad_enabled():
            raise _error(RuntimeError, "x requires grad: autograd cannot see an in-place transpose (use "
                                       "xpose.matrix_transpose, or call under torch.no_grad())")
        lead, rows, cols, _ = _shape(x, x.is_contiguous(), x.element_size())
        if not (x.is_cuda or x.is_cpu):
            raise _error(ValueError, f"x is on {x.device}; xpose serves CUDA devices and the CPU")
        from ._torch import transpose_inplace_op

        transpose_inplace_op(x)  # the op, even in plain eager mode: it bumps x's version counter
        return x.view(lead + (cols, rows))
    if lib == "cupy":
        lead, rows, cols, batch = _shape(x, x.flags.c_contiguous, x.itemsize)
        if x.size:
            with x.device:  # the workspace from CuPy's pool, on x's device and current stream
                n = _native(_xpose.transpose_inplace_workspace, rows, cols, x.itemsize, batch, x.device.id)
                w = cupy.empty(n, cupy.uint8) if n else None
                stream = cupy.cuda.get_current_stream(x.device.id).ptr
                _native(_xpose.transpose_inplace_device, x.data.ptr, rows, cols, x.itemsize, batch,
                        w.data.ptr if n else 0, n, stream, x.device.id)
        return x.reshape(lead + (cols, rows))
    if lib == "numpy":
        if isinstance(x, np.ma.MaskedArray):
            raise _error(TypeError, "x is a masked array: its mask would not move; transpose x.data and x.mask")
        if x.dtype.hasobject:
            raise _error(TypeError, f"x holds Python objects (dtype {x.dtype}); xpose moves elements of 1, 2, 4, 8 "
                                    "or 16 bytes")
        lead, rows, cols, batch = _shape(x, x.flags.c_contiguous, x.itemsize)
        if not x.flags.writeable:
            raise _error(ValueError, "x is read-only (flags.writeable is False)")
        if x.size:
            _native(_xpose.transpose_inplace_host, x.ctypes.data, rows, cols, x.itemsize, batch)
        return x.reshape(lead + (cols, rows))
    raise _error(TypeError, f"x must be a NumPy, PyTorch or CuPy array; got {type(x).__module__}.{type(x).__name__}"
                            " (JAX arrays are immutable: use xpose.jax.matrix_transpose)")


def torch_impl(x):
    """The op's implementation: x's memory turned, on x's device (its current stream) or the CPU."""
    *lead, rows, cols = x.shape
    batch = 1
    for n in lead:
        batch *= n
    if x.numel() == 0:
        return
    if x.is_cuda:
        from . import _torch_stream

        import torch

        index = x.get_device()
        n = _native(_xpose.transpose_inplace_workspace, rows, cols, x.element_size(), batch, index)
        w = torch.empty(n, dtype=torch.uint8, device=x.device) if n else None  # PyTorch's allocator, stream-ordered
        _native(_xpose.transpose_inplace_device, x.data_ptr(), rows, cols, x.element_size(), batch,
                w.data_ptr() if n else 0, n, _torch_stream(index), index)
    else:
        _native(_xpose.transpose_inplace_host, x.data_ptr(), rows, cols, x.element_size(), batch)
