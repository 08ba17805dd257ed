"""``vmap``: run a function on a batch by running it once on batched tensors (torch.func.vmap).

Each call takes a new level number; the inputs become batched tensors of that level (their
``_data`` a ``BatchedArray`` on the same memory, with the same autograd identity), ``func`` runs
once on them, and the outputs give back their batch dims at ``out_dims``. See docs/func.md and
Note [Batching at the array level] in _batching/dispatch.py.
"""

from __future__ import annotations

import functools
import itertools

from .._batching import context
from .._batching.array import BatchedArray
from .._batching.tensors import add_batch_level, unbatch_output
from .._tensor import _TRANSFORMS, Tensor
from ..utils._pytree import broadcast_prefix, tree_flatten, tree_map, tree_unflatten


def _name(func) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _check_randomness(randomness) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(
            f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}"
        )


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return

    def check(x):
        if x is not None and not isinstance(x, int):
            raise ValueError(
                f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a python "
                "collection of ints representing where in the outputs the vmapped dimension should appear."
            )
        return x

    tree_map(check, out_dims)


def vmap(func, in_dims=0, out_dims=0, randomness: str = "error", *, chunk_size=None):
    """``func`` over a batch: ``vmap(f)(x)[i] == f(x[i])``, computed once on the whole batch (torch.func.vmap).

    Args:
        func: a function of tensors (and pytrees of them) returning tensors (or pytrees of them).
        in_dims: the dim to map over for each input: an int (all inputs), None (not mapped), or a
            tuple/pytree matching the positional arguments. Keyword arguments are not mapped.
        out_dims: where the batch dim goes in each output (int, None for unbatched outputs, or a pytree).
        randomness: what random ops do inside: "error" (raise), "different" (one draw per sample) or
            "same" (one draw shared by the batch).
        chunk_size: run the batch this many samples at a time (less memory); None: all at once.

    Returns:
        A function with ``func``'s signature.

    Raises:
        ValueError / RuntimeError with torch's texts: in_dims that do not match the inputs, mapped
        sizes that differ, a non-tensor output with an out_dim, a bad ``randomness`` or ``chunk_size``;
        inside ``func``: ``.item()``, data-dependent control flow, random ops under "error", in-place
        writes of batched values into unbatched tensors.
    """
    _check_randomness(randomness)
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _process_inputs(func, in_dims, args):
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(
            f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a (potentially "
            f"nested) tuple matching the structure of inputs, got: {type(in_dims)}."
        )
    if len(args) == 0:
        raise ValueError(
            f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying to vmap "
            "over a function with no inputs. The latter is unsupported."
        )
    flat_args, spec = tree_flatten(args)
    flat_dims = broadcast_prefix(in_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the structure of "
            f"`inputs`. in_dims has structure {tree_flatten(in_dims)[1]!r} but inputs has structure {spec!r}."
        )
    for arg, d in zip(flat_args, flat_dims):
        if d is not None and not isinstance(d, int):
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but in_dim must "
                "be either an integer dimension or None."
            )
        if isinstance(d, int) and not isinstance(arg, Tensor):
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the input is "
                f"of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use None as the respective "
                "in_dim"
            )
        if d is not None and not -arg.dim() <= d < arg.dim():
            raise ValueError(
                f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but that input "
                f"is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy -{arg.dim()} <= in_dim < "
                f"{arg.dim()}."
            )
    sizes = [arg.size(d) for arg, d in zip(flat_args, flat_dims) if d is not None]
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes {sizes} for the "
            "mapped dimension"
        )
    return sizes[0], flat_dims, flat_args, spec


def _vmap_impl(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    _check_out_dims(out_dims, func)
    size, flat_dims, flat_args, spec = _process_inputs(func, in_dims, args)
    if chunk_size is None:
        return _flat_vmap(func, size, flat_dims, flat_args, spec, out_dims, randomness, kwargs)
    # chunks: torch's tensor_split of the mapped inputs, the outputs concatenated along out_dims
    counts = [chunk_size] * (size // chunk_size) + ([size % chunk_size] if size % chunk_size else [])
    bounds = list(itertools.accumulate(counts))
    starts = [0] + bounds[:-1]
    from .. import _backend

    state = _backend.generator().bit_generator.state if randomness == "same" else None
    outputs = []
    for lo, hi in zip(starts, bounds):
        chunk = [a.narrow(d, lo, hi - lo) if d is not None else a for a, d in zip(flat_args, flat_dims)]
        if state is not None:
            _backend.generator().bit_generator.state = state
        outputs.append(_flat_vmap(func, hi - lo, flat_dims, chunk, spec, out_dims, randomness, kwargs))
    flat_chunks, out_spec = zip(*[tree_flatten(o) for o in outputs])
    flat_out_dims = broadcast_prefix(out_dims, out_spec[0])
    from .._ops.join_split import cat

    flat = [cat([c[i] for c in flat_chunks], d) for i, d in enumerate(flat_out_dims)]
    return tree_unflatten(flat, out_spec[0])


def _flat_vmap(func, size, flat_dims, flat_args, spec, out_dims, randomness, kwargs):
    level = context.new_level()
    context.STATE.stack.append(context.Level(level, size, randomness))
    context.enter()
    _TRANSFORMS.depth += 1
    try:
        batched = [a if d is None else add_batch_level(a, d % a.dim(), level) for a, d in zip(flat_args, flat_dims)]
        outputs = func(*tree_unflatten(batched, spec), **kwargs)
        return _unwrap_outputs(func, outputs, out_dims, level, size)
    finally:
        _TRANSFORMS.depth -= 1
        context.exit()
        context.STATE.stack.pop()


def _unwrap_outputs(func, outputs, out_dims, level, size):
    flat, spec = tree_flatten(outputs)
    if isinstance(outputs, Tensor):
        if isinstance(out_dims, int) or out_dims is None:
            flat_dims = [out_dims]
        elif isinstance(out_dims, tuple) and len(out_dims) == 1:
            flat_dims = list(out_dims)
        else:
            flat_dims = None
    else:
        flat_dims = broadcast_prefix(out_dims, spec)
    if flat_dims is None:
        raise ValueError(
            f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with the structure "
            f"of `outputs`. out_dims has structure {tree_flatten(out_dims)[1]!r} but outputs has structure {spec!r}."
        )
    name = _name(func)
    result = []
    for out, d in zip(flat, flat_dims):
        if d is None:
            if isinstance(out, Tensor) and _batched_at(out, level):
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            result.append(out)
            continue
        if not isinstance(out, Tensor):
            raise ValueError(
                f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(out)}. Did you mean to set "
                "out_dims= to None for output?"
            )
        n = out.dim() + 1
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        result.append(unbatch_output(out, level, size, d % n))
    return tree_unflatten(result, spec)


def _batched_at(t: Tensor, level: int) -> bool:
    data = t._data
    while type(data) is BatchedArray:
        if data.level == level:
            return True
        data = data.value
    return False
