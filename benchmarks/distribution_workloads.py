"""The distributions' benchmark row: Normal.log_prob and Normal.rsample forward and backward on 1M float64
elements, the same code on dyngrad and torch (``lib``); run through benchmarks/run.py (``--only D1``).

One step builds Normal(loc, scale) over 1M parameters, scores fixed data (log_prob: a subtraction, two
squares, a division, a log and the constants), draws a reparameterised sample (1M standard normals, a
multiply-add) and backpropagates a loss using both into loc and scale: the inner loop of a VAE's or a
Gaussian policy's training step. The random draws differ between the libraries, so the check before timing
compares the log_prob loss, its gradients and the draw's gradient with respect to loc (ones), which do not
depend on them.
"""

from __future__ import annotations

from workloads import Workload, _leaf, _np

D1_SIZE = 1_000_000


def d1_data(rng):
    return {"loc": rng.standard_normal(D1_SIZE), "scale": rng.uniform(0.5, 2.0, D1_SIZE),
            "x": rng.standard_normal(D1_SIZE)}


def d1_make(lib, d):
    loc, scale = _leaf(lib, d["loc"]), _leaf(lib, d["scale"])
    x = lib.tensor(d["x"])

    def step():
        loc.grad = scale.grad = None
        dist = lib.distributions.Normal(loc, scale)
        loss = -dist.log_prob(x).mean() + dist.rsample().pow(2).mean()
        loss.backward()

    return step, None


def d1_check(lib, d):
    loc, scale = _leaf(lib, d["loc"]), _leaf(lib, d["scale"])
    dist = lib.distributions.Normal(loc, scale)
    nll = -dist.log_prob(lib.tensor(d["x"])).mean()
    nll.backward()
    out = {"nll": _np(nll), "loc.grad": _np(loc.grad), "scale.grad": _np(scale.grad)}
    loc.grad = None
    dist.rsample().sum().backward()
    out["draw: d/dloc"] = _np(loc.grad)
    return out


WORKLOADS = {
    w.key: w
    for w in (
        Workload("D1", f"Normal.log_prob + rsample fwd+bwd on {D1_SIZE:,} float64", "step", 1, 1.5, d1_data, d1_make,
                 d1_check, rtol=1e-12, atol=1e-14),
    )
}
