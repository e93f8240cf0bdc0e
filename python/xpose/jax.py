"""xpose for JAX inside jax.jit: `permute_dims` and `matrix_transpose` as an XLA custom call
(jax.ffi), on the GPU on XLA's stream, on the CPU through xpose's CPU path. Any element type
of 1, 2, 4, 8 or 16 bytes (bool, the fp8 kinds, bf16, ... complex128), any shape; `jax.vmap`
keeps its batch axes in front, `jax.grad` is the inverse permutation; equal to
`jnp.transpose` bit for bit.

    import jax, xpose.jax
    f = jax.jit(lambda x: xpose.jax.permute_dims(x, (0, 2, 1, 3)))

Needs an xpose built with jaxlib in its build environment (`pip install --no-build-isolation
./python` beside JAX); `available()` says whether this one was."""
import functools

import jax
import numpy as np

from . import _check_dims, _xpose

__all__ = ["permute_dims", "matrix_transpose", "available"]

_TARGET = "xpose_permute"


def available():
    """Whether this build of xpose has the custom call."""
    return hasattr(_xpose, "jax_targets")


@functools.cache
def _register():
    if not available():
        raise RuntimeError("xpose.jax: this xpose was built without JAX's XLA FFI headers; rebuild it with jaxlib "
                           "in the build environment (pip install --no-build-isolation ./python)")
    for platform, capsule in _xpose.jax_targets().items():
        jax.ffi.register_ffi_target(_TARGET, capsule, platform=platform)
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
