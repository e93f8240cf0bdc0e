"""Host microseconds per call as users call it: N calls back to back, one synchronization at
the end, the median of 5 repeats (a table's rows in turn within each); xpose beside each
library's own permute-and-copy, on small tensors (where the host cost is all there is).
    PYTHONPATH=<site with xpose> python3 host_cost.py"""
import statistics
import time

import xpose

N = 3000


def table(lib, cases, sync):
    """Each case's calls a microsecond, the median of 5 repeats; the cases taken in turn within a
    repeat, so that a change of the machine's speed during the run reaches every row alike."""
    for _, f in cases:
        f()
    sync()
    runs = [[] for _ in cases]
    for _ in range(5):
        for k, (_, f) in enumerate(cases):
            t0 = time.perf_counter()
            for _ in range(N):
                f()
            sync()
            runs[k].append((time.perf_counter() - t0) / N * 1e6)
    for (what, _), r in zip(cases, runs):
        print(f"| {lib} | {what} | {statistics.median(r):.1f} |", flush=True)


print("| library | call | host us/call |\n|---|---|---:|")
import numpy as np  # noqa: E402

a = np.random.rand(64, 64).astype(np.float32)
b = np.empty((64, 64), np.float32)
table("numpy", [("np.copyto(out, x.T)", lambda: np.copyto(b, a.T)),
                ("xpose.transpose(x, out=out)", lambda: xpose.transpose(a, out=b)),
                ("xpose.matrix_transpose(x)", lambda: xpose.matrix_transpose(a))], lambda: None)
try:
    import torch

    x = torch.randn(64, 64, device="cuda")
    y = torch.empty(64, 64, device="cuda")
    x4 = torch.randn(4, 8, 16, 32, device="cuda")
    y4 = torch.empty(32, 4, 8, 16, device="cuda")
    sync = torch.cuda.synchronize
    table("torch", [("x.t().contiguous()", lambda: x.t().contiguous()),
                    ("out.copy_(x.t())", lambda: y.copy_(x.t())),
                    ("xpose.transpose(x)", lambda: xpose.transpose(x)),
                    ("xpose.transpose(x, out=out)", lambda: xpose.transpose(x, out=y)),
                    ("x.permute(3, 0, 1, 2).contiguous()", lambda: x4.permute(3, 0, 1, 2).contiguous()),
                    ("xpose.permute_dims(x, (3, 0, 1, 2))", lambda: xpose.permute_dims(x4, (3, 0, 1, 2))),
                    ("xpose.permute_dims(x, (3, 0, 1, 2), out=out)",
                     lambda: xpose.permute_dims(x4, (3, 0, 1, 2), out=y4))], sync)
    plan2, plan4 = xpose.Plan(x, (1, 0), out=y), xpose.Plan(x4, (3, 0, 1, 2), out=y4)
    table("torch", [("xpose.Plan(x, (1, 0))(x, out=out)", lambda: plan2(x, out=y)),
                    ("xpose.Plan(x, (3, 0, 1, 2))(x, out=out)", lambda: plan4(x4, out=y4)),
                    ("xpose.Plan(x, (3, 0, 1, 2))(x)", lambda: plan4(x4))], sync)
    g = torch.randn(64, 64, device="cuda", requires_grad=True)
    table("torch", [("xpose.transpose(x requiring grad) (the custom op)", lambda: xpose.transpose(g))], sync)
except ImportError:
    pass
try:
    import cupy as cp

    c = cp.random.rand(64, 64, dtype=cp.float32)
    d = cp.empty((64, 64), cp.float32)
    sync = cp.cuda.Device().synchronize
    table("cupy", [("cp.ascontiguousarray(x.T)", lambda: cp.ascontiguousarray(c.T)),
                   ("xpose.transpose(x)", lambda: xpose.transpose(c)),
                   ("xpose.transpose(x, out=out)", lambda: xpose.transpose(c, out=d))], sync)
except ImportError:
    pass
