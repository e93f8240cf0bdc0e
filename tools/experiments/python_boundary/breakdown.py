"""Where a PyTorch call's host time goes: each piece of xpose's torch path timed alone
(best of 5 repeats of N calls, one synchronization after each repeat).
    PYTHONPATH=<site with xpose> python3 breakdown.py"""
import timeit

import torch

import xpose
from xpose import _check_dims, _check_torch_out, _check_torch_tensor, _torch, _xpose

N = 3000
x = torch.randn(64, 64, device="cuda")
y = torch.empty(64, 64, device="cuda")
idx = x.device.index
stream = torch._C._cuda_getCurrentRawStream(idx)
args = ("transpose", x.data_ptr(), x.shape, x.stride(), y.data_ptr(), y.shape, y.stride(), 4, idx, [1, 0], stream,
        "auto")
ptr = (x.data_ptr(), y.data_ptr())


def us(f):
    f()
    torch.cuda.synchronize()
    best = min(timeit.repeat(lambda: (f()), number=N, repeat=5))
    torch.cuda.synchronize()
    return best / N * 1e6


rows = [
    ("xpose.transpose(x, out=y)", lambda: xpose.transpose(x, out=y)),
    ("_xpose.permute_fields (prepared args)", lambda: _xpose.permute_fields(*args)),
    ("_xpose.transpose_device (raw, the C ABI)", lambda: _xpose.transpose_device(ptr[0], ptr[1], 4, 64, 64, 64, 64, 1,
                                                                                 0, 0, stream, "auto")),
    ("_xpose.permute_device (raw, the C ABI)", lambda: _xpose.permute_device(ptr[0], ptr[1], 4, [64, 64], [1, 0],
                                                                             [64, 1], [64, 1], stream)),
    ("_plain_eager(x)", lambda: _torch._plain_eager(x)),
    ("_check_torch_tensor(x)", lambda: _check_torch_tensor(x, "x", "t")),
    ("_check_torch_out(x, y)", lambda: _check_torch_out(x, y, "t")),
    ("_check_dims([1, 0], 2)", lambda: _check_dims([1, 0], 2)),
    ("x.new_empty", lambda: x.new_empty([64, 64])),
    ("fields: data_ptr, shape, stride x2", lambda: (x.data_ptr(), x.shape, x.stride(), y.data_ptr(), y.shape,
                                                    y.stride())),
    ("x.t().contiguous()", lambda: x.t().contiguous()),
    ("y.copy_(x.t())", lambda: y.copy_(x.t())),
]
print("| piece | host us/call |\n|---|---:|")
for what, f in rows:
    print(f"| {what} | {us(f):.2f} |", flush=True)
