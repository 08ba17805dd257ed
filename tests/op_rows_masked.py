"""Op-table rows for dyngrad.masked (torch.masked's reductions and normalizations of strided tensors).

The mask is drawn from the input's own values (elements above -0.5 kept: the same in both libraries), so
rows, columns or whole tensors with nothing kept occur; ``masked=False`` runs each op with ``mask=None``.
Rows with nothing kept give nan (softmax of all -inf, std of one element at sqrt's kink, logaddexp of two -inf),
with torch's nan gradients, which finite differences cannot reproduce: those rows are compared with torch only
(gradcheck=False).
"""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import C, OpInfo, one_shape

SHAPES = one_shape(min_dims=1, max_dims=3, min_side=1)


def _mask(x):
    return x.detach().real > -0.5


def _dim_and_mask(data, shapes):
    nd = len(shapes[0])
    return {"dim": data.draw(st.integers(-nd, nd - 1)), "masked": data.draw(st.booleans())}


def _reduce_params(data, shapes):
    params = _dim_and_mask(data, shapes)
    params["keepdim"] = data.draw(st.booleans())
    if data.draw(st.booleans()):
        params["dim"] = None
    return params


def _reduction(name, **extra):
    def fn(lib, x, dim, masked, keepdim):
        return getattr(lib.masked, name)(x, dim=dim, keepdim=keepdim, mask=_mask(x) if masked else None, **extra)
    return fn


def _normalization(name):
    def fn(lib, x, dim, masked):
        return getattr(lib.masked, name)(x, dim, mask=_mask(x) if masked else None)
    return fn


def _single_dim(data, shapes):
    params = _reduce_params(data, shapes)
    if params["dim"] is None:
        params["dim"] = -1
    return params


def _norm(lib, x, dim, masked, keepdim):
    return lib.masked.norm(x, 2.0, dim, keepdim=keepdim, mask=_mask(x) if masked else None)


def _normalize(lib, x, dim, masked):
    return lib.masked.normalize(x, 2.0, dim, mask=_mask(x) if masked else None)


def _logaddexp(lib, a, b, dim, masked):
    return lib.masked.logaddexp(a, b, input_mask=_mask(a) if masked else None, other_mask=_mask(b))


ROWS = [
    OpInfo("masked.sum", _reduction("sum"), SHAPES, params=_reduce_params, **C),
    OpInfo("masked.prod", _reduction("prod"), SHAPES, params=_reduce_params, **C),
    OpInfo("masked.amax", _reduction("amax"), SHAPES, params=_reduce_params),
    OpInfo("masked.amin", _reduction("amin"), SHAPES, params=_reduce_params),
    OpInfo("masked.argmax", _reduction("argmax"), SHAPES, params=_single_dim, differentiable=False),
    OpInfo("masked.argmin", _reduction("argmin"), SHAPES, params=_single_dim, differentiable=False),
    OpInfo("masked.mean", _reduction("mean"), SHAPES, params=_reduce_params, **C),
    OpInfo("masked.var", _reduction("var"), SHAPES, params=_reduce_params, **C),
    OpInfo("masked.std", _reduction("std", unbiased=False), SHAPES, params=_reduce_params, **C, gradcheck=False),
    OpInfo("masked.norm", _norm, SHAPES, params=_reduce_params),
    OpInfo("masked.median", _reduction("median"), SHAPES, params=_single_dim),
    OpInfo("masked.logsumexp", _reduction("logsumexp"), SHAPES, params=_reduce_params),
    OpInfo("masked.softmax", _normalization("softmax"), SHAPES, params=_dim_and_mask, gradcheck=False),
    OpInfo("masked.log_softmax", _normalization("log_softmax"), SHAPES, params=_dim_and_mask, gradcheck=False),
    OpInfo("masked.softmin", _normalization("softmin"), SHAPES, params=_dim_and_mask, gradcheck=False),
    OpInfo("masked.cumsum", _normalization("cumsum"), SHAPES, params=_dim_and_mask, **C),
    OpInfo("masked.cumprod", _normalization("cumprod"), SHAPES, params=_dim_and_mask, **C),
    OpInfo("masked.normalize", _normalize, SHAPES, params=_dim_and_mask, **C),
    OpInfo("masked.logaddexp", _logaddexp, SHAPES.map(lambda s: (s[0], s[0])), params=_dim_and_mask, gradcheck=False),
]
