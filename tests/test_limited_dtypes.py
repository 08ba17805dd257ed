"""torch's limited-support dtypes (uint16/32/64, float8), torch.hash_tensor and torch._scaled_mm, against torch."""

import numpy as np
import pytest
import torch

import dyngrad

UINTS = ("uint16", "uint32", "uint64")
FLOAT8 = ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")
OTHERS = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex32") + UINTS + FLOAT8


def outcome(fn):
    """(repr of the result, or the error's type and text)."""
    try:
        return ("ok", repr(fn()))
    except Exception as e:  # noqa: BLE001 - the error is the compared value
        return (type(e).__name__, str(e))


def both(expr: str, **env):
    t = outcome(lambda: eval(expr, {"torch": torch, **{k: v[0] for k, v in env.items()}}))
    d = outcome(lambda: eval(expr, {"torch": dyngrad, **{k: v[1] for k, v in env.items()}}))
    return t, d


@pytest.mark.parametrize("name", UINTS + FLOAT8)
def test_dtype_attributes(name):
    for attr in ("is_floating_point", "is_complex", "is_signed", "itemsize"):
        assert getattr(getattr(dyngrad, name), attr) == getattr(getattr(torch, name), attr), attr
    assert repr(getattr(dyngrad, name)) == repr(getattr(torch, name))
    t, d = both(f"torch.{name}.to_complex()")
    assert t == d
    info = "iinfo" if name in UINTS else "finfo"
    t, d = both(f"torch.{info}(torch.{name})")
    assert t == d


@pytest.mark.parametrize("name", UINTS + FLOAT8)
@pytest.mark.parametrize("other", OTHERS)
def test_promote_types(name, other):
    for expr in (f"torch.promote_types(torch.{name}, torch.{other})", f"torch.promote_types(torch.{other}, torch.{name})"):
        t, d = both(expr)
        assert t == d, expr


UINT_EXPRS = [
    "a + b", "a - 1", "a * b", "a * 2", "a / b", "a // b", "a % b", "-a", "abs(a)", "a < b", "a <= 2", "a > b",
    "a >= 2", "a == b", "a != 1", "a & b", "a | b", "a ^ b", "a.sum()", "a.prod()", "a.cumsum(0)", "a.sort()",
    "a.unique()", "a.max()", "a.min()", "a.amax()", "a.max(0)", "a.clamp(0, 5)", "torch.maximum(a, b)", "a.sqrt()",
    "a.exp()", "a.float()", "a.double()", "a.long()", "a.to(torch.int8)", "a.to(torch.float16)", "a.pow(2)",
    "a.sum(dtype=a.dtype)", "a.topk(1)", "a.kthvalue(1)", "a.median()", "a.index_select(0, torch.tensor([0]))",
    "a.gather(0, torch.tensor([0]))", "a.masked_fill(a == 1, 0)", "torch.cat([a, b])", "torch.stack([a, b])",
    "a.clone()", "a[0]", "a[0].item()", "a.tolist()", "a.reshape(3, 1)", "a.t()", "a.mean()", "a.std()",
    "a + torch.tensor([1])", "a + torch.tensor(1.5)", "a + 1.5", "a.type()", "str(a)", "a.flip(0)", "a.relu()",
    "a.sign()", "a.neg()", "a.cummax(0)", "a.mode()", "a.fmod(2)", "a.remainder(b)", "a.dot(b)",
    "a.logcumsumexp(0)", "a.argmax()", "a.argmin(0)", "a.nonzero()", "a.count_nonzero()", "~a", "a << 1", "a >> b",
    "a.bincount()", "torch.searchsorted(a.sort()[0], b)", "torch.bucketize(b, a.sort()[0])", "a.histc()",
    "a.logical_not()", "a.logical_and(b)", "a.clone().add_(b)", "a.clone().mul_(b)", "a.clone().sub_(1)",
    "torch.arange(3, dtype=a.dtype)", "torch.eye(2, dtype=a.dtype)", "torch.linspace(0, 1, 3, dtype=a.dtype)",
    "torch.randperm(3, dtype=a.dtype)", "a.reshape(3, 1).mm(b.reshape(1, 3))", "a.reshape(3, 1).expand(3, 3).trace()",
    "a.numpy().dtype", "a.hash_tensor()", "a.view(torch.int8)", "a.to(torch.float8_e4m3fn)",
]




@pytest.mark.parametrize("name", UINTS)
@pytest.mark.parametrize("expr", UINT_EXPRS)
def test_unsigned_ops(name, expr):
    values = ([1, 2, 300], [5, 1, 7])
    env = {k: (torch.tensor(v, dtype=getattr(torch, name)), dyngrad.tensor(v, dtype=getattr(dyngrad, name)))
           for k, v in zip("ab", values)}
    t, d = both(expr, **env)
    assert t == d


@pytest.mark.parametrize("name", UINTS)
def test_unsigned_casts(name):
    src = [-1.7, -1.5, 0.0, 3.9, 70000.7, 3e9, 1.5e19, float("nan")]
    for dt in ("float32", "float64"):
        t, d = both(f"torch.tensor(src, dtype=torch.{dt}).to(torch.{name})", src=(src, src))
        assert t == d
    ints = [-1, 2**40, 70000, 2**62]
    t, d = both(f"torch.tensor(ints).to(torch.{name})", ints=(ints, ints))
    assert t == d
    for v in (2**16, 2**32, -1, 1000.0, 1e6, 1e40, float("inf")):
        t, d = both(f"torch.full((2,), v, dtype=torch.{name})", v=(v, v))
        assert t == d, v


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("src", ("float32", "float64", "float16", "int64"))
def test_float8_casts_bitwise(name, src):
    """Every float16 value and a wide spread of float32 values (overflow, NaN, subnormals), cast as torch does."""
    rng = np.random.default_rng(0)
    vals = np.concatenate([np.arange(2**16, dtype=np.uint16).view(np.float16).astype(np.float64),
                           rng.standard_normal(20000) * 10.0 ** rng.integers(-45, 39, 20000),
                           [np.inf, -np.inf, np.nan, 1e38, -1e38, 464.0, -464.0, 448.5, 57344.0, 61440.0]])
    with np.errstate(all="ignore"):
        if src == "int64":
            vals = np.nan_to_num(vals).clip(-2**62, 2**62).astype(np.int64)
        else:
            vals = vals.astype(src)
    expected = torch.from_numpy(vals).to(getattr(torch, name)).view(torch.uint8).numpy()
    got = dyngrad.from_numpy(vals).to(getattr(dyngrad, name)).view(dyngrad.uint8).numpy()
    np.testing.assert_array_equal(got, expected)
    back = torch.from_numpy(expected).view(getattr(torch, name)).float().numpy()
    got_back = dyngrad.from_numpy(got).view(getattr(dyngrad, name)).float().numpy()
    np.testing.assert_array_equal(got_back, back)


FLOAT8_EXPRS = [
    "f + f", "f * 2", "f * f", "f.float()", "f.sum()", "f.abs()", "-f", "f == f", "f < f", "f.clone()", "f[0]",
    "f.tolist()", "torch.cat([f, f])", "f.view(torch.uint8)", "f.to(torch.float8_e5m2)", "f.to(torch.bfloat16)",
    "f.reshape(2, 4)", "f.mean()", "f.max()", "f.sqrt()", "f.exp()", "f.neg()", "f.div(f)", "f.div(2)", "f.type()",
    "str(f)", "f.to(torch.int32)", "torch.full((2,), 1000.0, dtype=f.dtype)", "f.sort()", "f.cumsum(0)",
    "f.clamp(0, 1)", "f.sigmoid()", "f.argmax()", "f.nonzero()", "f.isinf()", "f.isfinite()", "f.isnan()",
    "f.signbit()", "f.logical_not()", "torch.isclose(f, f)", "f.argsort()", "torch.unique_consecutive(f)",
    "f.clone().add_(f)", "f // f", "torch.heaviside(f, f)", "f.std()", "f.var()", "f.reshape(2, 4).std(0)",
    "f.histc()", "torch.rand(2, dtype=f.dtype)", "torch.randn(2, dtype=f.dtype)", "torch.arange(3, dtype=f.dtype)",
    "f.reshape(2, 4).mm(f.reshape(4, 2))", "f.reshape(2, 4)[:, :2].trace()", "f.numpy()", "f.hash_tensor()",
    "f.clone().fill_(3.0)", "f.clone().zero_()", "f[f == f]", "torch.where(f == f, f, f)", "f.flip(0)",
    "f.index_select(0, torch.tensor([1, 0]))", "f.to(torch.uint32)", "f.to(torch.int64)", "f.bool()",
]


@pytest.mark.parametrize("name", ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu"))
@pytest.mark.parametrize("expr", FLOAT8_EXPRS)
def test_float8_ops(name, expr):
    x = [0.1, 1.7, 500.0, -1000.0, float("nan"), float("inf"), 1e-9, 3e-3]
    env = {"f": (torch.tensor(x).to(getattr(torch, name)), dyngrad.tensor(x).to(getattr(dyngrad, name)))}
    t, d = both(expr, **env)
    assert t == d


HASH_EXPRS = [
    "torch.hash_tensor(a)", "torch.hash_tensor(a, 0)", "torch.hash_tensor(a, 1, keepdim=True)",
    "torch.hash_tensor(a, (0, 1))", "torch.hash_tensor(a, [])", "torch.hash_tensor(a, None)", "a.hash_tensor(-1)",
    "torch.hash_tensor(a, mode=1)", "torch.hash_tensor(a, 3)", "torch.hash_tensor(a, (0, 0))",
    "torch.hash_tensor(torch.zeros(2, 0), 1)", "torch.hash_tensor(torch.zeros(2, 0), 0)",
    "torch.hash_tensor(torch.zeros(0))", "torch.hash_tensor(torch.tensor(3.0))", "torch.hash_tensor(torch.tensor(3.0), 0)",
    "torch.hash_tensor(torch.tensor([1 + 1j]))", "torch.hash_tensor(torch.tensor([5], dtype=torch.uint32))",
    "torch.hash_tensor(torch.tensor([-3, 7, 2**40]))", "torch.hash_tensor(torch.tensor([-3, 7], dtype=torch.int8))",
    "torch.hash_tensor(torch.tensor([200, 7], dtype=torch.uint8))", "torch.hash_tensor(torch.tensor([True, True, False]))",
    "torch.hash_tensor(torch.tensor([1.1, -2.7], dtype=torch.float16))",
    "torch.hash_tensor(torch.tensor([1.1, -2.7], dtype=torch.bfloat16))",
    "torch.hash_tensor(torch.tensor([float('nan'), -0.0]))",
    "torch.hash_tensor(torch.arange(24.).reshape(2, 3, 4).transpose(0, 2), (0, 2))",
    "torch.hash_tensor(a, 0, out=torch.empty(3, dtype=torch.int64))", "torch.hash_tensor(a).requires_grad",
]


@pytest.mark.parametrize("expr", HASH_EXPRS)
def test_hash_tensor(expr):
    x = [[1.5, -2.0, 3.25], [0.0, -0.0, 7.0]]
    env = {"a": (torch.tensor(x, requires_grad=True), dyngrad.tensor(x, requires_grad=True))}
    t, d = both(expr, **env)
    assert t == d


def test_hash_tensor_out():
    x = torch.randn(3, 4, dtype=torch.float64)
    out_t, out_d = torch.empty(4, dtype=torch.uint64), dyngrad.empty(4, dtype=dyngrad.uint64)
    torch.hash_tensor(x, 0, out=out_t)
    dyngrad.hash_tensor(dyngrad.from_numpy(x.numpy()), 0, out=out_d)
    np.testing.assert_array_equal(out_d.numpy(), out_t.numpy())


def _fp8(t):
    return dyngrad.from_numpy(t.view(torch.uint8).numpy().copy()).view(getattr(dyngrad, repr(t.dtype)[6:]))


@pytest.mark.parametrize("dtypes", [("float8_e4m3fn", "float8_e4m3fn"), ("float8_e4m3fn", "float8_e5m2"),
                                    ("float8_e5m2", "float8_e4m3fn")])
@pytest.mark.parametrize("kwargs", ["", "out_dtype=torch.float32", "out_dtype=torch.bfloat16, bias=bias",
                                    "out_dtype=torch.float8_e4m3fn, scale_result=sr", "scale_result=sr"])
def test_scaled_mm(dtypes, kwargs):
    g = torch.Generator().manual_seed(0)
    a = (torch.randn(5, 8, generator=g) * 30).to(getattr(torch, dtypes[0]))
    b = (torch.randn(3, 8, generator=g) * 30).to(getattr(torch, dtypes[1])).t()
    sa, sb, sr = torch.tensor(0.5), torch.tensor(0.25), torch.tensor(4.0)
    bias = torch.randn(3, generator=g).to(torch.bfloat16)
    env = {"a": (a, _fp8(a)), "b": (b, _fp8(b)), "sa": (sa, dyngrad.tensor(0.5)), "sb": (sb, dyngrad.tensor(0.25)),
           "sr": (sr, dyngrad.tensor(4.0)), "bias": (bias, dyngrad.tensor(bias.float().numpy()).to(dyngrad.bfloat16))}
    t, d = both(f"torch._scaled_mm(a, b, sa, sb, {kwargs})", **env)
    assert t == d


@pytest.mark.parametrize("expr", [
    "torch._scaled_mm(a, b, sa.reshape(1, 1).expand(5, 1).contiguous(), sb.reshape(1, 1).expand(1, 3).contiguous(),"
    " out_dtype=torch.float32)",
    "torch._scaled_mm(a, b.t(), sa, sb)", "torch._scaled_mm(a.float(), b, sa, sb)", "torch._scaled_mm(a, b, sa.double(), sb)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], None, torch.float32)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], None, None)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [1], [sb.reshape(1)], [0], [0], None, None)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [1], [0], [sb.reshape(1)], [1], [0], None, None)",
])
def test_scaled_mm_forms_and_errors(expr):
    g = torch.Generator().manual_seed(1)
    a = torch.randn(5, 8, generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(3, 8, generator=g).to(torch.float8_e4m3fn).t()
    env = {"a": (a, _fp8(a)), "b": (b, _fp8(b)), "sa": (torch.tensor(0.5), dyngrad.tensor(0.5)),
           "sb": (torch.tensor(2.0), dyngrad.tensor(2.0))}
    t, d = both(expr, **env)
    assert t == d


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("value", [0.0, -1.0, 448.0, 449.0, 57344.0, 1e6, 1e-40, float("inf"), float("nan"), 1e40])
@pytest.mark.parametrize("shape", [(1,), (2,), (0,), (2, 3)])
def test_float8_full(name, value, shape):
    t, d = both(f"torch.full({shape}, v, dtype=torch.{name})", v=(value, value))
    assert t == d


@pytest.mark.parametrize("expr", [
    "torch._scaled_mm(a, b, sa.reshape(1, 1).expand(5, 1).contiguous(), sb.reshape(1, 1).expand(1, 3).contiguous())",
    "torch._scaled_mm(a, b, torch.ones(5, 1), torch.ones(3, 1))", "torch._scaled_mm(a, b, torch.ones(2), sb)",
    "torch._scaled_mm(a, b[:2], sa, sb)", "torch._scaled_mm(a[0], b, sa, sb)",
    "torch._scaled_mm(a, b, sa, sb, bias=torch.ones(2))", "torch._scaled_mm(a, b, sa, sb, scale_result=torch.ones(2))",
    "torch._scaled_mm(a, b, sa, sb, out_dtype=torch.float32, out=torch.empty(2, dtype=torch.float64))",
    "torch._scaled_mm(a, b, sa, sb, out=torch.empty(0))",
    "torch._scaled_mm_v2(a, b, [torch.ones(5, 1)], [1], [0], [torch.ones(1, 3)], [1], [0], None, torch.float32)",
    "torch._scaled_mm_v2(a, b, [torch.ones(5, 1)], [1], [0], [torch.ones(3)], [1], [0], None, torch.float32)",
    "torch._scaled_mm_v2(a, b, [torch.ones(2)], [0], [0], [sb.reshape(1)], [0], [0], None, torch.float32)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [1], [0], None, None)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], torch.ones(3), torch.float32)",
    "torch._scaled_mm_v2(a, b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], torch.ones(3).double(), None)",
    "torch._scaled_mm_v2(a[:0], b, [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], None, None)",
    "torch._scaled_mm_v2(a[:, :0], b[:0], [sa.reshape(1)], [0], [0], [sb.reshape(1)], [0], [0], None, torch.float32)",
])
def test_scaled_mm_scales_and_checks(expr):
    g = torch.Generator().manual_seed(2)
    a = torch.randn(5, 8, generator=g).to(torch.float8_e4m3fn)
    b = torch.randn(3, 8, generator=g).to(torch.float8_e5m2).t()
    env = {"a": (a, _fp8(a)), "b": (b, _fp8(b)), "sa": (torch.tensor(0.5), dyngrad.tensor(0.5)),
           "sb": (torch.tensor(2.0), dyngrad.tensor(2.0))}
    t, d = both(expr, **env)
    assert t == d


@pytest.mark.parametrize("name", UINTS + FLOAT8)
def test_checkpoints_both_ways(name):
    """torch.save -> dyngrad.load -> dyngrad.save -> torch.load keeps dtype, bytes, strides and shared storage."""
    import io

    if name in UINTS:
        t = torch.tensor([1, 2, 2**15, 7], dtype=getattr(torch, name))
    else:
        t = torch.tensor([1.0, 2.0, 300.0, 0.5]).to(getattr(torch, name))
    t = t.reshape(2, 2).t()
    buf = io.BytesIO()
    torch.save({"x": t, "dt": t.dtype}, buf)
    buf.seek(0)
    loaded = dyngrad.load(buf)
    x = loaded["x"]
    assert loaded["dt"] is getattr(dyngrad, name) and x.dtype is getattr(dyngrad, name)
    assert x.stride() == t.stride() and str(x) == str(t)
    buf = io.BytesIO()
    dyngrad.save({"x": x, "row": x[1]}, buf)
    buf.seek(0)
    back = torch.load(buf)
    assert back["x"].dtype == t.dtype and back["x"].stride() == t.stride()
    assert torch.equal(back["x"].contiguous().view(torch.uint8), t.contiguous().view(torch.uint8))
    assert back["row"].untyped_storage().data_ptr() == back["x"].untyped_storage().data_ptr()


CREATION_EXPRS = [
    "torch.tensor([500., -1000., 1e-9, float('inf')], dtype=torch.float8_e4m3fn)",
    'torch.tensor([500., 70000.], dtype=torch.float8_e5m2)',
    'torch.tensor([0., -2.], dtype=torch.float8_e8m0fnu)',
    'torch.tensor(3.3, dtype=torch.float8_e4m3fn)',
    'torch.tensor([1, 2], dtype=torch.float8_e4m3fn)',
    'torch.as_tensor([500.], dtype=torch.float8_e4m3fn)',
    'torch.zeros(2, dtype=torch.float8_e4m3fn)',
    'torch.ones(2, dtype=torch.float8_e8m0fnu)',
    'torch.zeros(2, dtype=torch.float8_e4m3fn).fill_(500.)',
    'torch.zeros(1, dtype=torch.float8_e4m3fn).fill_(500.)',
    'torch.zeros(3, dtype=torch.float8_e4m3fn).copy_(torch.tensor([500., 1., 2.]))',
    'torch.zeros(3, dtype=torch.float32).copy_(torch.tensor([500., 1., 2.]).to(torch.float8_e4m3fn))',
    'torch.zeros(3, dtype=torch.float8_e4m3fn).index_put_((torch.tensor([0]),), torch.tensor([500.]))',
    'torch.tensor([2**64-1], dtype=torch.uint64)',
    'torch.tensor([2**63], dtype=torch.uint64)',
    'torch.tensor(2**63, dtype=torch.uint64)',
    'torch.tensor([2**64], dtype=torch.uint64)',
    'torch.tensor([-1, 2**32+5], dtype=torch.uint32)',
    'torch.tensor([1.5, -1.5], dtype=torch.uint16)',
    'torch.tensor([2**63-1, 2**63+1]).dtype',
    'torch.tensor([5], dtype=torch.uint64).item()',
    'torch.tensor([1,2], dtype=torch.uint32).tolist()',
    'torch.tensor([1,2], dtype=torch.uint32)[0]',
    'int(torch.tensor([7], dtype=torch.uint16))',
    'float(torch.tensor([7.], dtype=torch.float8_e4m3fn))',
    'torch.tensor([1.5]).to(torch.float8_e4m3fn).item()',
    'torch.tensor([1.5]).to(torch.float8_e4m3fn)[0]',
    'torch.tensor([1, 2], dtype=torch.uint16) == 1',
    'torch.tensor([1, 2], dtype=torch.uint16).eq(torch.tensor([1, 2], dtype=torch.uint16))',
    'torch.tensor([1, 2], dtype=torch.uint16) * 1.5',
    'torch.tensor([1, 2], dtype=torch.uint16) / 2',
    'torch.tensor([1, 2], dtype=torch.uint16).float().dtype',
    'torch.tensor([1, 2], dtype=torch.uint16).half()',
    'torch.tensor([1, 2], dtype=torch.uint16).bool()',
    'torch.tensor([1, 2], dtype=torch.uint16).type(torch.uint32)',
    "torch.tensor([1, 2], dtype=torch.uint16).type('torch.UInt32Tensor')",
    'torch.tensor([1, 2], dtype=torch.uint16).to(dtype=torch.float8_e4m3fn)',
    'torch.tensor([1,2]).to(torch.float8_e4m3fn).to(torch.uint16)',
    'torch.tensor([1.5, 2.5]).to(torch.float8_e4m3fn).requires_grad_()',
    'torch.tensor([1., 2.], dtype=torch.float8_e4m3fn, requires_grad=True)',
    'torch.tensor([1, 2], dtype=torch.uint16, requires_grad=True)',
    'torch.tensor([1, 2], dtype=torch.uint16).sum().dtype',
    'torch.tensor([1, 2], dtype=torch.uint64).prod()',
    'torch.tensor([1, 2], dtype=torch.uint64).cumsum(0)',
    'torch.empty(2, dtype=torch.uint16).dtype',
    'torch.zeros_like(torch.tensor([1.]), dtype=torch.uint32)',
    'torch.result_type(torch.tensor([1], dtype=torch.uint32), 1.5)',
    'torch.result_type(torch.tensor([1.]).to(torch.float8_e4m3fn), 1j)',
    'torch.can_cast(torch.uint32, torch.int64)',
    'torch.can_cast(torch.float8_e4m3fn, torch.float32)',
    'torch.tensor([1,2], dtype=torch.uint8).to(torch.uint32) + torch.tensor([1,2], dtype=torch.uint8)',
    'torch.where(torch.tensor([True, False]), torch.tensor([1, 2], dtype=torch.uint16), 0)',
    'torch.tensor([3, 1, 2], dtype=torch.uint64).sort().values',
    'torch.tensor([3, 1, 2**63+5], dtype=torch.uint64).sort().values',
    'torch.tensor([3, 1, 3], dtype=torch.uint64).unique(return_counts=True)',
    'torch.tensor([2**63+5], dtype=torch.uint64).double()',
    'torch.tensor([2**63+5], dtype=torch.uint64).long()',
    'torch.tensor([2**63+5], dtype=torch.uint64).float()',
    'torch.tensor([2**63+5], dtype=torch.uint64).sum()',
    'torch.tensor([2**32+5], dtype=torch.uint64).to(torch.uint32)',
    'torch.tensor([1.0]).to(torch.float8_e4m3fn).is_floating_point()',
    'torch.is_floating_point(torch.tensor([1], dtype=torch.uint16))',
    'torch.tensor([1], dtype=torch.uint16).is_signed()',
    'torch.tensor([1.]).to(torch.float8_e8m0fnu).is_signed()',
    'torch.tensor([1], dtype=torch.uint16).element_size()',
    'torch.tensor([1]).to(torch.float8_e5m2).element_size()',
    'torch.tensor([1], dtype=torch.uint16).new_zeros(2)',
    'torch.tensor([1], dtype=torch.uint16).new_tensor([3, 4])',
    'torch.tensor([1], dtype=torch.uint16).new_full((2,), 70000)',
]


@pytest.mark.parametrize("expr", CREATION_EXPRS)
def test_creation_casts_and_queries(expr):
    """Making, filling, copying, converting and asking about tensors of the limited dtypes."""
    t, d = both(expr)
    assert t == d


def test_without_ml_dtypes_float8_exists_and_tensors_name_the_extra():
    """In a fresh interpreter where ml_dtypes cannot be imported: the float8 dtypes print, refuse promotion and have
    torch's finfo; making a tensor of one raises a RuntimeError naming the extra; uint16/32/64 work (NumPy's)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['ml_dtypes'] = None\n"
        "import dyngrad\n"
        "d = dyngrad.float8_e4m3fn\n"
        "print(repr(d), d.is_floating_point, d.itemsize, repr(dyngrad.finfo(d)))\n"
        "try:\n"
        "    dyngrad.promote_types(d, dyngrad.float32)\n"
        "except RuntimeError as e:\n"
        "    print(e)\n"
        "for make in (lambda: dyngrad.zeros(2, dtype=d), lambda: dyngrad.ones(2).to(d),\n"
        "             lambda: dyngrad.tensor([1.0], dtype=dyngrad.float8_e5m2)):\n"
        "    try:\n"
        "        make()\n"
        "    except RuntimeError as e:\n"
        "        print(e)\n"
        "print(dyngrad.tensor([1, 2], dtype=dyngrad.uint32) * 3)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    f8 = torch.float8_e4m3fn
    assert out[0] == f"{f8!r} True 1 {torch.finfo(f8)!r}"
    with pytest.raises(RuntimeError) as info:
        torch.promote_types(f8, torch.float32)
    assert out[1] == str(info.value)
    assert out[2:5] == [dyngrad._dtype.NO_FLOAT8] * 3
    assert "pip install 'dyngrad[bfloat16]'" in out[2]
    assert out[5] == str(torch.tensor([1, 2], dtype=torch.uint32) * 3)


@pytest.mark.parametrize("name", FLOAT8)
@pytest.mark.parametrize("target", ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64",
                                    "float16", "bfloat16", "float32", "float64") + FLOAT8)
def test_float8_casts_out_every_value(name, target):
    """All 256 values of each float8 type cast to every dtype, compared with torch's bytes."""
    bits = torch.arange(256, dtype=torch.int64).to(torch.uint8)
    t = bits.view(getattr(torch, name)).to(getattr(torch, target))
    d = dyngrad.from_numpy(bits.numpy().copy()).view(getattr(dyngrad, name)).to(getattr(dyngrad, target))
    assert d.dtype is getattr(dyngrad, target)
    expected = t.view(torch.uint8) if t.element_size() == 1 else t.contiguous().view(torch.uint8)
    np.testing.assert_array_equal(d.view(dyngrad.uint8).numpy(), expected.numpy())


# data movement and products, on 2-D tensors (torch.take_along_dim of float8 and torch.combinations of uint16/32/64
# name another kernel than torch's: left out, see docs/differences.md)
MOVEMENT_EXPRS = [
    'f.flip(0)',
    'f.fliplr()',
    'f.flipud()',
    'f.rot90()',
    'f.tril()',
    'f.triu()',
    'f.diag()',
    'f.diagonal()',
    'f.narrow(0, 0, 1)',
    'f.take(torch.tensor([0, 1]))',
    'f.masked_select(f == f)',
    'f.movedim(0, 1)',
    'f.swapaxes(0, 1)',
    'f.unfold(1, 2, 1)',
    'f.chunk(2)',
    'f.split(1)',
    'f.tensor_split(2)',
    'torch.hstack([f, f])',
    'torch.vstack([f, f])',
    'torch.dstack([f, f])',
    'torch.column_stack([f, f])',
    'f.repeat_interleave(2)',
    'f.expand(2, 2, 4)',
    'torch.broadcast_to(f, (2, 2, 4))',
    'f.flatten()',
    'f.unflatten(1, (2, 2))',
    'f.squeeze()',
    'f.view_as(f)',
    'f.as_strided((2,), (1,))',
    'f.contiguous()',
    'f.t().contiguous()',
    "torch.nn.functional.pad(f, (1, 1), mode='reflect')",
    "torch.nn.functional.pad(f, (1, 1), mode='replicate')",
    "torch.nn.functional.pad(f, (1, 1), mode='circular')",
    'f.roll(1, 0)',
    'f.tile((2,))',
    'torch.block_diag(f, f)',
    'torch.cartesian_prod(f[0], f[1])',
    "torch.meshgrid(f[0], f[1], indexing='ij')",
    'torch.nn.functional.pixel_shuffle(f.reshape(1, 4, 1, 2), 2)',
    'torch.nn.functional.channel_shuffle(f.reshape(1, 4, 1, 2), 2)',
    'f.unsqueeze(0).unfold(2,2,2)',
    'torch.nn.functional.unfold(f.reshape(1, 1, 2, 4), 2)',
    'f.diag_embed()',
    'torch.diagflat(f[0])',
    'f.index_fill(0, torch.tensor([0]), 1.)',
    'f.clone().index_put_((torch.tensor([0]),), f[0])',
    'f[torch.tensor([0, 1])]',
    'f[f > 0]',
    'f[:, ::2]',
    'f.clone().__setitem__(0, 1.0)',
    'f.clone().__setitem__(0, f[1])',
    'torch.zeros_like(f)',
    'torch.ones_like(f)',
    'torch.full_like(f, 2.0)',
    'f.new_zeros(2)',
    'f.new_ones(2)',
    'f.new_full((2,), 3.0)',
    'f.clone().zero_()',
    'f.clone().fill_(1.5)',
    'f.clone().copy_(f.float())',
    'f.clone().copy_(f.t().t())',
    'torch.cat([f, f.float().to(f.dtype)])',
    'torch.stack([f, f], 1)',
    'f.reshape(-1).sort()',
    'f.clone().masked_fill_(f == f, 1.0)',
    'f.where(f == f, 0.)',
    'torch.where(f == f, f, 0.)',
    'f.view(torch.int8)',
    'f.view(torch.uint8).view(f.dtype)',
    'f.abs()',
    'f.conj()',
    'f.resolve_conj()',
    'f.positive()',
    'f.detach()',
    'f.numel()',
    'f.tolist()',
    'f.sum(0)',
    'f.permute(1, 0)',
    'f.T',
    'f.mT',
    'f.H',
    'f.t()',
    'f.mul(f)',
    'f * f',
    'f.square()',
    'f @ f.t()',
    'torch.matmul(f, f.t())',
    'torch.mm(f, f.t())',
    'torch.addmm(f[:, :2], f, f.t())',
    'torch.mv(f, f[0])',
    'torch.outer(f[0], f[0])',
    'torch.kron(f, f)',
    "torch.einsum('ij,kj->ik', f, f)",
    'f.clone().mul_(f)',
]


@pytest.mark.parametrize("name", ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "uint32"))
@pytest.mark.parametrize("expr", MOVEMENT_EXPRS)
def test_data_movement(name, expr):
    if name == "uint32":
        data = [[1, 2, 3, 4], [5, 6, 7, 8]]
        env = {"f": (torch.tensor(data, dtype=torch.uint32), dyngrad.tensor(data, dtype=dyngrad.uint32))}
    else:
        data = [[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 8.0, 16.0]]
        env = {"f": (torch.tensor(data).to(getattr(torch, name)), dyngrad.tensor(data).to(getattr(dyngrad, name)))}
    t, d = both(expr, **env)
    assert t == d


NUMPY_AND_ARITHMETIC_EXPRS = [
    "torch.from_numpy(np.array([1, 2], dtype='uint32'))",
    "torch.from_numpy(np.array([2**64-1], dtype='uint64'))",
    "torch.tensor(np.array([7], dtype='uint16'))",
    "torch.as_tensor(np.array([7], dtype='uint16'))",
    'torch.tensor(np.uint32(5))',
    "torch.tensor(np.array([1.5], dtype='float32'), dtype=torch.uint16)",
    "torch.from_numpy(np.array([1, 2], dtype='uint32')) + torch.from_numpy(np.array([1, 2], dtype='uint32'))",
    'torch.tensor([1, 2], dtype=torch.uint16).numpy()',
    'torch.tensor([1, 2], dtype=torch.uint64) * torch.tensor(3, dtype=torch.uint64)',
    'torch.tensor([1, 2], dtype=torch.uint16) * torch.tensor([3, 4], dtype=torch.uint16)',
    'torch.tensor([60000, 2], dtype=torch.uint16) * 2',
    'torch.tensor([2**63, 2], dtype=torch.uint64) * 2',
    'torch.tensor([5, 2], dtype=torch.uint32) / torch.tensor([2, 4], dtype=torch.uint32)',
    'torch.tensor([5, 2], dtype=torch.uint32).sum(dtype=torch.int64)',
    'torch.tensor([5, 2], dtype=torch.uint32).to(torch.int64).sum()',
    'torch.tensor([[5, 2]], dtype=torch.uint32).sum(1)',
    'torch.tensor([5, 2], dtype=torch.uint16).sqrt()',
    'torch.tensor([5, 2], dtype=torch.uint64).exp()',
    'torch.tensor([5, 2], dtype=torch.uint32).sin()',
    'torch.tensor([5, 2], dtype=torch.uint32) == torch.tensor([5, 3], dtype=torch.uint32)',
    'torch.tensor([5, 2], dtype=torch.uint32).ne(2)',
    'torch.tensor([5, 2], dtype=torch.uint32) & 3',
    'torch.tensor([5, 2], dtype=torch.uint32) | torch.tensor([1, 1], dtype=torch.uint32)',
    'torch.tensor([5, 2], dtype=torch.uint32).bitwise_xor(7)',
    'torch.tensor([5, 2], dtype=torch.uint32).sort(descending=True)',
    'torch.tensor([5, 2, 5], dtype=torch.uint32).unique(sorted=True, return_inverse=True)',
    'torch.tensor([5, 2], dtype=torch.uint32).cumsum(0)',
    'torch.tensor([5, 2], dtype=torch.uint32).cumprod(0)',
    'torch.tensor([5, 2], dtype=torch.uint32).prod()',
    'torch.tensor([5, 2], dtype=torch.uint32).float().mean()',
    'torch.tensor([5, 2], dtype=torch.uint32).true_divide(2)',
    'torch.tensor([5, 2], dtype=torch.uint32).all()',
    'torch.tensor([5, 0], dtype=torch.uint32).any()',
    'torch.tensor([5, 0], dtype=torch.uint32).bool()',
    'torch.tensor([5, 0], dtype=torch.uint32).nansum()',
    'torch.tensor([5, 0], dtype=torch.uint32).where(torch.tensor([True, False]), torch.tensor(7, dtype=torch.uint32))',
    'torch.tensor([5, 0], dtype=torch.uint32).msort()',
    'torch.tensor([5, 0], dtype=torch.uint32).repeat_interleave(2)',
    'torch.tensor([5, 0], dtype=torch.uint32).expand(2, 2)',
    'torch.tensor([5, 0], dtype=torch.uint32)[torch.tensor([True, False])]',
    'torch.tensor([5, 0], dtype=torch.uint32).index_put((torch.tensor([0]),), torch.tensor([1], dtype=torch.uint32))',
    'torch.tensor([5, 0], dtype=torch.uint32).clone().__setitem__(0, 3)',
    'torch.tensor([5, 0], dtype=torch.uint32).equal(torch.tensor([5, 0], dtype=torch.uint32))',
    'torch.tensor([5, 0], dtype=torch.uint32).mul(torch.tensor([2.5, 1.0]))',
    'torch.tensor([5, 0], dtype=torch.uint32) * torch.tensor([2, 1], dtype=torch.int32)',
    'torch.tensor([5, 0], dtype=torch.uint32) * True',
    'torch.tensor([5, 0], dtype=torch.uint32) * torch.tensor(True)',
    'torch.tensor([True, False]) * torch.tensor(3, dtype=torch.uint32)',
    'torch.tensor([5, 0], dtype=torch.uint32) * torch.tensor(2.5, dtype=torch.float64)',
    'torch.tensor([5, 0], dtype=torch.uint32) * 1j',
]


@pytest.mark.parametrize("expr", NUMPY_AND_ARITHMETIC_EXPRS)
def test_numpy_interop_and_supported_arithmetic(expr):
    t, d = both(expr, np=(np, np))
    assert t == d


TESTING_EXPRS = [
    'torch.isclose(f, f, rtol=0, atol=0)',
    'torch.isclose(f, f, rtol=0, atol=0, equal_nan=True)',
    'torch.isclose(f, f, rtol=0, atol=1e-3)',
    'torch.allclose(f, f, rtol=0, atol=0)',
    'torch.testing.assert_close(f, f, rtol=1e-3, atol=1e-3)',
    'torch.testing.assert_close(f[0], f[1])',
    'torch.testing.assert_close(f, f[:2])',
    'torch.testing.assert_close(f, g)',
    'torch.testing.assert_close(f, g, equal_nan=True)',
    'torch.testing.assert_close(f.to(torch.float8_e8m0fnu), f.to(torch.float8_e8m0fnu))',
    'torch.testing.assert_close(f, torch.tensor([1., 2.5, 0]).to(torch.float8_e4m3fn))',
    'torch.testing.assert_close(f, f.float())',
    'torch.testing.assert_close(f.reshape(3, 1), torch.tensor([[1.], [3.], [1.]]).to(torch.float8_e4m3fn))',
    'torch.equal(f, f)',
    'torch.equal(torch.tensor([1], dtype=torch.uint32), torch.tensor([1], dtype=torch.uint32))',
]


@pytest.mark.parametrize("expr", TESTING_EXPRS)
def test_isclose_equal_and_assert_close(expr):
    """float8: isclose only without tolerance (then ==), equal refused, assert_close's bitwise comparison."""
    x, y = [1.0, 2.0, float("nan")], [1.0, 2.1, float("nan")]
    env = {"f": (torch.tensor(x).to(torch.float8_e4m3fn), dyngrad.tensor(x).to(dyngrad.float8_e4m3fn)),
           "g": (torch.tensor(y).to(torch.float8_e4m3fn), dyngrad.tensor(y).to(dyngrad.float8_e4m3fn))}
    t, d = both(expr, **env)
    assert t == d
