"""Rows of the op table for the pointwise and comparison/logic families (see tests/op_table.py)."""

from __future__ import annotations

from hypothesis import strategies as st

from op_table import NONZERO, POSITIVE, WITH_COMPLEX, OpInfo, broadcast_pair, fixed, one_shape

C = dict(dtypes=WITH_COMPLEX)  # ops torch runs (or refuses, in its words) on complex numbers
COMPLEX = dict(dtypes=("complex64", "complex128"))

UNIT = (-0.9, 0.9)  # inside (-1, 1): asin, acos, atanh, erfinv


def F(lib):
    return lib.nn.functional


def _approximate(data, shapes):
    return {"approximate": data.draw(st.sampled_from(["none", "tanh"]))}


def _decimals(data, shapes):
    return {"decimals": data.draw(st.sampled_from([1, 2, -1]))}


def _same_shape3():
    return one_shape().map(lambda s: (s[0], s[0], s[0]))


def _same_shape2():
    # torch's own clamp backward fails when the input is smaller than the broadcast output
    return one_shape().map(lambda s: (s[0], s[0]))


def _broadcast3():
    from hypothesis.extra import numpy as hnp

    return hnp.mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, min_side=0, max_side=3).map(
        lambda b: tuple(b.input_shapes)
    )


def _floor_divide_raises(lib, x):
    """floor_divide records a node (NotImplemented) that raises at backward, in torch and here."""
    y = lib.floor_divide(x, 0.7)
    assert y.requires_grad == x.requires_grad
    if y.requires_grad and y.numel():
        assert y.grad_fn.name() == "torch::autograd::NotImplemented"
        try:
            y.sum().backward()
        except RuntimeError as e:
            assert str(e) == "derivative for aten::floor_divide is not implemented"
        else:
            raise AssertionError("floor_divide backward did not raise")
    return y.detach()


def _inplace_without_derivative(lib, x):
    """asinh_ / acosh_ / atanh_ record a node (AsinhBackward1 ...) whose backward raises, in torch and here."""
    y = (x * 1).asinh_() + (x * 0 + 2).acosh_() + (x * 0.1).arctanh_()
    if y.requires_grad and y.numel():
        for name in ("asinh", "acosh", "atanh"):
            z = getattr(x * 1, name + "_")()
            assert type(z.grad_fn).__name__ == name[0].upper() + name[1:] + "Backward1"
            try:
                z.sum().backward()
            except NotImplementedError as e:
                assert str(e) == f"the derivative for 'inplace version of {name}' is not implemented."
            else:
                raise AssertionError(f"{name}_ backward did not raise")
    return y.detach()


def _int(lib, x):
    return (x * 3).to(lib.int64)


ROWS: list[OpInfo] = [
    # ---- unary, float results
    OpInfo("exp2", lambda lib, x: lib.exp2(x), covers=("Exp2Backward0",), **C),
    OpInfo("expm1", lambda lib, x: x.expm1(), covers=("Expm1Backward0",), **C),
    OpInfo("log2", lambda lib, x: x.log2(), covers=("Log2Backward0",), domain=POSITIVE, **C),
    OpInfo("log10", lambda lib, x: lib.log10(x), covers=("Log10Backward0",), domain=POSITIVE, **C),
    OpInfo("log1p", lambda lib, x: x.log1p(), covers=("Log1PBackward0",), domain=(-0.5, 2.0), **C),
    OpInfo("rsqrt", lambda lib, x: x.rsqrt(), covers=("RsqrtBackward0", "PowBackward0"), domain=POSITIVE, **C),
    OpInfo("tan", lambda lib, x: lib.tan(x), covers=("TanBackward0",), domain=(-1.2, 1.2), **C),
    OpInfo("asin", lambda lib, x: x.asin(), covers=("AsinBackward0", "RsqrtBackward0"), domain=UNIT, **C),
    OpInfo("acos", lambda lib, x: lib.arccos(x), covers=("AcosBackward0", "RsqrtBackward0"), domain=UNIT, **C),
    OpInfo("atan", lambda lib, x: x.atan(), covers=("AtanBackward0",), **C),
    OpInfo("sinh", lambda lib, x: x.sinh(), covers=("SinhBackward0", "CoshBackward0"), **C),
    OpInfo("cosh", lambda lib, x: lib.cosh(x), covers=("CoshBackward0", "SinhBackward0"), **C),
    OpInfo("asinh", lambda lib, x: x.asinh(), covers=("AsinhBackward0", "RsqrtBackward0"), **C),
    OpInfo("acosh", lambda lib, x: lib.acosh(x), covers=("AcoshBackward0", "RsqrtBackward0"), domain=(1.2, 3.0), **C),
    OpInfo("atanh", lambda lib, x: x.arctanh(), covers=("AtanhBackward0",), domain=UNIT, **C),
    OpInfo("erf", lambda lib, x: x.erf(), covers=("ErfBackward0", "ExpBackward0"), domain=(-3.0, 3.0), **C),
    OpInfo("erfc", lambda lib, x: lib.erfc(x), covers=("ErfcBackward0", "ExpBackward0"), domain=(-3.0, 3.0), **C),
    OpInfo("erfinv", lambda lib, x: lib.erfinv(x), covers=("ErfinvBackward0", "ExpBackward0"), domain=(-0.99, 0.99), **C),
    OpInfo("int_to_float_unary", lambda lib, x: lib.exp2(_int(lib, x)) + _int(lib, x).atan() + _int(lib, x).erf(),
           covers=("AddBackward0",), differentiable=False, **C),
    # ---- unary, dtype kept
    OpInfo("sign", lambda lib, x: x.sign(), covers=("SignBackward0",), ties=True, int_ok=True, **C),
    OpInfo("floor", lambda lib, x: lib.floor(x * 2), covers=("FloorBackward0", "MulBackward0"), int_ok=True, **C),
    OpInfo("ceil", lambda lib, x: (x * 2).ceil(), covers=("CeilBackward0", "MulBackward0"), int_ok=True, **C),
    OpInfo("round", lambda lib, x: lib.round(x * 2), covers=("RoundBackward0", "MulBackward0"), int_ok=True, **C),
    OpInfo("round_half_even", lambda lib, x: lib.round(x * 2) + (x * 4).round() * 0, covers=("RoundBackward0",),
           ties=True, gradcheck=False, **C),
    OpInfo("round_decimals", lambda lib, x, decimals: x.round(decimals=decimals), covers=("RoundBackward1",),
           params=_decimals, **C),
    # decimals=0 given explicitly is torch's round.decimals overload too (RoundBackward1, not RoundBackward0)
    OpInfo("round_decimals_zero", lambda lib, x: lib.round(x * 2, decimals=0), covers=("RoundBackward1",), ties=True,
           gradcheck=False, **C),
    OpInfo("trunc", lambda lib, x: (x * 2).trunc() + lib.fix(x), covers=("TruncBackward0",), int_ok=True, **C),
    OpInfo("frac", lambda lib, x: (x * 2).frac(), covers=("FracBackward0", "MulBackward0"), **C),
    OpInfo("nan_to_num", lambda lib, x: (x.log() * 1e300 * 1e10).nan_to_num(nan=1.5, neginf=-7.0),
           covers=("NanToNumBackward0", "LogBackward0", "MulBackward0"), gradcheck=False, int_ok=True),
    OpInfo("square", lambda lib, x: x.square(), covers=("PowBackward0",), int_ok=True, **C),
    # ---- activations
    # float32 second derivative: torch's log_sigmoid_double_backward computes (sigmoid(x) - 1) * sigmoid(x), which
    # cancels for large x; dyngrad's sigmoid(-x) * (1 - sigmoid(-x)) does not (1% apart at 1e-3 on a drawn example)
    OpInfo("logsigmoid", lambda lib, x: F(lib).logsigmoid(x * 20),
           covers=("LogSigmoidBackward0", "SigmoidBackward0", "NegBackward0", "MulBackward0"),
           tol={"float32": dict(rtol=1e-4, atol=1e-4)}, **C),
    OpInfo("softplus", lambda lib, x: F(lib).softplus(x), covers=("SoftplusBackward0", "SigmoidBackward0"), **C),
    OpInfo("softplus_beta_threshold", lambda lib, x: F(lib).softplus(x * 3, beta=2, threshold=4),
           covers=("SoftplusBackward0", "SigmoidBackward0", "MulBackward0"), gradcheck=False, ties=True, **C),
    OpInfo("relu6", lambda lib, x: F(lib).relu6(x * 3), covers=("HardtanhBackward0", "MulBackward0"), ties=True,
           gradcheck=False, int_ok=True, **C),
    OpInfo("hardtanh", lambda lib, x: F(lib).hardtanh(x), covers=("HardtanhBackward0",), ties=True,
           gradcheck=False, int_ok=True, **C),
    OpInfo("hardtanh_inplace", lambda lib, x: F(lib).hardtanh(x * 1, -0.5, 1.0, inplace=True),
           covers=("HardtanhBackward0", "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("leaky_relu", lambda lib, x: F(lib).leaky_relu(x, 0.2), covers=("LeakyReluBackward0",), ties=True,
           gradcheck=False, **C),
    OpInfo("leaky_relu_inplace", lambda lib, x: F(lib).leaky_relu(x * 1, inplace=True),
           covers=("LeakyReluBackward1", "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("elu", lambda lib, x: F(lib).elu(x * 3, alpha=1.5), covers=("EluBackward0", "ExpBackward0", "WhereBackward0",
           "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("elu_inplace", lambda lib, x: F(lib).elu(x * 1, inplace=True), covers=("EluBackward1", "MulBackward0"), **C),
    OpInfo("selu", lambda lib, x: lib.selu(x * 3), covers=("EluBackward0", "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("selu_functional", lambda lib, x: F(lib).selu(x), covers=("EluBackward0",), **C),
    OpInfo("celu", lambda lib, x: F(lib).celu(x, alpha=0.7), covers=("CeluBackward0",), ties=True, gradcheck=False, **C),
    OpInfo("celu_inplace", lambda lib, x: lib.celu_(x * 1, 2.0), covers=("CeluBackward1", "MulBackward0"), **C),
    OpInfo("gelu", lambda lib, x, approximate: F(lib).gelu(x * 2, approximate=approximate),
           covers=("GeluBackward0", "ErfBackward0", "TanhBackward0", "MulBackward0"), params=_approximate, **C),
    OpInfo("silu", lambda lib, x: F(lib).silu(x * 3), covers=("SiluBackward0", "SigmoidBackward0", "MulBackward0")),
    OpInfo("mish", lambda lib, x: F(lib).mish(x * 2),
           covers=("MishBackward0", "SoftplusBackward0", "TanhBackward0", "SigmoidBackward0", "MulBackward0"), **C),
    # torch has no derivative of hardsigmoid_backward (second order raises there): first order only.
    OpInfo("hardsigmoid", lambda lib, x: F(lib).hardsigmoid(x * 1.5), covers=("HardsigmoidBackward0", "MulBackward0"),
           ties=True, gradcheck=False, second_order=False, **C),
    OpInfo("hardswish", lambda lib, x: F(lib).hardswish(x * 1.5), covers=("HardswishBackward0", "MulBackward0"),
           ties=True, gradcheck=False, **C),
    OpInfo("threshold", lambda lib, x: F(lib).threshold(x, 0.5, -3.0), covers=("ThresholdBackward0",), ties=True,
           gradcheck=False, **C),
    OpInfo("threshold_inplace", lambda lib, x: F(lib).threshold(x * 1, 0.0, 2.0, inplace=True),
           covers=("ThresholdBackward1", "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("relu_functional_inplace", lambda lib, x: F(lib).relu(x * 1, inplace=True) + lib.relu(x),
           covers=("ReluBackward0", "MulBackward0", "AddBackward0"), ties=True, gradcheck=False, **C),
    # ---- binary
    OpInfo("atan2", lambda lib, x, y: lib.atan2(x, y), broadcast_pair(), covers=("Atan2Backward0", "ReciprocalBackward0"),
           domain=NONZERO, **C),
    OpInfo("maximum", lambda lib, x, y: lib.maximum(x, y), broadcast_pair(), covers=("MaximumBackward0",), ties=True,
           gradcheck=False, int_ok=True, **C),
    OpInfo("minimum", lambda lib, x, y: x.minimum(y), broadcast_pair(), covers=("MinimumBackward0",), ties=True,
           gradcheck=False, int_ok=True, **C),
    OpInfo("fmax", lambda lib, x, y: lib.fmax(x, y.sqrt()), broadcast_pair(), covers=("FmaxBackward0", "SqrtBackward0"),
           ties=True, gradcheck=False, **C),
    OpInfo("fmin", lambda lib, x, y: lib.fmin(x.sqrt(), y), broadcast_pair(), covers=("FminBackward0", "SqrtBackward0"),
           ties=True, gradcheck=False, **C),
    OpInfo("xlogy", lambda lib, x, y: lib.xlogy(x, y), broadcast_pair(), covers=("XlogyBackward0",), domain=POSITIVE, **C),
    OpInfo("xlogy_zeros", lambda lib, x, y: lib.xlogy(x, y), broadcast_pair(), covers=("XlogyBackward0",), ties=True,
           gradcheck=False, **C),
    OpInfo("xlogy_scalar_self", lambda lib, x: lib.xlogy(2.0, x), covers=("XlogyBackward1",), domain=POSITIVE, **C),
    OpInfo("xlogy_scalar_other", lambda lib, x: lib.xlogy(x, 3.0) + x.xlogy(-1.0),
           covers=("XlogyBackward2", "AddBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("logaddexp", lambda lib, x, y: lib.logaddexp(x, y), broadcast_pair(), covers=("LogaddexpBackward0",), **C),
    OpInfo("hypot", lambda lib, x, y: lib.hypot(x, y), broadcast_pair(), covers=("HypotBackward0",), domain=NONZERO, **C),
    OpInfo("copysign", lambda lib, x, y: lib.copysign(x, y), broadcast_pair(), covers=("CopysignBackward0",),
           domain=NONZERO, **C),
    OpInfo("copysign_scalar", lambda lib, x: x.copysign(-2.0), covers=("CopysignBackward1",), ties=True, gradcheck=False, **C),
    OpInfo("remainder", lambda lib, x, y: lib.remainder(x, y), broadcast_pair(), covers=("RemainderBackward1",),
           domain=NONZERO, gradcheck=False, int_ok=True, **C),
    OpInfo("remainder_scalar", lambda lib, x: x % 0.7 + lib.remainder(x, -1.5), covers=("RemainderBackward0", "AddBackward0"),
           gradcheck=False, int_ok=True, **C),
    OpInfo("fmod", lambda lib, x, y: lib.fmod(x, y), broadcast_pair(), covers=("FmodBackward1",), domain=NONZERO,
           gradcheck=False, int_ok=True, **C),
    OpInfo("fmod_scalar", lambda lib, x: x.fmod(0.7), covers=("FmodBackward0",), gradcheck=False, int_ok=True, **C),
    OpInfo("div_rounding", lambda lib, x, y, mode: lib.div(x, y, rounding_mode=mode), broadcast_pair(),
           covers=("DivBackward2",), domain=NONZERO, gradcheck=False, int_ok=True,
           params=lambda d, s: {"mode": d.draw(st.sampled_from(["trunc", "floor"]))}, **C),
    OpInfo("floor_divide", _floor_divide_raises, covers=("NotImplemented",), int_ok=True, gradcheck=False, **C),
    OpInfo("floor_divide_ints", lambda lib, x, y: lib.floor_divide(_int(lib, x), _int(lib, y) + 10) + (x * 3).long() // 2,
           broadcast_pair(), covers=(), differentiable=False, **C),
    OpInfo("float_power", lambda lib, x, y: lib.float_power(x, y), broadcast_pair(), covers=("PowBackward1", "ToCopyBackward0"),
           domain=POSITIVE, **C),
    OpInfo("float_power_scalar", lambda lib, x: x.float_power(2), covers=("PowBackward0", "ToCopyBackward0"), int_ok=True, **C),
    # ---- ternary
    OpInfo("lerp_scalar", lambda lib, x, y: lib.lerp(x, y, 0.3) + x.lerp(y, 0.8), one_shape().map(lambda s: (s[0], s[0])),
           covers=("LerpBackward0", "AddBackward0"), **C),
    OpInfo("lerp_tensor", lambda lib, x, y, w: lib.lerp(x, y, w), _broadcast3(), covers=("LerpBackward1",), **C),
    OpInfo("addcmul", lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5), _broadcast3(), covers=("AddcmulBackward0",),
           int_ok=True, **C),
    OpInfo("addcdiv", lambda lib, x, y, z: x.addcdiv(y, z, value=2), _broadcast3(), covers=("AddcdivBackward0",),
           domain=NONZERO, **C),
    OpInfo("clamp", lambda lib, x: x.clamp(-1, 1), covers=("ClampBackward1",), ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("clamp_one_side", lambda lib, x: lib.clamp(x, min=0.0) + x.clip(max=-1.0),
           covers=("ClampBackward1", "AddBackward0"), ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("clamp_min_max_fns", lambda lib, x: lib.clamp_min(x, 0.0) + x.clamp_max(1.0),
           covers=("ClampMinBackward0", "ClampMaxBackward0", "AddBackward0"), ties=True, gradcheck=False, int_ok=True, **C),
    OpInfo("clamp_tensor", lambda lib, x, lo, hi: x.clamp(lo, hi), _same_shape3(), covers=("ClampBackward0",), ties=True,
           gradcheck=False, int_ok=True, **C),
    OpInfo("clamp_tensor_min", lambda lib, x, lo: lib.clamp(x, min=lo) + x.clip(None, lo), _same_shape2(),
           covers=("ClampBackward0", "AddBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("clamp_min_max_tensor", lambda lib, x, lo: lib.clamp_min(x, lo) * x.clamp_max(lo), _same_shape2(),
           covers=("ClampMinBackward1", "ClampMaxBackward1", "MulBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("clamp_inplace", lambda lib, x: (x * 1).clamp_(-0.5, 0.5), covers=("ClampBackward1", "MulBackward0"),
           ties=True, gradcheck=False, **C),
    OpInfo("where_nan_branch", lambda lib, x: lib.where(x > 0, x.sqrt(), x) + lib.where(x > 0, x, x.log()),
           covers=("WhereBackward0", "SqrtBackward0", "LogBackward0", "AddBackward0"), ties=True, gradcheck=False, **C),
    OpInfo("where_scalar_and_method", lambda lib, x, y: lib.where(x > y, x, 0.0) + x.where(x < y, y),
           broadcast_pair(), covers=("WhereBackward0", "AddBackward0"), **C),
    # ---- in place
    OpInfo("unary_inplace", lambda lib, x: (x * 1).log1p_().sign_() + (x * 1).square_().rsqrt_() + (x * 1).exp2_(),
           covers=("MulBackward0", "Exp2Backward0", "Log1PBackward0", "SignBackward0", "PowBackward0",
                   "RsqrtBackward0", "AddBackward0"), domain=POSITIVE, **C),
    OpInfo("binary_inplace", lambda lib, x, y: (x * 1).lerp_(y, 0.25).addcmul_(x, y).atan2_(y).hypot_(x),
           one_shape().map(lambda s: (s[0], s[0])),
           covers=("MulBackward0", "LerpBackward0", "AddcmulBackward0", "Atan2Backward0", "HypotBackward0"),
           domain=NONZERO, **C),
    # ---- comparison and logic (no grad)
    OpInfo("comparisons", lambda lib, x, y: lib.stack([x == y, x != y, x < y, lib.le(x, y), x.gt(y), lib.greater_equal(x, y)]),
           broadcast_pair(), covers=(), ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("isclose", lambda lib, x, y: lib.isclose(x, y + 1e-6) | x.isclose(y, rtol=0.1, atol=0.2),
           broadcast_pair(), covers=(), ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("allclose_equal", lambda lib, x, y: lib.tensor([lib.allclose(x, x + 1e-9), x.allclose(y), lib.equal(x, x),
                                                           x.equal(y)]), fixed((3,), (3,)), covers=(),
           differentiable=False, **C),
    OpInfo("isnan_isinf", lambda lib, x: lib.stack([x.log().isnan(), lib.isinf((x * 1e300) * 1e300),
                                                    lib.isfinite(x.log()), x.isnan()]),
           covers=(), ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("logical", lambda lib, x, y: lib.stack([lib.logical_and(x, y), x.logical_or(y), lib.logical_xor(x > 0, y),
                                                   lib.logical_not(x)]),
           broadcast_pair(), covers=(), ties=True, differentiable=False, int_ok=True, **C),
    OpInfo("bitwise_bool", lambda lib, x, y: lib.stack([(x > 0) & (y > 0), (x > 0) | (y < 0), (x > 0) ^ (y > 0), ~(x > 0),
                                                        lib.bitwise_not(x > y), True & (x > 0)]),
           broadcast_pair(), covers=(), ties=True, differentiable=False, **C),
    OpInfo("bitwise_int", lambda lib, x, y: lib.stack([_int(lib, x) & _int(lib, y), lib.bitwise_or(_int(lib, x), 5),
                                                       _int(lib, x).bitwise_xor(_int(lib, y)), ~_int(lib, x), 3 ^ _int(lib, y)]),
           broadcast_pair(), covers=(), differentiable=False, **C),
    OpInfo("bitwise_float_errors", lambda lib, x, y: x & y, broadcast_pair(), covers=(), differentiable=False, **C),
    OpInfo("invert_float_error", lambda lib, x: ~x, covers=(), differentiable=False, **C),
]


ROWS += [
    OpInfo("logit", lambda lib, x: lib.logit(x), covers=("LogitBackward0", "WhereBackward0"), domain=(0.05, 0.95),
           int_ok=True, **C),
    OpInfo("logit_outside", lambda lib, x: x.logit(), covers=("LogitBackward0",), domain=(-0.5, 1.5), gradcheck=False, **C),
    OpInfo("logit_eps", lambda lib, x, eps: x.logit(eps), covers=("LogitBackward0",), domain=(-0.2, 1.2),
           params=lambda d, s: {"eps": d.draw(st.sampled_from([0.0, 0.1, 0.25, -1.0]))}, gradcheck=False, **C),
]


# Complex-only rows: ops whose forward torch runs on complex numbers but whose gradient it refuses to record
# (silu, nan_to_num: one row for the refusal, one for the values), and complex arguments of real-capable ops.
ROWS += [
    OpInfo("silu_complex_refuses_grad", lambda lib, x: F(lib).silu(x * 3), covers=("SiluBackward0",), gradcheck=False,
           **COMPLEX),
    OpInfo("silu_complex", lambda lib, x: F(lib).silu(x * 3), covers=("SiluBackward0",), differentiable=False, **COMPLEX),
    OpInfo("nan_to_num_complex_refuses_grad", lambda lib, x: x.nan_to_num(), covers=("NanToNumBackward0",),
           gradcheck=False, **COMPLEX),
    OpInfo("nan_to_num_complex", lambda lib, x: (x.log() * 1e300 * 1e10).nan_to_num(nan=1.5, neginf=-7.0),
           covers=("NanToNumBackward0",), ties=True, differentiable=False, **COMPLEX),
    OpInfo("where_complex", lambda lib, x, y: lib.where(x.real > y.real, x, y) + lib.where(x.imag > 0, x, 1j)
           + lib.where(x.abs() > 1, 2.0, 1j), broadcast_pair(), covers=("WhereBackward0", "AddBackward0"), **COMPLEX),
    OpInfo("comparisons_complex", lambda lib, x, y: lib.stack([x == y, x != y, x == 1j, lib.ne(x, 0.5), x.eq(y),
                                                               lib.isclose(x, y, rtol=0.5, atol=0.5)]),
           broadcast_pair(), covers=(), ties=True, differentiable=False, **COMPLEX),
    OpInfo("logical_complex", lambda lib, x, y: lib.stack([lib.logical_and(x, y), x.logical_or(y), lib.logical_xor(x, y),
                                                           lib.logical_not(x), x.bool()]),
           broadcast_pair(), covers=(), ties=True, differentiable=False, **COMPLEX),
    OpInfo("isnan_isinf_complex", lambda lib, x: lib.stack([(x.log() * 1e300 * 1e10).isnan(), lib.isinf(x.log() * 1e300),
                                                            lib.isfinite(x.log()), x.isnan()]),
           covers=(), ties=True, differentiable=False, **COMPLEX),
    OpInfo("lerp_complex_weight", lambda lib, x, y: lib.lerp(x, y, 0.3 - 0.4j) + x.lerp(y, 1.5j),
           one_shape().map(lambda s: (s[0], s[0])), covers=("LerpBackward0", "AddBackward0"), **COMPLEX),
    OpInfo("addcmul_complex_value", lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5 - 1j)
           + x.addcdiv(y, z, value=2j), _broadcast3(), covers=("AddcmulBackward0", "AddcdivBackward0", "AddBackward0"),
           domain=NONZERO, **C),
    OpInfo("float_power_inplace", lambda lib, x: (x * 1).float_power_(2) + (x * 1).float_power_(x),
           covers=("PowBackward0", "PowBackward1", "MulBackward0", "AddBackward0"), domain=POSITIVE, **C),
    OpInfo("sgn_abs_inplace", lambda lib, x: (x * 1).sgn_() + (x * 1).abs_(),
           covers=("SgnBackward0", "AbsBackward0", "MulBackward0", "AddBackward0"), domain=NONZERO, **C),
    OpInfo("logit_inplace", lambda lib, x: (x * 1).logit_(0.1), covers=("LogitBackward0", "MulBackward0"),
           domain=(0.05, 0.95), **C),
]

ROWS += [
    OpInfo("sinc", lambda lib, x: lib.sinc(x * 2) + lib.special.sinc(x) + (x * 1).sinc_(), covers=("SincBackward0", "MulBackward0",
           "AddBackward0"), ties=True, int_ok=True, **C),
]

ROWS += [
    OpInfo("inverse_hyperbolic_inplace", _inplace_without_derivative,
           covers=("AsinhBackward1", "AcoshBackward1", "AtanhBackward1"), gradcheck=False, **C),
    # the in-place forms of ops torch runs on complex values (the rows above with in-place ops meet a refusal first)
    # (an op saving its result is last in each chain: changing a saved value in place is an error at backward)
    OpInfo("inplace_complex_capable", lambda lib, x, y: (x * 1).log1p_().square_().rsqrt_() + (x * 1).exp2_()
           + (x * 1).lerp_(y, 0.25).addcmul_(x, y, value=0.5 - 1j).addcdiv_(x, y, value=2) + (x * 1).sinh_().sigmoid_()
           + (y * 1).atan_().reciprocal_() + (y * 1).tan_(), one_shape().map(lambda s: (s[0], s[0])),
           covers=("MulBackward0", "Log1PBackward0", "PowBackward0", "RsqrtBackward0", "Exp2Backward0", "TanBackward0",
                   "LerpBackward0", "AddcmulBackward0", "AddcdivBackward0", "SigmoidBackward0", "SinhBackward0",
                   "ReciprocalBackward0", "AtanBackward0", "AddBackward0"),
           domain=(0.3, 0.8), **COMPLEX),
]
