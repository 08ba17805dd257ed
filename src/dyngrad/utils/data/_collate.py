"""default_collate / default_convert (torch.utils.data): how a list of samples becomes a batch.

Tensors are stacked along a new dim 0; NumPy arrays become tensors and are stacked; Python floats
give a float64 tensor, ints an int64 tensor, bools a bool tensor; strings stay a list; dicts,
named tuples and sequences are collated element-wise (a tuple sample gives a list, as in torch).
"""

from __future__ import annotations

import collections.abc

from ..._backend import xp
from ..._tensor import Tensor

_WRONG_TYPE = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data):
    """Turn NumPy arrays (at any depth) into tensors, without batching."""
    from ... import _creation

    if isinstance(data, Tensor):
        return data
    if isinstance(data, xp.ndarray):
        if data.dtype.kind in "USO":
            return data
        return _creation.as_tensor(data)
    if isinstance(data, xp.generic):
        return _creation.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Collate a list of samples into a batch (torch.utils.data.default_collate)."""
    from ... import _creation
    from ..._ops.join_split import stack

    elem = batch[0]
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if isinstance(elem, xp.ndarray):
        if elem.dtype.kind in "USO":
            raise TypeError(_WRONG_TYPE.format(elem.dtype))
        return default_collate([_creation.as_tensor(b) for b in batch])
    if isinstance(elem, xp.generic):
        return _creation.as_tensor(xp.array(batch))
    if isinstance(elem, float):
        return _creation.tensor(batch, dtype=_float64())
    if isinstance(elem, int):  # bool included: a bool tensor
        return _creation.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]
        try:
            return type(elem)([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(_WRONG_TYPE.format(type(elem)))


def _float64():
    from ..._dtype import float64

    return float64
