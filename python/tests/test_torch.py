"""PyTorch tensors served by the native boundary's eager path (xpose._xpose.plain_call, taken
for plain tensors before any Python check) against the Python layer that serves everything
else: for random views, axes, outs and refusals, on the CPU and on a CUDA device where one is,
both give the same bits, or the same exception with the same message, and write nothing on
error. Skipped, saying why, where PyTorch is absent or has no DLPack C exchange API."""
import random

import pytest

import xpose

torch = pytest.importorskip("torch", reason="PyTorch is not installed")

DTYPES = [torch.bool, torch.uint8, torch.float8_e4m3fn, torch.bfloat16, torch.float32, torch.float64,
          torch.complex128]


@pytest.fixture(scope="module")
def plain():
    xpose.permute_dims(torch.zeros(2, 3), (1, 0))  # the package has seen torch
    if xpose._PLAIN is None:
        pytest.skip(f"PyTorch {torch.__version__} has no __dlpack_c_exchange_api__ (no native eager path)")
    return xpose._PLAIN


def devices():
    return ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def random_tensor(rng, shape, dtype, device):
    count = 1
    for n in shape:
        count *= n
    itemsize = torch.empty((), dtype=dtype).element_size()
    raw = torch.tensor([rng.randrange(256) for _ in range(count * itemsize)], dtype=torch.uint8)
    if dtype == torch.bool:
        raw &= 1
    return raw.view(dtype).view(shape).to(device)


def bits(t):
    return t.detach().reshape(-1).contiguous().view(torch.uint8).cpu().tolist()


def outcome(fn, args, out, monkeypatch, native):
    """fn(*args, out=out) with the native eager path on or off: ("ok", result bits, out's bits)
    or ("error", type, message, out's bits)."""
    monkeypatch.setattr(xpose, "_NATIVE", (native,) if native is not None else ())
    before = bits(out) if out is not None else None
    try:
        y = fn(*args, out=out) if out is not None else fn(*args)
    except (TypeError, ValueError, RuntimeError) as e:
        assert out is None or bits(out) == before, "a refused call wrote to out"
        return ("error", type(e), str(e))
    assert out is None or y is out
    return ("ok", y.shape, y.dtype, y.device, bits(y))


@pytest.mark.parametrize("device", devices())
def test_native_eager_path_matches_the_python_layer(plain, device, monkeypatch):
    rng = random.Random(20261126)
    fns = [("permute_dims", True), ("permute", True), ("matrix_transpose", False), ("transpose", False)]
    served = refused = 0
    for trial in range(300):
        rank = rng.randint(0, 5)
        shape = [rng.choice([1, 2, 3, 5, 8]) for _ in range(rank)]
        dtype = rng.choice(DTYPES)
        x = random_tensor(rng, shape, dtype, device)
        if rank >= 2 and rng.random() < 0.4:
            x = x.transpose(0, rank - 1)  # a view
        if rank >= 1 and rng.random() < 0.2:
            x = x[..., ::2]  # stepped
        name, takes_axes = rng.choice(fns)
        fn = getattr(xpose, name)
        dims = list(range(x.dim()))
        rng.shuffle(dims)
        args = (x,)
        if takes_axes:
            kind = rng.random()
            axes = tuple(dims) if kind < 0.4 else [d - x.dim() for d in dims] if kind < 0.6 else \
                None if kind < 0.7 else dims[:-1] if kind < 0.8 else "10" if kind < 0.9 else dims + dims[:1]
            args = (x, axes)
        out = None
        if rng.random() < 0.5:
            ref = outcome(fn, args, None, monkeypatch, None)
            if ref[0] == "ok":
                what = rng.random()
                out_shape = list(ref[1]) if what < 0.7 else list(reversed(ref[1]))
                out_dtype = dtype if what < 0.85 else torch.int16 if dtype != torch.int16 else torch.int32
                out = random_tensor(rng, out_shape, out_dtype, device)
                if rng.random() < 0.2:
                    out.requires_grad_(out.is_floating_point() and out.dtype.itemsize >= 2)
        got = outcome(fn, args, out.detach().clone().requires_grad_(out.requires_grad) if out is not None else None,
                      monkeypatch, plain)
        want = outcome(fn, args, out, monkeypatch, None)
        assert got[:-1] == want[:-1] and got[-1] == want[-1], (name, args[1:], shape, dtype, got[:3], want[:3])
        served += got[0] == "ok"
        refused += got[0] == "error"
    assert served > 100 and refused > 20, (served, refused)


@pytest.mark.parametrize("device", devices())
def test_native_eager_path_defers_what_is_not_plain(plain, device, monkeypatch):
    """Conjugated and negated views, gradients to record, inference outs, subclasses: the
    Python layer's answer, whatever the native path would have done."""
    c = torch.randn(3, 4, dtype=torch.complex64, device=device)
    cases = [
        (xpose.matrix_transpose, (c.conj(),), None),
        (xpose.matrix_transpose, (torch._neg_view(c),), None),
        (xpose.matrix_transpose, (torch.randn(3, 4, device=device),), torch.zeros(4, 3, device=device).conj()),
        (xpose.matrix_transpose, (torch.randn(3, 4, device=device),), torch.zeros(4, 3, device=device,
                                                                                   requires_grad=True)),
        (xpose.permute_dims, (torch.randn(3, 4, device=device, requires_grad=True), (1, 0)), None),
        (xpose.permute_dims, (torch.randn(3, 4, device=device).as_subclass(torch.nn.Parameter), (1, 0)), None),
        (xpose.permute_dims, (torch.randn(3, 4, device=device), (1.0, 0)), None),
        (xpose.permute_dims, (torch.randn(3, 4, device=device), (True, 0)), None),
    ]
    with torch.inference_mode():
        inference = torch.zeros(4, 3, device=device)
    cases.append((xpose.matrix_transpose, (torch.randn(3, 4, device=device),), inference))
    for fn, args, out in cases:
        got = outcome(fn, args, out, monkeypatch, plain)
        want = outcome(fn, args, out, monkeypatch, None)
        if got[0] == "ok" and want[0] == "ok":
            assert got == want
        else:
            assert got[:3] == want[:3], (fn.__name__, got[:3], want[:3])
