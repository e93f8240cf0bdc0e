"""xpose.transpose on PyTorch and CuPy arrays on a CUDA device, bit for bit against the
library's own transpose; skipped, saying why, where there is no GPU or no such library."""
import math
import random

import pytest

import xpose

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device", allow_module_level=True)

DTYPES = [torch.bool, torch.uint8, torch.float8_e4m3fn, torch.float16, torch.bfloat16, torch.float32, torch.int64,
          torch.float64, torch.complex64, torch.complex128]


def random_tensor(shape, dtype):
    size = 1
    for n in shape:
        size *= n
    itemsize = torch.empty((), dtype=dtype).element_size()
    raw = torch.randint(0, 256, (size * itemsize,), dtype=torch.uint8, device="cuda")
    if dtype == torch.bool:
        raw &= 1
    return raw.view(dtype).view(shape)


def packed(a):
    """a copy with row-major strides (contiguous() keeps a size-1 axis's odd stride, which view(dtype) refuses)"""
    return torch.empty_like(a, memory_format=torch.contiguous_format).copy_(a)


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        packed(a).view(torch.uint8), packed(b).view(torch.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(1, 1), (1, 1000), (1000, 1), (33, 65), (1023, 2049), (3, 64, 96)], ids=str)
def test_torch_matches(shape, dtype):
    x = random_tensor(shape, dtype)
    y = xpose.transpose(x)
    assert isinstance(y, torch.Tensor) and y.device == x.device and y.is_contiguous()
    assert same_bits(y, x.transpose(-1, -2))


def test_torch_sliced_out_and_stream():
    base = random_tensor((3, 70, 96), torch.float32)
    x = base[:, 5:60, :90]
    out = torch.full((3, 90, 55), 7.0, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert xpose.transpose(x, out=out) is out
    stream.synchronize()
    assert same_bits(out, x.transpose(-1, -2))


def test_torch_named_kernels():
    x = random_tensor((257, 129), torch.float16)
    for name in xpose.kernels():
        try:
            y = xpose.transpose(x, kernel=name)
        except ValueError as e:  # a kernel that cannot serve this request says why
            assert str(e)
            continue
        assert same_bits(y, x.t()), name


def test_torch_padded_out_and_failures_leave_out_alone():
    x = random_tensor((2, 50, 37), torch.float16)
    frame = torch.full((2, 40, 64), 3.0, dtype=torch.float16, device="cuda")
    out = frame[:, 1:38, 4:54]  # rows padded to 64, an inner window
    assert xpose.transpose(x, out=out) is out
    assert same_bits(out, x.transpose(-1, -2))
    outside = torch.ones(frame.shape, dtype=torch.bool, device="cuda")
    outside[:, 1:38, 4:54] = False
    assert bool((frame[outside] == 3.0).all()), "wrote outside out"

    poisoned = torch.full((2, 37, 50), 5.0, dtype=torch.float16, device="cuda")
    before = poisoned.clone()
    failures = [
        (ValueError, dict(out=poisoned, kernel="tma"), x[:, :, 1:]),  # shape mismatch
        (ValueError, dict(out=poisoned.to(torch.float32)), x),         # dtype
        (ValueError, dict(out=poisoned.cpu()), x),                     # device
        (ValueError, dict(out=poisoned, kernel="no_such"), x),
    ]
    for error, kwargs, arg in failures:
        with pytest.raises(error):
            xpose.transpose(arg, **kwargs)
    # A named kernel that cannot serve the request (TMA needs 16-byte rows: 37 fp16 are not).
    if "tma" in xpose.kernels():
        with pytest.raises(ValueError, match="TMA needs"):
            xpose.transpose(x, out=poisoned, kernel="tma")
    torch.cuda.synchronize()
    assert same_bits(poisoned, before), "a failed call wrote to out"
    strided = poisoned.transpose(-1, -2).contiguous().transpose(-1, -2)  # an out of any strides is served
    assert xpose.transpose(x, out=strided) is strided and same_bits(strided, x.transpose(-1, -2))


def cupy_or_skip():
    return pytest.importorskip("cupy", reason="CuPy is not installed")


def random_cupy(cp, shape, dtype):
    dtype = cp.dtype(dtype)
    raw = cp.random.randint(0, 256, size=math.prod(shape) * dtype.itemsize, dtype=cp.uint8)
    if dtype == cp.bool_:
        raw &= 1
    return raw.view(dtype).reshape(shape)


def cupy_same_bits(cp, a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool(
        (cp.ascontiguousarray(a).view(cp.uint8) == cp.ascontiguousarray(b).view(cp.uint8)).all())


CUPY_DTYPES = ["bool", "uint8", "int8", "float16", "float32", "int64", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dtype", CUPY_DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (1, 777), (777, 1), (33, 65), (1023, 2049), (3, 64, 96)], ids=str)
def test_cupy_matches(shape, dtype):
    cp = cupy_or_skip()
    x = random_cupy(cp, shape, dtype)
    y = xpose.transpose(x)
    assert isinstance(y, cp.ndarray) and y.flags.c_contiguous and y.device == x.device
    assert cupy_same_bits(cp, y, x.swapaxes(-1, -2))


def test_cupy_sliced_out_and_stream():
    cp = cupy_or_skip()
    base = random_cupy(cp, (4, 70, 96), "float32")
    x = base[1:, 5:60, 3:93]
    out = cp.full((3, 90, 55), 7.0, dtype=cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        assert xpose.transpose(x, out=out) is out
    stream.synchronize()
    assert cupy_same_bits(cp, out, x.swapaxes(-1, -2))
    before = out.copy()
    with pytest.raises(ValueError, match="dtype"):
        xpose.transpose(x, out=out.astype(cp.float64))
    with pytest.raises(ValueError, match="x and out overlap"):
        xpose.transpose(base[0, :50, :50], out=base[0, 10:60, :50])
    with pytest.raises(TypeError, match="(?i)cupy"):
        xpose.transpose(x, out=cp.asnumpy(out))
    assert cupy_same_bits(cp, out, before)


def test_torch_gradient():
    x = torch.randn(33, 65, device="cuda", dtype=torch.float64, requires_grad=True)
    y = xpose.transpose(x)
    weight = torch.randn_like(y)
    (y * weight).sum().backward()
    assert torch.equal(x.grad, weight.t())
    assert torch.autograd.gradcheck(lambda t: xpose.transpose(t), (torch.randn(5, 7, device="cuda",
                                                                              dtype=torch.float64,
                                                                              requires_grad=True),))


def test_torch_calls_the_op_only_where_it_adds_something(monkeypatch):
    """A plain tensor in eager mode with nothing to record skips the custom op's dispatch (it
    costs more than the rest of the call); a gradient, a dispatch mode or a functorch
    transform goes through the op. The results are the same either way."""
    from torch.utils._python_dispatch import TorchDispatchMode

    from xpose import _torch

    calls = []
    for name in ("transpose_op", "permute_op"):
        op = getattr(_torch, name)
        monkeypatch.setattr(_torch, name, lambda *a, _op=op, _name=name: calls.append(_name) or _op(*a))
    x = random_tensor((33, 65), torch.float32).nan_to_num()
    x4 = random_tensor((3, 4, 5, 6), torch.float16)
    assert torch.equal(xpose.transpose(x), x.t())
    assert same_bits(xpose.permute(x4, (3, 1, 0, 2)), x4.permute(3, 1, 0, 2))
    assert same_bits(xpose.transpose(x4), x4.transpose(-1, -2))  # 4-D: the permutation
    assert calls == []
    w = x.clone().requires_grad_()
    y = xpose.transpose(w)
    assert calls == ["transpose_op"] and y.grad_fn is not None
    with torch.no_grad():
        assert xpose.transpose(w).grad_fn is None and calls == ["transpose_op"]  # nothing to record
    assert xpose.permute(x4.nan_to_num().requires_grad_(), (1, 0, 2, 3)).grad_fn is not None
    assert calls == ["transpose_op", "permute_op"]

    class Seen(TorchDispatchMode):
        def __init__(self):
            super().__init__()
            self.ops = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            self.ops.append(str(func))
            return func(*args, **(kwargs or {}))

    with Seen() as seen:
        assert torch.equal(xpose.transpose(x), x.t())
    assert calls[-1] == "transpose_op" and any("xpose" in op for op in seen.ops), seen.ops
    calls.clear()
    batched = torch.func.vmap(lambda t: t * 1)(x4)  # a transform that ends before the call
    assert same_bits(xpose.permute(batched, (0, 1, 3, 2)), batched.transpose(-1, -2)) and calls == []
    try:  # inside a transform: the op (which may refuse vmap), never the tensor's memory directly
        torch.func.vmap(lambda t: xpose.transpose(t))(x4[0])
    except Exception:  # noqa: BLE001 - whatever PyTorch says about vmap, the routing is what is checked
        pass
    assert calls == ["transpose_op"]
    calls.clear()
    meta = xpose.transpose(torch.empty(4, 8, device="meta"))  # the op's fake implementation shapes it
    assert meta.device.type == "meta" and meta.shape == (8, 4) and calls == ["transpose_op"]
    assert xpose.permute(torch.empty(2, 3, 4, device="meta"), (2, 0, 1)).shape == (4, 2, 3)
    calls.clear()
    traced = torch.jit.trace(lambda t: xpose.transpose(t) + 1, x)  # the trace records the op
    z = random_tensor((33, 65), torch.float32).nan_to_num()
    assert torch.equal(traced(z), z.t() + 1) and "transpose_op" in calls
    calls.clear()
    with torch.device("cuda"):  # a function mode
        assert torch.equal(xpose.transpose(x), x.t())
    assert calls == ["transpose_op"]


def test_torch_exchange_path_matches_the_fields_path(monkeypatch):
    """Where torch.Tensor offers DLPack's C exchange API the native boundary reads tensors, the
    stream and a new result through it; random permutations (new results and out=, CUDA, CPU
    and pinned tensors, a side stream) give the same bits as through the tensors' Python fields."""
    xpose.transpose(random_tensor((2, 3), torch.float32))  # the package has seen torch
    assert xpose._TORCH_EXCHANGE == hasattr(torch.Tensor, "__dlpack_c_exchange_api__")
    if not xpose._TORCH_EXCHANGE:
        pytest.skip(f"PyTorch {torch.__version__} has no __dlpack_c_exchange_api__")
    rng = random.Random(1234)
    stream = torch.cuda.Stream()
    for trial in range(60):
        rank = rng.randint(1, 5)
        shape = tuple(rng.choice([1, 2, 3, 5, 17, 64]) for _ in range(rank))
        dims = list(range(rank))
        rng.shuffle(dims)
        dtype = rng.choice(DTYPES)
        x = random_tensor(shape, dtype)
        if rank > 1 and trial % 3 == 0:
            x = x.transpose(0, rank - 1)  # a view
        where = trial % 4
        if where == 1:
            x = x.cpu()
        elif where == 2:
            x = x.cpu().pin_memory()
        expected = packed(x.permute(*dims))
        with torch.cuda.stream(stream if where == 3 else torch.cuda.current_stream()):
            got = [xpose.permute_dims(x, dims)]
            out = torch.empty(expected.shape, dtype=dtype, device=x.device)
            got.append(xpose.permute_dims(x, dims, out=out))
            assert got[1] is out
            monkeypatch.setattr(xpose, "_TORCH_EXCHANGE", False)
            monkeypatch.setattr(xpose, "_NATIVE", ())  # the native eager path reads through the exchange too
            got.append(xpose.permute_dims(x, dims))
            monkeypatch.undo()
        stream.synchronize()
        for y in got:
            assert y.device == x.device and y.is_contiguous() and same_bits(y, expected), (shape, dims, dtype, where)
    x = random_tensor((4, 6), torch.float16)
    with pytest.raises(ValueError, match=r"^xpose\.permute_dims: out has shape \(4, 6\); the result's shape is \(6, 4\)$"):
        xpose.permute_dims(x, (1, 0), out=torch.empty(4, 6, dtype=torch.float16, device="cuda"))
    with pytest.raises(ValueError, match=r"^xpose\.permute_dims: out has dtype torch.float32; x has dtype torch.float16$"):
        xpose.permute_dims(x, (1, 0), out=torch.empty(6, 4, device="cuda"))


def test_torch_compile():
    def f(t):
        return xpose.transpose(t * 2) + 1

    x = random_tensor((4, 96, 80), torch.float32).nan_to_num()
    compiled = torch.compile(f, fullgraph=True)
    assert torch.equal(compiled(x), f(x))
    assert torch.equal(f(x), (x * 2).transpose(-1, -2) + 1)


def test_torch_broadcasts_are_transposed():
    # Tensor.expand gives stride 0; it used to reach the C call as "packed" and read past x.
    row = random_tensor((5,), torch.float32)
    for x in (row.expand(4, 5), row[:, None].expand(5, 4), random_tensor((1, 3, 7), torch.int16).expand(6, 3, 7),
              row[0].expand(3, 2, 2), random_tensor((2000,), torch.float16).expand(2000, 2000)):
        assert same_bits(xpose.transpose(x), x.transpose(-1, -2)), x.stride()
    x = random_tensor((1, 70, 90), torch.bfloat16).expand(3, 70, 90)
    frame = torch.full((3, 93, 75), 3.0, dtype=torch.bfloat16, device="cuda")
    out = frame[:, 1:91, 2:72]
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        assert xpose.transpose(x, out=out) is out
    stream.synchronize()
    assert same_bits(out, x.transpose(-1, -2))
    outside = torch.ones(frame.shape, dtype=torch.bool, device="cuda")
    outside[:, 1:91, 2:72] = False
    assert bool((frame[outside] == 3.0).all()), "wrote outside out"
    v = torch.randn(5, device="cuda", dtype=torch.float64, requires_grad=True)
    xpose.transpose(v.expand(4, 5)).sum().backward()  # expand's own backward sums the broadcast axis
    assert torch.equal(v.grad, torch.full_like(v, 4.0))


def test_torch_out_is_refused_where_torch_refuses_it():
    x = random_tensor((4, 5), torch.float32)
    out = torch.zeros(5, 4, device="cuda")
    before = out.clone()
    with pytest.raises(ValueError, match=r"out strides let elements share memory: .* are one element"):
        xpose.transpose(random_tensor((2000, 2000), torch.float32), out=torch.zeros(2000, device="cuda").expand(2000, 2000))
    with pytest.raises(RuntimeError, match="requires grad"):
        xpose.transpose(x, out=out.clone().requires_grad_())
    with pytest.raises(RuntimeError, match="requires grad"):
        xpose.transpose(x.clone().requires_grad_(), out=out)
    with torch.inference_mode():
        inference = torch.zeros(5, 4, device="cuda")
    with pytest.raises(RuntimeError, match="inference tensor"):
        xpose.transpose(x, out=inference)
    torch.cuda.synchronize()
    assert same_bits(out, before) and not bool(inference.any()), "a refused call wrote to out"
    with torch.inference_mode():  # where torch allows the write, so does xpose
        assert xpose.transpose(x, out=inference) is inference
    grad_out = torch.zeros(5, 4, device="cuda", requires_grad=True)
    with torch.no_grad():
        xpose.transpose(x, out=grad_out)
    assert same_bits(inference, x.t()) and same_bits(grad_out.detach(), x.t())


def test_torch_lazy_conjugate_is_resolved_or_refused():
    c = random_tensor((4, 6), torch.complex64).nan_to_num().conj()
    try:
        y = xpose.transpose(c)
    except ValueError as e:
        assert "resolve_conj()" in str(e)
    else:
        assert torch.equal(y, c.t().resolve_conj())
    with pytest.raises(ValueError, match="resolve_conj"):
        xpose.transpose(random_tensor((6, 4), torch.complex64), out=torch.zeros(4, 6, dtype=torch.complex64,
                                                                                 device="cuda").conj())


def test_cupy_broadcasts():
    cp = cupy_or_skip()
    row = random_cupy(cp, (5,), "float32")
    for x in (cp.broadcast_to(row, (4, 5)), cp.broadcast_to(row[:, None], (5, 4)),
              cp.broadcast_to(random_cupy(cp, (1, 3, 7), "float16"), (6, 3, 7))):
        assert cupy_same_bits(cp, xpose.transpose(x), x.swapaxes(-1, -2))
    out = cp.full((5, 4), 2.0, cp.float32)
    with pytest.raises(ValueError, match="share memory"):
        xpose.transpose(random_cupy(cp, (2000, 2000), "float32"),
                        out=cp.broadcast_to(cp.zeros(2000, cp.float32), (2000, 2000)))
    with pytest.raises(ValueError, match="share memory"):
        xpose.transpose(random_cupy(cp, (4, 5), "float32"),
                        out=cp.lib.stride_tricks.as_strided(out, (5, 4), (8, 4)))
    assert bool((out == 2.0).all())


# xpose.permute on the GPU: the permutations that reduce to a batched 2-D transpose or a copy.
SERVED = [((2, 16, 7, 9), (0, 2, 3, 1)),    # NCHW -> NHWC
          ((2, 7, 9, 16), (0, 3, 1, 2)),    # NHWC -> NCHW
          ((3, 50, 12, 8), (0, 2, 1, 3)),   # (B, S, H, D) -> (B, H, S, D), D of 16 bytes in fp16
          ((5, 6, 7), (2, 1, 0)),           # a volume reversed
          ((4, 1, 33, 65), (3, 1, 0, 2)),   # unit axes drop out
          ((3, 4, 5), (0, 1, 2))]           # nothing moves: a copy


@pytest.mark.parametrize("shape,dims", SERVED, ids=str)
@pytest.mark.parametrize("dtype", [torch.uint8, torch.float16, torch.float32, torch.complex128], ids=str)
def test_torch_permute_matches(shape, dims, dtype):
    x = random_tensor(shape, dtype)
    y = xpose.permute(x, dims)
    assert y.is_contiguous() and y.device == x.device
    assert same_bits(y, x.permute(dims))
    out = torch.empty([shape[d] for d in dims], dtype=dtype, device="cuda")
    assert xpose.permute(x, dims, out=out) is out
    assert same_bits(out, x.permute(dims))


@pytest.mark.parametrize("seed", range(12))
def test_torch_permute_serves_every_permutation(seed):
    """Permutations no 2-D transpose can say (the N-D kernels), broadcast axes included."""
    rng = random.Random(seed)
    nd = rng.randint(3, 6)
    shape = [rng.randint(1, 9) for _ in range(nd)]
    dims = list(range(nd))
    rng.shuffle(dims)
    dtype = rng.choice([torch.uint8, torch.bfloat16, torch.float32, torch.float64, torch.complex128])
    x = random_tensor(shape, dtype)
    if rng.random() < 0.4:  # a broadcast axis: stride 0
        axis = rng.randrange(nd)
        x = x.narrow(axis, 0, 1).expand(*shape)
    out = torch.empty([shape[d] for d in dims], dtype=dtype, device="cuda")
    assert xpose.permute(x, dims, out=out) is out
    assert same_bits(out, x.permute(dims))


def test_torch_permute_gradient_and_compile():
    x = torch.randn(3, 5, 7, device="cuda", dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: xpose.permute(t, (2, 1, 0)), (x,))

    def f(t):
        return xpose.permute(t * 2, (0, 2, 1)) + 1

    y = random_tensor((4, 96, 80), torch.float32).nan_to_num()
    assert torch.equal(torch.compile(f, fullgraph=True)(y), (y * 2).permute(0, 2, 1) + 1)


@pytest.mark.parametrize("shape,dims", SERVED, ids=str)
def test_cupy_permute_matches(shape, dims):
    cp = cupy_or_skip()
    x = random_cupy(cp, shape, "float16")
    y = xpose.permute(x, dims)
    assert isinstance(y, cp.ndarray) and y.flags.c_contiguous
    assert cupy_same_bits(cp, y, x.transpose(dims))


def test_torch_transpose_of_more_axes():
    """4 or more axes: xpose.transpose is permute(x, (..., -1, -2)), gradient included."""
    x = random_tensor((2, 3, 33, 17), torch.float16)
    assert same_bits(xpose.transpose(x), x.transpose(-1, -2))
    out = torch.empty((2, 3, 17, 33), dtype=torch.float16, device="cuda")
    assert xpose.transpose(x, out=out) is out and same_bits(out, x.transpose(-1, -2))
    w = torch.randn(2, 2, 5, 3, device="cuda", dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: xpose.transpose(t), (w,))


def test_jax_arrays_through_dlpack():
    """JAX arrays on the GPU: seen through DLPack, transposed and permuted, returned as JAX arrays."""
    import os

    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # leave the GPU's memory to the other tests
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU")
    x = jnp.arange(2 * 33 * 65, dtype=jnp.float32).reshape(2, 33, 65)
    y = xpose.transpose(x)
    assert isinstance(y, jax.Array) and bool((y == jnp.swapaxes(x, -1, -2)).all())
    z = xpose.permute(x, (2, 0, 1))
    assert isinstance(z, jax.Array) and bool((z == jnp.transpose(x, (2, 0, 1))).all())
