"""xpose's permutations as PyTorch custom ops: torch.compile traces them (their
fake implementations give the result's shape), and autograd differentiates them (the
gradient of a permutation is the inverse permutation of the gradient). Imported only when a
torch tensor is transposed or permuted.

`permute` calls the ops, or, where the op would add nothing but its dispatch
(a plain CUDA or CPU tensor in eager mode with no gradient to record, and no torch.compile or
torch.jit tracing, torch function or dispatch mode, or functorch transform active), the
implementation the op runs: PyTorch's custom-op dispatch costs tens of microseconds a call,
more than the rest of the Python layer. Everything else (meta tensors, whose result the op's
fake implementation shapes, a `with torch.device(...)` block, which is a function mode)
takes the op."""
import torch

from . import _inplace, _permute_torch, _quantize


try:  # bound once: this check runs on every eager call
    _checks = (torch.compiler.is_compiling, torch._C._is_tracing, torch._C._len_torch_function_stack,
               torch._C._len_torch_dispatch_stack, torch._C._are_functorch_transforms_active)
except AttributeError:  # a PyTorch without these queries: always the op
    _checks = None
_grad_enabled, _Tensor = torch.is_grad_enabled, torch.Tensor


def _plain_eager(x):
    """Whether the op's eager implementation, called directly, is exactly what the op would do."""
    if type(x) is not _Tensor or not (x.is_cuda or x.is_cpu) or (x.requires_grad and _grad_enabled()) or \
            _checks is None:
        return False
    compiling, tracing, function_modes, dispatch_modes, functorch = _checks
    return not (compiling() or tracing() or function_modes() or dispatch_modes() or functorch())


def permute(x, dims, fn="permute", kernel="auto"):
    """x permuted into a new tensor, through the op where it adds something: torch.ops.xpose.transpose
    for the last two axes swapped (it carries a named kernel), torch.ops.xpose.permute else."""
    if _plain_eager(x):
        return _permute_torch(x, dims, None, fn, kernel)
    try:
        return transpose_op(x, kernel) if fn in ("transpose", "matrix_transpose") else permute_op(x, dims)
    except (TypeError, ValueError, RuntimeError) as e:  # the ops' checks speak as xpose.permute
        message = str(e)
        if fn == "permute" or not message.startswith("xpose.permute: "):
            raise
        raise type(e)(f"xpose.{fn}: " + message[len("xpose.permute: "):]) from None


@torch.library.custom_op("xpose::transpose", mutates_args=())
def transpose_op(x: torch.Tensor, kernel_name: str = "auto") -> torch.Tensor:
    # Not `kernel`: Inductor passes its own `kernel` argument to the fallback it wraps
    # custom ops in, so a parameter of that name breaks torch.compile.
    return _permute_torch(x, _swap_last(x.dim()), None, "transpose", kernel_name)


def _swap_last(nd):
    return list(range(nd - 2)) + [nd - 1, nd - 2]


@transpose_op.register_fake
def _(x, kernel_name="auto"):
    if x.dim() < 2:
        raise ValueError(f"xpose.transpose: x must have at least 2 axes (..., rows, cols); got {x.dim()}-D")
    return x.new_empty(x.shape[:-2] + (x.shape[-1], x.shape[-2]))


def _setup_context(ctx, inputs, output):
    ctx.kernel = inputs[1] if len(inputs) > 1 else "auto"


def _backward(ctx, grad):
    return transpose_op(grad.contiguous(), ctx.kernel), None


transpose_op.register_autograd(_backward, setup_context=_setup_context)


@torch.library.custom_op("xpose::permute", mutates_args=())
def permute_op(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    return _permute_torch(x, dims, None, "permute")


@permute_op.register_fake
def _(x, dims):
    return x.new_empty([x.shape[d] for d in dims])


def _setup_permute_context(ctx, inputs, output):
    ctx.dims = inputs[1]


def _permute_backward(ctx, grad):
    inverse = [0] * len(ctx.dims)
    for k, d in enumerate(ctx.dims):
        inverse[d] = k
    return permute_op(grad.contiguous(), inverse), None


permute_op.register_autograd(_permute_backward, setup_context=_setup_permute_context)


@torch.library.custom_op("xpose::transpose_inplace_", mutates_args=("x",))
def transpose_inplace_op(x: torch.Tensor) -> None:
    """x's memory turned into the transpose of its (..., rows, cols) matrices (xpose.transpose_inplace)."""
    _inplace.torch_impl(x)


@transpose_inplace_op.register_fake
def _(x):
    return None


@torch.library.custom_op("xpose::quantize", mutates_args=())
def quantize_op(x: torch.Tensor, fmt: int, scaling: int, layout: int, block_rows: int, block_cols: int, pow2: bool,
                scale: float, want: list[bool]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor,
                                                         torch.Tensor]:
    """xpose.quantize's outputs (data, data_t, scales, scales_t, amax), empty where not wanted."""
    return tuple(_quantize.torch_impl(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want))


@quantize_op.register_fake
def _(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want):
    r = _quantize.request_of_op(x, fmt, scaling, layout, block_rows, block_cols, pow2, scale, want)
    return tuple(_quantize.torch_outputs(x, r))
