"""out= tensors: torch's memory-overlap errors (_ops/out_param.py) and ops whose out= used to be ignored.

Every case runs the same call in torch and dyngrad: both raise the same error type and text, or both
write the same values into out and return it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad

X = np.arange(1.0, 10.0, dtype=np.float32).reshape(3, 3) / 10


def _run(lib, case: str, how: str):
    """Run ``case`` in ``lib`` with an out= tensor arranged by ``how``; (error type, text) or the out values."""
    x = lib.tensor(X)
    idx = lib.tensor([0, 2, 1])
    ops = {
        "exp": (lambda a, o: lib.exp(a, out=o), (3, 3)),
        "add": (lambda a, o: lib.add(a, a, out=o), (3, 3)),
        "cumsum": (lambda a, o: lib.cumsum(a, 0, out=o), (3, 3)),
        "clamp": (lambda a, o: lib.clamp(a, 0.2, 0.5, out=o), (3, 3)),
        "index_select": (lambda a, o: lib.index_select(a, 0, idx, out=o), (3, 3)),
        "gather": (lambda a, o: lib.gather(a, 0, idx.expand(3, 3).contiguous(), out=o), (3, 3)),
        "take": (lambda a, o: lib.take(a, idx.expand(3, 3).contiguous(), out=o), (3, 3)),
        "cat": (lambda a, o: lib.cat([a[:1], a[1:]], out=o), (3, 3)),
        "masked_select": (lambda a, o: lib.masked_select(a, a > -1, out=o), (3, 3)),
        "mm": (lambda a, o: lib.mm(a, a, out=o), (3, 3)),
        "tril": (lambda a, o: lib.tril(a, out=o), (3, 3)),
        "linalg.solve": (lambda a, o: lib.linalg.solve(a + 3 * lib.eye(3), a, out=o), (3, 3)),
        "linalg.cross": (lambda a, o: lib.linalg.cross(a, a.flip(0), out=o), (3, 3)),
        "logcumsumexp": (lambda a, o: lib.logcumsumexp(a, 0, out=o), (3, 3)),
    }
    fn, shape = ops[case]
    if how == "expanded":  # stride 0 along the first dimension: internal overlap
        o = lib.zeros(shape[1:] if len(shape) > 1 else (1,)).expand(shape)
        a = x
    elif how == "input":  # out is the input itself
        a = x if shape == (3, 3) else x.reshape(-1)
        o = a
    elif how == "shifted":  # out one row on in the input's storage: a partial overlap
        base = lib.zeros(4, 3)
        base[:3] = x
        a, o = base[:3], base[1:]
        if shape != (3, 3):
            return None
    else:  # a fresh out, of another shape: resized
        a, o = x, lib.zeros(2, 2)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = fn(a, o)
    except RuntimeError as e:
        return type(e).__name__, str(e)
    assert r is o
    return np.asarray(o.detach().numpy() if lib is torch else o.numpy())


@pytest.mark.parametrize("how", ["expanded", "input", "shifted", "resized"])
@pytest.mark.parametrize("case", ["exp", "add", "cumsum", "clamp", "index_select", "gather", "take", "cat",
                                  "masked_select", "mm", "tril", "linalg.solve", "linalg.cross", "logcumsumexp"])
def test_out_overlap_as_torch(case, how):
    if (case, how) == ("tril", "expanded"):
        pytest.skip("torch's tril writes into an expanded out; dyngrad's expanded tensors are read-only NumPy views")
    t = _run(torch, case, how)
    d = _run(dyngrad, case, how)
    if isinstance(t, tuple) or t is None:
        assert d == t
    elif how != "resized" and case in ("mm", "tril"):
        # torch takes the overlapping out and its kernel reads memory it has written (the values depend
        # on its loop order): only that dyngrad takes it too is compared
        assert isinstance(d, np.ndarray), d
    else:
        assert isinstance(d, np.ndarray), d
        np.testing.assert_allclose(d, t, rtol=1e-6, atol=1e-6)


def test_expanded_out_of_another_shape():
    """TensorIterator kernels and index_select check out before resizing it; structured ones (mm) after."""
    for lib in (torch, dyngrad):
        x = lib.ones(3, 3)
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            lib.exp(x, out=lib.zeros(5).expand(4, 5))
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            lib.index_select(x, 0, lib.tensor([0]), out=lib.zeros(5).expand(4, 5))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o = lib.zeros(5).expand(4, 5)
            assert lib.mm(x, x, out=o) is o
        assert tuple(o.shape) == (3, 3) and o.stride() == (3, 1)


# ops whose Python function took out= and ignored it: now written as torch writes it
WRITTEN = {
    "acos": lambda lib, x, o: lib.acos(x, out=o),
    "tan": lambda lib, x, o: lib.tan(x, out=o),
    "erfinv": lambda lib, x, o: lib.erfinv(x, out=o),
    "cat": lambda lib, x, o: lib.cat([x[:1], x[1:]], out=o),
    "concat": lambda lib, x, o: lib.concat([x[:2], x[2:]], out=o),
    "logcumsumexp": lambda lib, x, o: lib.logcumsumexp(x, 1, out=o),
    "cholesky": lambda lib, x, o: lib.linalg.cholesky(x @ x.T + lib.eye(3), out=o),
    "solve": lambda lib, x, o: lib.linalg.solve(x + 3 * lib.eye(3), x, out=o),
    "pinv": lambda lib, x, o: lib.linalg.pinv(x + lib.eye(3), out=o),
    "slice_scatter": lambda lib, x, o: lib.slice_scatter(x, x[:1] * 2, start=1, end=2, out=o),
    "heaviside": lambda lib, x, o: lib.heaviside(x - 0.5, x, out=o),
    "nextafter": lambda lib, x, o: lib.nextafter(x, x + 1, out=o),
    "tensordot": lambda lib, x, o: lib.tensordot(x, x, 1, out=o),
    "normalize": lambda lib, x, o: lib.nn.functional.normalize(x, out=o),
    "lu": lambda lib, x, o: lib.lu(x + lib.eye(3), out=(o, lib.zeros(3, dtype=lib.int32)))[0],
}


@pytest.mark.parametrize("case", sorted(WRITTEN))
def test_out_is_written(case):
    results = []
    for lib in (torch, dyngrad):
        x = lib.tensor(X)
        o = lib.zeros(3, 3)
        assert WRITTEN[case](lib, x, o) is o
        results.append(o.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)


_UNDER_AUTOGRAD = {
    "cat": lambda lib, x: lib.cat([x, x], out=lib.zeros(4)),
    "acos": lambda lib, x: lib.acos(x, out=lib.zeros(2)),
    "bernoulli": lambda lib, x: lib.bernoulli(x * 0.5, out=lib.zeros(2)),
    "kthvalue": lambda lib, x: lib.kthvalue(x, 1, out=(lib.zeros(()), lib.zeros((), dtype=lib.int64))),
}


@pytest.mark.parametrize("case", sorted(_UNDER_AUTOGRAD))
def test_out_refused_under_autograd(case):
    texts = []
    for lib in (torch, dyngrad):
        with pytest.raises(RuntimeError) as info:
            _UNDER_AUTOGRAD[case](lib, lib.ones(2, requires_grad=True))
        texts.append(str(info.value))
    assert texts[1] == texts[0]


def test_lu_out_tuple_length():
    for lib in (torch, dyngrad):
        with pytest.raises(TypeError, match="^expected tuple of 2 elements but got 1$"):
            lib.lu(lib.eye(3), out=(lib.zeros(3, 3),))


def test_in_place_partial_overlap():
    """TensorIterator's in-place ops refuse a partial overlap of the written tensor with an input, not a full one."""
    for lib in (torch, dyngrad):
        a = lib.arange(5.0)
        with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the"):
            a[1:].add_(a[:-1])
        with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the"):
            a[1:] -= a[:-1]
        with pytest.raises(RuntimeError, match="^unsupported operation: some elements of the input tensor and the"):
            a[1:].copy_(a[:-1])
        assert a.add_(a).tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
        x = lib.zeros(3).as_strided((3, 3), (0, 1))  # writable, stride 0
        with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to"):
            x.add_(1)


def test_bernoulli_out_is_written():
    for lib in (torch, dyngrad):
        o = lib.full((2, 3), 5.0)
        assert lib.bernoulli(lib.full((2, 3), 1.0), out=o) is o
        assert o.tolist() == [[1.0] * 3] * 2


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("case", ["gather", "complex", "gather_resized_overlap"])
def test_out_dtype_and_resized_overlap(case):
    def run(lib):
        x = lib.ones(2, 2)
        if case == "gather":  # torch's gather wants out of the input's dtype exactly
            return _error(lambda: lib.gather(x, 1, lib.zeros(2, 2, dtype=lib.int64), out=lib.zeros(2, 2,
                                                                                                  dtype=lib.float64)))
        if case == "complex":
            return _error(lambda: lib.complex(x.double(), x.double(), out=lib.zeros(2, 2, dtype=lib.complex64)))
        # out (1 element) and index (2) in one buffer, out resized to 2 elements in place: they overlap
        buf = lib.arange(4)
        return _error(lambda: lib.gather(lib.arange(3), 0, buf[1:3], out=buf[:1]))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, d = run(torch), run(dyngrad)
    assert t is not None and d == t


@pytest.mark.parametrize("fname", ["linspace", "logspace"])
@pytest.mark.parametrize("bounds", [("t1", "t1"), ("t1", 1), (1, "t2"), ("t0", "t1"), ("t1", "t0")])
def test_linspace_tensor_bounds_with_dims(fname, bounds):
    def run(lib):
        made = {"t0": lib.tensor(1.0), "t1": lib.ones(2), "t2": lib.ones(2, 2)}
        start, end = (made.get(b, b) for b in bounds)
        return _error(lambda: getattr(lib, fname)(start, end, 3))

    t = run(torch)
    assert t is not None and run(dyngrad) == t


def test_fills_of_an_expanded_tensor():
    """torch's zero_ and fill_(number) do not check for overlap: they write an expanded tensor's memory; the
    arithmetic in-place ops refuse it."""
    results = []
    for lib in (torch, dyngrad):
        base = lib.zeros(5)
        x = base[1:4].expand(2, 3)
        x.fill_(7.0)
        first = base.tolist()
        x.zero_()
        with pytest.raises(RuntimeError, match="^unsupported operation: more than one element of the written-to"):
            x.add_(1)
        results.append((first, base.tolist(), x._version))
    assert results[1] == results[0]
