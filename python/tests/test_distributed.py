"""xpose.distributed: the plan's exchange as xpose.distributed drives it (one buffer and
per-rank counts per step), simulated over P ranks on the host with NumPy; then the whole
function over torch.distributed, with Gloo on the CPU and with NCCL on every GPU (one
process per GPU). Each rank's result is compared bit for bit with the rows of A^T it owns."""

import os
import random
import tempfile

import numpy as np
import pytest

from xpose import _xpose
from xpose.distributed import _step_buffers

DTYPES = [np.uint8, np.float16, np.float32, np.float64, np.complex128]


def random_matrix(rng, shape, dtype):
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * np.dtype(dtype).itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def offsets(counts):
    return [0] + list(np.cumsum(counts))


def random_counts(rng, nranks, total):
    cuts = sorted(int(c) for c in rng.integers(0, total + 1, size=nranks - 1))
    return [b - a for a, b in zip([0] + cuts, cuts + [total])]


def aligned(nbytes):
    raw = np.empty(nbytes + 256, dtype=np.uint8)
    skip = -raw.ctypes.data % 256
    return raw[skip:skip + nbytes]


@pytest.mark.parametrize("seed", range(40))
def test_simulated_ranks_match_the_transpose(seed):
    rng = np.random.default_rng(seed + random.getrandbits(32))
    nranks = int(rng.integers(1, 7))
    dtype = DTYPES[int(rng.integers(len(DTYPES)))]
    batch, rows, cols = int(rng.integers(1, 3)), int(rng.integers(0, 60)), int(rng.integers(0, 60))
    a = random_matrix(rng, (batch, rows, cols), dtype)
    row_splits, col_splits = random_counts(rng, nranks, rows), random_counts(rng, nranks, cols)
    ro, co = offsets(row_splits), offsets(col_splits)
    item = np.dtype(dtype).itemsize
    plans, srcs, dsts, wss = [], [], [], []
    for p in range(nranks):
        pad = int(rng.integers(0, 3))
        src = np.zeros((batch, row_splits[p], cols + pad), dtype=dtype)  # padded rows
        src[:, :, :cols] = a[:, ro[p]:ro[p + 1], :]
        dst = np.full((batch, col_splits[p], rows * item), 0x5A, dtype=np.uint8).view(dtype)
        plan = _xpose.DistPlan(ro, co, batch, item, cols + pad if cols else 0, rows, p)
        plans.append(plan)
        srcs.append(src)
        dsts.append(dst)
        wss.append(aligned(plan.workspace_bytes))
    steps = plans[0].steps
    stepped = steps > 0 and bool(rng.integers(2))  # the own block whole, or step by step as the drivers run it
    for p in range(nranks):
        assert plans[p].steps == steps
        if not stepped:
            plans[p].own_host(srcs[p].ctypes.data, dsts[p].ctypes.data)
    for j in range(steps):
        for p in range(nranks):
            plans[p].pack_host(j, srcs[p].ctypes.data, wss[p].ctypes.data)
            if stepped:
                plans[p].own_step_host(j, srcs[p].ctypes.data, dsts[p].ctypes.data)
        buffers = [_step_buffers(plans[p], j, nranks) for p in range(nranks)]
        # all_to_all_single: rank q's recv segment p is rank p's send segment q.
        for q in range(nranks):
            (_, _), (recv_start, recv_counts) = buffers[q]
            for p in range(nranks):
                (send_start, send_counts), _ = buffers[p]
                assert send_counts[q] == recv_counts[p], (j, p, q)
                s0 = send_start + sum(send_counts[:q])
                r0 = recv_start + sum(recv_counts[:p])
                wss[q][r0:r0 + recv_counts[p]] = wss[p][s0:s0 + send_counts[q]]
        for p in range(nranks):
            plans[p].place_host(j, wss[p].ctypes.data, dsts[p].ctypes.data)
    at = np.swapaxes(a, 1, 2)
    for p in range(nranks):
        np.testing.assert_array_equal(dsts[p].view(np.uint8), np.ascontiguousarray(at[:, co[p]:co[p + 1], :]).view(np.uint8),
                                      err_msg=f"rank {p} of {nranks}")


# --- torch.distributed: one process per rank --------------------------------------------------

CASES = [  # (dtype name, batch, rows per rank (repeated), cols, col splits or None)
    ("uint8", 1, [37, 0, 64], 1001, None),
    ("float16", 2, [100], 333, None),
    ("bfloat16", 1, [3, 200], 130, [100, 30]),
    ("float32", 1, [1500], 4100, None),
    ("float64", 3, [7, 9], 50, None),
    ("complex128", 1, [33], 65, None),
]


def _worker(rank, nranks, backend, init_file):
    import torch
    import torch.distributed as dist

    import xpose.distributed

    if backend == "nccl":
        torch.cuda.set_device(rank)
        device = torch.device("cuda", rank)
    else:
        device = torch.device("cpu")
    dist.init_process_group(backend, init_method=f"file://{init_file}", rank=rank, world_size=nranks)
    try:
        for dtype_name, batch, per_rank, cols, col_splits in CASES:
            dtype = getattr(torch, dtype_name)
            row_splits = [per_rank[r % len(per_rank)] for r in range(nranks)]
            rows = sum(row_splits)
            if col_splits is not None:
                col_splits = (col_splits * nranks)[:nranks]
                col_splits[-1] += cols - sum(col_splits)
            g = torch.Generator().manual_seed(1234)  # the same A on every rank
            item = torch.empty((), dtype=dtype).element_size()
            a = torch.randint(0, 256, (batch, rows, cols * item), dtype=torch.uint8, generator=g).view(dtype)
            ro = [sum(row_splits[:r]) for r in range(nranks + 1)]
            co = ([sum(col_splits[:r]) for r in range(nranks + 1)] if col_splits
                  else [cols * r // nranks for r in range(nranks + 1)])
            x = a[:, ro[rank]:ro[rank + 1], :].contiguous().to(device)
            # A fresh tensor of standard strides (an empty one's .contiguous() keeps any strides).
            part = a.transpose(1, 2)[:, co[rank]:co[rank + 1], :]
            want = torch.empty(part.shape, dtype=dtype).copy_(part)
            for kwargs in ({}, {"row_splits": row_splits}):
                got = xpose.distributed.transpose(x if batch > 1 else x[0], col_splits=col_splits, **kwargs)
                got = got if batch > 1 else got.unsqueeze(0)
                assert torch.equal(got.cpu().view(torch.uint8), want.view(torch.uint8)), \
                    f"rank {rank}: {dtype_name} batch {batch} rows {row_splits} cols {cols} {kwargs}"
            # out= with padded rows, written in place.
            store = torch.zeros((batch, co[rank + 1] - co[rank], rows + 3), dtype=dtype, device=device)
            out = store[:, :, :rows]
            xpose.distributed.transpose(x, out=out, col_splits=col_splits)
            assert torch.equal(out.cpu().view(torch.uint8), want.view(torch.uint8)), f"rank {rank}: out= {dtype_name}"
            assert torch.count_nonzero(store[:, :, rows:].view(torch.uint8)) == 0, "row padding written"
        # Ranks that disagree are refused on every rank.
        x = torch.zeros((4, 8 if rank == 0 else 9), dtype=torch.float32, device=device)
        with pytest.raises(ValueError, match="ranks disagree"):
            xpose.distributed.transpose(x)
        if backend == "nccl":
            torch.cuda.synchronize()
    finally:
        dist.destroy_process_group()


def _spawn(nranks, backend):
    torch = pytest.importorskip("torch")
    import torch.multiprocessing as mp

    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # no NVLink multicast on shared machines
    with tempfile.TemporaryDirectory() as tmp:
        mp.spawn(_worker, args=(nranks, backend, os.path.join(tmp, "init")), nprocs=nranks, join=True)


def test_gloo_ranks_on_the_cpu():
    torch = pytest.importorskip("torch")
    if not torch.distributed.is_available() or not torch.distributed.is_gloo_available():
        pytest.skip("this PyTorch has no Gloo backend")
    _spawn(3, "gloo")


def test_nccl_ranks_one_per_gpu():
    torch = pytest.importorskip("torch")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count < 2:
        pytest.skip(f"needs 2 or more CUDA devices; this machine has {count}")
    if not torch.distributed.is_nccl_available():
        pytest.skip("this PyTorch has no NCCL backend")
    _spawn(count, "nccl")


@pytest.mark.parametrize("split", [
    ([0, 2**63 - 1], [0, 2**31], 3074457345618258602, 4),  # src_bytes came back negative
    ([0, 2**42], [0, 2**42], 2**40, 16),                    # src_bytes came back 0
])
def test_plans_past_int64_are_refused(split):
    from xpose import _xpose
    rows, cols, batch, elem = split
    with pytest.raises(ValueError, match="overflows int64"):
        _xpose.DistPlan(rows, cols, batch, elem, 0, 0, 0)
