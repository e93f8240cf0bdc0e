"""Property-based tests of xpose.transpose's boundary (Hypothesis): arrays and views of every
layout NumPy, PyTorch and CuPy can express (zero, overlapping, negative and odd strides,
broadcasts, read-only and immutable memory, every item size, 0 to 4 dimensions; any view of
x is served, any out whose elements are distinct), each
inside a guarded arena of random bytes. Every call either returns NumPy's transpose bit for
bit, writing nothing outside out's elements and nothing to x, or raises one clear line
(xpose.transpose: ...) having written nothing at all. Layouts the documented contract
serves must succeed; outs it forbids must be refused.

The NumPy suite runs everywhere; the PyTorch and CuPy suites where a CUDA device is.
HYPOTHESIS_PROFILE=ci (the default under CI=true) is derandomized: a fixed sequence of
examples; `dev` draws new ones each run, and a failure prints the example to reproduce."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import xpose
from arena import EXTENTS, Layout, extent_of, layouts, random_arena

settings.register_profile("ci", max_examples=400, derandomize=True, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=300, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

MAX_ELEMENTS = 1 << 15


class NumpyBackend:
    name = "numpy"
    negative = odd = read_only = True  # NumPy expresses negative and odd strides, unaligned and read-only data

    def dtypes(self, itemsize):
        return {1: ["bool", "int8", "uint8"], 2: ["int16", "float16"], 4: ["int32", "float32"],
                8: ["int64", "float64", "complex64"], 16: ["complex128", "V16"]}[itemsize]

    def arena(self, host, memory):
        if memory == "immutable":  # a buffer over a bytes object
            return np.frombuffer(host.tobytes(), np.uint8)
        a = host.copy()
        if memory == "read-only":
            a.flags.writeable = False
        return a

    def view(self, arena, layout, dtype):
        return layout.numpy_view(arena, np.dtype(dtype))

    def host(self, arena):
        return np.array(arena, copy=True)

    def result_bits(self, y, itemsize):
        return np.ascontiguousarray(y).view(np.uint8).reshape(-1)


class TorchBackend:
    name = "torch"
    negative = odd = read_only = False  # torch.as_strided takes neither negative strides nor byte offsets

    def __init__(self):
        import torch

        self.torch = torch

    def dtypes(self, itemsize):
        t = self.torch
        return {1: [t.bool, t.uint8, t.int8, t.float8_e4m3fn], 2: [t.float16, t.bfloat16, t.int16],
                4: [t.float32, t.int32], 8: [t.float64, t.int64, t.complex64], 16: [t.complex128]}[itemsize]

    def arena(self, host, memory):
        return self.torch.from_numpy(host.copy()).to("cuda")

    def view(self, arena, layout, dtype):
        itemsize = layout.itemsize
        typed = arena[: arena.numel() // itemsize * itemsize].view(dtype)
        return self.torch.as_strided(typed, layout.shape, [s // itemsize for s in layout.strides],
                                     layout.offset // itemsize)

    def host(self, arena):
        self.torch.cuda.synchronize()
        return arena.cpu().numpy().copy()

    def result_bits(self, y, itemsize):
        self.torch.cuda.synchronize()
        flat = y.contiguous().reshape(-1)
        return flat.view(self.torch.uint8).cpu().numpy() if flat.numel() else np.zeros(0, np.uint8)


class CupyBackend:
    name = "cupy"
    negative, odd, read_only = True, False, False

    def __init__(self):
        import cupy

        self.cupy = cupy

    def dtypes(self, itemsize):
        return {1: ["bool", "uint8"], 2: ["float16"], 4: ["float32"], 8: ["float64", "complex64"],
                16: ["complex128"]}[itemsize]

    def arena(self, host, memory):
        return self.cupy.asarray(host.copy())

    def view(self, arena, layout, dtype):
        return self.cupy.ndarray(layout.shape, dtype=dtype, memptr=arena.data + layout.offset,
                                 strides=layout.strides)

    def host(self, arena):
        self.cupy.cuda.get_current_stream().synchronize()
        return self.cupy.asnumpy(arena).copy()

    def result_bits(self, y, itemsize):
        self.cupy.cuda.get_current_stream().synchronize()
        return self.cupy.asnumpy(self.cupy.ascontiguousarray(y)).view(np.uint8).reshape(-1)


def nested(layout):
    """Axes nested: each stride clears everything the smaller strides span (so every element
    has bytes of its own)."""
    span = layout.itemsize
    for n, s in sorted(owned(layout), key=lambda p: p[1]):
        if s < span:
            return False
        span += (n - 1) * s
    return True


def owned(layout):
    """(extent, byte stride) of the axes that address more than one index."""
    return [(n, s) for n, s in zip(layout.shape, layout.strides) if n > 1]


def served_x(xl):
    """The documented contract for x: 2 or more axes; unless empty, non-negative whole-element
    strides (any others: broadcast, overlapping, transposed) and data on its element's alignment
    (8 bytes for 16-byte elements)."""
    e = xl.itemsize
    if len(xl.shape) < 2:
        return False
    if 0 in xl.shape:
        return True
    return not any(s < 0 or s % e for _, s in owned(xl)) and xl.offset % min(e, 8) == 0


def distinct(layout):
    """Every element of its own bytes, counted (the library proves it, or says it cannot)."""
    e = layout.itemsize
    offsets = np.zeros(1, np.int64)
    for n, s in owned(layout):
        offsets = (offsets[:, None] + np.arange(n, dtype=np.int64)[None, :] * (s // e)).reshape(-1)
    return np.unique(offsets).size == offsets.size


def served_out(ol, xl, memory, shared):
    """The documented contract for out: the result's shape, writable; unless empty, non-negative
    whole-element strides, aligned, every element its own memory, apart from x."""
    e = ol.itemsize
    if ol.shape != xl.shape[:-2] + (xl.shape[-1], xl.shape[-2]) or memory != "writable":
        return False
    if 0 in ol.shape:
        return True
    if any(s < 0 or s % e for _, s in owned(ol)) or ol.offset % min(e, 8) or not distinct(ol):
        return False
    if shared:  # xpose keeps out's whole byte span apart from x's
        x_low, x_high = (xl.offset + b for b in extent_of(xl.shape, xl.strides, e))
        o_low, o_high = (ol.offset + b for b in extent_of(ol.shape, ol.strides, e))
        return o_high <= x_low or x_high <= o_low
    return True


@st.composite
def requests(draw, backend):
    itemsize = draw(st.sampled_from([1, 2, 4, 8, 16]))
    nd = draw(st.sampled_from([0, 1, 2, 2, 2, 3, 3, 3, 4]))
    shape = tuple(draw(st.tuples(*[EXTENTS] * nd)))
    while int(np.prod(shape, dtype=np.int64)) > MAX_ELEMENTS:
        shape = tuple(max(1, n // 2) for n in shape)
    xl = draw(layouts(itemsize, shape, whole_elements=not backend.odd, aligned=not backend.odd,
                      negative=backend.negative))
    dtype = draw(st.sampled_from(backend.dtypes(itemsize)))
    memories = ["writable", "read-only", "immutable"] if backend.read_only else ["writable"]
    x_memory = draw(st.sampled_from(memories))
    out = draw(st.sampled_from(["none", "own", "own", "shared"]))
    if out == "none" or nd < 2:
        return xl, dtype, x_memory, None, None, False
    oshape = shape[:-2] + (shape[-1], shape[-2])
    if draw(st.integers(0, 19)) == 0:
        oshape = shape  # the wrong shape, unless square
    ol = draw(layouts(itemsize, oshape, whole_elements=not backend.odd, aligned=not backend.odd,
                      negative=backend.negative))
    o_memory = draw(st.sampled_from(memories + ["writable"] * 3))
    if out == "shared":  # out inside x's arena, anywhere from before x to after it
        shift = draw(st.integers(0, xl.arena_bytes)) // 16 * 16
        ol = Layout(itemsize, ol.shape, ol.strides, ol.offset + shift, xl.arena_bytes + ol.arena_bytes)
        xl = Layout(itemsize, xl.shape, xl.strides, xl.offset, ol.arena_bytes)
        o_memory = x_memory
    return xl, dtype, x_memory, ol, o_memory, out == "shared"


def check(backend, request, seed):
    xl, dtype, x_memory, ol, o_memory, shared = request
    note(f"x: {xl} {dtype} {x_memory}; out: {ol} {o_memory}{' (in x arena)' if shared else ''}")
    rng = np.random.default_rng(seed)
    host_x = random_arena(xl.arena_bytes, rng)
    if dtype in ("bool",) or str(dtype) == "torch.bool":
        host_x &= 1
    arena_x = backend.arena(host_x, x_memory)
    x = backend.view(arena_x, xl, dtype)
    arena_o, out = None, None
    if ol is not None:
        if shared:
            arena_o = arena_x
        else:
            host_o = random_arena(ol.arena_bytes, rng)
            if dtype in ("bool",) or str(dtype) == "torch.bool":
                host_o &= 1
            arena_o = backend.arena(host_o, o_memory)
        out = backend.view(arena_o, ol, dtype)
    before_x = backend.host(arena_x)
    before_o = backend.host(arena_o) if arena_o is not None and not shared else None

    try:
        y, error = xpose.transpose(x, out=out), None
    except (ValueError, TypeError, RuntimeError) as e:
        y, error = None, e
    after_x = backend.host(arena_x)
    after_o = backend.host(arena_o) if before_o is not None else None

    served = served_x(xl) and (ol is None or served_out(ol, xl, o_memory, shared))
    if error is not None:
        message = str(error)
        assert message.startswith("xpose.transpose: ") and "\n" not in message, repr(message)
        assert (after_x == before_x).all(), f"a refused call wrote to x's arena ({message})"
        if after_o is not None:
            assert (after_o == before_o).all(), f"a refused call wrote to out's arena ({message})"
        unproven = "cannot prove" in message and ol is not None and not nested(ol)
        assert not served or unproven, f"refused a request the contract serves: {message}"
        return
    # Each way of serving what the contract refuses fails on a line of its own, so Hypothesis
    # reports (and shrinks) each one apart.
    if ol is not None:
        assert o_memory == "writable", "wrote to a read-only or immutable out"
        assert 0 in ol.shape or not any(s == 0 for _, s in owned(ol)), "wrote to an out with a broadcast axis"
        assert 0 in ol.shape or distinct(ol), "wrote to an out whose elements overlap"
    assert served_x(xl), "served an x the contract refuses"
    assert served, "served an out the contract refuses"
    expected = np.ascontiguousarray(np.swapaxes(xl.bits(before_x), -1, -2)).view(np.uint8).reshape(-1)
    if ol is None:
        assert (after_x == before_x).all(), "wrote to x"
        got = backend.result_bits(y, xl.itemsize)
    else:
        assert y is out
        written = ol.owned_bytes()
        if shared:
            assert (after_x[~written] == before_x[~written]).all(), "wrote outside out's elements (or to x)"
            got = ol.bits(after_x).view(np.uint8).reshape(-1)
        else:
            assert (after_x == before_x).all(), "wrote to x"
            assert (after_o[~written] == before_o[~written]).all(), "wrote outside out's elements"
            got = ol.bits(after_o).view(np.uint8).reshape(-1)
    assert got.size == expected.size and (got == expected).all(), "the result differs from NumPy's transpose"


SEEDS = st.integers(0, 2**32 - 1)


@given(request=requests(NumpyBackend()), seed=SEEDS)
def test_numpy_views(request, seed):
    check(NumpyBackend(), request, seed)


def gpu_backend(name):
    module = pytest.importorskip(name, reason=f"{name} is not installed")
    if name == "torch" and not module.cuda.is_available():
        pytest.skip("no CUDA device")
    if name == "cupy":
        try:
            module.cuda.runtime.getDeviceCount()
        except Exception as e:  # noqa: BLE001 - CuPy raises its own runtime error without a driver
            pytest.skip(f"no CUDA device ({type(e).__name__})")
    return TorchBackend() if name == "torch" else CupyBackend()


@pytest.mark.parametrize("name", ["torch", "cupy"])
def test_gpu_views(name):
    backend = gpu_backend(name)

    @given(request=requests(backend), seed=SEEDS)
    def run(request, seed):
        check(backend, request, seed)

    run()


# JAX arrays have no strides a user sets: their views are JAX's own ops (transposes, steps,
# slices at an offset, broadcasts), each a new array. Any such array, of every element type JAX
# has, through xpose.permute_dims eagerly and xpose.jax.permute_dims under jax.jit, is
# jnp.transpose bit for bit, or a bad `axes` is refused in one line. On JAX's default device
# (the GPU where there is one).
JAX_DTYPES = ["bool", "int8", "uint8", "float8_e4m3fn", "float8_e5m2", "float16", "bfloat16", "int16", "int32",
              "float32", "complex64"]


@st.composite
def jax_requests(draw):
    shape = draw(st.lists(st.integers(0, 6), min_size=1, max_size=5))
    views = draw(st.lists(st.sampled_from(["transpose", "step", "offset", "broadcast"]), max_size=3))
    dtype = draw(st.sampled_from(JAX_DTYPES))
    good = draw(st.integers(0, 9)) > 0
    return shape, views, dtype, good, draw(st.randoms(use_true_random=False))


def test_jax_arrays():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    jnp = pytest.importorskip("jax.numpy")
    import xpose.jax as xj

    jitted = {}

    @given(request=jax_requests(), seed=SEEDS)
    def run(request, seed):
        shape, views, dtype, good, rnd = request
        dt = jnp.dtype(dtype)
        raw = np.random.default_rng(seed).integers(0, 256, int(np.prod(shape)) * dt.itemsize, dtype=np.uint8)
        if dtype == "bool":
            raw &= 1
        x = jnp.asarray(raw.view(dt).reshape(shape))
        for v in views:
            if v == "transpose":
                order = list(range(x.ndim))
                rnd.shuffle(order)
                x = jnp.transpose(x, order)
            elif v == "step":
                x = x[(slice(None, None, 2),) * x.ndim]
            elif v == "offset":
                x = x[(slice(1, None),) * x.ndim]
            elif x.ndim < 6:
                x = jnp.broadcast_to(x, (3,) + x.shape)
        axes = list(range(x.ndim))
        rnd.shuffle(axes)
        if rnd.random() < 0.3:
            axes = [a - x.ndim for a in axes]
        if not good:
            axes = axes[:-1] if axes and rnd.random() < 0.5 else axes + [0]
        note(f"{dtype} {shape} views {views} -> {x.shape}, axes {axes}")
        want = np.asarray(jnp.transpose(x, [a % x.ndim for a in axes])) if good else None
        for name, call in (("permute_dims", lambda: xpose.permute_dims(x, axes)),
                           ("jax.permute_dims", lambda: jitted.setdefault(
                               (tuple(axes),), jax.jit(lambda v, a=tuple(axes): xj.permute_dims(v, a)))(x))):
            if not good:
                with pytest.raises(ValueError) as e:
                    call()
                message = str(e.value)
                assert message.startswith(f"xpose.{name}: ") and "\n" not in message, message
                continue
            y = call()
            assert isinstance(y, jax.Array) and y.dtype == x.dtype and y.shape == want.shape, (name, y.shape)
            assert np.asarray(y).tobytes() == want.tobytes(), f"xpose.{name} differs from jnp.transpose"
            assert list(y.devices()) == list(x.devices()), "the result left x's device"

    if not xj.available():
        pytest.skip("this xpose was built without jaxlib in its build environment (no custom call)")
    run()
