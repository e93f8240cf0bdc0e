"""xpose.transpose and xpose.permute as PyTorch custom ops: torch.compile traces them (their
fake implementations give the result's shape), and autograd differentiates them (the
gradient of a permutation is the inverse permutation of the gradient). Imported only when a
torch tensor is transposed or permuted.

`transpose` and `permute` call the ops, or, where the op would add nothing but its dispatch
(a plain CUDA or CPU tensor in eager mode with no gradient to record, and no torch.compile or
torch.jit tracing, torch function or dispatch mode, or functorch transform active), the
implementation the op runs: PyTorch's custom-op dispatch costs tens of microseconds a call,
more than the rest of the Python layer. Everything else (meta tensors, whose result the op's
fake implementation shapes, a `with torch.device(...)` block, which is a function mode)
takes the op."""
import torch

from . import _permute, _transpose


def _plain_eager(x):
    """Whether the op's eager implementation, called directly, is exactly what the op would do."""
    if type(x) is not torch.Tensor or (x.requires_grad and torch.is_grad_enabled()) or \
            x.device.type not in ("cuda", "cpu"):
        return False
    try:
        return not (torch.compiler.is_compiling() or torch.jit.is_tracing() or
                    torch._C._len_torch_function_stack() or torch._C._len_torch_dispatch_stack() or
                    torch._C._are_functorch_transforms_active())
    except AttributeError:  # a PyTorch without these queries: always the op
        return False


def transpose(x, kernel="auto"):
    return _transpose(x, None, kernel) if _plain_eager(x) else transpose_op(x, kernel)


def permute(x, dims):
    return _permute(x, dims) if _plain_eager(x) else permute_op(x, dims)


@torch.library.custom_op("xpose::transpose", mutates_args=())
def transpose_op(x: torch.Tensor, kernel_name: str = "auto") -> torch.Tensor:
    # Not `kernel`: Inductor passes its own `kernel` argument to the fallback it wraps
    # custom ops in, so a parameter of that name breaks torch.compile.
    return _transpose(x, None, kernel_name)


@transpose_op.register_fake
def _(x, kernel_name="auto"):
    if x.dim() not in (2, 3):
        raise ValueError(f"xpose.transpose: x must be 2-D (rows, cols) or 3-D (batch, rows, cols); got {x.dim()}-D")
    return x.new_empty(x.shape[:-2] + (x.shape[-1], x.shape[-2]))


def _setup_context(ctx, inputs, output):
    ctx.kernel = inputs[1] if len(inputs) > 1 else "auto"


def _backward(ctx, grad):
    return transpose_op(grad.contiguous(), ctx.kernel), None


transpose_op.register_autograd(_backward, setup_context=_setup_context)


@torch.library.custom_op("xpose::permute", mutates_args=())
def permute_op(x: torch.Tensor, dims: list[int]) -> torch.Tensor:
    return _permute(x, dims)


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
