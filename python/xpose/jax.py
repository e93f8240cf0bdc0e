"""xpose for JAX inside jax.jit: `permute_dims` and `matrix_transpose` as an XLA custom call
(jax.ffi), on the GPU on XLA's stream, on the CPU through xpose's CPU path. Any element type
of 1, 2, 4, 8 or 16 bytes (bool, the fp8 kinds, bf16, ... complex128), any shape; `jax.vmap`
keeps its batch axes in front, `jax.grad` is the inverse permutation; equal to
`jnp.transpose` bit for bit. `quantize`: xpose.quantize's FP8 quantization (a matrix and its
transpose with their scales and amax, one pass) as a custom call of its own.

    import jax, xpose.jax
    f = jax.jit(lambda x: xpose.jax.permute_dims(x, (0, 2, 1, 3)))

Needs an xpose built with jaxlib in its build environment (`pip install --no-build-isolation
./python` beside JAX); `available()` says whether this one was."""
import functools

import jax
import numpy as np

from . import _check_dims, _quantize, _xpose

__all__ = ["permute_dims", "matrix_transpose", "quantize", "available"]

_TARGET = "xpose_permute"
_QUANTIZE = "xpose_quantize"


def available():
    """Whether this build of xpose has the custom call."""
    return hasattr(_xpose, "jax_targets")


@functools.cache
def _register():
    if not available():
        raise RuntimeError("xpose.jax: this xpose was built without JAX's XLA FFI headers; rebuild it with jaxlib "
                           "in the build environment (pip install --no-build-isolation ./python)")
    for target, handlers in _xpose.jax_targets().items():
        for platform, capsule in handlers.items():
            jax.ffi.register_ffi_target(target, capsule, platform=platform)
    return True


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _permute(x, axes):
    _register()
    result = jax.ShapeDtypeStruct(tuple(x.shape[a] for a in axes), x.dtype)
    # broadcast_all: vmap's batch axes arrive in front of x's and of the result's; the
    # handler keeps them there.
    call = jax.ffi.ffi_call(_TARGET, result, vmap_method="broadcast_all")
    return call(x, perm=np.asarray(axes, dtype=np.int64))


def _forward(x, axes):
    return _permute(x, axes), None


def _backward(axes, _, grad):
    inverse = [0] * len(axes)
    for k, a in enumerate(axes):
        inverse[a] = k
    return (_permute(grad, tuple(inverse)),)


_permute.defvjp(_forward, _backward)


def permute_dims(x, axes):
    """x with its axes permuted (the result's axis k is x's axis axes[k]), as jnp.transpose(x, axes)."""
    return _permute(x, tuple(_check_dims(axes, x.ndim, "jax.permute_dims")))


def matrix_transpose(x):
    """The last two axes of x swapped (any rank >= 2), as jnp.matrix_transpose(x)."""
    if x.ndim < 2:
        raise ValueError(f"xpose.jax.matrix_transpose: x must have at least 2 axes (..., rows, cols); got {x.ndim}-D")
    return _permute(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def quantize(x, *, format="e4m3", scaling="current", scale=None, block=None, scale_layout=None, pow2_scales=False,
             outputs=_quantize._OUTPUTS):
    """xpose.quantize for a JAX array x (rows, cols; float32, bfloat16 or float16), under jax.jit
    or not: an xpose.Quantized of JAX arrays on x's device, None for the outputs not asked for.
    The arguments are xpose.quantize's (see its docstring). data and data_t are float8_e4m3fn or
    float8_e5m2 arrays, scales fp32 (uint8 E8M0 codes for scaling="mx"), amax a 0-D fp32 array.
    Bit for bit what xpose.quantize gives on the CPU. No gradient: x is taken through
    jax.lax.stop_gradient. Under jax.vmap it runs once for each matrix of the batch."""
    import jax.numpy as jnp

    _register()
    if x.ndim != 2:
        raise ValueError(f"xpose.jax.quantize: x must be a matrix (rows, cols); got {x.ndim}-D")
    rows, cols = x.shape
    try:
        r = _quantize._Request(jnp.dtype(x.dtype).name, (rows, cols), (cols, 1), x.dtype.itemsize, format, scaling,
                               scale, block, scale_layout, pow2_scales, outputs)
        scale_shapes = r.scale_shape(False), r.scale_shape(True)
    except (ValueError, TypeError) as e:
        raise type(e)(str(e).replace("xpose.quantize", "xpose.jax.quantize", 1)) from None
    fp8 = jnp.float8_e4m3fn if r.format == 0 else jnp.float8_e5m2
    scale_dtype = jnp.uint8 if r.scaling == 3 else jnp.float32
    shapes = {"data": ((rows, cols), fp8), "data_t": ((cols, rows), fp8), "scales": (scale_shapes[0], scale_dtype),
              "scales_t": (scale_shapes[1], scale_dtype), "amax": ((), jnp.float32)}
    results = [jax.ShapeDtypeStruct(shapes[o][0] if r.want[o] else (0,), shapes[o][1]) for o in _quantize._OUTPUTS]
    want = sum(1 << k for k, o in enumerate(_quantize._OUTPUTS) if r.want[o])
    call = jax.ffi.ffi_call(_QUANTIZE, results, vmap_method="sequential")
    got = call(jax.lax.stop_gradient(x), format=np.int64(r.format), scaling=np.int64(r.scaling),
               scale_layout=np.int64(r.layout), block_rows=np.int64(r.block[0]), block_cols=np.int64(r.block[1]),
               pow2=bool(r.pow2), scale=np.float32(r.scale), want=np.int64(want))
    got = list(got)
    value = r.empty_scale()  # x without elements: no kernel writes a tensor recipe's scales
    if value is not None:
        got[2], got[3] = (jnp.full_like(g, value) for g in got[2:4])  # on x's device, as the call's results
    return _quantize.Quantized(*(g if r.want[o] else None for o, g in zip(_quantize._OUTPUTS, got)))
