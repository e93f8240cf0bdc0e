"""xpose.permute on NumPy arrays (the CPU path): bit for bit numpy.transpose(x, dims).copy()
on random permutations of random views (every element size, rank 0-6, odd extents, slices
with steps, broadcast axes, padded and transposed `out`), and every refusal one line that
leaves `out` as it was."""
import itertools

import numpy as np
import pytest

import xpose

DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128, np.bool_]


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and \
        np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8))


def random_array(rng, shape, dtype):
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
    x = raw.view(dtype).reshape(shape)
    return x & True if dtype is np.bool_ else x


def random_view(rng, dtype):
    """A view with random extents, sliced with steps and sometimes broadcast along an axis."""
    nd = int(rng.integers(0, 7))
    shape = tuple(int(rng.integers(1, 6)) for _ in range(nd))
    base = random_array(rng, tuple(2 * n for n in shape), dtype)
    steps = tuple(slice(0, 2 * n, int(rng.integers(1, 3))) for n in shape)
    x = np.asarray(base[steps][tuple(slice(0, n) for n in shape)])  # a 0-d view indexes to a scalar
    if nd and rng.random() < 0.3:
        axis = int(rng.integers(0, nd))
        x = np.broadcast_to(np.take(x, [0], axis=axis), x.shape[:axis] + (shape[axis] + 2,) + x.shape[axis + 1:])
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_random_permutations_of_random_views(dtype):
    rng = np.random.default_rng(16)
    for _ in range(150):
        x = random_view(rng, dtype)
        dims = list(rng.permutation(x.ndim))
        if x.ndim and rng.random() < 0.3:
            dims = [d - x.ndim for d in dims]  # negative axes, as numpy takes them
        want = np.transpose(x, dims).copy()
        y = xpose.permute(x, dims)
        assert same_bits(y, want), (x.shape, x.strides, dims)
        assert y.flags.c_contiguous


def test_out_padded_and_transposed():
    rng = np.random.default_rng(3)
    x = random_array(rng, (3, 4, 5, 6), np.float32)
    dims = (2, 0, 3, 1)
    want = np.transpose(x, dims)
    big = np.full((6, 4, 7, 5), 7.0, np.float32)
    out = big[:5, :3, :6, :4]  # padded rows and planes
    assert xpose.permute(x, dims, out=out) is out
    assert same_bits(out, want)
    assert (big[5:] == 7).all() and (big[:, 3:] == 7).all() and (big[:, :, 6:] == 7).all() and (big[..., 4:] == 7).all()
    out_t = np.empty((4, 6, 3, 5), np.float32).transpose(3, 2, 1, 0)  # column-major out
    xpose.permute(x, dims, out=out_t)
    assert same_bits(out_t, want)


def test_model_layouts():
    rng = np.random.default_rng(5)
    nchw = random_array(rng, (2, 8, 5, 7), np.float16)
    assert same_bits(xpose.permute(nchw, (0, 2, 3, 1)), nchw.transpose(0, 2, 3, 1).copy())
    bshd = random_array(rng, (2, 9, 4, 8), np.uint16)
    assert same_bits(xpose.permute(bshd, (0, 2, 1, 3)), bshd.transpose(0, 2, 1, 3).copy())
    assert same_bits(xpose.permute(bshd, (0, 2, 3, 1)), bshd.transpose(0, 2, 3, 1).copy())
    vol = random_array(rng, (5, 6, 7), np.float64)
    assert same_bits(xpose.permute(vol, (2, 1, 0)), vol.transpose(2, 1, 0).copy())
    scalar = np.array(3.5)
    assert same_bits(xpose.permute(scalar, ()), scalar)


def test_empty_arrays():
    x = np.zeros((3, 0, 4), np.int32)
    assert xpose.permute(x, (2, 0, 1)).shape == (4, 3, 0)


def refuses(error, x, dims, out=None, match=None):
    before = out.copy() if isinstance(out, np.ndarray) else None
    with pytest.raises(error, match=match) as info:
        xpose.permute(x, dims, out=out)
    message = str(info.value)
    assert message.startswith("xpose.permute: ") and "\n" not in message, message
    if before is not None:
        assert same_bits(out, before), "a refused call wrote to out"


def test_refusals():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    refuses(ValueError, x, (0, 1), match="not a permutation of the 3 axes")
    refuses(ValueError, x, (0, 1, 1), match="not a permutation")
    refuses(ValueError, x, (0, 1, 3), match="not a permutation")
    refuses(TypeError, x, "abc", match="dims must be a sequence")
    refuses(ValueError, x[::-1], (0, 1, 2), match="negative strides")
    refuses(ValueError, x, (2, 0, 1), out=np.zeros((4, 2, 2), np.float32), match="the result's shape is")
    refuses(ValueError, x, (2, 0, 1), out=np.zeros((4, 2, 3), np.float64), match="dtype")
    ro = np.zeros((4, 2, 3), np.float32)
    ro.flags.writeable = False
    refuses(ValueError, x, (2, 0, 1), out=ro, match="read-only")
    shared = np.broadcast_to(np.zeros((1, 2, 3), np.float32), (4, 2, 3))
    with pytest.raises(ValueError, match="read-only|share memory"):
        xpose.permute(x, (2, 0, 1), out=shared)
    arena = np.zeros(64, np.float32)
    refuses(ValueError, arena[:24].reshape(2, 3, 4), (2, 0, 1), out=arena[8:32].reshape(4, 2, 3),
            match="overlap")
    overlapping = np.lib.stride_tricks.as_strided(np.zeros(64, np.float32), (4, 2, 3), (4, 12, 4))
    refuses(ValueError, x, (2, 0, 1), out=overlapping, match="share memory")
    refuses(TypeError, [[1, 2]], (1, 0), match="must be a PyTorch tensor")
    refuses(ValueError, np.zeros((1,) * 17, np.uint8), list(range(17)), match="at most 16")


def test_dims_as_numpy_reads_axes():
    """dims is numpy.transpose's `axes`: None reverses, any sequence of integers (NumPy's
    included), negative axes, a single integer for a 1-D x."""
    rng = np.random.default_rng()
    x = random_array(rng, (3, 4, 5), np.float32)
    for dims in [None, (2, 0, 1), [-1, 0, -2], np.array([1, 2, 0]), range(2, -1, -1),
                 (np.int8(1), np.uint64(0), 2), [np.array(2), 1, 0]]:
        want = np.transpose(x, dims)
        assert same_bits(xpose.permute(x, dims), want), dims
        out = np.full(want.shape, np.nan, np.float32)
        assert xpose.permute(x, dims, out=out) is out and same_bits(out, want), dims
    assert same_bits(xpose.permute(x), np.transpose(x))  # dims defaults to None, as axes does
    v = random_array(rng, (7,), np.uint8)
    for dims in [0, -1, np.int64(0), np.array(0), [0], None]:
        assert same_bits(xpose.permute(v, dims), np.transpose(v, dims)), dims
    s = np.array(2.5)
    assert same_bits(xpose.permute(s, None), np.transpose(s, None))


class Endless:
    """A sequence that never ends (or says it is `length` long): whatever reads it to its end
    hangs, but here trips after 1000 entries instead."""

    def __init__(self, length=None):
        self.length, self.reads = length, 0

    def __getitem__(self, k):
        self.reads += 1
        assert self.reads < 1000, "dims read without end"
        return k

    def __len__(self):
        if self.length is None:
            raise TypeError("no length")
        return self.length


def tripwire():
    """An endless iterator that trips rather than hangs."""
    for k in itertools.count():
        assert k < 1000, "dims read without end"
        yield k


def test_dims_numpy_refuses_are_refused():
    """Reproducers from issue 30: int(d) took floats and strings, a set gave the identity, a
    generator was consumed, itertools.count() grew memory without bound, inf raised a bare
    OverflowError. Each is refused as NumPy refuses it (TypeError for what is no sequence of
    integers, ValueError for axes that are no permutation), in one line, out untouched."""
    rng = np.random.default_rng()
    x = random_array(rng, (2, 3), np.float64)
    out = np.full((3, 2), 7.0)
    type_errors = [lambda: [1.9, 0.2], lambda: "10", lambda: {1, 0}, lambda: {1: 0, 0: 1},
                   lambda: {1: 0, 0: 1}.keys(), lambda: (d for d in (1, 0)), lambda: iter([1, 0]),
                   lambda: (True, False), lambda: (np.True_, np.False_), lambda: [float("inf"), 0],
                   lambda: [np.array([1]), 0], lambda: [None, 0], lambda: 1.0,
                   lambda: np.array([[1, 0]]), lambda: np.array([1.0, 0.0])]
    for make in type_errors:
        with pytest.raises(TypeError):
            np.transpose(x, make())
        refuses(TypeError, x, make(), out=out, match="dims")
    for dims in [b"\x01\x00", bytearray(b"\x01\x00")]:  # NumPy reads bytes as small integers; xpose refuses
        refuses(TypeError, x, dims, out=out, match="dims must be a sequence")
    for dims in [(1, 1), (2, 0), (0, -3), (0,), (0, 1, 2), 0, [10**30, 0]]:
        with pytest.raises(ValueError):
            np.transpose(x, dims)
        refuses(ValueError, x, dims, out=out, match="not a permutation")
    v = random_array(rng, (5,), np.uint8)
    for dims in [True, np.True_]:
        with pytest.raises(TypeError):
            np.transpose(v, dims)
        refuses(TypeError, v, dims, match="dims")
    refuses(ValueError, v, 1, match="not a permutation")


def test_endless_dims_are_refused_unread():
    x = np.zeros((2, 3), np.float32)
    refuses(TypeError, x, tripwire(), match="not generator")  # before the real one, which would hang
    counter = itertools.count()
    refuses(TypeError, x, counter, match="not count")
    assert next(counter) == 0, "dims was consumed"
    generator = (d for d in (1, 0))
    refuses(TypeError, x, generator)
    assert list(generator) == [1, 0], "dims was consumed"
    endless = Endless()  # no length: NumPy reads it to its end, forever
    refuses(TypeError, x, endless, match="dims must be a sequence")
    assert endless.reads == 0
    huge = Endless(10**12)  # its length alone refuses it
    refuses(ValueError, x, huge, match="dims has 1000000000000 entries")
    assert huge.reads == 0
    wrong = Endless(3)  # a length other than the rank: read (3 entries), then refused
    refuses(ValueError, x, wrong, match="not a permutation of the 2 axes")
    assert wrong.reads == 3
    short = Endless(2)  # the length it gives is what is read
    assert same_bits(xpose.permute(np.zeros((1, 1)), short), np.zeros((1, 1))) and short.reads == 2
