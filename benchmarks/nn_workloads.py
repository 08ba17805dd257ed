"""Neural-net kernel workloads (dyngrad.nn.functional vs torch.nn.functional), written once against ``lib``.

Same protocol as benchmarks/workloads.py: each workload has ``data(rng)`` (NumPy arrays from a fixed
seed), ``make(lib, arrays) -> (step, reset)`` and ``check(lib, arrays)`` (named results compared
between the libraries before timing). Every step is one forward and one backward of the kernel,
with a fixed upstream gradient where the output is not a scalar, so the timing is the kernel's own.

    .venv/bin/python benchmarks/nn_workloads.py            # the table for these workloads (run.py's options)
    .venv/bin/python benchmarks/nn_workloads.py --quick --only N2

Hooking them into benchmarks/run.py is one line there: ``WORKLOADS`` here uses run.py's ``Workload``
records with keys N1..N8, so ``all_wl = {**workloads.WORKLOADS, **nn_workloads.WORKLOADS}`` (after
``import nn_workloads`` in ``_import_libs``) adds them to ``make bench``.
"""

from __future__ import annotations

import os
import sys

if __name__ == "__main__":  # one BLAS/OpenMP thread before NumPy or torch load (run.py sets the same)
    for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
        os.environ[_var] = "1"
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
from workloads import Workload, _np  # noqa: E402


def _F(lib):
    return lib.nn.functional


# ----------------------------------------------------------------------------- N1, N2: conv2d

N1_SHAPES = dict(batch=32, c_in=1, size=28, c_out=8, k=3)
N2_SHAPES = dict(batch=32, c_in=16, size=14, c_out=32, k=3)


def _conv_data(shapes):
    def data(rng):
        b, ci, s, co, k = (shapes[n] for n in ("batch", "c_in", "size", "c_out", "k"))
        bound = 1.0 / np.sqrt(ci * k * k)  # nn.Conv2d's default init range
        return {
            "x": rng.standard_normal((b, ci, s, s)).astype(np.float32),
            "w": rng.uniform(-bound, bound, (co, ci, k, k)).astype(np.float32),
            "b": rng.uniform(-bound, bound, co).astype(np.float32),
            "g": rng.standard_normal((b, co, s, s)).astype(np.float32),  # upstream gradient (padding=1 keeps s)
        }

    return data


def _conv_leaves(lib, d):
    return [lib.tensor(d[k], requires_grad=True) for k in ("x", "w", "b")], lib.tensor(d["g"])


def conv_make(lib, d):
    (x, w, b), g = _conv_leaves(lib, d)

    def step():
        x.grad = w.grad = b.grad = None
        _F(lib).conv2d(x, w, b, padding=1).backward(g)

    return step, None


def conv_check(lib, d):
    (x, w, b), g = _conv_leaves(lib, d)
    out = _F(lib).conv2d(x, w, b, padding=1)
    out.backward(g)
    return {"out": _np(out), "x.grad": _np(x.grad), "w.grad": _np(w.grad), "b.grad": _np(b.grad)}


# ----------------------------------------------------------------------------- N3: cross_entropy

N3_SHAPE = (512, 1000)


def ce_data(rng):
    n, c = N3_SHAPE
    return {"z": (2 * rng.standard_normal((n, c))).astype(np.float32), "y": rng.integers(0, c, n).astype(np.int64)}


def ce_make(lib, d):
    z, y = lib.tensor(d["z"], requires_grad=True), lib.tensor(d["y"])

    def step():
        z.grad = None
        _F(lib).cross_entropy(z, y).backward()

    return step, None


def ce_check(lib, d):
    z, y = lib.tensor(d["z"], requires_grad=True), lib.tensor(d["y"])
    loss = _F(lib).cross_entropy(z, y)
    loss.backward()
    return {"loss": _np(loss), "z.grad": _np(z.grad)}


# ----------------------------------------------------------------------------- N4: softmax

N4_SHAPE = (256, 4096)


def sm_data(rng):
    return {
        "z": (2 * rng.standard_normal(N4_SHAPE)).astype(np.float32),
        "g": rng.standard_normal(N4_SHAPE).astype(np.float32),
    }


def sm_make(lib, d):
    z, g = lib.tensor(d["z"], requires_grad=True), lib.tensor(d["g"])

    def step():
        z.grad = None
        _F(lib).softmax(z, dim=1).backward(g)

    return step, None


def sm_check(lib, d):
    z, g = lib.tensor(d["z"], requires_grad=True), lib.tensor(d["g"])
    out = _F(lib).softmax(z, dim=1)
    out.backward(g)
    return {"out": _np(out), "z.grad": _np(z.grad)}


# ----------------------------------------------------------------------------- N5, N6: indexing on 1M elements

N5_SIZE = 1_000_000


def ix_data(rng):
    return {
        "x": rng.standard_normal(N5_SIZE).astype(np.float32),
        "idx": rng.integers(0, N5_SIZE, N5_SIZE).astype(np.int64),  # repeats: the backward must accumulate
        "g": rng.standard_normal(N5_SIZE).astype(np.float32),
    }


def ix_make(lib, d):
    x, idx, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["idx"]), lib.tensor(d["g"])

    def step():
        x.grad = None
        x[idx].backward(g)

    return step, None


def ix_check(lib, d):
    x, idx, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["idx"]), lib.tensor(d["g"])
    out = x[idx]
    out.backward(g)
    return {"x[idx]": _np(out), "x.grad": _np(x.grad)}


def sa_make(lib, d):
    src, idx = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["idx"] % 1000)
    base = lib.zeros(1000)

    def step():
        src.grad = None
        base.scatter_add(0, idx, src).sum().backward()

    return step, None


def sa_check(lib, d):
    src, idx = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["idx"] % 1000)
    out = lib.zeros(1000).scatter_add(0, idx, src)
    (out * lib.arange(1000)).sum().backward()
    return {"scatter_add": _np(out), "src.grad": _np(src.grad)}


# ----------------------------------------------------------------------------- N7, N8: scaled_dot_product_attention

N7_SHAPE = dict(batch=16, heads=8, seq=128, head_dim=64)


def _sdpa_data(dtype):
    def data(rng):
        b, h, s, e = (N7_SHAPE[n] for n in ("batch", "heads", "seq", "head_dim"))
        return {k: rng.standard_normal((b, h, s, e)).astype(dtype) for k in ("q", "k", "v", "g")}

    return data


def _sdpa_leaves(lib, d):
    return [lib.tensor(d[k], requires_grad=True) for k in ("q", "k", "v")], lib.tensor(d["g"])


def sdpa_make(lib, d):
    (q, k, v), g = _sdpa_leaves(lib, d)

    def step():
        q.grad = k.grad = v.grad = None
        _F(lib).scaled_dot_product_attention(q, k, v).backward(g)

    return step, None


def sdpa_check(lib, d):
    (q, k, v), g = _sdpa_leaves(lib, d)
    out = _F(lib).scaled_dot_product_attention(q, k, v)
    out.backward(g)
    return {"out": _np(out), "q.grad": _np(q.grad), "k.grad": _np(k.grad), "v.grad": _np(v.grad)}


# ----------------------------------------------------------------------------- registry

WORKLOADS = {
    w.key: w
    for w in (
        Workload("N1", "conv2d 1->8 ch, 3x3, 28x28, batch 32, padding 1, fwd+bwd", "iter", 1, 2.0,
                 _conv_data(N1_SHAPES), conv_make, conv_check),
        Workload("N2", "conv2d 16->32 ch, 3x3, 14x14, batch 32, padding 1, fwd+bwd", "iter", 1, 2.0,
                 _conv_data(N2_SHAPES), conv_make, conv_check),
        Workload("N3", "cross_entropy on (512, 1000) logits, fwd+bwd", "iter", 1, 2.0, ce_data, ce_make, ce_check),
        Workload("N4", "softmax on (256, 4096), dim 1, fwd+bwd", "iter", 1, 2.0, sm_data, sm_make, sm_check),
        Workload("N5", "advanced indexing x[idx], 1M elements with repeats, fwd+bwd", "iter", 1, 2.0, ix_data,
                 ix_make, ix_check, rtol=1e-4, atol=1e-4),
        Workload("N6", "scatter_add of 1M elements into 1000 bins, fwd+bwd", "iter", 1, 2.0, ix_data, sa_make,
                 sa_check, rtol=1e-3, atol=1e-4),
        Workload("N7", "scaled_dot_product_attention (16, 8, 128, 64) float32, fwd+bwd", "iter", 1, 1.5,
                 _sdpa_data(np.float32), sdpa_make, sdpa_check, rtol=1e-3, atol=1e-4),
        Workload("N8", "scaled_dot_product_attention (16, 8, 128, 64) float64, fwd+bwd", "iter", 1, 1.5,
                 _sdpa_data(np.float64), sdpa_make, sdpa_check),
    )
}


if __name__ == "__main__":
    import run
    import workloads

    workloads.WORKLOADS.clear()  # run.py times workloads.WORKLOADS: these ones, with all of run.py's options
    workloads.WORKLOADS.update(WORKLOADS)
    sys.exit(run.main())
