#!/usr/bin/env python3
"""Permutations as Python users call them: per case and library, the host microseconds a call
costs and the time of one call with that host cost in it, each against a copy of the same
bytes measured the same way in the same run.

Per case (extents, permutation, dtype): PyTorch's `x.permute(p).contiguous()` and `x.clone()`
(what PyTorch's allocator adds to a copy), xpose's
`permute_dims(x, p)` with and without `out=` and the C ABI's `xpose_permute` on the same
tensors (the Python layer's reference), CuPy's `ascontiguousarray(x.transpose(p))`,
JAX's jitted `jnp.transpose` and xpose.jax's jitted custom call; the ceiling is the library's
own copy of the same bytes (`out.copy_(x)`, `cupy.copyto`, a jitted `x + 0` for JAX).

  host_us   N calls back to back, one synchronization at the end: microseconds a call
  call_ms   one call from an idle GPU: CUDA events around it (JAX: the wall clock to
            block_until_ready), the L2 flushed first, the result kept past the end event;
            the median of --reps calls, a case's rows all taken once within each rep, in a
            fresh seeded order (a drift over the run, and the op that ran just before, reach
            every row alike)
  pct_copy  the ceiling's call_ms over the row's: 100 is the speed of the copy

The cases: the named list below (the layouts users meet: attention heads, images, matrices),
then --random draws (seeded; the seed is printed) of rank 2-6, 4-byte or smaller elements,
8-512 MiB (a target of 8-256 MiB, reached within a factor of two).
  python3 bench/python_calls.py --json calls.jsonl [--random 20 --seed S] [--reps 15]"""
import datetime
import json
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import ArgumentParser, fail, need  # noqa: E402

NAMED = [  # (label, dtype, extents, perm)
    ("BSHD->BHSD", "bfloat16", (8, 4096, 32, 128), (0, 2, 1, 3)),
    ("NCHW->NHWC", "float16", (64, 256, 56, 56), (0, 2, 3, 1)),
    ("NHWC->NCHW, C=3", "uint8", (64, 224, 224, 3), (0, 3, 1, 2)),
    ("NCHW->NHWC, C=3", "float32", (32, 3, 224, 224), (0, 2, 3, 1)),
    ("matrix", "bfloat16", (1000, 3000), (1, 0)),
    ("batched matrices", "float32", (64, 1024, 1024), (0, 2, 1)),
]


def random_cases(n, seed):

    rng = random.Random(seed)
    cases = []
    for i in range(n):
        dtype = rng.choice(["uint8", "float16", "bfloat16", "float32"])
        itemsize = {"uint8": 1, "float16": 2, "bfloat16": 2, "float32": 4}[dtype]
        rank = rng.randint(2, 6)
        target = rng.uniform(8, 256) * 2**20 / itemsize
        extents = [rng.randint(2, 64) for _ in range(rank)]
        while True:  # halve the largest axes while twice `target` or more, then grow random ones to it
            total = 1
            for e in extents:
                total *= e
            if total < 2 * target:
                break
            largest = extents.index(max(extents))
            extents[largest] = max(2, extents[largest] // 2)
        while total < target:
            axis = rng.randrange(rank)
            total = total // extents[axis] * extents[axis] * 2
            extents[axis] *= 2
        perm = list(range(rank))
        while perm == sorted(perm):
            rng.shuffle(perm)
        cases.append((f"random {i}", dtype, tuple(extents), tuple(perm)))
    return cases


def main():
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", required=True, help="append one JSON object per measurement to FILE")
    ap.add_argument("--reps", type=int, default=15, help="single calls timed per row (median reported)")
    ap.add_argument("--calls", type=int, default=2000, help="back-to-back calls for host_us")
    ap.add_argument("--random", type=int, default=0, help="random cases after the named ones")
    ap.add_argument("--seed", type=int, default=None, help="the random cases' seed (default: drawn, printed)")
    args = ap.parse_args()
    if args.reps < 1 or args.calls < 1 or args.random < 0:
        ap.error("--reps and --calls must be at least 1, --random at least 0")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    try:
        out = open(args.json, "a")
    except OSError as e:
        ap.error(f"cannot open --json file '{args.json}': {e.strerror or e}")
    torch = need("torch", "install PyTorch with CUDA")
    if not torch.cuda.is_available():
        fail("no CUDA device for PyTorch")
    xpose = need("xpose", "install the package: pip install ./python")
    try:
        import cupy as cp
    except ImportError:
        cp = None
    try:
        os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
        import jax
        import jax.numpy as jnp
        import xpose.jax as xj
        if not any(d.platform == "gpu" for d in jax.devices()):
            jax = None
    except ImportError:
        jax = None

    props = torch.cuda.get_device_properties(0)
    common = {"device": props.name, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
              "xpose": xpose.__version__, "torch": torch.__version__, "seed": seed}
    print(f"python_calls.py: {props.name}, xpose {xpose.__version__}, torch {torch.__version__}, "
          f"cupy {cp.__version__ if cp else 'absent'}, jax {jax.__version__ if jax else 'absent'}, seed {seed}, "
          f"{common['date']}", flush=True)
    flush = torch.empty(4 * props.L2_cache_size, dtype=torch.uint8, device="cuda")
    sync = torch.cuda.synchronize

    def host_us(fn, done):
        fn()
        done()
        t0 = time.perf_counter()
        for _ in range(args.calls):
            fn()
        done()
        return (time.perf_counter() - t0) / args.calls * 1e6

    def one_call(fn):
        """One call from an idle, L2-flushed GPU, CUDA events around it (the host cost inside), ms.
        The result is kept until the end event is recorded, as a caller keeps what it asked for:
        freeing it inside the window would charge the call with the caller's later release."""
        flush.zero_()
        sync()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = fn()
        end.record()
        end.synchronize()
        del result
        return start.elapsed_time(end)

    order_rng = random.Random(seed)

    def call_ms(fns):
        """The median of --reps single calls of each of fns, all taken once within each rep in a
        fresh order (what ran just before moves a call by up to 25 us: each row meets every
        predecessor alike)."""
        times = [[] for _ in fns]
        for _ in range(args.reps):
            order = list(range(len(fns)))
            order_rng.shuffle(order)
            for k in order:
                times[k].append(one_call(fns[k]))
        return [statistics.median(t) for t in times]

    def wall_ms(fn):
        """JAX: one call to block_until_ready on the wall clock, the L2 flushed first."""
        times = []
        for _ in range(args.reps):
            flush.zero_()
            sync()
            t0 = time.perf_counter()
            fn().block_until_ready()
            times.append((time.perf_counter() - t0) * 1e3)
        return statistics.median(times)

    cases = NAMED + random_cases(args.random, seed)
    print("| case | dtype | extents | perm | MiB | library | call | host us | call ms | % copy |")
    print("|---|---|---|---|---:|---|---|---:|---:|---:|")
    for label, dtype, extents, perm in cases:
        tdt = getattr(torch, dtype)
        itemsize = torch.empty((), dtype=tdt).element_size()
        count = 1
        for e in extents:
            count *= e
        x = torch.randint(0, 256, (count * itemsize,), dtype=torch.uint8, device="cuda").view(tdt).reshape(extents)
        shape = tuple(extents[p] for p in perm)
        want = x.permute(perm).contiguous()
        y = torch.empty(shape, dtype=tdt, device="cuda")
        copy_out = torch.empty_like(x)
        mib = x.numel() * x.element_size() / 2**20
        timed = []  # (lib, what, fn, done, ceiling row): timed together, below

        def row(lib, what, fn, done, ceiling=None, check=None):
            if check is not None and not check():
                fail(f"{label}: {lib} {what} differs from x.permute(perm).contiguous()")
            timed.append((lib, what, fn, done, len(timed) if ceiling is None else ceiling))
            return len(timed) - 1

        as_ints = {1: torch.uint8, 2: torch.int16, 4: torch.int32}
        bits = lambda a: a.view(as_ints[a.element_size()])  # noqa: E731 - compare bits: NaNs too
        torch_copy = row("torch", "copy (ceiling)", lambda: copy_out.copy_(x), sync)
        row("torch", "x.clone() (a copy into a new tensor)", lambda: x.clone(), sync, torch_copy)
        row("torch", "x.permute(p).contiguous()", lambda: x.permute(perm).contiguous(), sync, torch_copy)
        row("xpose", "permute_dims(x, p)", lambda: xpose.permute_dims(x, perm), sync, torch_copy,
            check=lambda: torch.equal(bits(xpose.permute_dims(x, perm)), bits(want)))
        row("xpose", "permute_dims(x, p, out=y)", lambda: xpose.permute_dims(x, perm, out=y), sync, torch_copy)
        # The C ABI itself (xpose_permute, every check and the choice on each call) on the same
        # tensors, timed the same way: what the Python layer is measured against.
        raw = (x.data_ptr(), y.data_ptr(), itemsize, list(extents), list(perm), list(x.stride()), list(y.stride()),
               torch.cuda.current_stream().cuda_stream)
        row("xpose", "C ABI xpose_permute(x, y)", lambda: xpose._xpose.permute_device(*raw), sync, torch_copy)
        if cp is not None and dtype != "bfloat16":
            c = cp.from_dlpack(x)
            c_out = cp.empty_like(c)
            cdone = cp.cuda.Device().synchronize
            cupy_copy = row("cupy", "copyto (ceiling)", lambda: cp.copyto(c_out, c), cdone)
            row("cupy", "ascontiguousarray(x.transpose(p))", lambda: cp.ascontiguousarray(c.transpose(perm)), cdone,
                cupy_copy)
        hus = [host_us(fn, done) for _, _, fn, done, _ in timed]
        ms = call_ms([fn for _, _, fn, _, _ in timed])
        rows = [(lib, what, h, m, ms[ceiling]) for (lib, what, _, _, ceiling), h, m in zip(timed, hus, ms)]
        if jax is not None:
            j = jax.dlpack.from_dlpack(x)
            jcopy = jax.jit(lambda v: v + jnp.zeros((), v.dtype))
            jt = jax.jit(lambda v: jnp.transpose(v, perm))
            jx = jax.jit(lambda v: xj.permute_dims(v, perm))
            jax_copy = wall_ms(lambda: jcopy(j))
            for what, f in (("jit copy (ceiling)", jcopy), ("jit jnp.transpose", jt), ("jit xpose.jax.permute_dims", jx)):
                rows.append(("jax", what, host_us(lambda: f(j), lambda: f(j).block_until_ready()),
                             wall_ms(lambda: f(j)), jax_copy))
        for lib, what, hus, ms, ceiling in rows:
            pct = 100.0 * ceiling / ms if ms > 0 else 0.0
            record = dict(common, case=label, dtype=dtype, extents=list(extents), perm=list(perm), mib=round(mib, 1),
                          library=lib, call=what, host_us=round(hus, 2), call_ms=round(ms, 4), pct_copy=round(pct, 1))
            out.write(json.dumps(record) + "\n")
            print(f"| {label} | {dtype} | {'x'.join(map(str, extents))} | {perm} | {mib:.0f} | {lib} | {what} | "
                  f"{hus:.1f} | {ms:.3f} | {pct:.1f} |", flush=True)
        x = y = copy_out = want = None  # the next case's tensors in their memory
        torch.cuda.empty_cache()
    out.close()


if __name__ == "__main__":
    main()
