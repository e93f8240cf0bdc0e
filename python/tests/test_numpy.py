"""xpose.transpose on the host (NumPy) and every argument check, bit for bit against
NumPy's own transpose, on fresh random bytes, with `out` poisoned before each call."""
import re

import numpy as np
import pytest

import xpose

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64,
          np.complex64, np.complex128]
SHAPES = [(1, 1), (1, 1000), (1000, 1), (2, 777), (777, 2), (3, 1001), (31, 33), (32, 32), (33, 31), (63, 65),
          (1023, 2049)]

rng = np.random.default_rng()


def random_array(shape, dtype):
    """Random bits of the dtype (NaN payloads included): a transpose must move them untouched."""
    itemsize = np.dtype(dtype).itemsize
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * itemsize, dtype=np.uint8)
    if np.dtype(dtype) == np.bool_:
        raw &= 1
    return raw.view(dtype).reshape(shape)


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_matches_numpy(shape, dtype):
    x = random_array(shape, dtype)
    y = xpose.transpose(x)
    assert isinstance(y, np.ndarray) and y.flags.c_contiguous
    assert same_bits(y, x.T)


@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
def test_batches(dtype):
    x = random_array((5, 33, 65), dtype)
    assert same_bits(xpose.transpose(x), x.swapaxes(-1, -2))


def test_sixteen_byte_elements_of_any_kind():
    x = random_array((17, 9), np.dtype("V16"))
    assert same_bits(xpose.transpose(x), x.T)


def test_padded_and_sliced_rows_are_read_in_place():
    base = random_array((40, 64), np.float32)
    for x in (base[:, :50], base[::2, :50], base[3:37, 5:61]):  # ld > cols, every other row, an inner window
        assert same_bits(xpose.transpose(x), x.T)
    batch = random_array((6, 40, 64), np.int16)
    for x in (batch[:, :, :33], batch[::2, 1:, :], batch[1:4, :17, 3:40]):
        assert same_bits(xpose.transpose(x), x.swapaxes(-1, -2))


def test_out_is_written_and_returned():
    x = random_array((70, 90), np.float64)
    out = np.full((90, 70), 7.0)
    assert xpose.transpose(x, out=out) is out
    assert same_bits(out, x.T)


def test_out_with_padded_rows():
    x = random_array((3, 70, 90), np.uint8)
    frame = np.full((4, 95, 80), 0xA5, np.uint8)  # out is an inner window of frame: rows padded, batches apart
    out = frame[::1, 2:92, 5:75][:3]
    assert xpose.transpose(x, out=out) is out
    assert same_bits(out, x.swapaxes(-1, -2))
    outside = np.ones(frame.shape, bool)
    outside[:3, 2:92, 5:75] = False
    assert (frame[outside] == 0xA5).all(), "wrote outside out"


def test_empty_arrays():
    for shape in [(0, 5), (5, 0), (0, 3, 4), (2, 0, 4)]:
        x = np.zeros(shape, np.float32)
        y = xpose.transpose(x)
        assert y.shape == shape[:-2] + (shape[-1], shape[-2])
    # An empty array addresses nothing, so no stride of it is checked (found by the property
    # suite: strides of 3 bytes on 2-byte elements were refused).
    base = np.zeros(64, np.int16)
    x = np.lib.stride_tricks.as_strided(base, shape=(0, 0, 2), strides=(0, 4, 3))
    assert xpose.transpose(x).shape == (0, 2, 0)


def test_kernels_lists_the_ladder():
    names = xpose.kernels()
    assert names[:6] == ["naive_read", "naive_write", "smem", "smem_padded", "smem_swizzled", "vec_swizzled"]
    assert "auto" not in names and "copy" not in names


def refuses(error, x, out=None, kernel="auto", match=None):
    """The call fails with `error` and leaves `out` as it was."""
    before = out.copy() if isinstance(out, np.ndarray) else None
    with pytest.raises(error, match=match) as info:
        xpose.transpose(x, out=out, kernel=kernel)
    message = str(info.value)
    assert message.startswith("xpose.transpose: ") and "\n" not in message, message
    if before is not None:
        assert same_bits(out, before), "a failed call wrote to out"


def test_argument_checks():
    x = random_array((6, 10), np.float32)
    for view in (x.T, x[:, ::2], np.asfortranarray(x)):  # any view: the N-D path reads any strides
        assert same_bits(xpose.transpose(view), view.T)
    refuses(ValueError, x[::-1], match="negative")
    refuses(ValueError, np.zeros(5), match="at least 2 axes")
    refuses(ValueError, np.zeros((2, 2, 2, 2)), kernel="smem", match="runs on a GPU")
    refuses(TypeError, np.zeros((3, 4), dtype="V3"), match="3-byte")
    refuses(TypeError, np.zeros((3, 4), dtype=object), match="objects")
    refuses(TypeError, [[1, 2], [3, 4]], match="NumPy array")
    refuses(ValueError, x, kernel="no_such_kernel", match="unknown kernel")
    refuses(TypeError, x, kernel=3, match="string")
    refuses(ValueError, x, kernel="smem", match="runs on a GPU")


def test_out_checks():
    x = random_array((6, 10), np.float32)
    refuses(ValueError, x, out=np.full((6, 10), 1.5, np.float32), match="shape")
    refuses(ValueError, x, out=np.full((10, 6), 1.5, np.float64), match="dtype")
    fortran = np.full((6, 10), 1.5, np.float32).T  # an out of any strides is written through them
    assert xpose.transpose(x, out=fortran) is fortran and same_bits(fortran, x.T)
    rows_overlap = np.lib.stride_tricks.as_strided(np.full(64, 1.5, np.float32), (10, 6), (12, 4))
    refuses(ValueError, x, out=rows_overlap, match=r"out strides let elements share memory: .* are one element")
    refuses(TypeError, x, out=[[0.0] * 6] * 10, match="NumPy array")
    square = random_array((8, 8), np.float32)
    refuses(ValueError, square, out=square, match="x and out overlap")
    big = random_array((200,), np.float32)
    refuses(ValueError, big[:80].reshape(8, 10), out=big[40:120].reshape(10, 8), match="x and out overlap")


def test_broadcast_x_is_transposed():
    # A broadcast axis (stride 0) used to cross into the C call as "packed" and read past x.
    row = random_array((5,), np.float32)
    for x in (np.broadcast_to(row, (4, 5)), np.broadcast_to(row[:, None], (5, 4)),
              np.broadcast_to(random_array((1, 3, 7), np.int16), (6, 3, 7)), np.broadcast_to(row[0], (3, 2, 2))):
        assert same_bits(xpose.transpose(x), x.swapaxes(-1, -2)), x.strides
    x = np.broadcast_to(random_array((70, 1), np.uint8), (70, 90))
    frame = np.full((93, 75), 0xA5, np.uint8)
    out = frame[1:91, 2:72]
    assert xpose.transpose(x, out=out) is out and same_bits(out, x.T)
    outside = np.ones(frame.shape, bool)
    outside[1:91, 2:72] = False
    assert (frame[outside] == 0xA5).all(), "wrote outside out"


def test_out_that_cannot_hold_the_result_is_refused():
    big = random_array((2000, 2000), np.float32)
    broadcast = np.broadcast_to(np.zeros(2000, np.float32), (2000, 2000))  # one row of memory for 2000 rows
    refuses(ValueError, big, out=broadcast, match="read-only")  # NumPy marks broadcasts read-only
    rows0 = np.lib.stride_tricks.as_strided(np.zeros(2000, np.float32), (2000, 2000), (0, 4))  # writable
    refuses(ValueError, big, out=rows0, match="share memory")
    batch0 = np.lib.stride_tricks.as_strided(np.zeros(64 * 64, np.float32), (8, 64, 64), (0, 256, 4))
    refuses(ValueError, random_array((8, 64, 64), np.float32), out=batch0, match="share memory")
    read_only = np.zeros((5, 4), np.float32)
    read_only.flags.writeable = False
    refuses(ValueError, np.ones((4, 5), np.float32), out=read_only, match="read-only")
    immutable = np.frombuffer(bytes(80), np.float32).reshape(5, 4)  # a view of a bytes object
    refuses(ValueError, np.ones((4, 5), np.float32), out=immutable, match="read-only")
    assert immutable.tobytes() == bytes(80)
    refuses(ValueError, random_array((4, 5), np.float32), out=np.zeros((9, 4), np.float32)[::-2],
            match="negative strides")


def test_read_only_memory_map_as_out_is_refused(tmp_path):
    path = tmp_path / "ro.bin"
    path.write_bytes(bytes(80))
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=(5, 4))
    refuses(ValueError, np.ones((4, 5), np.float32), out=mapped, match="read-only")


def test_layouts_refused_in_the_callers_terms():
    windows = np.lib.stride_tricks.sliding_window_view(random_array((20,), np.float32), 6)  # rows overlap
    assert same_bits(xpose.transpose(windows), windows.T)  # read as they are: x may overlap itself
    unaligned = np.frombuffer(random_array((41,), np.uint8).tobytes(), np.uint8)[1:].view(np.float32).reshape(2, 5)
    refuses(ValueError, unaligned, match="x is not aligned to its element size of 4 bytes")
    odd = np.lib.stride_tricks.as_strided(random_array((64,), np.int16), (4, 5), (6, 3))
    refuses(ValueError, odd, match="not whole 2-byte elements")
    for bad in (unaligned, odd, random_array((4, 5), np.float32)[::-1]):  # names the user never passed
        with pytest.raises(ValueError) as raised:
            xpose.transpose(bad)
        for word in ("src", "dst", "ld_src", "ld_dst", "stride_src", "stride_dst", "elem_bytes"):
            assert word not in str(raised.value).replace("(", " ").split(), raised.value


def test_strides_of_single_index_axes_do_not_matter():
    x = random_array((1, 40), np.float32)[::-1]  # a negative stride on an axis of one row
    assert same_bits(xpose.transpose(x), x.T)
    y = np.lib.stride_tricks.as_strided(random_array((30,), np.float32), (1, 3, 10), (3, 40, 4))  # odd batch stride
    assert same_bits(xpose.transpose(y), y.swapaxes(-1, -2))


def test_more_axes_transpose_the_last_two():
    """x of 4 or more axes: the permutation (..., -1, -2), under transpose's name."""
    x = random_array((2, 3, 5, 7), np.float32)
    assert same_bits(xpose.transpose(x), np.swapaxes(x, -1, -2))
    y = random_array((2, 1, 3, 4, 6), np.uint16)[:, :, ::2]  # strided, which permute reads as it is
    out = np.empty((2, 1, 2, 6, 4), np.uint16)
    assert xpose.transpose(y, out=out) is out
    assert same_bits(out, np.swapaxes(y, -1, -2))
    with pytest.raises(ValueError, match="^xpose.transpose: out has shape"):
        xpose.transpose(x, out=np.empty((2, 3, 5, 7), np.float32))


def test_user_strings_are_quoted_in_one_line():
    """A kernel name with a line break in it used to break the message in two (issue 30)."""
    x = random_array((6, 10), np.float32)
    refuses(ValueError, x, kernel="smem\nX", match=re.escape("unknown kernel 'smem\\nX'"))
    refuses(ValueError, x, kernel="smem", match="kernel 'smem' runs on a GPU")

    class Name(str):
        def __repr__(self):
            return "a\nb"

    refuses(ValueError, x, kernel=Name("no\tsuch"), match=re.escape("unknown kernel 'no\\tsuch'"))


class Tagged(np.ndarray):
    """An ndarray subclass outside NumPy, with state __array_finalize__ carries over."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", None)


def tagged(a, tag="t"):
    t = a.view(Tagged)
    t.tag = tag
    return t


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_subclasses_come_back_as_numpy_makes_them():
    """Issue 30: an ndarray subclass of another module went through DLPack (a byte-swapped one
    raised a bare BufferError), np.matrix and np.recarray came back as plain ndarrays. A
    subclass is an ndarray: its result is x.__array_wrap__(result), as NumPy makes new arrays
    from x (numpy.transpose's view is of x's type too), bit for bit NumPy's transpose."""
    matrix = np.matrix(random_array((5, 7), np.float64))
    record = random_array((4, 6), np.dtype([("a", "<i4"), ("b", "<f4")])).view(np.recarray)
    swapped = tagged(random_array((3, 9, 5), np.dtype(">i4")))
    for x in (matrix, record, swapped, tagged(random_array((6, 3), np.uint8)),
              random_array((8, 3), np.dtype(">c16")), tagged(random_array((2, 3, 4, 5), np.float16))):
        want = np.swapaxes(x, -1, -2)
        y = xpose.transpose(x)
        assert type(y) is type(want) and same_bits(np.asarray(y), np.asarray(want)), type(x)
        assert getattr(y, "tag", None) == getattr(want, "tag", None)
        dims = tuple(range(x.ndim))[::-1]
        z = xpose.permute(x, dims)
        assert type(z) is type(np.transpose(x, dims)) and same_bits(np.asarray(z), np.asarray(np.transpose(x, dims)))
    assert xpose.transpose(swapped).dtype == np.dtype(">i4") and xpose.transpose(swapped).tag == "t"
    fields = xpose.transpose(record)
    assert isinstance(fields.a, np.ndarray) and same_bits(np.asarray(fields.b), record.b.T)  # bits: b may hold NaNs


def test_memory_map_result_is_a_plain_array(tmp_path):
    path = tmp_path / "x.bin"
    path.write_bytes(random_array((24, 10), np.uint8).tobytes())
    mapped = np.memmap(path, dtype=np.float32, mode="r", shape=(6, 10))
    y = xpose.transpose(mapped)  # NumPy's own new arrays from a memmap are plain (memmap.__array_wrap__)
    assert type(y) is np.ndarray and same_bits(y, np.asarray(mapped).T)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
def test_out_of_a_subclass_is_written_and_returned():
    x = tagged(random_array((7, 5), np.dtype(">f8")))
    for out in (tagged(np.full((5, 7), 7.0, ">f8"), "out"), np.matrix(np.full((5, 7), 7.0, ">f8"))):
        assert xpose.transpose(x, out=out) is out
        assert same_bits(np.asarray(out), np.asarray(x).T)
        assert xpose.permute(x, (1, 0), out=out) is out
    refuses(ValueError, x, out=np.full((5, 7), 7.0, "<f8"), match="dtype")  # the same values, other bytes


def test_masked_arrays_are_refused():
    """Issue 30: a masked array's mask was dropped and its masked payloads came back as values."""
    data = random_array((4, 6), np.float32)
    masked = np.ma.masked_array(data, mask=random_array((4, 6), np.bool_))
    refuses(TypeError, masked, match=r"x is a masked array \(MaskedArray\).*x\.data or x\.filled")
    out = np.ma.masked_array(np.full((6, 4), 7.0, np.float32), mask=False)
    refuses(TypeError, data, out=out, match="out is a masked array")
    assert (out.data == 7).all()
    with pytest.raises(TypeError, match="^xpose.permute: x is a masked array"):
        xpose.permute(masked, (1, 0))
    with pytest.raises(TypeError, match="^xpose.transpose: x is a masked array"):
        xpose.transpose(np.ma.masked_array(random_array((2, 2, 3, 4), np.int8)))


def test_out_whose_batches_interleave_is_served():
    """Batches that interleave without sharing memory: not nested, yet every element its own."""
    x = random_array((2, 3, 24), np.uint8)
    base = np.full(200, 7, np.uint8)
    out = np.lib.stride_tricks.as_strided(base, (2, 24, 3), (39, 6, 1), writeable=True)
    assert xpose.transpose(x, out=out) is out
    assert same_bits(out, x.swapaxes(-1, -2))
    touched = np.zeros(200, bool)
    for b in range(2):
        for j in range(24):
            touched[b * 39 + j * 6:b * 39 + j * 6 + 3] = True
    assert (base[~touched] == 7).all(), "bytes between the elements were written"
    clash = np.lib.stride_tricks.as_strided(np.full(200, 7, np.uint8), (2, 24, 3), (36, 6, 1), writeable=True)
    refuses(ValueError, x, out=clash, match=r"out strides .* out indices \(1, 0, 0\) and \(0, 6, 0\) are one element")
    assert (clash == 7).all()


def test_complex128_on_an_eight_byte_boundary():
    """NumPy aligns complex128 to 8 bytes; such arrays are served, as x and as out."""
    raw = np.zeros(8 + 37 * 41 * 16, np.uint8)
    x = raw[8:].view(np.complex128).reshape(37, 41)
    assert x.ctypes.data % 16 == 8 and x.flags.aligned
    x[...] = random_array((37, 41), np.complex128)
    assert same_bits(xpose.transpose(x), x.T)
    out_raw = np.zeros(8 + 41 * 37 * 16, np.uint8)
    out = out_raw[8:].view(np.complex128).reshape(41, 37)
    assert xpose.transpose(x, out=out) is out and same_bits(out, x.T)
    y = raw[8:8 + 6 * 5 * 7 * 16].view(np.complex128).reshape(6, 5, 7)
    assert same_bits(xpose.permute(y, (2, 0, 1)), np.transpose(y, (2, 0, 1)))


def test_no_threads_to_spare_is_no_error():
    """Under an address-space limit that leaves room for no more thread stacks, the CPU path
    runs on the caller's thread (it once ended the process, or raised an unprefixed error)."""
    import subprocess
    import sys
    import textwrap
    code = textwrap.dedent("""
        import resource, numpy as np, xpose
        x = np.arange(4096 * 4096, dtype=np.uint32).astype(np.uint8).reshape(4096, 4096)
        y = np.empty((4096, 4096), np.uint8)
        with open("/proc/self/statm") as f:
            mapped = int(f.read().split()[0]) * resource.getpagesize()
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (mapped + (4 << 20), hard))  # no room for an 8 MiB stack
        xpose.transpose(x, out=y)
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        assert (y == x.T).all()
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.returncode, r.stderr[-500:])


def test_native_path_matches_the_python_layer(monkeypatch):
    """Plain NumPy arrays are served in C++ (xpose._xpose.plain_call) before the Python layer:
    for random views, axes, outs and refusals both give the same array or the same exception and
    message, and write nothing on error."""
    import random

    xpose.permute_dims(np.zeros((2, 3)), (1, 0))  # the package has seen NumPy
    if np.ndarray not in xpose._NATIVE:
        pytest.skip("the native NumPy path is not in use")
    r = random.Random(20261127)
    fns = [("permute_dims", True), ("permute", True), ("matrix_transpose", False), ("transpose", False)]
    dtypes = DTYPES + [np.dtype("V16"), np.dtype(">i4"), np.dtype(object)]

    def outcome(fn, args, out, native):
        monkeypatch.setattr(xpose, "_NATIVE", (np.ndarray,) if native else ())
        before = out.tobytes() if out is not None else None
        try:
            y = fn(*args, out=out) if out is not None else fn(*args)
        except (TypeError, ValueError) as e:
            assert out is None or out.tobytes() == before, "a refused call wrote to out"
            return ("error", type(e), str(e))
        assert out is None or y is out
        return ("ok", type(y), y.shape, y.dtype, y.flags.c_contiguous, y.tobytes() if y.dtype != object else None)

    served = refused = 0
    for trial in range(400):
        rank = r.randint(0, 5)
        shape = [r.choice([0, 1, 2, 3, 5, 8]) if r.random() < 0.1 else r.choice([1, 2, 3, 5, 8]) for _ in range(rank)]
        dtype = r.choice(dtypes)
        x = np.zeros(shape, dtype) if dtype == object else random_array(shape, dtype)
        if rank >= 2 and r.random() < 0.4:
            x = x.swapaxes(0, rank - 1)  # a view
        if rank >= 1 and r.random() < 0.2:
            x = x[..., ::2]  # stepped
        if rank >= 1 and r.random() < 0.1:
            x = np.broadcast_to(x[..., :1], x.shape)  # zero strides
        name, takes_axes = r.choice(fns)
        fn = getattr(xpose, name)
        dims = list(range(x.ndim))
        r.shuffle(dims)
        args = (x,)
        if takes_axes:
            kind = r.random()
            axes = tuple(dims) if kind < 0.4 else [d - x.ndim for d in dims] if kind < 0.6 else \
                None if kind < 0.7 else dims[:-1] if kind < 0.8 else "10" if kind < 0.9 else dims + dims[:1]
            args = (x, axes)
        out = None
        if r.random() < 0.5:
            ref = outcome(fn, args, None, False)
            if ref[0] == "ok":
                what = r.random()
                out_shape = list(ref[2]) if what < 0.7 else list(reversed(ref[2]))
                out_dtype = x.dtype if what < 0.85 else np.int16 if x.dtype != np.int16 else np.int32
                base = random_array(out_shape, out_dtype) if out_dtype != object else np.zeros(out_shape, object)
                read_only, swapped = r.random() < 0.1, len(out_shape) >= 2 and r.random() < 0.1
                outs = []  # out, and its twin for the native call: the same bytes and strides
                for o in (base, base.copy()):
                    o = o.swapaxes(0, 1) if swapped else o  # a strided out
                    o.flags.writeable = not read_only
                    outs.append(o)
                out, twin = outs
        got = outcome(fn, args, twin if out is not None else None, True)
        want = outcome(fn, args, out, False)
        assert got == want, (name, args[1:], shape, x.dtype, got[:3], want[:3])
        served += got[0] == "ok"
        refused += got[0] == "error"
    assert served > 150 and refused > 30, (served, refused)
