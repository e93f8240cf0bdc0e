"""xpose.distributed: the transpose of a matrix split by rows over the ranks of a
torch.distributed process group.

    import torch.distributed as dist, xpose.distributed
    dist.init_process_group("nccl")                       # one process per GPU (torchrun)
    a_local = ...                                         # this rank's rows of A: (rows_p, cols)
    at_local = xpose.distributed.transpose(a_local)       # this rank's rows of A^T: (cols_p, rows)

A (rows x cols, or batch x rows x cols) is split by rows: rank p holds rows
[row_offsets[p], row_offsets[p+1]) of each matrix. A^T is returned split by rows the same
way over col_offsets: by default evenly (rank p gets A^T's rows cols*p//P to cols*(p+1)//P).
Every rank's blocks are transposed by xpose straight into contiguous messages, exchanged
with the group's all-to-all (torch.distributed.all_to_all_single, in a few pipelined steps
for large matrices), and copied into place; the block that stays on a rank is transposed
in place. CUDA tensors go through an NCCL group on the current stream, CPU tensors through a
Gloo group on the CPU path.

Without row_splits each call gathers the ranks' row counts, element size, batch and column
count once (a small all-gather that waits for it), which also checks that the ranks agree;
pass row_splits (and col_splits) to skip it. Every rank must make the same call.
"""

from . import _check_torch_tensor, _error, _library, _refuse_masked, _xpose

__all__ = ["transpose"]



_ITEMSIZES = (1, 2, 4, 8, 16)
_COPY_ADVICE = "numpy.ascontiguousarray(x), x.contiguous() or cupy.ascontiguousarray(x)"


def _alignment(itemsize):
    """The address an element must sit on: its size, but 8 bytes for 16-byte elements."""
    return min(itemsize, 8)


class _Array:
    """What the native call needs to know about one array: its library, where it lives,
    its extents and its strides in elements. Reading it checks only what every use needs
    (a strided array of a served element size); the layout checks differ for x and out."""

    def __init__(self, x, what, fn="transpose", ranks=(2, 3)):
        self.fn = fn
        kind = _library(x)
        self.writable = True
        if kind == "numpy":
            _refuse_masked(x, what, fn)
            if x.dtype.hasobject:
                raise _error(TypeError, f"{what} holds Python objects (dtype {x.dtype}); "
                                        "xpose moves elements of 1, 2, 4, 8 or 16 bytes", fn)
            self.ptr, self.shape, self.itemsize = x.ctypes.data, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), None, x.dtype
            self.writable = bool(x.flags.writeable)
        elif kind == "torch":
            _check_torch_tensor(x, what, fn)
            itemsize = x.element_size()
            self.ptr, self.shape, self.itemsize = x.data_ptr(), tuple(x.shape), itemsize
            self.byte_strides = tuple(s * itemsize for s in x.stride())
            self.device = x.device if x.is_cuda else None
            self.dtype = x.dtype
        elif kind == "cupy":
            self.ptr, self.shape, self.itemsize = x.data.ptr, tuple(x.shape), x.itemsize
            self.byte_strides, self.device, self.dtype = tuple(x.strides), x.device, x.dtype
        else:
            raise _error(TypeError, f"{what} must be a PyTorch tensor, a CuPy array or a NumPy array, "
                                    f"not {type(x).__module__}.{type(x).__name__}", fn)
        self.kind, self.array, self.what = kind, x, what
        if self.itemsize not in _ITEMSIZES:
            raise _error(TypeError, f"{what} has {self.itemsize}-byte elements ({self.dtype}); "
                                    "xpose moves elements of 1, 2, 4, 8 or 16 bytes", fn)
        if ranks and len(self.shape) not in ranks:
            raise _error(ValueError, f"{what} must be 2-D (rows, cols) or 3-D (batch, rows, cols); "
                                     f"got {len(self.shape)}-D", fn)
        # An axis of one index addresses nothing, and an empty array nothing at all: such
        # strides, whatever they are, are never used.
        used = [n > 1 and 0 not in self.shape for n in self.shape]
        if any(s % self.itemsize for u, s in zip(used, self.byte_strides) if u):
            raise _error(ValueError, f"{what}'s strides {self.byte_strides} (bytes) are not whole "
                                     f"{self.itemsize}-byte elements", fn)
        self.strides = tuple(s // self.itemsize if u else 0 for u, s in zip(used, self.byte_strides))

    def empty(self):
        return 0 in self.shape

    def check_common_layout(self):
        """What both sides need: no negative strides, a last axis of adjacent elements,
        data aligned to the element size."""
        what = self.what
        if min(self.strides) < 0:
            raise _error(ValueError, f"{what} has negative strides {self.strides} (in elements); make a copy first "
                                     f"({_COPY_ADVICE})")
        if self.shape[-1] > 1 and self.strides[-1] not in (0, 1):
            if what == "out":
                raise _error(ValueError, f"out's last axis has stride {self.strides[-1]}; xpose writes rows whose "
                                         "elements are adjacent (stride 1): pass an out whose last axis is "
                                         "contiguous")
            raise _error(ValueError, f"x's last axis has stride {self.strides[-1]}; xpose reads rows whose "
                                     f"elements are adjacent (stride 1). Make a copy with a contiguous last axis "
                                     f"first ({_COPY_ADVICE})")
        if self.ptr % _alignment(self.itemsize):
            raise _error(ValueError, f"{what}'s data at address {self.ptr:#x} is not aligned to its "
                                     f"{self.itemsize}-byte elements; make an aligned copy first "
                                     f"(numpy.array({what}) allocates one)")


def _counts(values, name, fn):
    """A list of integers read as NumPy reads them (operator.index: no floats or strings)."""
    import operator

    try:
        return [operator.index(n) for n in values]
    except TypeError:
        raise _error(TypeError, f"{name} must be a sequence of integers", fn) from None


def _layout(arr, what):
    """(batch, rows, cols, ld): the (batch,) rows x cols layout the distributed transpose
    reads and writes: adjacent elements, rows ld apart, matrices rows*ld apart."""
    shape, strides = arr.shape, arr.strides
    batch = shape[0] if len(shape) == 3 else 1
    rows, cols = shape[-2:]
    if arr.empty():
        return batch, rows, cols, 0
    ld = strides[-2] if rows > 1 else cols
    ok = (cols <= 1 or strides[-1] == 1) and ld >= cols and (batch <= 1 or strides[0] == rows * ld)
    if not ok:
        raise _error(ValueError, f"{what} has shape {shape} and strides {strides} (in elements); the distributed "
                                 "transpose takes rows of adjacent elements, matrices one after another "
                                 f"(call .contiguous() first)", "distributed.transpose")
    return batch, rows, cols, ld


def _offsets(counts):
    out = [0]
    for n in counts:
        out.append(out[-1] + int(n))
    return out


def _step_buffers(plan, step, nranks):
    """Step `step`'s all-to-all as one buffer and per-rank counts on each side:
    ((send start, send counts), (recv start, recv counts)), in workspace bytes. A side's
    messages lie back to back at their padded lengths in rank order."""
    sides = []
    for messages in (plan.sends(step), plan.recvs(step)):
        counts = [0] * nranks
        for peer, _, _, padded in messages:
            counts[peer] = padded
        sides.append((messages[0][1] if messages else 0, counts))
    return tuple(sides)


def transpose(x_local, group=None, out=None, *, row_splits=None, col_splits=None):
    """This rank's rows of A^T, given this rank's rows of A.

    x_local: a torch tensor (rows_p, cols) or (batch, rows_p, cols), rows of adjacent
        elements (row padding is fine); CUDA with an NCCL group, CPU with a Gloo group.
    group: the process group (default: the world).
    out: where to write this rank's rows of A^T, (cols_p, rows) or (batch, cols_p, rows).
    row_splits: every rank's row count (default: gathered from the ranks).
    col_splits: every rank's share of A's columns, the rows of A^T it gets (default: even).
    """
    import torch
    import torch.distributed as dist

    fn = "distributed.transpose"
    if not isinstance(x_local, torch.Tensor):
        raise _error(TypeError, f"x_local must be a torch tensor, not {type(x_local).__name__}", fn)
    src = _Array(x_local, "x_local", fn)
    src.check_common_layout()
    batch, my_rows, cols, ld_src = _layout(src, "x_local")
    nranks, rank = dist.get_world_size(group), dist.get_rank(group)
    on_gpu = x_local.device.type == "cuda"

    if row_splits is None:
        # One small all-gather: every rank's row count, and what all must share.
        mine = torch.tensor([my_rows, cols, batch, src.itemsize], dtype=torch.int64,
                            device=x_local.device)
        gathered = [torch.empty_like(mine) for _ in range(nranks)]
        dist.all_gather(gathered, mine, group=group)
        facts = [g.tolist() for g in gathered]
        for r, (_, c, b, e) in enumerate(facts):
            if (c, b, e) != (cols, batch, src.itemsize):
                raise _error(ValueError, f"ranks disagree: rank {r} has {c} columns, batch {b} and {e}-byte "
                                         f"elements; rank {rank} has {cols}, {batch} and {src.itemsize}", fn)
        row_splits = [f[0] for f in facts]
    row_splits = _counts(row_splits, "row_splits", fn)
    if len(row_splits) != nranks or row_splits[rank] != my_rows:
        raise _error(ValueError, f"row_splits {row_splits} does not give this rank ({rank} of {nranks}) its "
                                 f"{my_rows} rows", fn)
    if col_splits is None:
        col_offsets = [cols * p // nranks for p in range(nranks + 1)]
    else:
        col_splits = _counts(col_splits, "col_splits", fn)
        if len(col_splits) != nranks or sum(col_splits) != cols:
            raise _error(ValueError, f"col_splits {col_splits} must give {nranks} ranks {cols} columns in all", fn)
        col_offsets = _offsets(col_splits)
    row_offsets = _offsets(row_splits)
    rows, my_cols = row_offsets[-1], col_offsets[rank + 1] - col_offsets[rank]
    shape = (my_cols, rows) if len(src.shape) == 2 else (batch, my_cols, rows)

    if out is None:
        out = torch.empty(shape, dtype=x_local.dtype, device=x_local.device)
    else:
        if not isinstance(out, torch.Tensor) or out.shape != shape or out.dtype != x_local.dtype or \
                out.device != x_local.device:
            raise _error(ValueError, f"out must be a {x_local.dtype} tensor of shape {shape} on {x_local.device}", fn)
    dst = _Array(out, "out", fn)
    dst.check_common_layout()
    _, _, _, ld_dst = _layout(dst, "out")

    plan = _xpose.DistPlan(row_offsets, col_offsets, batch, src.itemsize, ld_src, ld_dst, rank)
    # The workspace from the caller's allocator, its messages 256-byte aligned.
    ws = torch.empty(plan.workspace_bytes + 256, dtype=torch.uint8, device=x_local.device)
    skip = -ws.data_ptr() % 256
    ws = ws[skip:skip + plan.workspace_bytes]
    base = ws.data_ptr()
    if on_gpu:
        stream = torch.cuda.current_stream(x_local.device).cuda_stream
        own = lambda: plan.own(src.ptr, dst.ptr, stream)  # noqa: E731
        own_step = lambda j: plan.own_step(j, src.ptr, dst.ptr, stream)  # noqa: E731
        pack = lambda j: plan.pack(j, src.ptr, base, stream)  # noqa: E731
        place = lambda j: plan.place(j, base, dst.ptr, stream)  # noqa: E731
    else:
        own = lambda: plan.own_host(src.ptr, dst.ptr)  # noqa: E731
        own_step = lambda j: plan.own_step_host(j, src.ptr, dst.ptr)  # noqa: E731
        pack = lambda j: plan.pack_host(j, src.ptr, base)  # noqa: E731
        place = lambda j: plan.place_host(j, base, dst.ptr)  # noqa: E731

    def exchange(j):
        (send_start, send_counts), (recv_start, recv_counts) = _step_buffers(plan, j, nranks)
        send = ws[send_start:send_start + sum(send_counts)]
        recv = ws[recv_start:recv_start + sum(recv_counts)]
        return dist.all_to_all_single(recv, send, recv_counts, send_counts, group=group, async_op=True)

    # Step j's exchange runs while step j's cut of the own block is transposed, step j+1
    # packed and step j-1 placed.
    if plan.steps == 0:
        own()
    pending = None
    for j in range(plan.steps):
        pack(j)
        work = exchange(j)
        own_step(j)
        if pending is not None:
            pending.wait()
            place(j - 1)
        pending = work
    if pending is not None:
        pending.wait()
        place(plan.steps - 1)
    return out
