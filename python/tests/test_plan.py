"""xpose.Plan: one layout checked and planned once, run on many arrays of that layout; bit for
bit against permute_dims and the library's own permute, every refusal a one-line message that
writes nothing. The CPU tests run everywhere; the GPU ones where PyTorch (CuPy) has a device."""
import random

import numpy as np
import pytest

import xpose


def test_numpy_arrays_are_refused_with_the_way_out():
    with pytest.raises(TypeError, match=r"^xpose\.Plan: x must be a PyTorch tensor or a CuPy array .*permute_dims"):
        xpose.Plan(np.zeros((3, 4), np.float32), (1, 0))
    with pytest.raises(TypeError, match=r"^xpose\.Plan: x must be"):
        xpose.Plan([[1, 2]], (1, 0))


try:
    import torch
    gpu = torch.cuda.is_available()
except ImportError:
    torch, gpu = None, False
needs_gpu = pytest.mark.skipif(not gpu, reason="no PyTorch with a CUDA device")


def random_tensor(shape, dtype, rng):
    itemsize = torch.empty((), dtype=dtype).element_size()
    size = itemsize
    for n in shape:
        size *= n
    raw = torch.randint(0, 256, (size,), dtype=torch.uint8, device="cuda", generator=rng)
    return raw.view(dtype).view(shape)


def same_bits(a, b):
    as_ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    a, b = a.contiguous(), b.contiguous()
    if a.element_size() == 16:
        a, b = torch.view_as_real(a), torch.view_as_real(b)
    return a.shape == b.shape and torch.equal(a.view(as_ints[a.element_size()]), b.view(as_ints[b.element_size()]))


@needs_gpu
def test_a_plan_runs_on_every_array_of_its_layout():
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    gen = torch.Generator(device="cuda").manual_seed(seed)
    for trial in range(40):
        rank = rng.randint(1, 5)
        shape = tuple(rng.randint(1, 12) for _ in range(rank))
        axes = list(range(rank))
        rng.shuffle(axes)
        dtype = rng.choice([torch.uint8, torch.float16, torch.bfloat16, torch.float32, torch.float64,
                            torch.complex128])
        base = random_tensor(tuple(n + 2 for n in shape), dtype, gen)
        x = base[tuple(slice(1, 1 + n) for n in shape)]  # a strided view, offset by a row
        plan = xpose.Plan(x, axes)
        assert plan.explain(), f"seed {seed} trial {trial}"
        for _ in range(3):  # fresh arrays of the same layout
            base = random_tensor(tuple(n + 2 for n in shape), dtype, gen)
            x = base[tuple(slice(1, 1 + n) for n in shape)]
            y = plan(x)
            assert same_bits(y, x.permute(axes)), f"seed {seed} trial {trial}: {shape} {axes} {dtype}"
            out = torch.full_like(y, 0)
            assert plan(x, out=out) is out and same_bits(out, y)
            plain, xpose._PLAIN = xpose._PLAIN, None  # the Python layer's path, the same bits
            try:
                assert same_bits(plan(x), y) and plan(x, out=out) is out and same_bits(out, y)
            finally:
                xpose._PLAIN = plain


@needs_gpu
def test_a_plan_with_out_and_other_streams():
    x = random_tensor((6, 40, 72), torch.float32, torch.Generator(device="cuda").manual_seed(1))
    out = torch.empty(72, 6, 40, device="cuda")
    plan = xpose.Plan(x, (2, 0, 1), out=out)
    streams = [torch.cuda.Stream() for _ in range(3)]
    outs = [torch.full_like(out, -1.0) for _ in streams]
    for s, o in zip(streams, outs):
        with torch.cuda.stream(s):
            plan(x, out=o)
    torch.cuda.synchronize()
    for o in outs:
        assert same_bits(o, x.permute(2, 0, 1))


@needs_gpu
@pytest.mark.parametrize("native", [True, False], ids=["native eager path", "Python layer"])
def test_arrays_of_another_layout_are_refused_and_nothing_is_written(native, monkeypatch):
    if not native:
        monkeypatch.setattr(xpose, "_PLAIN", None)
    x = random_tensor((8, 16), torch.float32, torch.Generator(device="cuda").manual_seed(2))
    plan = xpose.Plan(x, (1, 0))
    out = torch.full((16, 8), 3.0, device="cuda")
    with pytest.raises(ValueError, match=r"^xpose\.Plan: x has shape \(16, 8\), strides \(1, 16\), 4-byte elements "
                                         r"on cuda:0; the plan is for shape \(8, 16\), strides \(16, 1\)"):
        plan(x.t(), out=out.t().contiguous())
    with pytest.raises(ValueError, match=r"^xpose\.Plan: out has shape \(8, 16\)"):
        plan(x, out=torch.empty(8, 16, device="cuda"))
    with pytest.raises(TypeError, match=r"^xpose\.Plan: x is torch\.Tensor of torch\.float16; the plan is for "
                                        r"PyTorch arrays of torch\.float32"):
        plan(x.half())
    with pytest.raises(ValueError, match=r"^xpose\.Plan: out has dtype"):
        plan(x, out=torch.empty(16, 8, device="cuda", dtype=torch.float64))
    with pytest.raises(ValueError, match=r"^xpose\.Plan: x and out overlap"):
        square = random_tensor((16, 16), torch.float32, torch.Generator(device="cuda").manual_seed(3))
        xpose.Plan(square, (1, 0))(square, out=square)
    torch.cuda.synchronize()
    assert torch.all(out == 3.0)


@needs_gpu
def test_empty_and_named_kernel_plans():
    x = torch.empty(0, 5, device="cuda")
    plan = xpose.Plan(x, (1, 0))
    assert plan(x).shape == (5, 0)
    assert "nothing to do" in plan.explain()
    m = random_tensor((64, 96), torch.float32, torch.Generator(device="cuda").manual_seed(4))
    named = xpose.Plan(m, (1, 0), kernel="smem")
    assert "smem" in named.explain() and same_bits(named(m), m.t())
    with pytest.raises(ValueError, match=r"^xpose\.Plan: unknown kernel"):
        xpose.Plan(m, (1, 0), kernel="no_such_kernel")
    with pytest.raises(TypeError, match=r"^xpose\.Plan: x is on the CPU; plans run on a GPU"):
        xpose.Plan(torch.zeros(3, 4), (1, 0))
