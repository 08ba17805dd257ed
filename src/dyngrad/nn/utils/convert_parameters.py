"""parameters_to_vector / vector_to_parameters (torch.nn.utils)."""

from __future__ import annotations

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.module import typename


def parameters_to_vector(parameters) -> Tensor:
    """The parameters flattened and concatenated into one 1-D tensor (differentiable, as torch's)."""
    import dyngrad

    from ... import _tensor_methods  # noqa: F401 - Tensor methods are installed

    return dyngrad.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec, parameters) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {typename(vec)}")
    pointer = 0
    with no_grad():
        for param in parameters:
            n = param.numel()
            param.data = vec[pointer:pointer + n].view_as(param).data
            pointer += n
