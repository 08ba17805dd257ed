"""The special functions' benchmark row: lgamma + digamma forward and backward on 1M float64 elements,
the same code on dyngrad and torch (``lib``); run through benchmarks/run.py (``--only G1``).

The input spreads over (0.1, 20): both of lgamma's branches (Stirling's series at x >= 8, the Pade
approximants below) and digamma's recurrence (x < 10) and asymptotic series take about half of it.
"""

from __future__ import annotations

from workloads import Workload, _leaf, _np

G1_SIZE = 1_000_000


def g1_data(rng):
    return {"x": rng.uniform(0.1, 20.0, G1_SIZE)}


def _loss(lib, x):
    return (lib.lgamma(x) + lib.digamma(x)).sum()


def g1_make(lib, d):
    x = _leaf(lib, d["x"])

    def step():
        x.grad = None
        _loss(lib, x).backward()  # backward: digamma (lgamma's derivative) and trigamma (digamma's)

    return step, None


def g1_check(lib, d):
    x = _leaf(lib, d["x"])
    loss = _loss(lib, x)
    loss.backward()
    return {"loss": _np(loss), "x.grad": _np(x.grad)}


WORKLOADS = {
    w.key: w
    for w in (
        Workload("G1", f"lgamma + digamma fwd+bwd on {G1_SIZE:,} float64", "step", 1, 2.0, g1_data, g1_make, g1_check,
                 rtol=1e-12, atol=1e-14),
    )
}
