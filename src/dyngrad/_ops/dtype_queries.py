"""``torch.can_cast`` and ``Tensor.is_signed`` / ``torch.is_signed``: questions about dtypes.

``can_cast(from_, to)`` is torch's ``canCast`` (c10/core/ScalarType.h): a cast is refused only from a complex
dtype to a non-complex one, from a floating dtype (float8 included) to an integral one or bool, and from a
non-bool dtype to bool. ``is_signed`` is the dtype's ``is_signed`` (False for bool, uint8/16/32/64 and
float8_e8m0fnu). Both return a Python bool.

Raises:
    TypeError: a non-dtype argument (torch's text), a non-tensor for ``torch.is_signed``.
"""

from __future__ import annotations

from .. import _dtype
from .._tensor import Tensor


def can_cast(from_, to) -> bool:
    """Whether torch's type promotion allows casting ``from_`` to ``to`` (torch.can_cast)."""
    for position, (name, value) in enumerate((("from_", from_), ("to", to)), 1):
        if not isinstance(value, _dtype.dtype):
            raise TypeError(f"can_cast(): argument '{name}' (position {position}) must be torch.dtype, "
                            f"not {type(value).__name__}")
    if from_.is_complex and not to.is_complex:
        return False
    to_integral = not (to.is_floating_point or to.is_complex)  # (bool included)
    if from_.is_floating_point and to_integral:
        return False
    return not (from_ is not _dtype.bool and to is _dtype.bool)


def is_signed(input: Tensor) -> bool:  # noqa: A002 - torch's name
    """Whether ``input``'s dtype is signed (torch.is_signed / Tensor.is_signed)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_signed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.dtype.is_signed


EXPORTS = {"can_cast": can_cast, "is_signed": is_signed}
TENSOR_METHODS = {"is_signed": is_signed}
