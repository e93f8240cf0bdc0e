#!/usr/bin/env python3
"""The Python peers of xpose-bench: PyTorch and CuPy on the same cases, same JSON records.

The case list comes from `xpose-bench --list` (so both read one table), each case is timed
like xpose-bench times it (CUDA events per call with an L2 flush when the problem fits in
L2, or CUDA-graph replay for small problems), and each figure is a percentage of a copy of
the same bytes measured in this process: the faster of `torch_copy` (a contiguous
tensor copy) and `cupy_memcpy` (cudaMemcpyAsync device-to-device through CuPy).

The GPU is kept busy while the host makes each timed call (a spinning kernel of about a
millisecond is enqueued before the start event), so that the events time the GPU's work and
not the Python layer's host cost, which the GPU would otherwise wait out: from Python that
cost is tens of microseconds a call (tools/experiments/python_timing.py measured 42-98 us for
xpose.transpose, 10-65 us for torch's copies), against xpose-bench's few. Each record's
`host_us` is that host cost: the median wall time of the timed call on the host.

  torch : out.copy_(x.transpose(-1, -2))      what x.t().contiguous() does, into a preallocated out
  cupy  : cupy.copyto(out, x.swapaxes(-1, -2))  what cupy.ascontiguousarray(x.T) does
  xpose.transpose (with --xpose): the xpose Python package on the same torch tensors, out=

With --bench xpose-permute-bench the cases are N-D permutations (extents and perm), and the
peers are out.copy_(x.permute(perm)) and cupy.copyto(out, x.transpose(perm)) (with --xpose,
xpose.permute(x, perm, out=out)).

Usage: python3 bench/peers.py --bench build/bench/xpose-bench [xpose-bench case flags] --json FILE [--check]
e.g.   python3 bench/peers.py --bench build/bench/xpose-bench --cases --json peers.jsonl --check
"""
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli import ArgumentParser, fail, need  # noqa: E402


def host_text(record):
    return f"host {record['host_us']:7.1f} us" if record.get("host_us") is not None else ""


def commit_of(bench):
    """The commit the bench binary was built from (its --version), whose draws and kernels are
    timed; else the checkout's."""
    if bench:
        try:
            out = subprocess.run([bench, "--version"], capture_output=True, text=True).stdout
            if "(commit " in out:
                return out.split("(commit ", 1)[1].split(")", 1)[0]
        except OSError:
            pass
    return commit_of_checkout()


def commit_of_checkout():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    stamp = os.path.join(root, ".deps", "commit")  # tools/fetch-deps writes it before each GPU run
    if os.path.exists(stamp):
        return open(stamp).read().strip()
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cases_from_bench(bench, flags):
    try:
        out = subprocess.run([bench, "--list", *flags], capture_output=True, text=True)
    except OSError as e:
        fail(f"cannot run --bench {bench}: {e.strerror or e}")
    if out.returncode != 0:  # 2: a bad case flag, which is this script's usage error too
        fail(f"{bench} --list exited {out.returncode}: {out.stderr.strip() or 'no message'}",
             status=2 if out.returncode == 2 else 1)
    try:
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    except json.JSONDecodeError:
        fail(f"{bench} --list did not print cases: is it xpose-bench?")


def write(out, lines, close=False):
    """Appends lines to the --json file and flushes (or closes) it, or fails saying why."""
    try:
        out.writelines(lines)
        out.close() if close else out.flush()
    except OSError as e:
        fail(f"cannot write --json file '{out.name}': {e.strerror or e}")


def main():
    ap = ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="the xpose-bench executable (for the case list)")
    ap.add_argument("--json", required=True, help="append one JSON object per measurement to FILE")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--check", action="store_true", help="check each result bit-exactly once")
    ap.add_argument("--no-cupy", action="store_true")
    ap.add_argument("--xpose", action="store_true", help="also time xpose.transpose (the Python package)")
    args, case_flags = ap.parse_known_args()
    if args.reps < 1 or args.warmup < 0:
        ap.error("--reps must be at least 1 and --warmup at least 0")

    # The arguments and files first, then the modules (imported here so that --help works without them).
    cases = cases_from_bench(args.bench, case_flags)
    try:
        out = open(args.json, "a")
    except OSError as e:
        ap.error(f"cannot open --json file '{args.json}': {e.strerror or e}")
    torch = need("torch", "install PyTorch with CUDA: pip install torch")
    if not torch.cuda.is_available():
        fail("no CUDA device for PyTorch")
    cp = None
    if not args.no_cupy:
        try:
            import cupy as cp
        except ImportError:
            print("peers.py: CuPy not installed; timing PyTorch only", file=sys.stderr)

    xp = need("xpose", "install the package: pip install ./python") if args.xpose else None

    props = torch.cuda.get_device_properties(0)
    l2 = props.L2_cache_size
    peak = 0.0
    if cp is not None:
        attrs = cp.cuda.Device(0).attributes
        peak = 2.0 * attrs["MemoryClockRate"] * 1e3 * (attrs["GlobalMemoryBusWidth"] / 8) / 1e9
    common = {"device": props.name, "commit": commit_of(args.bench),
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")}
    print(f"peers.py: {props.name}, torch {torch.__version__}, cupy {cp.__version__ if cp else 'absent'}, "
          f"{common['date']}")

    dtypes = {"u8": torch.uint8, "fp8": torch.float8_e4m3fn, "fp16": torch.float16, "bf16": torch.bfloat16,
              "fp32": torch.float32, "fp64": torch.float64, "c64": torch.complex64, "c128": torch.complex128,
              "1": torch.uint8, "2": torch.int16, "4": torch.int32, "8": torch.int64, "16": torch.complex128}
    same_size_int = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64, 16: torch.int64}
    stream = torch.cuda.Stream()
    if cp is not None:
        cp.cuda.ExternalStream(stream.cuda_stream).use()  # CuPy enqueues where the events are recorded
    flush = torch.empty(4 * l2, dtype=torch.uint8, device="cuda")

    spin = getattr(torch.cuda, "_sleep", None)  # PyTorch's spinning kernel (private: may go away)
    if spin is None:
        print("peers.py: this PyTorch has no torch.cuda._sleep: the events also count each call's host time",
              file=sys.stderr)

    def time_events(fn, flush_l2):
        """The GPU milliseconds of each timed call, and the median host microseconds a call."""
        with torch.cuda.stream(stream):
            for _ in range(args.warmup):
                fn()
            ms, host = [], []
            for i in range(args.reps):
                if flush_l2:
                    flush.fill_(i & 0xFF)
                start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                if spin is not None:
                    spin(2_000_000)  # the GPU busy (about 1 ms) while the host makes the call
                start.record()
                t = time.perf_counter()
                fn()
                host.append(time.perf_counter() - t)
                stop.record()
                stop.synchronize()
                ms.append(start.elapsed_time(stop))
        return ms, statistics.median(host) * 1e6

    def time_graph(fn):
        one = statistics.median(time_events(fn, False)[0][:3] or [1.0])
        calls = int(min(1000, max(10, math.ceil(1.0 / max(one, 1e-4)))))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            fn()
            torch.cuda.current_stream().synchronize()
        with torch.cuda.graph(graph, stream=stream):
            for _ in range(calls):
                fn()
        return [t / calls for t in time_events(graph.replay, False)[0]]

    def measure(c, candidates, check_one, nbytes, graph, flush_l2):
        """Times (and checks) each candidate; writes and prints the records; returns the failures."""
        records, failed = [], 0
        for name, role, fn in candidates:
            check = ""
            if args.check and role != "ceiling":
                check = "passed" if check_one(fn) else "FAILED"
                stream.synchronize()
                failed += check == "FAILED"
            ms, host = (time_graph(fn), None) if graph else time_events(fn, flush_l2)
            med = statistics.median(ms)
            gbps = 2.0 * nbytes / (med * 1e6)
            records.append({"case": c["case"], "kernel": name, "role": role, "dtype": c["dtype"],
                            "elem_bytes": c["elem_bytes"], "timing": "graph" if graph else "events",
                            "ms_median": med, "ms_min": min(ms), "ms_max": max(ms), "gbps": gbps,
                            "pct_peak": 100.0 * gbps / peak if peak else 0.0, "check": check,
                            "host_us": host, **common})
        ceiling = max(r["gbps"] for r in records if r["role"] == "ceiling")
        for r in records:
            r["pct_copy"] = 100.0 * r["gbps"] / ceiling
        return records, failed

    def permutation_case(c, index, count):
        """An N-D permutation case of xpose-permute-bench --list: torch and cupy's permuted copies."""
        e, extents, perm = c["elem_bytes"], c["extents"], c["perm"]
        nbytes = math.prod(extents) * e
        free, _ = torch.cuda.mem_get_info()
        if 4 * nbytes > 0.9 * free:
            print(f"== {c['case']}: skipped: needs {4 * nbytes >> 20} MiB, {free >> 20} MiB free")
            return 0
        print(f"peers.py: [{index + 1}/{count}] {c['case']}", file=sys.stderr, flush=True)
        torch.cuda.set_stream(stream)
        dt = dtypes[c["dtype"]]
        x = torch.randint(-128, 128, (nbytes,), dtype=torch.int8, device="cuda").view(dt).view(extents)
        y = torch.empty([extents[p] for p in perm], dtype=dt, device="cuda")
        flat_src = torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 256)
        flat_dst = torch.empty_like(flat_src)
        candidates = [("torch_copy", "ceiling", lambda: flat_dst.copy_(flat_src)),
                      ("torch", "peer", lambda: y.copy_(x.permute(perm)))]
        # Elements of 16 bytes as int64 pairs: a trailing axis of 2 that stays where it is.
        pair = [2] if e == 16 else []
        xi = x.view(same_size_int[e]).view(extents + pair)
        yi = y.view(same_size_int[e]).view([extents[p] for p in perm] + pair)
        full = perm + ([len(perm)] if pair else [])
        if cp is not None:
            candidates.insert(1, ("cupy_memcpy", "ceiling", lambda: cp.cuda.runtime.memcpyAsync(
                flat_dst.data_ptr(), flat_src.data_ptr(), nbytes, cp.cuda.runtime.memcpyDeviceToDevice,
                stream.cuda_stream)))
            cx, cy = cp.from_dlpack(xi), cp.from_dlpack(yi)
            candidates.append(("cupy", "peer", lambda: cp.copyto(cy, cx.transpose(full))))
        if xp is not None:
            candidates.append(("xpose.permute", "xpose", lambda: xp.permute(x, perm, out=y)))

        def check_one(fn):
            y.view(torch.uint8).fill_(0xA5)
            fn()
            return torch.equal(yi, xi.permute(full))

        records, failed = measure(c, candidates, check_one, nbytes, False, 2 * nbytes < 4 * l2)
        for r in records:
            r.update({"rows": math.prod(extents), "cols": 1, "batch": 1, "ld_src": 0, "ld_dst": 0})
        write(out, [json.dumps(r) + "\n" for r in records])
        print(f"== {c['case']}")
        for r in records:
            print(f"  {r['kernel']:<14} {r['ms_median']:10.5f} ms {r['gbps']:9.1f} GB/s {r['pct_copy']:6.1f}% "
                  f"{host_text(r)} {r['check']}")
        del x, y, flat_src, flat_dst, candidates
        torch.cuda.empty_cache()
        return failed

    failures = 0
    with out:  # closed by write(close=True) at the end; here only on an exception
        for index, c in enumerate(cases):
            if "perm" in c:
                failures += permutation_case(c, index, len(cases))
                continue
            e, rows, cols, batch = c["elem_bytes"], c["rows"], c["cols"], c["batch"]
            ld_src, ld_dst = c["ld_src"] or cols, c["ld_dst"] or rows
            nbytes = rows * cols * batch * e
            working_set = batch * (rows * ld_src + cols * ld_dst) * e
            free, _ = torch.cuda.mem_get_info()
            if 2 * working_set > 0.9 * free:
                print(f"== {c['case']}: skipped: needs {2 * working_set >> 20} MiB, {free >> 20} MiB free")
                continue
            graph = c["timing"] == "graph" or (c["timing"] == "auto" and working_set <= 2 * l2)
            print(f"peers.py: [{index + 1}/{len(cases)}] {c['case']}", file=sys.stderr, flush=True)
            torch.cuda.set_stream(stream)  # fills, calls and checks in one order (torch's streams are non-blocking)
            dt = dtypes[c["dtype"]]
            # Random bits, viewed as the dtype; rows padded to ld where the case says so.
            raw = torch.randint(-128, 128, (batch * rows * ld_src * e,), dtype=torch.int8, device="cuda")
            x = raw.view(dt).view(batch, rows, ld_src)[:, :, :cols]
            out_base = torch.empty(batch, cols, ld_dst, dtype=dt, device="cuda")
            y = out_base[:, :, :rows]
            flat_src = torch.empty(nbytes, dtype=torch.uint8, device="cuda").random_(0, 256)
            flat_dst = torch.empty_like(flat_src)
            candidates = [("torch_copy", "ceiling", lambda: flat_dst.copy_(flat_src)),
                          ("torch", "peer", lambda: y.copy_(x.transpose(-1, -2)))]
            if cp is not None:
                candidates.insert(1, ("cupy_memcpy", "ceiling", lambda: cp.cuda.runtime.memcpyAsync(
                    flat_dst.data_ptr(), flat_src.data_ptr(), nbytes, cp.cuda.runtime.memcpyDeviceToDevice,
                    stream.cuda_stream)))
                cx, cy = cp.from_dlpack(x.view(same_size_int[e])), cp.from_dlpack(y.view(same_size_int[e]))
                if e == 16:  # int64 pairs: transpose the (rows, cols) axes, keep each pair together
                    cx, cy = cx.reshape(batch, rows, cols, 2), cy.reshape(batch, cols, rows, 2)
                    candidates.append(("cupy", "peer", lambda: cp.copyto(cy, cx.swapaxes(1, 2))))
                else:
                    candidates.append(("cupy", "peer", lambda: cp.copyto(cy, cx.swapaxes(-1, -2))))
            if xp is not None:
                candidates.append(("xpose.transpose", "xpose", lambda: xp.transpose(x, out=y)))
            def check_one(fn):
                out_base.view(torch.uint8).fill_(0xA5)
                fn()
                xi, yi = x.view(same_size_int[e]), y.view(same_size_int[e])
                if e == 16:
                    xi, yi = xi.reshape(batch, rows, cols, 2), yi.reshape(batch, cols, rows, 2)
                    want = xi.transpose(1, 2)
                else:
                    want = xi.transpose(-1, -2)
                gaps_kept = bool((out_base.view(torch.uint8)[:, :, rows * e:] == 0xA5).all())
                return torch.equal(yi, want) and gaps_kept

            records, failed = measure(c, candidates, check_one, nbytes, graph, working_set < 4 * l2)
            failures += failed
            for r in records:
                r.update({"rows": rows, "cols": cols, "batch": batch, "ld_src": ld_src, "ld_dst": ld_dst})
            write(out, [json.dumps(r) + "\n" for r in records])
            print(f"== {c['case']} ({'graph' if graph else 'events'})")
            for r in records:
                print(f"  {r['kernel']:<12} {r['ms_median']:10.5f} ms {r['gbps']:9.1f} GB/s {r['pct_copy']:6.1f}% "
                      f"{host_text(r)} {r['check']}")
            del raw, x, out_base, y, flat_src, flat_dst, candidates
            torch.cuda.empty_cache()
        write(out, [], close=True)
    if failures:
        fail(f"{failures} result(s) FAILED the check")


if __name__ == "__main__":
    main()
