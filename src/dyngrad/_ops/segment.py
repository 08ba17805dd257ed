"""``torch._segment_reduce``: reductions over consecutive segments of one axis.

``_segment_reduce(data, reduce, lengths=..., axis=k)`` splits ``data`` along ``axis`` into consecutive
segments of the given lengths (or between the given offsets) and reduces each one with ``reduce``
("sum", "mean", "max", "min" or "prod"). ``lengths``/``offsets`` have ``axis + 1`` dimensions: their
leading dimensions match ``data.shape[:axis]`` (one row of segments per batch element). The output has
``data``'s shape with ``axis`` replaced by the number of segments.

Semantics are aten's CPU kernels (aten/src/ATen/native/SegmentReduce.cpp and native/cpu/SegmentReduce
kernels, checked value for value against torch 2.13):

- each segment's reduction starts from ``initial`` when given, else from the reduction's identity
  (0 for sum and mean, 1 for prod, -inf for max, +inf for min), so an empty segment gives that value;
- "mean" divides the running sum (initial included) by the segment's length; an empty segment gives
  NaN when ``initial`` is None;
- max and min propagate NaN.

The gradient (``SegmentReduceBackward0``, derivatives.yaml: ``_segment_reduce_backward``; w.r.t. data
only) follows aten's backward kernel, quirks included:

- sum: the segment's output gradient for every element; mean: that gradient over the segment length;
- max/min: the output gradient goes to each element equal to the output (or NaN); where two or more
  tie, the *positive* gradients are divided by the number of ties (aten divides only where the stored
  gradient is > 0; a negative one stays whole);
- prod: ``grad * output / x`` for a nonzero element; for a zero (or NaN) element the product of the
  segment's other elements times ``initial`` (or 1), computed explicitly;
- elements outside every segment get 0.

aten has no derivative for the backward itself: a second-order gradient raises torch's
``RuntimeError: derivative for aten::_segment_reduce_backward is not implemented``.
"""

from __future__ import annotations

from .._backend import xp
from .._dtype import scalar_type_name
from .._tensor import Tensor, _wrap_dim
from .registry import Op, apply, register

_REDUCTIONS = ("sum", "mean", "max", "min", "prod")
_IDENTITY = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": -float("inf"), "min": float("inf")}


def _segments(shape, axis, offsets):
    """(batch, size, inner) views: ``data`` as (B, N, I) and the (B, S+1) offsets of its segments."""
    batch = 1
    for s in shape[:axis]:
        batch *= s
    inner = 1
    for s in shape[axis + 1:]:
        inner *= s
    return batch, shape[axis], inner, offsets.reshape(batch, -1)


@register
class SegmentReduceBackward0(Op):
    """``torch._segment_reduce``'s node: params (reduce, offsets array, axis, initial)."""

    __slots__ = ()
    save_inputs = True
    save_result = True
    complex_grad = False

    @staticmethod
    def forward(data, reduce, offsets, axis, initial):
        shape = data.shape
        batch, n, inner, offs = _segments(shape, axis, offsets)
        x = data.reshape(batch, n, inner)
        count = offs.shape[1] - 1
        start_value = _IDENTITY[reduce] if initial is None else initial
        out = xp.empty((batch, count, inner), dtype=data.dtype)
        for b in range(batch):
            for s in range(count):
                lo, hi = int(offs[b, s]), int(offs[b, s + 1])
                seg = x[b, lo:hi]
                acc = xp.full(inner, start_value, dtype=data.dtype)
                if hi > lo:
                    if reduce in ("sum", "mean"):
                        acc = acc + seg.sum(0)
                    elif reduce == "prod":
                        acc = acc * seg.prod(0)
                    elif reduce == "max":  # NaN propagates, as aten's isnan(v) ? v : max(acc, v)
                        acc = xp.maximum(acc, seg.max(0))
                    else:
                        acc = xp.minimum(acc, seg.min(0))
                if reduce == "mean":
                    if hi == lo:
                        if initial is None:
                            acc = xp.full(inner, xp.nan, dtype=data.dtype)
                    else:
                        acc = xp.where(xp.isnan(acc), acc, acc / (hi - lo))
                out[b, s] = acc
        return out.reshape(shape[:axis] + (count,) + shape[axis + 1:])

    def _grad_array(self, grad):
        """aten's backward kernel on arrays (see the module docstring for its rules)."""
        reduce, offsets, axis, initial = self._params
        data = self.saved()[0]._data
        result = self.saved()[-1]._data
        shape = data.shape
        batch, n, inner, offs = _segments(shape, axis, offsets)
        x = data.reshape(batch, n, inner)
        count = offs.shape[1] - 1
        y = result.reshape(batch, count, inner)
        gy = xp.broadcast_to(grad, result.shape).reshape(batch, count, inner)
        gx = xp.zeros_like(x)
        prod_start = 1.0 if initial is None else initial
        for b in range(batch):
            for s in range(count):
                lo, hi = int(offs[b, s]), int(offs[b, s + 1])
                if hi <= lo:
                    continue
                seg, out, g = x[b, lo:hi], y[b, s], gy[b, s]
                if reduce == "sum":
                    gx[b, lo:hi] = g
                elif reduce == "mean":
                    gx[b, lo:hi] = g / (hi - lo)
                elif reduce in ("max", "min"):
                    hit = xp.isnan(seg) | (seg == out)
                    gi = xp.where(hit, g, 0).astype(x.dtype)
                    ties = hit.sum(0)
                    gx[b, lo:hi] = xp.where((ties >= 2) & (gi > 0), gi / xp.maximum(ties, 1), gi)
                else:  # prod
                    scaled = g * out
                    explicit = xp.isnan(seg) | (seg == 0)
                    with xp.errstate(divide="ignore", invalid="ignore"):
                        gi = scaled / seg
                    for j in zip(*xp.nonzero(explicit)):  # (row, inner) of each zero or NaN element
                        r, k = int(j[0]), int(j[1])
                        others = xp.delete(seg[:, k], r)
                        gi[r, k] = g[k] * (x.dtype.type(prod_start) * others.prod())
                    gx[b, lo:hi] = gi
        return gx.reshape(shape)

    def backward(self, grad):
        if self.next_functions[0][0] is None:
            return (None,)
        gx = self._grad_array(grad._data)
        # aten has no formula for the backward: under create_graph the gradient comes from a node whose own
        # backward raises (torch's torch::autograd::NotImplemented)
        return (apply(_SegmentBackwardNotImplemented, (grad, self.saved()[0]), (gx,)),)


def _double_backward(self, *grads):
    raise RuntimeError("derivative for aten::_segment_reduce_backward is not implemented")


# Not in the registry: it has no gradient to compare (its backward raises, as torch's).
_SegmentBackwardNotImplemented = type("NotImplemented", (Op,), {
    "__slots__": (),
    "__doc__": "SegmentReduceBackward0's gradient under create_graph: its own backward raises, as torch's.",
    "forward": staticmethod(lambda *arrays: arrays[-1]),
    "backward": _double_backward,
    "name": lambda self: "torch::autograd::NotImplemented",
    "__module__": __name__,
})


def _segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """``torch._segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False,
    initial=None)``.

    Args:
        data: floating tensor (float16, bfloat16, float32, float64), shape ``(*B, N, *I)`` with ``B = axis`` dims.
        reduce: "sum", "mean", "max", "min" or "prod".
        lengths: integer tensor of shape ``(*B, S)``: the segments' lengths (used when both are given).
        offsets: integer tensor of shape ``(*B, S + 1)``: segment ``s`` is ``[offsets[s], offsets[s+1])``.
        indices: unused (as in torch).
        axis: the reduced dimension; must be ``lengths.dim() - 1``.
        unsafe: skip the check that every row of ``lengths`` sums to ``data.size(axis)``.
        initial: the starting value of each reduction (see the module docstring for the defaults).

    Returns: a tensor of ``data``'s dtype and shape ``(*B, S, *I)``.

    Raises (torch's types and texts): RuntimeError for an unknown ``reduce``, for neither lengths nor
    offsets, for lengths that do not sum to the axis size (``unsafe=False``) and for lengths with more
    dimensions than data; NotImplementedError for non-floating data or floating lengths.
    """
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    axis = _wrap_dim(axis, data.dim())
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    given = lengths if lengths is not None else offsets
    if data.dim() < given.dim():
        raise RuntimeError("Expected data.dim() >= lengths_value.dim() to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an enhancement "
                           "request to PyTorch.)")
    index = given._data if isinstance(given, Tensor) else xp.asarray(given)
    if index.dtype.kind not in "iu":
        kernel = "lengths" if lengths is not None else "offsets"
        raise NotImplementedError(
            f"\"_segment_reduce_{kernel}_cpu_kernel1\" not implemented for '{scalar_type_name(index.dtype)}'")
    if data._data.dtype.kind != "f" and not data.dtype.is_floating_point:
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for '{scalar_type_name(data._data.dtype)}'")
    if lengths is not None:
        if not unsafe and index.size and not (index.sum(-1) == data.shape[axis]).all():
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
        zeros = xp.zeros(index.shape[:-1] + (1,), dtype=index.dtype)
        offs = xp.concatenate([zeros, xp.cumsum(index, -1)], -1)
    else:
        offs = index
    if initial is not None:
        initial = float(initial)
    return apply(SegmentReduceBackward0, (data,), (reduce, offs, axis, initial))


EXPORTS = {"_segment_reduce": _segment_reduce, "segment_reduce": _segment_reduce}
