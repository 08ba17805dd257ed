"""The benchmark workloads, each written once against a library module ``lib``.

Every function here takes ``lib`` (``dyngrad`` or ``torch``) and uses only the
public PyTorch API, so the same code runs on both. Initial data are NumPy arrays
made from a fixed seed and turned into tensors with ``lib.tensor(arr)``, so both
libraries start from identical values.

A workload provides
- ``data(rng)``: the NumPy arrays it starts from;
- ``make(lib, arrays)``: returns ``(step, reset)``; ``step()`` is the timed unit,
  ``reset()`` (untimed, called before each timing round) restores the starting
  state so that every round does the same work;
- ``check(lib, arrays)``: a dict of named NumPy results (a forward value and a
  gradient at least) that must agree between the two libraries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

# ----------------------------------------------------------------------------- helpers


def _leaf(lib, arr, requires_grad=True):
    return lib.tensor(arr, requires_grad=requires_grad)


def _np(t):
    """A tensor (or Python number) as a NumPy array, detached and copied."""
    if hasattr(t, "detach"):
        return np.array(t.detach().numpy(), copy=True)
    return np.asarray(t)


# ----------------------------------------------------------------------------- W1: op overhead

W1_OPS = 100
W1_SIZE = 16


def w1_data(rng):
    return {
        "x": rng.standard_normal(W1_SIZE).astype(np.float32),
        "w": rng.uniform(0.5, 1.5, W1_SIZE).astype(np.float32),
        "b": (0.1 * rng.standard_normal(W1_SIZE)).astype(np.float32),
    }


def w1_forward(x, w, b, n_ops=W1_OPS):
    """A chain of ``n_ops`` elementwise ops cycling mul, add, sin, tanh; returns the summed output.

    Exactly one op per iteration is built (an if-chain, not a list of four
    candidates, which would build four ops and keep one).
    """
    y = x
    for i in range(n_ops):
        k = i % 4
        if k == 0:
            y = y * w
        elif k == 1:
            y = y + b
        elif k == 2:
            y = y.sin()
        else:
            y = y.tanh()
    return y.sum()


def w1_make(lib, d):
    x, w, b = (_leaf(lib, d[k]) for k in ("x", "w", "b"))

    def step():
        x.grad = None
        w.grad = None
        b.grad = None
        w1_forward(x, w, b).backward()

    return step, None


def w1_check(lib, d):
    x, w, b = (_leaf(lib, d[k]) for k in ("x", "w", "b"))
    loss = w1_forward(x, w, b)
    loss.backward()
    return {"loss": _np(loss), "x.grad": _np(x.grad), "w.grad": _np(w.grad), "b.grad": _np(b.grad)}


# ----------------------------------------------------------------------------- W3: MLP training step

W3_SIZES = (64, 128, 128, 10)
W3_BATCH = 64
W3_LR = 0.05


def w3_data(rng):
    d = {
        "X": rng.standard_normal((W3_BATCH, W3_SIZES[0])).astype(np.float32),
        "y": rng.integers(0, W3_SIZES[-1], W3_BATCH).astype(np.int64),
    }
    for i, (n_in, n_out) in enumerate(zip(W3_SIZES[:-1], W3_SIZES[1:])):
        bound = 1.0 / np.sqrt(n_in)  # nn.Linear's default init range
        d[f"W{i}"] = rng.uniform(-bound, bound, (n_in, n_out)).astype(np.float32)
        d[f"b{i}"] = rng.uniform(-bound, bound, n_out).astype(np.float32)
    return d


def _w3_param_names():
    return [f"{k}{i}" for i in range(len(W3_SIZES) - 1) for k in ("W", "b")]


def w3_loss(lib, params, X, y):
    """Softmax cross-entropy of a ReLU MLP, written from ops.

    log_softmax(z) = (z - m) - log(sum(exp(z - m))) with m = max(z) per row (not
    detached: the gradient flows through the max as in plain PyTorch code), then
    the target log-probabilities are picked by advanced indexing.
    """
    h = X
    n_layers = len(params) // 2
    for i in range(n_layers):
        W, b = params[2 * i], params[2 * i + 1]
        h = h @ W + b
        if i < n_layers - 1:
            h = h.relu()
    m = h.max(dim=1, keepdim=True).values
    z = h - m
    logp = z - z.exp().sum(dim=1, keepdim=True).log()
    n = X.shape[0]
    # dtype given explicitly: dyngrad.arange(n) without it raised AttributeError at commit 2da056a.
    rows = lib.arange(n, dtype=lib.int64)
    return -logp[rows, y].mean()


def w3_sgd(lib, params, lr=W3_LR):
    with lib.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None


def w3_make(lib, d):
    names = _w3_param_names()
    params = [_leaf(lib, d[k]) for k in names]
    inits = [_leaf(lib, d[k], False) for k in names]
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])

    def step():
        w3_loss(lib, params, X, y).backward()
        w3_sgd(lib, params)

    def reset():
        with lib.no_grad():
            for p, p0 in zip(params, inits):
                p.copy_(p0)
                p.grad = None

    return step, reset


def w3_check(lib, d):
    names = _w3_param_names()
    params = [_leaf(lib, d[k]) for k in names]
    X, y = lib.tensor(d["X"]), lib.tensor(d["y"])
    loss = w3_loss(lib, params, X, y)
    loss.backward()
    out = {"loss": _np(loss), "W0.grad": _np(params[0].grad), "b2.grad": _np(params[-1].grad)}
    # Two more full steps (the first SGD update included), then compare a parameter and the loss.
    w3_sgd(lib, params)
    for _ in range(2):
        last = w3_loss(lib, params, X, y)
        last.backward()
        w3_sgd(lib, params)
    out["loss after 2 steps"] = _np(last)
    out["W0 after 3 steps"] = _np(params[0])
    return out


# ----------------------------------------------------------------------------- W4: BLAS-bound

W4_N = 1024


def w4_data(rng):
    return {
        "x": rng.standard_normal((W4_N, W4_N)).astype(np.float32),
        # Scaled so that x @ W is ~N(0, 1): tanh is not saturated and the gradient is not ~0.
        "W": (rng.standard_normal((W4_N, W4_N)) / np.sqrt(W4_N)).astype(np.float32),
    }


def w4_loss(lib, x, W):
    return (lib.tanh(x @ W) ** 2).sum()


def w4_make(lib, d):
    x, W = lib.tensor(d["x"]), _leaf(lib, d["W"])

    def step():
        W.grad = None
        w4_loss(lib, x, W).backward()

    return step, None


def w4_check(lib, d):
    x, W = lib.tensor(d["x"]), _leaf(lib, d["W"])
    loss = w4_loss(lib, x, W)
    loss.backward()
    return {"loss": _np(loss), "W.grad": _np(W.grad)}


# ----------------------------------------------------------------------------- W5/W6: random draws

W5_N = 1_000_000


def w5_data(rng):
    return {}


def _draw_make(fn):
    def make(lib, d):
        lib.manual_seed(0)

        def step():
            fn(lib)

        return step, None

    def check(lib, d):
        lib.manual_seed(0)  # the same seed gives torch's numbers (docs/random.md)
        return {"draw": _np(fn(lib))}

    return make, check


w5_make, w5_check = _draw_make(lambda lib: lib.rand(W5_N))
w6_make, w6_check = _draw_make(lambda lib: lib.randn(W5_N))


# ----------------------------------------------------------------------------- registry


@dataclass
class Workload:
    key: str
    title: str
    unit: str  # what one reported time is: "op", "step", "iter"
    per_step: int  # reported time = time of one step() / per_step
    target: float  # ratio dyngrad/torch to meet (<=)
    data: Callable
    make: Callable
    check: Callable
    rtol: float = 1e-4
    atol: float = 1e-5  # relative to the largest magnitude of the reference result


WORKLOADS = {
    w.key: w
    for w in (
        Workload(
            "W1",
            f"{W1_OPS}-op elementwise chain on {W1_SIZE} floats, fwd+bwd",
            "op",
            W1_OPS,
            1.0,
            w1_data,
            w1_make,
            w1_check,
        ),
        Workload(
            "W3",
            "MLP 64-128-128-10 training step, batch 64",
            "step",
            1,
            1.0,
            w3_data,
            w3_make,
            w3_check,
        ),
        Workload(
            "W4",
            f"(tanh(x @ W) ** 2).sum(), {W4_N}x{W4_N}, fwd+bwd",
            "iter",
            1,
            1.1,
            w4_data,
            w4_make,
            w4_check,
        ),
        Workload("W5", f"rand({W5_N}) float32 after manual_seed", "draw", 1, 1.5, w5_data, w5_make, w5_check),
        Workload("W6", f"randn({W5_N}) float32 after manual_seed", "draw", 1, 2.0, w5_data, w6_make, w6_check),
    )
}


def compare(name: str, ours: dict, ref: dict, rtol: float, atol: float) -> list[str]:
    """Check each named result; return lines describing the worst errors.

    Raises:
        AssertionError: a result differs in shape, dtype or beyond ``|a - b| <= atol * scale + rtol * |b|``,
            where ``scale`` is the largest magnitude in the reference.
    """
    lines = []
    for key, b in ref.items():
        a = ours[key]
        if a.shape != b.shape or a.dtype != b.dtype:
            raise AssertionError(
                f"{name} {key}: dyngrad gives shape {a.shape} {a.dtype}, torch gives {b.shape} {b.dtype}"
            )
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise AssertionError(f"{name} {key}: non-finite values")
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        scale = max(float(np.max(np.abs(b64))), 1e-30) if b64.size else 1.0
        err = np.abs(a64 - b64)
        bound = atol * scale + rtol * np.abs(b64)
        if np.any(err > bound):
            i = tuple(int(j) for j in np.unravel_index(int(np.argmax(err - bound)), err.shape)) if err.ndim else ()
            raise AssertionError(
                f"{name} {key}: dyngrad and torch differ beyond float32 tolerance "
                f"(rtol={rtol}, atol={atol}*{scale:.3g}) at index {i}: {float(a64[i])!r} vs {float(b64[i])!r}"
            )
        rel = float(np.max(err) / scale) if err.size else 0.0
        lines.append(f"{key}: max |diff| / max |torch| = {rel:.1e}")
    return lines
