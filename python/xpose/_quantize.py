"""xpose.quantize: FP8 quantization of a matrix as it is and transposed in one pass (xpose_quantize)."""
import collections
import copy
import sys

from . import _xpose

Quantized = collections.namedtuple("Quantized", "data data_t scales scales_t amax")
Quantized.__doc__ = """xpose.quantize's outputs (None where not asked for): data (rows x cols FP8 codes),
data_t (cols x rows), scales and scales_t (scale_inv in fp32, or MXFP8's E8M0 codes, laid out
as the scale layout says), amax (x's max |x|, NaN ignored, a 0-D fp32 array)."""

_FORMATS = {"e4m3": 0, "e5m2": 1}
_SCALINGS = {"delayed": 0, "current": 1, "blocks": 2, "mx": 3}
_LAYOUTS = {"row_major": 0, "column_major": 1, "tiled_128x4": 2}
_OUTPUTS = ("data", "data_t", "scales", "scales_t", "amax")
_INPUTS = {"float32": 0, "bfloat16": 1, "float16": 2}


def _error(kind, message):
    return kind("xpose.quantize: " + message)


def _choice(name, value, table):
    if value not in table:
        raise _error(ValueError, f"{name} is {value!r}; it must be one of {', '.join(map(repr, table))}")
    return table[value]


class _Request:
    """The call's arguments checked and as the C ABI's descriptor takes them."""

    def __init__(self, dtype_name, shape, strides, itemsize, fmt, scaling, scale, block, scale_layout, pow2_scales,
                 outputs):
        if len(shape) != 2:
            raise _error(ValueError, f"x must be a matrix (rows, cols); got {len(shape)}-D")
        self.input = _INPUTS.get(dtype_name)
        if self.input is None:
            raise _error(TypeError, f"x is {dtype_name}; xpose quantizes float32, bfloat16 and float16")
        self.rows, self.cols = shape
        empty = self.rows == 0 or self.cols == 0  # no rows to lay out (NumPy gives such arrays strides of 0)
        if not empty and (self.cols > 1 and strides[1] != 1 or self.rows > 1 and strides[0] < self.cols):
            raise _error(ValueError, f"x has strides {tuple(strides)} (elements); its rows must be contiguous "
                                     "(column stride 1, row stride at least cols)")
        self.ld = strides[0] if self.rows > 1 and not empty else self.cols
        self.format = _choice("format", fmt, _FORMATS)
        self.scaling = _choice("scaling", scaling, _SCALINGS)
        if (scale is None) != (scaling != "delayed"):
            raise _error(ValueError, "scale goes with scaling='delayed' (the given scale), and only with it")
        self.scale = 1.0 if scale is None else float(scale)
        if block is not None and scaling != "blocks":
            raise _error(ValueError, "block goes with scaling='blocks'")
        self.block = (1, 128) if block is None else tuple(block)
        if len(self.block) != 2:
            raise _error(ValueError, f"block is {block!r}; it must be (rows, cols)")
        default_layout = "tiled_128x4" if scaling == "mx" else "row_major"
        self.layout = _choice("scale_layout", default_layout if scale_layout is None else scale_layout, _LAYOUTS)
        self.pow2 = bool(pow2_scales)
        wanted = tuple(outputs)
        for o in wanted:
            _choice("an output", o, dict.fromkeys(_OUTPUTS))
        if not wanted:
            raise _error(ValueError, "outputs is empty; ask for at least one of " + ", ".join(_OUTPUTS))
        self.want = {o: o in wanted for o in _OUTPUTS}
        if scaling == "current":
            self.want["amax"] = True  # the tensor's amax is reduced there first
        self.want_list = [self.want[o] for o in _OUTPUTS]
        self._shapes = {}  # scale_shape's answers (shared by the copies _request makes)

    def empty_scale(self):
        """What a tensor recipe's scales hold for an x without elements, which no kernel reads:
        1 / the given scale, or 1 for current scaling (an amax of 0 gives the scale 1); None for
        the block recipes, whose scales are then empty too."""
        if self.scaling > 1 or (self.rows and self.cols):
            return None
        import numpy

        with numpy.errstate(divide="ignore", over="ignore"):  # a given scale of 0 makes inf, as the kernels do
            return float(numpy.float32(1) / numpy.float32(self.scale if self.scaling == 0 else 1.0))

    def fields(self):
        return (self.input, self.rows, self.cols, self.ld, self.format, self.scaling, self.layout, self.block[0],
                self.block[1], self.pow2, self.scale)

    def scale_shape(self, transposed):
        """The scale output's shape: one scale for the tensor recipes; the layout's matrix of block
        scales (row-major: blocks down x across; column-major: across x down padded to 16 bytes);
        the tiled layout's bytes, flat."""
        if transposed in self._shapes:
            return self._shapes[transposed]
        R, C = (self.cols, self.rows) if transposed else (self.rows, self.cols)
        try:
            count = _xpose.quantize_scales_bytes(self.input, R, C, self.format, self.scaling, self.layout,
                                                 self.block[0], self.block[1], False)
        except ValueError as e:
            raise _error(ValueError, str(e)) from None
        entry = 1 if self.scaling == 3 else 4
        if self.scaling < 2:
            shape = ()
        else:
            br, bc = (1, 32) if self.scaling == 3 else self.block
            down, across = -(-R // br), -(-C // bc)
            shape = ((down, across) if self.layout == 0 else (across, count // entry // max(across, 1))
                     if self.layout == 1 else (count // entry,))
        self._shapes[transposed] = shape
        return shape


_REQUESTS = {}  # recent calls' checked requests, by their arguments (the scale's value aside)


def _request(dtype_name, shape, strides, itemsize, fmt, scaling, scale, block, scale_layout, pow2_scales, outputs):
    """_Request of these arguments. A call whose arguments (their types too, where the checks
    would tell them apart) are a recent call's but for the scale's value takes that call's
    checks, with its own scale: a training step's call costs a dictionary lookup."""
    args = (dtype_name, shape, strides, itemsize, fmt, scaling, scale, block, scale_layout, pow2_scales, outputs)
    if not (type(outputs) is tuple and type(pow2_scales) is bool and
            (block is None or type(block) is tuple and all(type(b) is int for b in block))):
        return _Request(*args)  # lists, and values equal to others of another type: checked afresh
    key = (dtype_name, shape, strides, itemsize, fmt, scaling, scale is None, block, scale_layout, pow2_scales,
           outputs)
    try:
        r = _REQUESTS.get(key)
    except TypeError:  # something unhashable
        return _Request(*args)
    if r is None:
        r = _Request(*args)
        if len(_REQUESTS) >= 256:
            _REQUESTS.clear()
        _REQUESTS[key] = r
    elif scale is not None:
        r = copy.copy(r)
        r.scale = float(scale)
    return r


def _native(*args):
    try:
        _xpose.quantize(*args)
    except (ValueError, RuntimeError) as e:
        raise type(e)("xpose.quantize: " + str(e)) from None


def quantize(x, *, format="e4m3", scaling="current", scale=None, block=None, scale_layout=None, pow2_scales=False,
             outputs=_OUTPUTS):
    """x (rows, cols; float32, bfloat16 or float16) scaled and cast to FP8 as it is (data) and
    transposed (data_t), with the scales of each and x's amax, in one pass over x: a Quantized.

    format: "e4m3" or "e5m2" (round to nearest even, saturating). scaling: "delayed" (the given
    `scale`), "current" (from x's amax), "blocks" (an fp32 scale a `block` = (rows, cols) block,
    default (1, 128): DeepSeek-V3's 1x128 activations, (128, 128) weights), "mx" (MXFP8: an
    E8M0 scale a 1 x 32 block). Scales are what the GEMM multiplies by (1 / scale; E8M0 codes), in
    `scale_layout`: "row_major", "column_major" (DeepGEMM's MN-major, padded to 16 bytes) or
    "tiled_128x4" (MXFP8's cuBLASLt layout, the default for "mx"). The transpose's blocks are in
    its own coordinates. `outputs`: which of "data", "data_t", "scales", "scales_t", "amax" to
    write (current scaling always writes amax). PyTorch tensors on a GPU give float8 tensors and
    run on the current stream (torch.ops.xpose.quantize: torch.compile traces it); CuPy arrays
    give uint8 codes; JAX arrays go through xpose.jax.quantize; NumPy arrays and PyTorch CPU
    tensors run the CPU reference, which the GPU matches bit for bit. No gradient flows through
    it (its outputs do not require grad).
    """
    from . import _library_of

    lib = _library_of(x)
    np, cupy = sys.modules.get("numpy") if lib == "numpy" else None, sys.modules.get("cupy") if lib == "cupy" else None
    if lib == "torch":
        r = _request(str(x.dtype).replace("torch.", ""), tuple(x.shape), x.stride(), x.element_size(), format, scaling,
                     scale, block, scale_layout, pow2_scales, outputs)
        got = _torch_call(x, r)
        return Quantized(*(t if r.want[o] else None for o, t in zip(_OUTPUTS, got)))
    if lib == "cupy":
        r = _request_of_array(x, format, scaling, scale, block, scale_layout, pow2_scales, outputs)
        with x.device:
            out = _allocate(cupy, r)
            stream = cupy.cuda.get_current_stream(x.device.id).ptr
            _native(*r.fields(), x.data.ptr, *(_address(out[o], lambda a: a.data.ptr) for o in _OUTPUTS), stream,
                    x.device.id)
            _fill_empty_scales(r, out["scales"], out["scales_t"])
        return Quantized(*(out[o] for o in _OUTPUTS))
    if lib == "numpy":
        if isinstance(x, np.ma.MaskedArray):
            raise _error(TypeError, "x is a masked array; quantize x.data")
        r = _request_of_array(x, format, scaling, scale, block, scale_layout, pow2_scales, outputs)
        out = _allocate(np, r)
        if r.rows and r.cols:
            _native(*r.fields(), x.ctypes.data, *(_address(out[o], lambda a: a.ctypes.data) for o in _OUTPUTS), -1,
                    -1)
        _fill_empty_scales(r, out["scales"], out["scales_t"])
        return Quantized(*(out[o] for o in _OUTPUTS))
    from . import _is_jax, _jax_custom_call

    if _is_jax(x):
        if not _jax_custom_call():
            raise _error(RuntimeError, "x is a JAX array, and this xpose was built without JAX's XLA FFI headers; "
                                       "rebuild it with jaxlib in the build environment")
        from . import jax as xpose_jax

        return xpose_jax.quantize(x, format=format, scaling=scaling, scale=scale, block=block,
                                  scale_layout=scale_layout, pow2_scales=pow2_scales, outputs=outputs)
    raise _error(TypeError, f"x must be a PyTorch, CuPy, NumPy or JAX array; got {type(x).__module__}."
                            f"{type(x).__name__}")


def _fill_empty_scales(r, *scales):
    """An empty x's tensor scales (r.empty_scale()) into the scale outputs asked for (0-D: NumPy,
    CuPy or PyTorch arrays; None or an empty tensor where not asked for)."""
    value = r.empty_scale()
    for s in scales if value is not None else ():
        if s is not None and s.ndim == 0:
            (s.fill_ if hasattr(s, "fill_") else s.fill)(value)


def _request_of_array(x, *args):
    if any(s % x.itemsize for s in x.strides):
        raise _error(ValueError, f"x's strides {tuple(x.strides)} (bytes) are not whole elements")
    return _request(x.dtype.name, tuple(x.shape), tuple(s // x.itemsize for s in x.strides), x.itemsize, *args)


def _address(a, of):
    return 0 if a is None or a.size == 0 else of(a)


def _allocate(lib, r):
    """NumPy's or CuPy's outputs: uint8 codes, fp32 scales (uint8 for E8M0), an fp32 amax."""
    u8, f32 = lib.uint8, lib.float32
    out = dict.fromkeys(_OUTPUTS)
    if r.want["data"]:
        out["data"] = lib.empty((r.rows, r.cols), u8)
    if r.want["data_t"]:
        out["data_t"] = lib.empty((r.cols, r.rows), u8)
    for name, transposed in (("scales", False), ("scales_t", True)):
        if r.want[name]:
            out[name] = lib.empty(r.scale_shape(transposed), u8 if r.scaling == 3 else f32)
    if r.want["amax"]:
        out["amax"] = lib.zeros((), f32)  # an empty x's amax: nothing is written
    return out


def request_of_op(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want):
    """The op's arguments (the descriptor's codes) as a request."""
    def name(table, code):
        return next((k for k, v in table.items() if v == code), code)
    return _Request(str(x.dtype).replace("torch.", ""), tuple(x.shape), x.stride(), x.element_size(),
                    name(_FORMATS, fmt), name(_SCALINGS, scaling), scale if scaling == 0 else None,
                    (block_rows, block_cols) if scaling == 2 else None, name(_LAYOUTS, layout), pow2,
                    [o for o, w in zip(_OUTPUTS, want) if w])


def _torch_call(x, r):
    """Request r on PyTorch tensor x: in C++ for a plain CUDA tensor in eager mode (outputs from
    PyTorch's allocator through DLPack's exchange), else the op where it adds something
    (torch.compile, tracing, modes), else what the op runs, without the custom-op dispatch's
    tens of microseconds."""
    from . import _seen_torch

    _seen_torch()
    from . import _PLAIN, _compiling

    if type(x) is _PLAIN and not _compiling() and x.is_cuda:
        shapes = [r.scale_shape(t) if r.want[o] else () for o, t in (("scales", False), ("scales_t", True))]
        try:
            got = _xpose.torch_quantize(x, *r.fields(), r.want_list, *shapes)
        except (ValueError, RuntimeError) as e:
            message = str(e)
            raise type(e)(message if message.startswith("xpose.") else "xpose.quantize: " + message) from None
        if got is not None:
            _fill_empty_scales(r, *got[2:4])
            return got
    from ._torch import _plain_eager, quantize_op

    return torch_run(x, r) if _plain_eager(x) else quantize_op(x, *r.fields()[4:], r.want_list)


def torch_impl(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want):
    """The op's implementation."""
    return torch_run(x, request_of_op(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want))


def torch_run(x, r):
    """Request r on PyTorch tensor x: every output allocated (empty where not wanted), then one
    call on PyTorch's current stream of x's device."""
    written = bool(r.rows and r.cols)
    out = torch_outputs(x, r, written)
    if written:
        device = x.get_device()  # -1: the CPU
        if device >= 0:
            from . import _torch_stream

            stream = _torch_stream(device)
        else:
            stream = -1
        _native(*r.fields(), x.data_ptr(),
                *(t.data_ptr() if r.want[o] and t.numel() else 0 for o, t in zip(_OUTPUTS, out)), stream, device)
    _fill_empty_scales(r, *out[2:4])
    return out


def torch_outputs(x, r, written=False):
    """PyTorch's outputs of request r for x (also the op's fake results): float8 codes, fp32 or
    E8M0 scales, an fp32 amax; an empty tensor for each output not wanted. The amax is 0 unless
    the call will write it (`written`: x has elements)."""
    torch = sys.modules["torch"]
    fp8 = torch.float8_e4m3fn if r.format == 0 else torch.float8_e5m2
    e8m0 = getattr(torch, "float8_e8m0fnu", torch.uint8)
    scale_dtype = e8m0 if r.scaling == 3 else torch.float32
    shapes = ((r.rows, r.cols, fp8), (r.cols, r.rows, fp8))
    out = [x.new_empty(s[:2], dtype=s[2]) if r.want[o] else x.new_empty((0,), dtype=s[2])
           for o, s in zip(("data", "data_t"), shapes)]
    for name, transposed in (("scales", False), ("scales_t", True)):
        out.append(x.new_empty(r.scale_shape(transposed) if r.want[name] else (0,), dtype=scale_dtype))
    amax = x.new_empty if written else x.new_zeros
    out.append(amax((), dtype=torch.float32) if r.want["amax"] else x.new_empty((0,), dtype=torch.float32))
    return out
