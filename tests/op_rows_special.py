"""Rows of the op table for the special functions (_ops/special_ops.py; see tests/op_table.py).

Domains keep away from the poles of lgamma/digamma/polygamma (so the finite-difference checks hold)
and inside the functions' domains (ndtri on (0, 1), xlog1py's other above -1). Where torch has no
derivative for an argument (igamma's and zeta's first), that argument is a constant drawn as a
parameter, and rows named *_raises check torch's error at backward.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from op_table import NONZERO, POSITIVE, OpInfo, broadcast_pair, one_shape

NEGATIVE = (-2.8, -2.2)  # between the poles at -3 and -2
PROB = (0.05, 0.95)
ABOVE_MINUS_ONE = (-0.5, 2.0)


def _n(data, shapes):
    return {"n": data.draw(st.sampled_from([0, 1, 2, 3]))}


def _p(data, shapes):
    return {"p": data.draw(st.sampled_from([1, 2, 3]))}


def _constant_like(low, high):
    """A parameter ``c``: an array of the first input's shape, drawn in [low, high) (an argument torch
    has no derivative for, passed as a constant)."""

    def draw(data, shapes):
        seed = data.draw(st.integers(0, 2**32 - 1))
        return {"c": np.random.default_rng(seed).uniform(low, high, size=shapes[0])}

    return draw


def _const(lib, c, like):
    return lib.tensor(c, dtype=like.dtype)


def _backward_raises(lib, y, message: str):
    """y's backward raises NotImplementedError(message) in torch and here; the row goes on with y detached."""
    if y.requires_grad and y.numel():
        try:
            y.sum().backward()
        except NotImplementedError as e:
            assert str(e) == message, str(e)
        else:
            raise AssertionError("backward did not raise")
    return y.detach()


def _sp(lib):
    return lib.special


ROWS: list[OpInfo] = [
    # ---- gamma family
    OpInfo("lgamma", lambda lib, x: lib.lgamma(x), covers=("LgammaBackward0", "DigammaBackward0",
                                                             "PolygammaBackward0"), domain=POSITIVE),
    OpInfo("lgamma_negative", lambda lib, x: x.lgamma(), covers=("LgammaBackward0",), domain=NEGATIVE),
    OpInfo("lgamma_wide", lambda lib, x: lib.lgamma(x * 10 + 0.1), covers=("LgammaBackward0",), domain=(0.0, 3.0),
           gradcheck=False),
    OpInfo("digamma", lambda lib, x: x.digamma(), covers=("DigammaBackward0", "PolygammaBackward0"), domain=POSITIVE),
    OpInfo("digamma_negative", lambda lib, x: lib.digamma(x), covers=("DigammaBackward0",), domain=NEGATIVE),
    OpInfo("polygamma", lambda lib, x, n: lib.polygamma(n, x), covers=("PolygammaBackward0",), domain=POSITIVE,
           params=_n),
    OpInfo("polygamma_method", lambda lib, x, n: x.polygamma(n), covers=("PolygammaBackward0",), domain=NEGATIVE,
           params=_n),
    OpInfo("mvlgamma", lambda lib, x, p: lib.mvlgamma(x, p), covers=("MvlgammaBackward0",), domain=(1.2, 4.0),
           params=_p),
    OpInfo("mvlgamma_method", lambda lib, x, p: x.mvlgamma(p=p), covers=("MvlgammaBackward0",), domain=(1.2, 4.0),
           params=_p),
    OpInfo("gamma_inplace", lambda lib, x: (x * 1).lgamma_() + (x * 1).digamma_() + (x * 1).polygamma_(2)
           + (x + 1).mvlgamma_(2), covers=("LgammaBackward0", "DigammaBackward0", "PolygammaBackward0",
                                           "MvlgammaBackward0"), domain=POSITIVE),
    OpInfo("gamma_int", lambda lib, x: lib.lgamma((x * 3).to(lib.int64)) + lib.digamma((x * 3).to(lib.int64)),
           covers=(), domain=POSITIVE, differentiable=False),
    # ---- incomplete gamma: torch differentiates the second argument only
    OpInfo("igamma", lambda lib, x, c: lib.igamma(_const(lib, c, x), x), covers=("IgammaBackward0",
                                                                                   "LgammaBackward0"),
           domain=POSITIVE, params=_constant_like(0.5, 5.0)),
    OpInfo("igammac", lambda lib, x, c: lib.igammac(_const(lib, c, x), x), covers=("IgammacBackward0",),
           domain=POSITIVE, params=_constant_like(0.5, 5.0)),
    OpInfo("igamma_method_broadcast", lambda lib, x, y: y.detach().igamma(x) + y.detach().igammac(x),
           broadcast_pair(), covers=("IgammaBackward0", "IgammacBackward0"), domain=POSITIVE, gradcheck=False),
    OpInfo("igamma_inplace", lambda lib, x, c: (x * 1).igamma_(_const(lib, c, x)) + (x * 1).igammac_(_const(lib, c, x)),
           covers=("IgammaBackward0", "IgammacBackward0"), domain=POSITIVE, params=_constant_like(0.5, 5.0),
           differentiable=False),
    OpInfo("igamma_input_raises", lambda lib, x, y: _backward_raises(
        lib, lib.igamma(x, y.detach()), "the derivative for 'igamma: input' is not implemented."),
        broadcast_pair(), covers=("IgammaBackward0",), domain=POSITIVE, gradcheck=False),
    OpInfo("igammac_input_raises", lambda lib, x, y: _backward_raises(
        lib, lib.special.gammaincc(x, y.detach()), "the derivative for 'igammac: input' is not implemented."),
        broadcast_pair(), covers=("IgammacBackward0",), domain=POSITIVE, gradcheck=False),
    # ---- zeta
    OpInfo("zeta", lambda lib, x, c: lib.special.zeta(_const(lib, c, x), x), covers=("SpecialZetaBackward0",),
           domain=POSITIVE, params=_constant_like(1.5, 5.0)),
    OpInfo("zeta_number_first", lambda lib, x: lib.special.zeta(2.5, x), covers=("SpecialZetaBackward1",),
           domain=POSITIVE),
    OpInfo("zeta_number_second_raises", lambda lib, x: _backward_raises(
        lib, lib.special.zeta(x + 2, 1.5), "the derivative for 'zeta' is not implemented."),
        covers=("SpecialZetaBackward2", "AddBackward0"), domain=POSITIVE, gradcheck=False),
    OpInfo("zeta_input_raises", lambda lib, x, y: _backward_raises(
        lib, lib.special.zeta(x + 1, y.detach()), "the derivative for 'zeta' is not implemented."),
        broadcast_pair(), covers=("SpecialZetaBackward0",), domain=POSITIVE, gradcheck=False),
    # ---- error-function family
    OpInfo("erfcx", lambda lib, x: lib.special.erfcx(x), covers=("SpecialErfcxBackward0",), domain=(-3.0, 3.0)),
    OpInfo("ndtri", lambda lib, x: lib.special.ndtri(x), covers=("SpecialNdtriBackward0", "ExpBackward0"),
           domain=PROB),
    OpInfo("log_ndtr", lambda lib, x: lib.special.log_ndtr(x), covers=("SpecialLogNdtrBackward0", "ExpBackward0"),
           domain=(-5.0, 3.0)),
    OpInfo("ndtr", lambda lib, x: lib.special.ndtr(x), covers=("MulBackward1", "AddBackward1", "ErfBackward0"),
           domain=(-3.0, 3.0)),
    OpInfo("erf_aliases", lambda lib, x: lib.special.erf(x) + lib.special.erfc(x) + lib.special.erfinv(x * 0.9),
           covers=("ErfBackward0", "ErfcBackward0", "ErfinvBackward0"), domain=(-0.9, 0.9)),
    # ---- others
    OpInfo("entr", lambda lib, x: lib.special.entr(x), covers=("SpecialEntrBackward0",), domain=POSITIVE),
    # (near 0 sinc's gradient formula cancels: float32 second derivatives there are rounding noise, in torch too)
    OpInfo("sinc", lambda lib, x: lib.sinc(x), covers=("SincBackward0",), domain=NONZERO),
    OpInfo("sinc_method_inplace", lambda lib, x: x.sinc() + (x * 1).sinc_() + lib.special.sinc(x),
           covers=("SincBackward0",), domain=NONZERO),
    OpInfo("xlog1py", lambda lib, x, y: lib.special.xlog1py(x, y), broadcast_pair(),
           covers=("SpecialXlog1PyBackward0",), domain=ABOVE_MINUS_ONE),
    OpInfo("xlog1py_number_first", lambda lib, x: lib.special.xlog1py(1.5, x), covers=("SpecialXlog1PyBackward1",),
           domain=ABOVE_MINUS_ONE),
    OpInfo("xlog1py_number_second", lambda lib, x: lib.special.xlog1py(x, 0.5) + lib.special.xlog1py(x, -1.5),
           covers=("SpecialXlog1PyBackward2",), domain=ABOVE_MINUS_ONE),
    OpInfo("logaddexp2", lambda lib, x, y: lib.logaddexp2(x, y), broadcast_pair(), covers=("Logaddexp2Backward0",
                                                                                           "PowBackward2")),
    OpInfo("logaddexp2_method", lambda lib, x, y: x.logaddexp2(y), broadcast_pair(), covers=("Logaddexp2Backward0",)),
    # ---- torch.special aliases of other ops
    OpInfo("special_gamma_aliases", lambda lib, x: _sp(lib).gammaln(x) + _sp(lib).psi(x) + _sp(lib).digamma(x)
           + _sp(lib).polygamma(1, x) + _sp(lib).multigammaln(x + 1, 2), covers=("LgammaBackward0", "DigammaBackward0",
                                                                                  "PolygammaBackward0",
                                                                                  "MvlgammaBackward0"),
           domain=POSITIVE),
    OpInfo("special_gammainc_aliases", lambda lib, x, c: _sp(lib).gammainc(_const(lib, c, x), x)
           + _sp(lib).gammaincc(_const(lib, c, x), x), covers=("IgammaBackward0", "IgammacBackward0"),
           domain=POSITIVE, params=_constant_like(0.5, 5.0)),
    OpInfo("special_expit_logit", lambda lib, x: _sp(lib).expit(x) + _sp(lib).logit(x * 0.3 + 0.5, 0.01),
           covers=("SigmoidBackward0", "LogitBackward0"), domain=(-1.0, 1.0)),
    OpInfo("special_exp_log", lambda lib, x: _sp(lib).exp2(x) + _sp(lib).expm1(x) + _sp(lib).log1p(x)
           + _sp(lib).xlogy(x, x + 2), covers=("Exp2Backward0", "Expm1Backward0", "Log1PBackward0", "XlogyBackward0"),
           domain=ABOVE_MINUS_ONE),
    OpInfo("special_round", lambda lib, x, decimals: _sp(lib).round(x, decimals=decimals), covers=("RoundBackward1",),
           params=lambda d, s: {"decimals": d.draw(st.sampled_from([0, 1, -1]))}),
    OpInfo("special_softmax", lambda lib, x, dim: _sp(lib).softmax(x, dim) + _sp(lib).log_softmax(x, dim)
           + _sp(lib).logsumexp(x, dim, keepdim=True), covers=("SoftmaxBackward0", "LogSoftmaxBackward0",
                                                               "LogsumexpBackward0"),
           shapes=one_shape(min_dims=1, min_side=1), params=lambda d, s: {"dim": d.draw(st.integers(-len(s[0]),
                                                                                                      len(s[0]) - 1))}),
    OpInfo("logit_inplace", lambda lib, x: (x * 0.3 + 0.5).logit_(), covers=("LogitBackward0", "MulBackward0",
                                                                              "AddBackward0"), domain=(-1.0, 1.0)),
]
