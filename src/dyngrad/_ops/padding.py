"""Padding: torch.nn.functional.pad (constant, reflect, replicate and circular modes).

The constant pad's gradient is the gradient cropped back; the reflect, replicate and circular pads gather the
input at computed positions, and their gradient adds back into those positions (repeats accumulate).
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor
from .registry import Op, apply, register
from .shape import _shape_str


# ----------------------------------------------------------------- padding
@register
class ConstantPadNdBackward0(Op):
    """pad(mode='constant'): the gradient is the gradient cropped back (a pad by the negated amounts);
    negative pads crop the input and their gradient pads with zeros."""

    @staticmethod
    def forward(a, pads, value):
        return _constant_pad_array(a, pads, value)

    def backward(self, g):
        pads, _ = self._params
        return (apply(ConstantPadNdBackward0, (g,), (tuple((-lo, -hi) for lo, hi in pads), 0)),)


def _constant_pad_array(a, pads, value):
    """Pad (or crop, for negative amounts) the last ``len(pads)`` dims; ``pads`` is ((lo, hi), ...) per dim."""
    lead = a.ndim - len(pads)
    crop = [slice(None)] * lead
    widths = [(0, 0)] * lead
    for (lo, hi), n in zip(pads, a.shape[lead:]):
        crop.append(slice(max(-lo, 0), n - max(-hi, 0)))
        widths.append((max(lo, 0), max(hi, 0)))
    if not pads:
        return a.copy()
    cropped = a[tuple(crop)]
    return xp.pad(cropped, widths, mode="constant", constant_values=value)


class _IndexPad(Op):
    """reflect/replicate/circular padding as a gather of the input at computed positions along each padded dim;
    the gradient adds back into those positions (repeats accumulate)."""

    @staticmethod
    def forward(a, key, in_shape):
        return a[key]

    def backward(self, g):
        from .indexing import index_backward

        key, in_shape = self._params
        return (index_backward(g, in_shape, key, True),)


def _pad_names():
    out = {}
    for mode, stem in (("reflect", "ReflectionPad"), ("replicate", "ReplicationPad")):
        for k in (1, 2, 3):
            name = f"{stem}{k}DBackward0"
            out[(mode, k)] = register(type(name, (_IndexPad,), {"__doc__": f"pad(mode='{mode}') of {k} dims."}))
    return out


_PAD_OPS = _pad_names()


class _CircularPad(_IndexPad):
    """pad(mode='circular'): torch builds it from slice copies, so its grad_fn is CopySlices."""

    def name(self) -> str:
        return "torch::autograd::CopySlices"


register(_CircularPad)
_CircularPad.__name__ = _CircularPad.__qualname__ = "CopySlices"


def _pad_positions(n: int, lo: int, hi: int, mode: str):
    pos = xp.arange(-lo, n + hi)
    if mode == "reflect":
        period = 2 * (n - 1) if n > 1 else 1
        pos = xp.abs(pos) % period if n > 1 else xp.zeros_like(pos)
        pos = xp.where(pos >= n, period - pos, pos)
    elif mode == "replicate":
        pos = xp.clip(pos, 0, n - 1)
    else:  # circular: torch crops first (negative pads), then wraps around the cropped part
        start, kept = max(-lo, 0), n - max(-lo, 0) - max(-hi, 0)
        pos = start + xp.arange(-max(lo, 0), kept + max(hi, 0)) % max(kept, 1)
    return pos


def pad(input: Tensor, pad, mode: str = "constant", value=None) -> Tensor:  # noqa: A002 - torch's names
    """nn.functional.pad: ``pad`` lists (left, right) amounts from the last dim backwards.

    Modes constant (ConstantPadNdBackward0), reflect (ReflectionPad{1,2,3}DBackward0), replicate
    (ReplicationPad{1,2,3}DBackward0) and circular (CopySlices). Errors as torch's.
    """
    if isinstance(value, complex):  # torch's binding takes a float value, complex inputs too
        raise TypeError("pad(): argument 'value' (position 4) must be float, not complex")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    nd = input._data.ndim
    if mode == "constant":
        if k > nd:
            raise RuntimeError(
                "Padding length should be less than or equal to two times the input dimension but got padding length "
                f"{len(pad)} and input of dimension {nd}"
            )
        pads = tuple((pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]) for i in range(k))
        shape = input._data.shape
        for i, (lo, hi) in enumerate(pads):
            n = shape[nd - k + i]
            # torch crops with narrow() first, then checks the padded size
            if n + min(lo, 0) + min(hi, 0) < 0:
                raise RuntimeError("narrow(): length must be non-negative.")
            if n + lo + hi < 0:
                raise RuntimeError(
                    f"The input size {n}, plus negative padding {lo} and {hi} resulted in a negative "
                    f"output size, which is invalid. Check dimension {nd - k + i} of your input."
                )
        return apply(ConstantPadNdBackward0, (input,), (pads, 0 if value is None else value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {nd}D input tensor.\nSupported combinations for "
            "non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: "
            "padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    shape = input._data.shape
    positions = []
    for i in range(k):
        lo, hi = pad[2 * (k - 1 - i)], pad[2 * (k - 1 - i) + 1]
        dim = nd - k + i
        n = shape[dim]
        if mode == "reflect" and (lo >= n or hi >= n):
            raise RuntimeError(
                "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding "
                f"({lo}, {hi}) at dimension {dim} of input {_shape_str(shape)}"
            )
        if mode == "circular" and (lo > n or hi > n):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        positions.append(_pad_positions(n, lo, hi, mode))
    key = (Ellipsis,) + tuple(xp.ix_(*positions))
    op = _CircularPad if mode == "circular" else _PAD_OPS[(mode, k)]
    return apply(op, (input,), (key, shape))


# ------------------------------------------------------------------ registration
FUNCTIONAL_EXPORTS: dict = {"pad": pad}  # dyngrad.nn.functional.<name>
