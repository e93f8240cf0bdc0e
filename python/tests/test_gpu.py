"""xpose.transpose on PyTorch and CuPy arrays on a CUDA device, bit for bit against the
library's own transpose; skipped, saying why, where there is no GPU or no such library."""
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


def same_bits(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.contiguous().view(torch.uint8), b.contiguous().view(torch.uint8))


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


def test_cupy_matches():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    x = cupy.random.random((3, 77, 45)).astype(cupy.float32)
    y = xpose.transpose(x)
    assert isinstance(y, cupy.ndarray)
    assert bool((y == x.swapaxes(-1, -2)).all())


def test_torch_gradient():
    x = torch.randn(33, 65, device="cuda", dtype=torch.float64, requires_grad=True)
    y = xpose.transpose(x)
    weight = torch.randn_like(y)
    (y * weight).sum().backward()
    assert torch.equal(x.grad, weight.t())
    assert torch.autograd.gradcheck(lambda t: xpose.transpose(t), (torch.randn(5, 7, device="cuda",
                                                                              dtype=torch.float64,
                                                                              requires_grad=True),))


def test_torch_compile():
    def f(t):
        return xpose.transpose(t * 2) + 1

    x = random_tensor((4, 96, 80), torch.float32).nan_to_num()
    compiled = torch.compile(f, fullgraph=True)
    assert torch.equal(compiled(x), f(x))
    assert torch.equal(f(x), (x * 2).transpose(-1, -2) + 1)
