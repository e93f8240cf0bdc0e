#!/usr/bin/env python3
"""FP8 quantization from PyTorch: xpose.quantize beside the same math in PyTorch eager and under
torch.compile, each writing both outputs (the data as it is and transposed, their scales, the
amax), each as a % of the same-run copy of the bytes xpose must move.

Per case (tokens x width, input dtype, recipe):
  xpose    xpose.quantize(x, ...): one pass (current scaling: the amax pass first)
  eager    PyTorch ops: amax (per tensor or per block), scale, clamp, cast to float8_e4m3fn,
           data_t from x.t() (blocks in its own coordinates) or data.t().contiguous()
  compile  torch.compile of the eager function (Inductor fuses what it can)
  copy     dst.copy_(src) of (x's bytes + every output's bytes) / 2: the ceiling
The peers write their block scales row-major (no cuBLASLt tiling for MXFP8: less work than
xpose does); `codes_equal` is the share of the peer's data and data_t codes equal to xpose's.

  ms        CUDA events around --calls calls back to back (a training loop's view: the host
            cost hides behind the GPU where it is smaller), per call, median of --reps
  host_us   the wall clock over issuing those calls (before the end event), per call
  pct_copy  copy's ms over the row's

  python3 bench/quantize_peers.py [--shape 8192x4096 ...] [--input bfloat16 float32]
                                  [--recipe delayed current 1x128 128x128 mxfp8] [--json out.jsonl]"""
import datetime
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import ArgumentParser, fail, need  # noqa: E402

FMAX = 448.0  # E4M3's largest finite value
SHAPES = ["8192x4096", "4096x14336", "16384x8192"]
# xpose.quantize's arguments per recipe (the scale layouts of xpose-quantize-bench)
RECIPES = {
    "delayed": dict(scaling="delayed", scale=2.0),
    "current": dict(scaling="current"),
    "1x128": dict(scaling="blocks", block=(1, 128), scale_layout="column_major"),
    "128x128": dict(scaling="blocks", block=(128, 128)),
    "mxfp8": dict(scaling="mx"),
}


def peer(torch, recipe):
    """The recipe's math in PyTorch ops: (data, data_t, scales, scales_t, amax)."""
    f8 = torch.float8_e4m3fn

    def cast(y):
        return y.clamp(-FMAX, FMAX).to(f8)

    def factor(a):  # the block's factor from its amax (1 where the amax is 0)
        return torch.where(a > 0, FMAX / a, torch.ones_like(a))

    def rows_blocked(x, k):  # 1 x k blocks of a matrix (any strides): codes, scale_inv
        r, c = x.shape
        xb = x.float().reshape(r, c // k, k)
        s = factor(xb.abs().amax(-1, keepdim=True))
        return cast(xb * s).reshape(r, c), (1 / s).reshape(r, c // k)

    def mx_blocked(x):  # 1 x 32 blocks, E8M0 scales (rounded up to a power of two)
        r, c = x.shape
        xb = x.float().reshape(r, c // 32, 32)
        v = xb.abs().amax(-1, keepdim=True) * (1 / FMAX)
        bits = v.view(torch.int32)
        e = (bits >> 23) & 0xFF
        code = e + (((bits & 0x7FFFFF) != 0) & (e != 0xFE)).to(torch.int32)
        data_scale = ((254 - code) << 23).view(torch.float32)
        return cast(xb * data_scale).reshape(r, c), code.to(torch.uint8).reshape(r, c // 32)

    def delayed(x):
        xf = x.float()
        d = cast(xf * 2.0)
        return d, d.t().contiguous(), None, None, xf.abs().amax()

    def current(x):
        xf = x.float()
        a = xf.abs().amax()
        s = factor(a)
        d = cast(xf * s)
        return d, d.t().contiguous(), 1 / s, 1 / s, a

    def row_blocks(x):
        d, s = rows_blocked(x, 128)
        dt, st = rows_blocked(x.t(), 128)
        return d, dt, s, st, x.float().abs().amax()

    def square_blocks(x):
        r, c = x.shape
        xb = x.float().reshape(r // 128, 128, c // 128, 128)
        s = factor(xb.abs().amax(dim=(1, 3), keepdim=True))
        d = cast(xb * s).reshape(r, c)
        return d, d.t().contiguous(), (1 / s).reshape(r // 128, c // 128), None, x.float().abs().amax()

    def mx(x):
        d, s = mx_blocked(x)
        dt, st = mx_blocked(x.t())
        return d, dt, s, st, x.float().abs().amax()

    return {"delayed": delayed, "current": current, "1x128": row_blocks, "128x128": square_blocks, "mxfp8": mx}[recipe]


def main():
    p = ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shape", nargs="+", default=SHAPES, help="tokens x width, RxC (multiples of 128)")
    p.add_argument("--input", nargs="+", default=["bfloat16", "float32"], choices=["bfloat16", "float32", "float16"])
    p.add_argument("--recipe", nargs="+", default=list(RECIPES), choices=list(RECIPES))
    p.add_argument("--calls", type=int, default=10)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--json", help="append one record per row to this file")
    a = p.parse_args()
    torch = need("torch", "install PyTorch with CUDA")
    xpose = need("xpose", "install the package: pip install ./python")
    if not torch.cuda.is_available():
        fail("no CUDA device")
    torch._dynamo.config.cache_size_limit = 1024
    torch._dynamo.config.accumulated_cache_size_limit = 1024
    props = torch.cuda.get_device_properties(0)
    common = {"device": props.name, "date": datetime.date.today().isoformat(), "torch": torch.__version__,
              "commit": os.environ.get("XPOSE_COMMIT", "unknown")}
    print(f"# quantize_peers: {common['device']}, torch {torch.__version__}, commit {common['commit']}, "
          f"{common['date']}", flush=True)
    print("| case | xpose % | eager % | compile % | xpose / compile | host us: xpose, eager, compile |"
          " codes_equal (eager, compile) |")
    print("|---|---:|---:|---:|---:|---|---|", flush=True)
    out = open(a.json, "a") if a.json else None

    def per_call(fn):
        """(ms a call on the GPU, host us a call): medians over --reps."""
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times, host = [], []
        for _ in range(a.reps):
            start.record()
            t0 = time.perf_counter()
            for _ in range(a.calls):
                fn()
            host.append((time.perf_counter() - t0) * 1e6 / a.calls)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / a.calls)
        return statistics.median(times), statistics.median(host)

    for shape in a.shape:
        try:
            rows, cols = (int(v) for v in shape.lower().split("x"))
        except ValueError:
            fail(f"--shape {shape!r} is not RxC")
        if rows % 128 or cols % 128:
            fail(f"--shape {shape}: the peers' blocks need multiples of 128")
        for dtype in a.input:
            torch.manual_seed(rows * 7 + cols)
            x = torch.randn(rows, cols, device="cuda").to(getattr(torch, dtype))
            for recipe in a.recipe:
                label = f"{dtype} {rows}x{cols} {recipe} both"
                q = xpose.quantize(x, **RECIPES[recipe])
                moved = x.nbytes + sum(t.nbytes for t in q if t is not None)
                src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
                dst = torch.empty_like(src)
                eager = peer(torch, recipe)
                compiled = torch.compile(eager, dynamic=False)
                got_eager, got_compiled = eager(x), compiled(x)  # compiles here
                equal = []
                for got in (got_eager, got_compiled):
                    same = sum(int((g.view(torch.uint8) == w.view(torch.uint8)).sum()) for g, w in
                               zip(got[:2], q[:2]))
                    equal.append(same / (2 * rows * cols))
                timed = {"copy": per_call(lambda: dst.copy_(src)),
                         "xpose": per_call(lambda: xpose.quantize(x, **RECIPES[recipe])),
                         "eager": per_call(lambda: eager(x)),
                         "compile": per_call(lambda: compiled(x))}
                ms = {k: v[0] for k, v in timed.items()}
                host = {k: v[1] for k, v in timed.items()}
                pct = {k: 100 * ms["copy"] / v for k, v in ms.items()}
                print(f"| {label} | {pct['xpose']:.1f} | {pct['eager']:.1f} | {pct['compile']:.1f} | "
                      f"{ms['compile'] / ms['xpose']:.2f}x | {host['xpose']:.0f}, {host['eager']:.0f}, "
                      f"{host['compile']:.0f} | {equal[0]:.4f}, {equal[1]:.4f} |", flush=True)
                if out:
                    for role in ms:
                        out.write(json.dumps({**common, "case": label, "role": role, "ms": ms[role], "host_us": host[role],
                                              "pct_copy": pct[role], "bytes": moved, "calls": a.calls,
                                              "reps": a.reps, "codes_equal": {"eager": equal[0], "compile": equal[1]}.get(role)})
                              + "\n")
                del q, got_eager, got_compiled, src, dst
            del x
    if out:
        out.close()


if __name__ == "__main__":
    main()
