"""xpose.transpose_inplace and xpose.quantize on the host (NumPy: the CPU path and reference),
and their argument checks; the GPU tests (PyTorch, CuPy) compare the GPU with that reference bit
for bit and skip, saying why, without a GPU or the library."""
import warnings

import numpy as np
import pytest

import xpose

rng = np.random.default_rng()


def random_bits(shape, dtype):
    itemsize = np.dtype(dtype).itemsize
    return rng.integers(0, 256, size=int(np.prod(shape)) * itemsize, dtype=np.uint8).view(dtype).reshape(shape)


# ---- transpose_inplace on NumPy arrays (the CPU path: any shape)

@pytest.mark.parametrize("dtype", [np.uint8, np.float16, np.float32, np.float64, np.complex128],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("shape", [(1, 7), (7, 1), (2, 3), (33, 31), (64, 64), (3, 100, 17), (2, 2, 40, 40),
                                   (20001, 3), (3, 20001), (2, 5003, 31)],  # narrow: blocks, pieces, spread
                         ids=lambda s: "x".join(map(str, s)))
def test_inplace_numpy_matches_the_transpose(shape, dtype):
    x = random_bits(shape, dtype)
    want = np.ascontiguousarray(x.swapaxes(-1, -2)).tobytes()
    base = x.ctypes.data
    y = xpose.transpose_inplace(x)
    assert y.shape == shape[:-2] + (shape[-1], shape[-2])
    assert y.ctypes.data == base and y.tobytes() == want  # the same memory, transposed


def test_inplace_refusals_leave_x_alone():
    x = random_bits((8, 6), np.float32)
    before = x.tobytes()
    for bad, kind, words in ((x[:, :5], ValueError, "C-contiguous"), (x[0], ValueError, "2 axes"),
                             (np.ma.masked_array(x), TypeError, "masked"), ([[1, 2]], TypeError, "NumPy, PyTorch")):
        with pytest.raises(kind, match="^xpose.transpose_inplace: .*" + words):
            xpose.transpose_inplace(bad)
    ro = x.copy()
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xpose.transpose_inplace(ro)
    with pytest.raises(TypeError, match="Python objects"):
        xpose.transpose_inplace(np.empty((2, 2), object))
    assert x.tobytes() == before


# ---- quantize on NumPy arrays (the CPU reference)

def normal(shape, dtype):
    return (rng.standard_normal(shape) * np.exp2(rng.integers(-8, 8, shape))).astype(dtype)


E4M3_MAX = 448.0


def e4m3_values(codes):
    """E4M3FN codes as float64 (every code but NaN)."""
    c = codes.astype(np.int64)
    sign = np.where(c & 0x80, -1.0, 1.0)
    e, m = (c >> 3) & 0xF, c & 7
    return sign * np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))


def test_quantize_current_scaling_dequantizes_within_rounding():
    x = normal((70, 300), np.float32)
    q = xpose.quantize(x)  # current scaling, E4M3, every output
    amax = float(np.abs(x).max())
    assert q.amax.dtype == np.float32 and float(q.amax) == amax
    assert q.scales.shape == () and np.isclose(float(q.scales), amax / E4M3_MAX)
    back = e4m3_values(q.data) * float(q.scales)
    assert np.all(np.abs(back - x) <= np.abs(x) * 2 ** -4 + 2 ** -9 * float(q.scales))
    assert q.data_t.shape == (300, 70) and np.array_equal(q.data_t, q.data.T)  # one scale: the same codes


@pytest.mark.parametrize("block", [(1, 128), (128, 128)])
def test_quantize_block_scales_are_each_blocks(block):
    x = normal((200, 260), np.float32)
    q = xpose.quantize(x, scaling="blocks", block=block)
    br, bc = block
    down, across = -(-200 // br), -(-260 // bc)
    assert q.scales.shape == (down, across)
    for i in range(down):
        for j in range(across):
            amax = np.abs(x[i * br:(i + 1) * br, j * bc:(j + 1) * bc]).max()
            assert np.isclose(q.scales[i, j], amax / E4M3_MAX, rtol=1e-6)
    assert q.scales_t.shape == (-(-260 // br), -(-200 // bc))  # the transpose's blocks in its own coordinates


def test_quantize_outputs_and_layouts():
    x = normal((64, 96), np.float16)
    q = xpose.quantize(x, scaling="mx", outputs=("data_t", "scales_t"))
    assert q.data is None and q.scales is None and q.amax is None
    assert q.data_t.shape == (96, 64) and q.data_t.dtype == np.uint8
    assert q.scales_t.dtype == np.uint8 and q.scales_t.ndim == 1  # cuBLASLt's tiles, flat
    q = xpose.quantize(x, scaling="delayed", scale=2.0, format="e5m2", outputs=("data",))
    assert q.data.shape == (64, 96) and q.data_t is None
    q = xpose.quantize(x, scaling="blocks", block=(1, 128), scale_layout="column_major", pow2_scales=True)
    assert q.scales.shape == (1, 64)  # one block across, 64 down (16-byte padded: already)
    assert np.all(np.log2(q.scales) == np.round(np.log2(q.scales)))  # powers of two


def test_quantize_repeated_calls_take_their_own_arguments():
    """A call like a recent one reuses its checks (xpose._quantize._REQUESTS): each call still
    gives what it gives with none remembered, whatever scale it brings, and arguments that are
    equal but of other types (a list, floats, 1 for True) are checked as they are."""
    from xpose import _quantize

    x = normal((64, 256), np.float32)

    def outcome(**kwargs):
        try:
            q = xpose.quantize(x, **kwargs)
        except Exception as e:  # noqa: BLE001 - the kind and message are what is compared
            return type(e), str(e)
        return [None if a is None else (a.dtype, a.shape, a.tobytes()) for a in q]

    calls = [dict(scaling="delayed", scale=s) for s in (2.0, 0.5, np.float32(8.0), 3, -0.0, float("nan"), 2.0)]
    calls += [dict(scaling="blocks", block=b) for b in ((1, 128), [1, 128], (1.0, 128.0), (128, 128), (1, 128))]
    calls += [dict(scaling="mx", pow2_scales=p) for p in (False, 1, True)]
    calls += [dict(scaling="current", outputs=o) for o in (("data",), ["data"], ("data", "amax"))]
    warm = [outcome(**c) for c in calls]  # each after the others
    for c, got in zip(calls, warm):
        _quantize._REQUESTS.clear()
        assert outcome(**c) == got, c
    assert warm[0][2][2] != warm[1][2][2]  # the scales of 2 and 0.5


@pytest.mark.parametrize("shape", [(0, 5), (7, 0), (0, 0)])
def test_quantize_of_an_empty_matrix(shape):
    """No elements: amax 0, the tensor recipes' scales what their scale makes of nothing (1 / the
    given scale; 1 for current scaling, from an amax of 0), the block recipes' scales empty."""
    x = np.zeros(shape, np.float32)
    q = xpose.quantize(x, scaling="current")
    assert float(q.amax) == 0.0 and float(q.scales) == 1.0 and float(q.scales_t) == 1.0
    q = xpose.quantize(x, scaling="delayed", scale=4.0)
    assert float(q.scales) == 0.25 and float(q.scales_t) == 0.25 and q.data.shape == shape
    q = xpose.quantize(x, scaling="mx", scale_layout="row_major")
    assert q.scales.size == 0 and q.scales_t.size == 0 and q.data_t.shape == shape[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a given scale of 0: inf, as the kernels make it, without a warning
        assert np.isinf(xpose.quantize(x, scaling="delayed", scale=0.0).scales)


def test_quantize_refusals():
    x = normal((8, 8), np.float32)
    for kwargs, kind, words in (({"format": "e3m4"}, ValueError, "format"),
                                ({"scaling": "delayed"}, ValueError, "scale goes with"),
                                ({"scale": 2.0}, ValueError, "scale goes with"),
                                ({"block": (1, 32)}, ValueError, "block goes with"),
                                ({"outputs": ()}, ValueError, "outputs is empty"),
                                ({"outputs": ("codes",)}, ValueError, "an output"),
                                ({"scaling": "blocks", "block": (3, 128)}, ValueError, "powers of two"),
                                ({"scale_layout": "tiled_128x4"}, ValueError, "MXFP8")):
        with pytest.raises(kind, match="^xpose.quantize: .*" + words):
            xpose.quantize(x, **kwargs)
    for bad, words in ((x[:, ::2], "rows must be contiguous"), (x.astype(np.float64), "float64"),
                       (x[0], "matrix")):
        with pytest.raises((ValueError, TypeError), match="^xpose.quantize: .*" + words):
            xpose.quantize(bad)


# ---- the GPU (PyTorch, CuPy) against the CPU path

def _torch_cuda():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return torch


@pytest.mark.parametrize("n,batch", [(64, 1), (257, 1), (1024, 3)])
@pytest.mark.parametrize("dtype", ["uint8", "float16", "float32", "float64", "complex128"])
def test_inplace_torch_gpu_matches_numpy(n, batch, dtype):
    torch = _torch_cuda()
    x = random_bits((batch, n, n), dtype)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    t = torch.from_numpy(x.copy()).cuda()
    y = xpose.transpose_inplace(t)
    assert y.data_ptr() == t.data_ptr()
    assert np.ascontiguousarray(y.cpu().numpy()).tobytes() == want.tobytes()


@pytest.mark.parametrize("shape", [(2, 96, 64), (48, 4096), (4096, 48), (1031 * 2, 1031), (16, 33), (3, 1001, 7),
                                   (2999, 1000), (2, 1024, 512), (401, 3000)])
@pytest.mark.parametrize("dtype", ["uint8", "float32", "complex128"])
def test_inplace_gpu_rectangles_match_numpy(shape, dtype):
    # Narrow rectangles (a side of 384 or fewer), rectangles whose sides share a factor (units
    # moved along their cycles) and those whose sides share little or nothing (the strips path),
    # with a workspace from PyTorch's and CuPy's allocators.
    x = random_bits(shape, dtype)
    want = np.ascontiguousarray(x.swapaxes(-1, -2))
    torch = _torch_cuda()
    t = torch.from_numpy(x.copy()).cuda()
    assert np.ascontiguousarray(xpose.transpose_inplace(t).cpu().numpy()).tobytes() == want.tobytes()
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    c = cupy.asarray(x)
    assert cupy.asnumpy(xpose.transpose_inplace(c)).tobytes() == want.tobytes()


def test_inplace_torch_compiles():
    torch = _torch_cuda()
    f = torch.compile(lambda t: xpose.transpose_inplace(t) * 2, fullgraph=True)
    for s in (torch.randn(64, 64, device="cuda"), torch.randn(128, 64, device="cuda"), torch.randn(16, 33, device="cuda")):
        assert torch.equal(f(s.clone()), s.t() * 2)


@pytest.mark.parametrize("kwargs", [{}, {"scaling": "delayed", "scale": 3.0}, {"scaling": "blocks", "block": (1, 128)},
                                    {"scaling": "blocks", "block": (128, 128)}, {"scaling": "mx"},
                                    {"scaling": "mx", "format": "e5m2", "scale_layout": "row_major"}],
                         ids=lambda k: "-".join(f"{v}" for v in k.values()) or "current")
@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "float16"])
def test_quantize_torch_gpu_matches_the_cpu_path(kwargs, dtype):
    torch = _torch_cuda()
    x = (torch.randn(300, 520) * torch.exp2(torch.randint(-8, 8, (300, 520)).float())).to(getattr(torch, dtype))
    got = xpose.quantize(x.cuda(), **kwargs)
    want = xpose.quantize(x, **kwargs)  # a CPU tensor: the reference
    for name, g, w in zip(got._fields, got, want):
        assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape, name
        assert torch.equal(g.cpu().view(torch.uint8) if g.element_size() == 1 else g.cpu(),
                           w.view(torch.uint8) if w.element_size() == 1 else w), name


@pytest.mark.parametrize("outputs", [("data",), ("data_t", "scales_t"), ("amax",), ("scales", "amax")])
@pytest.mark.parametrize("rows", [0, 1, 257])
def test_quantize_torch_gpu_output_subsets_and_edges(outputs, rows):
    # The eager path in C++ (outputs from PyTorch's allocator through DLPack's exchange), the op's
    # path (x requires grad) and the CPU reference agree, outputs not asked for are None, and an
    # empty x's amax is 0.
    torch = _torch_cuda()
    x = torch.randn(rows, 384) * 100
    want = xpose.quantize(x, scaling="mx", outputs=outputs)
    for got in (xpose.quantize(x.cuda(), scaling="mx", outputs=outputs),
                xpose.quantize(x.cuda().requires_grad_(), scaling="mx", outputs=outputs)):
        for name, g, w in zip(got._fields, got, want):
            assert (g is None) == (w is None) == (name not in outputs), name
            if g is not None:
                assert g.device.type == "cuda" and g.dtype == w.dtype and g.shape == w.shape, name
                assert torch.equal(g.cpu().view(torch.uint8) if g.element_size() == 1 else g.cpu(),
                                   w.view(torch.uint8) if w.element_size() == 1 else w), name
    if "amax" in outputs and rows == 0:
        assert float(want.amax) == 0.0


def test_quantize_torch_compiles():
    torch = _torch_cuda()
    x = torch.randn(256, 384, device="cuda", dtype=torch.bfloat16)
    f = torch.compile(lambda t: xpose.quantize(t, scaling="mx").data_t, fullgraph=True)
    assert torch.equal(f(x).view(torch.uint8), xpose.quantize(x, scaling="mx").data_t.view(torch.uint8))


def test_quantize_cupy_matches_numpy():
    _torch_cuda()
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = normal((130, 260), np.float32)
    got, want = xpose.quantize(cp.asarray(x), scaling="mx"), xpose.quantize(x, scaling="mx")
    for name, g, w in zip(got._fields, got, want):
        assert np.array_equal(cp.asnumpy(g), w), name
