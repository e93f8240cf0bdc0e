"""xpose.permute on NumPy arrays (the CPU path): bit for bit numpy.transpose(x, dims).copy()
on random permutations of random views (every element size, rank 0-6, odd extents, slices
with steps, broadcast axes, padded and transposed `out`), and every refusal one line that
leaves `out` as it was."""
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
