"""Experiment (not part of the package): where the Python package's time goes beside the C++
bench's, on the GPU, with PyTorch tensors.

For each case: the host cost of one `xpose.transpose(x, out=y)` call (perf_counter over
back-to-back calls, no synchronization; beside it `y.copy_(x.t())` and a bare
`_xpose.transpose_device` call with the same arguments), then the GPU time of one call three
ways: as bench/peers.py times it (events around the call on an idle GPU), the same with a
spin kernel enqueued before the start event (so the host's work overlaps the spin and the
events see only the GPU's), and the kernel's own duration from the PyTorch profiler, with its
name. Each time is beside a cudaMemcpyAsync-equivalent copy of the same bytes timed the same
way.

    PYTHONPATH=<site> python3 tools/experiments/python_timing.py [--profile | --host]

--profile instead runs cProfile over many calls of small problems: where the host time goes.
--host instead prints only the host cost a call on small problems, for each way of calling
(with and without `out`, a permutation, a tensor that requires grad) beside PyTorch's own.
"""
import statistics
import time

import torch

import xpose
from xpose import _xpose

CASES = [("fp32", torch.float32, 32768, 32768), ("u8", torch.uint8, 32768, 32768),
         ("fp32", torch.float32, 8191, 12289), ("fp32", torch.float32, 1024, 1024),
         ("fp32", torch.float32, 256, 256)]


def host_us(fn, n=2000):
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    host = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return host


def gpu_ms(fn, spin, reps=15):
    ms = []
    for _ in range(3):
        fn()
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        if spin:
            torch.cuda._sleep(2_000_000)  # about 1 ms of a spinning kernel
        a.record()
        fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


def kernel_ms(fn, reps=5):
    from torch.profiler import ProfilerActivity, profile

    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    if not kernels:
        return 0.0, "-"
    names = sorted({e.name for e in kernels})
    total = sum(e.device_time for e in kernels) / 1e3 / reps  # device_time in us
    return total, " + ".join(n[:60] for n in names)


def profile_calls():
    """Where xpose.transpose's host time goes: cProfile over 3000 calls on a small problem."""
    import cProfile
    import pstats

    x = torch.randint(0, 256, (256, 256), dtype=torch.uint8, device="cuda").to(torch.float32)
    y = torch.empty(256, 256, dtype=torch.float32, device="cuda")
    for fn, what in ((lambda: xpose.transpose(x, out=y), "xpose.transpose(x, out=y)"),
                     (lambda: xpose.transpose(x), "xpose.transpose(x)"),
                     (lambda: xpose.permute(x.view(16, 16, 256), (2, 0, 1)), "xpose.permute(x3, (2, 0, 1))")):
        print(f"== cProfile: 3000 calls of {what}")
        for _ in range(50):
            fn()
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(3000):
            fn()
        prof.disable()
        torch.cuda.synchronize()
        pstats.Stats(prof).sort_stats("tottime").print_stats(22)


def host_costs():
    """Host microseconds a call, back to back, on small problems (the GPU work is a few us)."""
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, xpose from {xpose.__file__}")
    for rows, cols in ((256, 256), (1024, 1024)):
        x = torch.randn(rows, cols, device="cuda")
        y = torch.empty(cols, rows, device="cuda")
        g = x.clone().requires_grad_()
        x4 = torch.randn(8, rows // 8, 4, cols // 4, device="cuda", dtype=torch.float16)
        stream = torch.cuda.current_stream().cuda_stream
        bare = (x.data_ptr(), y.data_ptr(), 4, rows, cols, cols, rows, 1, rows * cols, rows * cols, stream, "auto")
        calls = {
            "xpose.transpose(x, out=y)": lambda: xpose.transpose(x, out=y),
            "xpose.transpose(x)": lambda: xpose.transpose(x),
            "xpose.transpose(x), grad": lambda: xpose.transpose(g),
            "xpose.permute(x4, (0,2,1,3))": lambda: xpose.permute(x4, (0, 2, 1, 3)),
            "_xpose.transpose_device": lambda: _xpose.transpose_device(*bare),
            "torch y.copy_(x.t())": lambda: y.copy_(x.t()),
            "torch x.t().contiguous()": lambda: x.t().contiguous(),
            "torch x4.permute().contiguous()": lambda: x4.permute(0, 2, 1, 3).contiguous(),
        }
        print(f"== fp32 {rows}x{cols} (x4: fp16 {tuple(x4.shape)})")
        for what, fn in calls.items():
            print(f"  {what:<34} host {statistics.median(host_us(fn, 2000) for _ in range(5)):7.1f} us/call")


def main():
    import sys

    if "--profile" in sys.argv:
        profile_calls()
        return
    if "--host" in sys.argv:
        host_costs()
        return
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name, dt, rows, cols in CASES:
        x = torch.randint(-100, 100, (rows, cols), dtype=torch.int8, device="cuda").view(torch.uint8).to(dt) \
            if dt != torch.uint8 else torch.randint(0, 256, (rows, cols), dtype=torch.uint8, device="cuda")
        y = torch.empty(cols, rows, dtype=dt, device="cuda")
        flat_src = x.view(-1)
        flat_dst = torch.empty_like(flat_src)
        stream = torch.cuda.current_stream().cuda_stream
        e = x.element_size()
        bare_args = (x.data_ptr(), y.data_ptr(), e, rows, cols, cols, rows, 1, rows * cols, rows * cols, stream, "auto")
        calls = {
            "xpose.transpose": lambda: xpose.transpose(x, out=y),
            "_xpose.transpose_device": lambda: _xpose.transpose_device(*bare_args),
            "torch y.copy_(x.t())": lambda: y.copy_(x.t()),
            "torch copy": lambda: flat_dst.copy_(flat_src),
        }
        print(f"== {name} {rows}x{cols}")
        for what, fn in calls.items():
            n = 2000 if rows * cols <= 1 << 20 else 20
            h = host_us(fn, n)
            idle, spun = gpu_ms(fn, False), gpu_ms(fn, True)
            k, kname = kernel_ms(fn)
            print(f"  {what:<24} host {h:8.1f} us/call  events {idle:8.4f} ms  after a spin {spun:8.4f} ms  "
                  f"kernels {k:8.4f} ms  {kname}")
        del x, y, flat_src, flat_dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
