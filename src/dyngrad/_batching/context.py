"""The state of batching: active vmap levels, the batched NumPy namespace, random numbers under vmap.

Note [The batched array namespace]
Kernels call ``xp.asarray(a.sum(...))`` and the like: NumPy's ``asarray`` cannot return anything but
an ndarray, and a batched array has no memory NumPy could view as one sample. So while batched
values are computed (a vmap is active, or a node recorded under vmap runs its backward), the
``xp`` of every dyngrad module is a copy of the NumPy namespace whose ``asarray``, ``array``,
``ascontiguousarray`` and ``lib.stride_tricks.as_strided`` also take batched arrays; everything
else in it is NumPy's own object. Outside batching ``xp`` is NumPy itself: plain code pays nothing.
The swap is process-wide, like torch's functorch interpreter stack: another thread computing
while a vmap runs gets the batched namespace too, which gives the same results on plain arrays.
"""

from __future__ import annotations

import itertools
import sys
import types

import numpy as np

from .. import _backend
from ..autograd import forward_ad as _fw_ad
from .array import BatchedArray, loop, max_level

RANDOMNESS_ERROR = (
    "vmap: called random operation while in randomness error mode. Please either use the 'same' or 'different' "
    "randomness flags on vmap or perform the randomness operation out of vmap"
)


class Level:
    """One active vmap: its level number, batch size and randomness."""

    __slots__ = ("level", "size", "randomness")

    def __init__(self, level: int, size: int, randomness: str) -> None:
        self.level, self.size, self.randomness = level, size, randomness


class _State:
    stack: list = []  # active vmaps, outermost first
    depth = 0  # how many batching contexts (vmaps, batched backward passes) are open
    grad_levels: list = []  # levels of the active grad-like transforms (grad, vjp, jacrev ...), same numbering


STATE = _State()
_levels = itertools.count(1)  # one number per transform, never reused: an old batched value never meets a new level


def new_level() -> int:
    return next(_levels)


# ---------------------------------------------------------------------------------- the namespace
def _asarray(a, dtype=None, order=None, **kw):
    if type(a) is BatchedArray:
        return a if dtype is None or a.dtype == np.dtype(dtype) else a.astype(dtype)
    if type(a) in (list, tuple) and max_level(a) >= 0:
        out = np.stack([_asarray(x) for x in a])
        return out if dtype is None else out.astype(dtype)
    return np.asarray(a, dtype, order, **kw)


def _array(a, dtype=None, *args, copy=True, **kw):
    if type(a) is BatchedArray:
        return a.astype(a.dtype if dtype is None else dtype, copy=bool(copy) if copy is not None else False)
    if type(a) in (list, tuple) and max_level(a) >= 0:
        return _asarray(a, dtype)
    return np.array(a, dtype, *args, copy=copy, **kw)


def _ascontiguousarray(a, dtype=None, **kw):
    if type(a) is BatchedArray:  # (np.ascontiguousarray does not dispatch on its argument)
        from .rules_shape import _ascontiguous

        return _ascontiguous(a.level, a, dtype)
    return np.ascontiguousarray(a, dtype=dtype, **kw)


# Note [Batched scratch arrays]
# A kernel that builds its result in an array of its own (``out = xp.zeros(shape); out[key] = g``) cannot
# write batched values into it. Before running such a kernel once per sample, the dispatcher tries it once
# more with ``allocating``: the arrays the kernel creates (zeros, empty, ones, full and their *_like forms of
# plain arrays) are then batched too, one per sample, which is what the per-sample loop would allocate.
_ALLOC: list = []  # (level, size) while allocating


class allocating:
    """``with allocating(level, size)``: arrays the kernels create are batched at ``level``; ``None`` stops
    that for a kernel run on physical arrays (an op rule), whose arrays are plain again."""

    def __init__(self, level, size: int = 0) -> None:
        self.item = None if level is None else (level, size)

    def __enter__(self):
        _ALLOC.append(self.item)

    def __exit__(self, *exc):
        _ALLOC.pop()


def _creator(make):
    def create(shape, *args, **kwargs):
        out = make(shape, *args, **kwargs)
        if not _ALLOC or _ALLOC[-1] is None:
            return out
        level, size = _ALLOC[-1]
        return BatchedArray(make((size,) + tuple(np.shape(out)), *args, **kwargs), 0, level)

    create.__name__ = make.__name__
    return create


def _like_creator(make):
    def create(a, *args, **kwargs):
        if not _ALLOC or _ALLOC[-1] is None or type(a) is BatchedArray:
            return make(a, *args, **kwargs)
        level, size = _ALLOC[-1]
        out = make(a, *args, **kwargs)
        kwargs.pop("shape", None)
        return BatchedArray(make(np.broadcast_to(out, (size,) + out.shape), *args, **kwargs), 0, level)

    create.__name__ = make.__name__
    return create


def _make_namespace() -> types.ModuleType:
    from .rules_shape import as_strided

    ns = types.ModuleType("numpy", "NumPy as dyngrad's kernels see it under vmap (see Note [The batched array namespace]).")
    ns.__dict__.update({k: v for k, v in np.__dict__.items() if not k.startswith("__")})
    ns.asarray = ns.asanyarray = _asarray
    ns.array = _array
    ns.ascontiguousarray = _ascontiguousarray
    for name in ("zeros", "empty", "ones"):
        setattr(ns, name, _creator(getattr(np, name)))
    ns.full = _full
    for name in ("zeros_like", "empty_like", "ones_like", "full_like"):
        setattr(ns, name, _like_creator(getattr(np, name)))
    stride_tricks = types.ModuleType("numpy.lib.stride_tricks")
    stride_tricks.__dict__.update(np.lib.stride_tricks.__dict__)
    stride_tricks.as_strided = as_strided
    lib = types.ModuleType("numpy.lib")
    lib.__dict__.update(np.lib.__dict__)
    lib.stride_tricks = stride_tricks
    ns.lib = lib
    return ns


def _full(shape, fill_value, *args, **kwargs):
    out = np.full(shape, fill_value, *args, **kwargs)
    if not _ALLOC or _ALLOC[-1] is None:
        return out
    level, size = _ALLOC[-1]
    return BatchedArray(np.full((size,) + out.shape, fill_value, *args, **kwargs), 0, level)


_NAMESPACE = None
_modules: list = []
_modules_seen = 0


def _dyngrad_modules() -> list:
    """Every loaded dyngrad module whose ``xp`` is NumPy (refreshed when modules were imported since)."""
    global _modules, _modules_seen
    if len(sys.modules) != _modules_seen:
        _modules_seen = len(sys.modules)
        _modules = [m for name, m in list(sys.modules.items())
                    if name.startswith("dyngrad.") and getattr(m, "xp", None) is np]
    return _modules


def enter() -> None:
    """Open a batching context: the batched namespace and ``registry.apply``'s flag (Note [The batched array namespace])."""
    global _NAMESPACE
    if STATE.depth == 0:
        if _NAMESPACE is None:
            _NAMESPACE = _make_namespace()
        for m in _dyngrad_modules():
            m.xp = _NAMESPACE
        _install_generator()
    STATE.depth += 1
    _fw_ad.set_batching(True)


def exit() -> None:  # noqa: A001 - the pair of enter()
    STATE.depth -= 1
    if STATE.depth == 0:
        for m in _modules:
            if getattr(m, "xp", None) is _NAMESPACE:
                m.xp = np
        _restore_generator()
        _fw_ad.set_batching(False)


class batching:
    """``with batching():`` runs a block (a node's backward, a fallback) with the batched namespace on."""

    def __enter__(self):
        enter()

    def __exit__(self, *exc):
        exit()


# ---------------------------------------------------------------------------------- random numbers
_SIZE_POSITION = {
    "random": 0, "standard_normal": 0, "standard_exponential": 0, "standard_cauchy": 0, "normal": 2, "uniform": 2,
    "integers": 2, "exponential": 1, "standard_gamma": 1, "gamma": 2, "beta": 2, "binomial": 2, "poisson": 1,
    "geometric": 1, "lognormal": 2, "chisquare": 1, "multinomial": 2, "dirichlet": 1, "choice": 1,
    "negative_binomial": 2, "standard_t": 1, "vonmises": 2, "laplace": 2, "logistic": 2, "gumbel": 2, "weibull": 1,
    "pareto": 1, "rayleigh": 1, "f": 2, "power": 1, "logseries": 1, "zipf": 1, "hypergeometric": 3,
    "multivariate_normal": 2, "triangular": 3, "wald": 2, "noncentral_chisquare": 2, "noncentral_f": 3,
}


# The draws of torch's mt19937 stream (_torch_rng.MT19937Stream) that random kernels make directly.
_STREAM_DRAWS = frozenset({"words", "words64", "random", "random64"})


class BatchedGenerator:
    """The random generator while a vmap runs: torch's ``randomness`` rules for every draw.

    "error" refuses any draw; "different" draws one sample per batch entry (the batch dims of every
    "different" level in front of the requested shape); "same" draws once for the whole batch (and
    with parameters that differ per sample, restarts the stream for each sample, so all draw alike).
    """

    def __init__(self, generator) -> None:
        self._generator = generator

    def __getattr__(self, name: str):
        attr = getattr(self._generator, name)
        if name in _STREAM_DRAWS and any(lv.randomness == "error" for lv in STATE.stack):
            _raise_randomness()  # torch's stream, drawn by a kernel (dropout's mask, a fill): refused as torch does
        if name not in _SIZE_POSITION and name not in ("permutation", "shuffle", "bytes", "permuted"):
            return attr
        return lambda *args, **kwargs: self._draw(name, args, kwargs)

    def _draw(self, name, args, kwargs):
        levels = STATE.stack
        if any(lv.randomness == "error" for lv in levels):
            _raise_randomness()
        method = getattr(self._generator, name)
        different = [lv for lv in levels if lv.randomness == "different"]
        top = max_level(list(args) + list(kwargs.values()))
        same_batched = [lv for lv in levels if lv.randomness == "same" and lv.level == top]
        if same_batched:  # parameters that differ per sample under "same": one stream start per sample
            state = self._generator.bit_generator.state

            def per_sample(*a, **k):
                self._generator.bit_generator.state = state
                return self._draw(name, a, k)

            return loop(per_sample, args, kwargs, top, name)
        if name not in _SIZE_POSITION or not different:
            if top >= 0:
                return loop(lambda *a, **k: self._draw(name, a, k), args, kwargs, top, name)
            return method(*args, **kwargs)
        pos = _SIZE_POSITION[name]
        args = list(args)
        size = kwargs.pop("size", args.pop(pos) if len(args) > pos else None)
        if size is None:
            shape = np.broadcast_shapes(*[np.shape(a) for a in args if name != "choice"]) if name != "choice" else ()
        else:
            shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        lead = tuple(lv.size for lv in different)
        if top >= 0:  # batched parameters at "different" levels: line them up with the drawn batch dims
            return loop(lambda *a, **k: self._draw(name, a, k), tuple(args), kwargs, top, name)
        out = method(*args, size=lead + shape, **kwargs)
        for lv in different:  # the lowest level's dim first: each wrapper reads the next leading dim
            out = BatchedArray(out, 0, lv.level)
        return out


def _raise_randomness():
    from .array import refuse

    refuse(RANDOMNESS_ERROR)


_saved_generator = None


def _install_generator() -> None:
    global _saved_generator
    _saved_generator = _backend._generator
    _backend._generator = BatchedGenerator(_saved_generator)


def _restore_generator() -> None:
    global _saved_generator
    if isinstance(_backend._generator, BatchedGenerator):
        _backend._generator = _backend._generator._generator
    _saved_generator = None
