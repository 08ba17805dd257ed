"""Random sampling ops: in-place fills (``uniform_``, ``normal_``, ...) and sampling functions.

Values come from torch's CPU generator and kernels (_torch_rng.py, _random_kernels.py): the same numbers
torch draws after the same seed, written in the order torch's TensorIterator walks the output. Sampling is not differentiable; the in-place fills are
in-place ops with torch's version-counter and leaf checks.

Each fill is an op named as torch's node for it (``UniformBackward0`` ...): its forward returns
the values drawn beforehand (a parameter), and its gradient is zero, as derivatives.yaml says for
every sampling op (``self: zeros_like(grad)``), so a filled tensor in a graph sends nothing back.
"""

from __future__ import annotations

import operator

from .. import _backend
from .. import _random_kernels as _kernels
from .._backend import xp
from .._creation import _like_order, _normal, _rng
from .._dtype import FLOATING_KINDS, FLOATING_OR_COMPLEX_KINDS, scalar_type_name
from .._dtype import from_numpy as _dtype_from_numpy
from .._tensor import Tensor, _tp_name, wrap
from .inplace import inplace
from .registry import Op, apply, register


class _Fill(Op):
    """Base of the in-place random fills: forward returns the drawn ``values``; the gradient is zero."""

    @staticmethod
    def forward(a, values):
        return values

    def backward(self, g):
        return (g * 0,)


@register
class UniformBackward0(_Fill):
    """uniform_(from, to)."""


@register
class NormalBackward0(_Fill):
    """normal_(mean, std)."""


@register
class BernoulliBackward2(_Fill):
    """bernoulli_(float p)."""


@register
class BernoulliBackward1(Op):
    """bernoulli_(Tensor p): zero gradients for self and p (derivatives.yaml: bernoulli_.Tensor)."""

    @staticmethod
    def forward(a, p, values, p_shape, p_dtype):
        return values

    def backward(self, g):
        from .reduction import sum_to

        gp = None
        if self.needs_input_grad(1):
            p_shape, p_dtype = self._params[1], self._params[2]
            gp = sum_to(g * 0, p_shape).to(_dtype_from_numpy(p_dtype))
        return (g * 0 if self.needs_input_grad(0) else None, gp)


@register
class RandomBackward0(_Fill):
    """random_(from, to)."""


@register
class RandomBackward1(_Fill):
    """random_(to)."""


@register
class RandomBackward2(_Fill):
    """random_()."""


@register
class ExponentialBackward0(_Fill):
    """exponential_(lambd)."""


@register
class GeometricBackward0(_Fill):
    """geometric_(p)."""


@register
class CauchyBackward0(_Fill):
    """cauchy_(median, sigma)."""


@register
class LogNormalBackward0(_Fill):
    """log_normal_(mean, std)."""


def _fill(t: Tensor, op, values) -> Tensor:
    """Write ``values`` (an array of t's shape and dtype) into ``t`` as the in-place op ``op``.

    ``inplace`` gives torch's in-place behaviour: the leaf checks in grad mode, the version bump,
    the history rebased onto ``op`` when ``t`` is part of a graph, and ``t`` returned.
    """
    return inplace(t, lambda a: apply(op, (a,), (values,)))


def _shape_dtype(t: Tensor):
    return t._data.shape, t._data.dtype


def _placed(t: Tensor, draw):
    """``draw(n, real_dtype, contiguous)`` (n values in torch's fill order) placed into an array of t's shape,
    through the real view of a complex tensor."""
    a = t._data
    from .._batching.context import STATE

    if STATE.stack:  # under vmap: torch's randomness rules (_batching/randomness.py)
        from .._batching.randomness import fill_for

        return fill_for(a, lambda view: _placed_array(view, draw))
    return _placed_array(a, draw)


def _placed_array(a, draw):
    """``_placed`` for an array: the values for ``a`` in the order torch's kernel walks its memory."""
    shape, strides, npd = a.shape, a.strides, a.dtype
    if npd.kind == "c":
        real = npd.type(0).real.dtype
        shape, strides = shape + (2,), strides + (real.itemsize,)
        npd = real
    n = a.size * (2 if a.dtype.kind == "c" else 1)
    values = _kernels.arrange(xp.asarray(draw(n, npd, a.flags.c_contiguous)).ravel(), shape, strides)
    if a.dtype.kind == "c":
        return xp.ascontiguousarray(values).astype(npd).view(a.dtype).reshape(a.shape)
    return values


def _cast(values, npd):
    return xp.asarray(values).astype(npd, copy=False)


def _no_complex(npd, kernel: str, size: int = 1) -> None:
    """torch's kernel error for a complex fill; an empty tensor runs no kernel, so no error."""
    if npd.kind == "c" and size:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(npd)}'")


def uniform_(t: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """uniform_(from=0, to=1): fill with samples of U[from, to). Errors: from > to (RuntimeError), non-float
    dtype (NotImplementedError), unknown keywords (TypeError)."""
    for k in kwargs:
        if k not in ("from", "to"):
            raise TypeError(f"uniform_() got an unexpected keyword argument '{k}'")
    for k in ("from", "to")[: len(args)]:
        if k in kwargs:
            raise TypeError(f"uniform_() got multiple values for argument '{k}'")
    values = list(args) + [kwargs.get(k, default) for k, default in (("from", 0), ("to", 1))][len(args):]
    a, b = values[0], values[1]
    if a > b:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_num(a)} > to={_num(b)}")
    shape, npd = _shape_dtype(t)
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{scalar_type_name(npd)}'")
    g = _rng(generator)
    values = _placed(t, lambda n, real, contiguous: _kernels.uniform(g, n, real, a, b))
    return _fill(t, UniformBackward0, values)


def _num(x) -> str:
    """A number as torch's messages print it (C++ ``<<``: 6 significant digits)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


def normal_(t: Tensor, mean: float = 0, std: float = 1, *, generator=None) -> Tensor:
    """Fill with samples of N(mean, std^2). Errors: std < 0, non-float dtype."""
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
    shape, npd = _shape_dtype(t)
    if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{scalar_type_name(npd)}'")
    if npd.kind == "c":
        std = std / 2**0.5
    g = _rng(generator)
    values = _placed(t, lambda n, real, contiguous: _kernels.normal(g, n, real, mean, std, contiguous))
    return _fill(t, NormalBackward0, values)


_P_IN_RANGE = (
    "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
    "If so, please report an enhancement request to PyTorch.)"
)


def _bernoulli_array(g, p, shape, npd, strides=None):
    """0/1 samples of ``npd`` with probabilities ``p`` (a float, or an array broadcast to ``shape``), placed
    for an output of ``strides`` (contiguous when None)."""
    strides = strides if strides is not None else xp.empty(shape, dtype=xp.int8).strides
    n = 1
    for d in shape:
        n *= d
    if isinstance(p, xp.ndarray):
        values = _kernels.bernoulli_tensor(g, _kernels.to_order(xp.broadcast_to(p, shape), shape, strides))
    else:
        values = _kernels.bernoulli_scalar(g, n, p)
    return _kernels.arrange(values, shape, strides).astype(npd)


def _check_p_tensor(p: Tensor, size: int = 1) -> None:
    """``size``: of the tensor filled (an empty one runs no kernel, so a complex ``p`` passes)."""
    if p._data.dtype.kind not in FLOATING_KINDS and (size or p._data.dtype.kind != "c"):
        raise NotImplementedError(
            f"\"bernoulli_tensor_cpu_p_\" not implemented for '{scalar_type_name(p._data.dtype)}'"
        )
    if p._data.size and not ((p._data >= 0) & (p._data <= 1)).all():
        raise RuntimeError(_P_IN_RANGE)


def bernoulli_(t: Tensor, p=0.5, *, generator=None) -> Tensor:
    """Fill with 0/1 samples: 1 with probability ``p`` (a float, or a tensor broadcast to t's shape)."""
    shape, npd = _shape_dtype(t)
    if isinstance(p, Tensor):
        try:
            xp.broadcast_to(p._data, shape)
        except ValueError:
            _expand_error(shape, p._data.shape)
        _no_complex(npd, "bernoulli_tensor_cpu_self_", t._data.size)
        _check_p_tensor(p, t._data.size)
        g = _rng(generator)
        values = None
        if _batched_beyond(p._data, t._data):  # torch's in-place check comes first (its text)
            from .._batching.array import _INPLACE_TAIL

            raise RuntimeError("vmap: inplace bernoulli" + _INPLACE_TAIL.format(where="in a vmap",
                                                                                name="inplace bernoulli"))
        values = _vmap_fill(t, lambda a, probs: _bernoulli_array(g, probs, a.shape, npd, a.strides), p._data)
        if values is None:
            values = _bernoulli_array(g, p._data, shape, npd, t._data.strides)
        return inplace(t, lambda a, pp: apply(BernoulliBackward1, (a, pp), (values, p._data.shape, p._data.dtype)), p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
    _no_complex(npd, "bernoulli_scalar_cpu_", t._data.size)
    g = _rng(generator)
    values = _vmap_fill(t, lambda a: _bernoulli_array(g, p, a.shape, npd, a.strides), refuse_nested=True)
    if values is None:
        values = _bernoulli_array(g, p, shape, npd, t._data.strides)
    return _fill(t, BernoulliBackward2, values)


def _batched_beyond(a, t) -> bool:
    """Whether ``a`` is batched by a vmap that does not batch ``t``."""
    from .._batching.array import levels

    return bool(set(levels(a)) - set(levels(t)))


def _expand_error(target, shape):
    """torch's expand error (a sampling probability tensor not broadcastable to the result)."""
    lead = len(target) - len(shape)
    if lead < 0:
        raise RuntimeError(
            f"expand(torch.FloatTensor{{[{', '.join(map(str, shape))}]}}, size=[{', '.join(map(str, target))}]): the "
            "number of sizes provided must be greater or equal to the number of dimensions in the tensor"
        )
    for i in range(len(shape) - 1, -1, -1):
        if shape[i] != 1 and shape[i] != target[i + lead]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[i + lead]}) must match the existing size ({shape[i]}) at "
                f"non-singleton dimension {i + lead}.  Target sizes: [{', '.join(map(str, target))}].  "
                f"Tensor sizes: [{', '.join(map(str, shape))}]"
            )


def _random_bounds(npd):
    """random_()'s default range [0, hi]: the integers a dtype holds exactly (torch's random_ kernel)."""
    if npd.kind == "b":
        return 0, 1
    if npd.kind in FLOATING_OR_COMPLEX_KINDS:  # (complex: only reached for an empty tensor, which gets no values)
        return 0, 2 ** (xp.finfo(npd).nmant + 1)
    return 0, int(xp.iinfo(npd).max)


_CPP_NAMES = {
    "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
    "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>",
}


def random_(t: Tensor, *args, generator=None, **kwargs) -> Tensor:
    """Fill with integers drawn uniformly: ``random_()`` (every integer the dtype holds exactly),
    ``random_(to)`` ([0, to)) or ``random_(from, to)`` ([from, to); ``to=None``: up to the dtype's maximum)."""
    names = ("from", "to")
    params = list(args) + [kwargs[k] for k in names[len(args):] if k in kwargs]
    shape, npd = _shape_dtype(t)
    if not params:
        lo, hi = _random_bounds(npd)
        op, hi = RandomBackward2, hi + 1
    elif len(params) == 1 and "from" not in kwargs:
        lo, hi, op = 0, operator.index(params[0]), RandomBackward1
    else:
        lo, hi, op = operator.index(params[0]), params[1], RandomBackward0
        if hi is None:
            hi = _random_bounds(npd)[1] + 1
        else:
            hi = operator.index(hi)
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    if npd.kind == "c":
        if op is RandomBackward2:
            _no_complex(npd, "random_kernel_cpu", t._data.size)
        else:
            raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean types")
    if npd.kind in "iub" and hi - 1 > _random_bounds(npd)[1]:
        raise RuntimeError(f"to - 1 is out of bounds for {_CPP_NAMES.get(npd.name, npd.name)}")
    g = _rng(generator)
    if op is RandomBackward2:
        def draw(n, real, contiguous):
            return _kernels.random_default(g, n, real)
    elif lo == -(1 << 63) and hi > _random_bounds(npd)[1] and npd in (xp.int64, xp.float64, xp.float32):
        def draw(n, real, contiguous):  # random_(int64 min, None): the full 64-bit range
            return _kernels.random_full_int64(g, n, real)
    else:
        def draw(n, real, contiguous):
            return _kernels.random_from_to(g, n, real, lo, hi - lo)
    return _fill(t, op, _placed(t, draw))


def _continuous_only(name: str, npd) -> None:
    if npd.kind not in FLOATING_KINDS:
        kind = scalar_type_name(npd) if name == "Exponential" else _CPP_NAMES.get(npd.name, npd.name)
        raise RuntimeError(
            f"{name} distribution is a continuous probability distribution. dtype must be a floating point but you "
            f"specified {kind}"
        )


def exponential_(t: Tensor, lambd: float = 1, *, generator=None) -> Tensor:
    """Fill with samples of Exp(lambd) (density lambd * exp(-lambd x)). Errors: lambd <= 0, non-float dtype."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_num(lambd)}")
    shape, npd = _shape_dtype(t)
    if t._data.size:  # (an empty tensor runs no kernel, so torch checks no dtype)
        _continuous_only("Exponential", npd)
    g = _rng(generator)
    return _fill(t, ExponentialBackward0, _placed(t, lambda n, real, c: _kernels.from_double(
        _kernels.exponential(g, n, lambd), real)))


def geometric_(t: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...). Errors: p not in (0, 1)."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_num(p)}")
    shape, npd = _shape_dtype(t)
    if npd.kind in "bc" and t._data.size:
        raise NotImplementedError(f"\"geometric_cpu\" not implemented for '{scalar_type_name(npd)}'")
    g = _rng(generator)
    return _fill(t, GeometricBackward0, _placed(t, lambda n, real, c: _cast(_kernels.geometric(g, n, p), real)))


def cauchy_(t: Tensor, median: float = 0, sigma: float = 1, *, generator=None) -> Tensor:
    """Fill with samples of Cauchy(median, sigma). Errors: sigma <= 0, non-float dtype."""
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_num(sigma)}")
    shape, npd = _shape_dtype(t)
    _continuous_only("Cauchy", npd)
    g = _rng(generator)
    return _fill(t, CauchyBackward0, _placed(t, lambda n, real, c: _kernels.from_double(
        _kernels.cauchy(g, n, median, sigma), real)))


def log_normal_(t: Tensor, mean: float = 1, std: float = 2, *, generator=None) -> Tensor:
    """Fill with exp(N(mean, std^2)) samples. Errors: std <= 0, non-float dtype."""
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_num(std)}")
    shape, npd = _shape_dtype(t)
    if npd.kind not in FLOATING_KINDS and t._data.size:  # (an empty tensor runs no kernel)
        raise NotImplementedError(f"\"log_normal_cpu\" not implemented for '{scalar_type_name(npd)}'")
    g = _rng(generator)
    return _fill(t, LogNormalBackward0, _placed(t, lambda n, real, c: _kernels.from_double(
        _kernels.log_normal(g, n, mean, std), real)))


# ------------------------------------------------------------------ sampling functions
class _Sample(Op):
    """Base of the out-of-place samplers: forward returns the drawn ``values``; every gradient is zero
    (derivatives.yaml: normal.*, bernoulli: ``zeros_like``)."""

    @staticmethod
    def forward(*args):
        return args[-1]

    def backward(self, g):
        from .reduction import sum_to

        metas = self._params[1]
        grads = []
        for i, (shape, npd) in enumerate(metas):
            if shape is None or not self.needs_input_grad(i):
                grads.append(None)
            else:
                grads.append(sum_to(g * 0, shape).to(_dtype_from_numpy(npd)))
        return tuple(grads)


@register
class NormalBackward1(_Sample):
    """normal(Tensor mean, float std); torch's autograd refuses a complex mean."""

    complex_grad = False

    @staticmethod
    def forward(mean, values, metas):
        return values


@register
class NormalBackward2(_Sample):
    """normal(float mean, Tensor std)."""

    @staticmethod
    def forward(std, values, metas):
        return values


@register
class NormalBackward3(_Sample):
    """normal(Tensor mean, Tensor std); torch's autograd refuses a complex mean."""

    complex_grad = False

    @staticmethod
    def forward(mean, std, values, metas):
        return values


@register
class BernoulliBackward0(_Sample):
    """bernoulli(Tensor input); torch's autograd refuses complex input (reached when it is empty)."""

    complex_grad = False

    @staticmethod
    def forward(a, values, metas):
        return values


class NotImplemented(Op):  # noqa: A001 - torch's node name
    """The node torch records for an op with no derivative formula (bernoulli(input, p), bincount with
    weights): its backward refuses to run. Params: (result array, aten op name).

    Not in the registry (it has no gradient to compare); tests/test_random_ops.py checks it.
    """

    @staticmethod
    def forward(*args):
        return args[-2]

    def backward(self, g):
        raise RuntimeError(f"derivative for aten::{self._params[-1]} is not implemented")


_NORMAL_SIGNATURES = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor out = None, "
    "torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, bool pin_memory = False, "
    "bool requires_grad = False)\n"
)


def _meta(t: Tensor):
    return (t._data.shape, t._data.dtype)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None,
           pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """torch.normal's four overloads: (Tensor, Tensor) broadcast, (Tensor, float), (float, Tensor), and
    (float, float, size). The result has the mean tensor's dtype (else std's); errors as torch's."""
    g = _rng(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            got = ", ".join(_tp_name(v) for v in (mean, std))
            raise TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                            f"{_NORMAL_SIGNATURES}")
        from .._creation import _finish, _float_dtype, _size

        shape = _size((size,), "normal") if not isinstance(size, int) else (size,)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        npd = _float_dtype(dtype)
        return _finish(_normal(g, shape, npd, mean, std), requires_grad)
    if mt and st:
        npd = mean._data.dtype
        try:
            shape = xp.broadcast_shapes(mean._data.shape, std._data.shape)
        except ValueError:
            from .broadcast import broadcast_shape

            broadcast_shape(mean._data.shape, std._data.shape)
            raise
        if std._data.dtype.kind == "c":
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if std._data.dtype.kind not in FLOATING_KINDS or npd.kind not in FLOATING_OR_COMPLEX_KINDS:
            bad = npd if npd.kind not in FLOATING_OR_COMPLEX_KINDS else std._data.dtype
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{scalar_type_name(bad)}'")
        if std._data.size and (std._data < 0).any():
            raise RuntimeError("normal expects all elements of std >= 0.0")
        # torch: a fresh output filled with N(0, 1), then mul_(std) and add_(mean), each rounded to the dtype
        values = _cast(_cast(_normal(g, shape, npd) * std._data, npd) + mean._data, npd)
        return apply(NormalBackward3, (mean, std), (values, (_meta(mean), _meta(std))))
    if mt:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_num(std)}")
        npd = mean._data.dtype
        if npd.kind not in FLOATING_OR_COMPLEX_KINDS:
            raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{scalar_type_name(npd)}'")
        # torch: empty_like(mean) (mean's strides) filled with N(0, std), then add_(mean)
        strides, contiguous = _like_order(mean, None)
        z = _normal(g, mean._data.shape, npd, 0.0, std, contiguous)
        if strides is not None:
            z = _kernels.arrange(z.ravel(), mean._data.shape, strides)
        values = _cast(z + mean._data, npd)
        return apply(NormalBackward1, (mean,), (values, (_meta(mean),)))
    npd = std._data.dtype
    if npd.kind == "c":
        raise RuntimeError("normal expects standard deviation to be non-complex")
    if npd.kind not in FLOATING_KINDS:
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{scalar_type_name(npd)}'")
    if std._data.size and (std._data < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    # torch: a fresh output filled with N(0, 1), then mul_(std) and add_(mean as a 0-d tensor of the dtype)
    values = _cast(_cast(_normal(g, std._data.shape, npd) * std._data, npd) + npd.type(mean), npd)
    return apply(NormalBackward2, (std,), (values, (_meta(std),)))


def bernoulli(input: Tensor, p=None, *, generator=None, out=None) -> Tensor:  # noqa: A002 - torch's name
    """0/1 samples shaped and typed like ``input``: 1 with probability ``input`` (or the float ``p``).

    Errors: probabilities outside [0, 1] (RuntimeError), an integer probability tensor (NotImplementedError).
    """
    g = _rng(generator)
    shape, npd = _shape_dtype(input)
    if p is not None and not isinstance(p, Tensor):
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_num(p)}")
        _no_complex(npd, "bernoulli_scalar_cpu_", input._data.size)
        values = _vmap_sample(input, lambda a: _bernoulli_array(g, float(p), a.shape, npd, _dense_strides(a)))
        if values is None:
            values = _bernoulli_array(g, float(p), shape, npd)
        return apply(NotImplemented, (input,), (values, "bernoulli"))
    _no_complex(npd, "bernoulli_tensor_cpu_self_", input._data.size)
    _check_p_tensor(input, input._data.size)
    values = _vmap_sample(input, lambda a: _bernoulli_array(g, a, a.shape, npd, _dense_strides(a)))
    if values is None:
        strides, _ = _like_order(input, None)  # torch: empty_like(input).bernoulli_(input)
        values = _bernoulli_array(g, input._data, shape, npd, strides)
    return apply(BernoulliBackward0, (input,), (values, (_meta(input),)))


def _vmap_sample(t: Tensor, draw):
    """Under vmap, an out-of-place random op of ``t`` by torch's randomness rules (_batching/randomness.py), else
    None."""
    from .._batching.context import STATE

    if not STATE.stack:
        return None
    from .._batching.randomness import sample_for

    return sample_for(t._data, draw)


def _dense_strides(a):
    from .._batching.randomness import dense_strides

    return dense_strides(a)


def _vmap_fill(t: Tensor, fill, *others, refuse_nested: bool = False):
    """Under vmap, an in-place random fill of ``t`` by torch's randomness rules (_batching/randomness.py's
    ``fill_for``), else None."""
    from .._batching.context import STATE

    if not STATE.stack:
        return None
    from .._batching.randomness import fill_for

    return fill_for(t._data, fill, *others, refuse_nested=refuse_nested)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None,  # noqa: A002
                out=None) -> Tensor:
    """Category indices (int64) drawn from each row of non-negative weights ``input`` (1-D or 2-D).

    Without replacement each row's draws are distinct; categories of weight 0 come only after every
    positive one is drawn (as torch's exponential-race sampling). Errors: torch's texts for a non-float
    input, a bad dim, num_samples <= 0 or too many without replacement, and invalid weights.
    """
    w = input._data
    if out is not None and out._data.dtype != xp.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {scalar_type_name(out._data.dtype)}")
    if w.dtype.kind not in FLOATING_KINDS:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {scalar_type_name(w.dtype)}")
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    n = operator.index(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = w.shape[-1]
    if k > 2 ** 24:  # aten samples in float32, whose integers are exact only up to 2^24
        raise RuntimeError("number of categories cannot exceed 2^24")
    if not replacement and n > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    rows = w.reshape(-1, k).astype(xp.float64)
    if rows.size and not (xp.isfinite(rows).all() and (rows >= 0).all()):
        if replacement and n > 1:  # aten's sampling kernel checks element by element: first not >= 0, then finite
            bad = rows.reshape(-1)[~(xp.isfinite(rows) & (rows >= 0)).reshape(-1)][0]
            what = "< 0" if not bad >= 0 else "= infinity or NaN"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {what})")
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = rows.sum(axis=1)
    if rows.shape[0] and (sums <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _rng(generator)
    if replacement and n > 1:
        idx = _multinomial_with_replacement(g, w.reshape(-1, k), n)
    else:
        # torch: q = empty_like(input).exponential_(1); q = input / q; argmax (one sample) or topk (n)
        q = _kernels.exponential(g, w.size, 1.0).astype(w.dtype).reshape(w.shape)
        keys = (w / q).reshape(-1, k)
        idx = xp.argsort(-keys, axis=1, kind="stable")[:, :n]
    idx = idx.astype(xp.int64).reshape(w.shape[:-1] + (n,))
    return wrap(idx)


def _multinomial_with_replacement(g, rows, n):
    """torch's multinomial_with_replacement CPU kernel: per row, the running sum of the weights in their dtype
    (divided by the total), the last entry set to 1, then for each sample a double uniform placed by binary
    search at the first entry not below it."""
    out = xp.empty((rows.shape[0], n), dtype=xp.int64)
    for i, row in enumerate(rows):
        cdf = xp.cumsum(row)
        total = cdf[-1]
        if total > 0:
            cdf = cdf / total
        cdf = cdf.astype(xp.float64)
        cdf[-1] = 1
        out[i] = xp.searchsorted(cdf, _kernels.unit_uniform(g, n, xp.float64), side="left")
    return out


# ------------------------------------------------------------------ the random state
# Note [RNG state as bytes]
# torch's get_rng_state is the CPU generator's state as a ByteTensor: its CPUGeneratorImplState of 5056 bytes
# (the mt19937 words as uint64, the position, the seed and the two cached normal values; _torch_rng.py has
# the layout). dyngrad writes and reads the same bytes, so a state saved by torch restores dyngrad's
# generator and the reverse.
_STATE_SIZE = 5056


def _check_state(new_state) -> bytes:
    """The bytes of a state tensor, or torch's errors (TypeError: not a uint8 tensor; RuntimeError: size)."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {_tp_name(new_state)}")
    arr = new_state._data
    if arr.dtype != xp.uint8:
        raise TypeError("RNG state must be a torch.ByteTensor")
    if arr.size != _STATE_SIZE:
        raise RuntimeError(
            f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG state size to be "
            f"{arr.size}"
        )
    return arr.reshape(-1).tobytes()


def get_rng_state(generator=None) -> Tensor:
    """The default generator's state (or a stream's) as torch's 5056-byte uint8 tensor."""
    gen = generator if generator is not None else _backend.generator()
    return wrap(xp.frombuffer(gen.to_bytes(), dtype=xp.uint8).copy())


def set_rng_state(new_state, generator=None) -> None:
    """Restore a state from get_rng_state (dyngrad's or torch's). Errors: not a uint8 tensor (TypeError), wrong
    size (RuntimeError)."""
    raw = _check_state(new_state)
    gen = generator if generator is not None else _backend.generator()
    gen.from_bytes(raw)


# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor.
EXPORTS: dict = {
    "normal": normal, "bernoulli": bernoulli, "multinomial": multinomial,
    "get_rng_state": get_rng_state, "set_rng_state": set_rng_state,
}
TENSOR_METHODS: dict = {
    "uniform_": uniform_, "normal_": normal_, "bernoulli_": bernoulli_, "random_": random_,
    "exponential_": exponential_, "geometric_": geometric_, "cauchy_": cauchy_, "log_normal_": log_normal_,
    "bernoulli": bernoulli, "multinomial": multinomial,
}
