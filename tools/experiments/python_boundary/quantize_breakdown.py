"""Where xpose.quantize's host time goes from PyTorch: each piece timed alone (best of 5
repeats of N calls, one synchronization after each repeat), on a matrix small enough that the
GPU keeps up (the host cost alone), beside PyTorch's own ops.
    PYTHONPATH=<site with xpose> python3 quantize_breakdown.py"""
import timeit

import torch

import xpose
from xpose import _quantize, _xpose

N = 2000
x = torch.randn(256, 512, device="cuda").bfloat16()
idx = x.device.index
stream = torch._C._cuda_getCurrentRawStream(idx)
DELAYED = dict(scaling="delayed", scale=2.0)
MX = dict(scaling="mx")


def request(recipe):
    kw = dict(scaling="current", scale=None, block=None, scale_layout=None, pow2_scales=False,
              outputs=_quantize._OUTPUTS)
    kw.update(recipe)
    return lambda: _quantize._Request("bfloat16", tuple(x.shape), x.stride(), 2, "e4m3", kw["scaling"], kw["scale"],
                                      kw["block"], kw["scale_layout"], kw["pow2_scales"], kw["outputs"])


def native(recipe):
    r = request(recipe)()
    want = [r.want[o] for o in _quantize._OUTPUTS]
    shapes = [r.scale_shape(t) if r.want[o] else () for o, t in (("scales", False), ("scales_t", True))]
    return lambda: _xpose.torch_quantize(x, *r.fields(), want, *shapes)


def c_abi(recipe):  # preallocated outputs: the nanobind call and the C ABI
    r = request(recipe)()
    out = _quantize.torch_run(x, r)
    ptrs = [t.data_ptr() if t.numel() else 0 for t in out]
    return lambda: _xpose.quantize(*r.fields(), x.data_ptr(), *ptrs, stream, idx)


def us(f):
    f()
    torch.cuda.synchronize()
    best = min(timeit.repeat(f, number=N, repeat=5))
    torch.cuda.synchronize()
    return best / N * 1e6


rows = [
    ("xpose.quantize(x, delayed)", lambda: xpose.quantize(x, **DELAYED)),
    ("xpose.quantize(x, mx)", lambda: xpose.quantize(x, **MX)),
    ("xpose.quantize(x, delayed, outputs=(data,))", lambda: xpose.quantize(x, outputs=("data",), **DELAYED)),
    ("_Request (delayed)", request(DELAYED)),
    ("_Request (mx) + 2 scale_shape", lambda: [request(MX)().scale_shape(t) for t in (False, True)]),
    ("_xpose.torch_quantize (delayed)", native(DELAYED)),
    ("_xpose.torch_quantize (mx)", native(MX)),
    ("_xpose.quantize, outputs given (delayed)", c_abi(DELAYED)),
    ("_xpose.quantize, outputs given (mx)", c_abi(MX)),
    ("5 x torch.empty", lambda: [torch.empty(s, device="cuda", dtype=torch.uint8) for s in
                                 ((256, 512), (512, 256), (256, 16), (512, 8), ())]),
    ("x.to(torch.float8_e4m3fn)", lambda: x.to(torch.float8_e4m3fn)),
    ("x.abs().max()", lambda: x.abs().max()),
    ("x.t().contiguous()", lambda: x.t().contiguous()),
    ("xpose.transpose(x)", lambda: xpose.transpose(x)),
]
print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}, bf16 {tuple(x.shape)}, best of 5 x {N} calls")
print("| piece | host us/call |\n|---|---:|")
for what, f in rows:
    print(f"| {what} | {us(f):.2f} |", flush=True)
