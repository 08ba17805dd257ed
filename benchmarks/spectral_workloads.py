"""Spectral workloads (dyngrad.fft / stft vs torch's), written once against ``lib``.

Same protocol as benchmarks/workloads.py: ``data(rng)``, ``make(lib, arrays) -> (step, reset)``,
``check(lib, arrays)``. Each step is one forward and one backward with a fixed upstream gradient.

    .venv/bin/python benchmarks/spectral_workloads.py            # the table for these workloads (run.py's options)
    .venv/bin/python benchmarks/run.py --only S1 --profile S1     # where dyngrad's time goes
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

# ----------------------------------------------------------------------------- S1: rfft + irfft

S1_SHAPE = (64, 4096)


def s1_data(rng):
    return {
        "x": rng.standard_normal(S1_SHAPE).astype(np.float32),
        "g": rng.standard_normal(S1_SHAPE).astype(np.float32),  # upstream gradient of irfft's output
    }


def s1_make(lib, d):
    x, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["g"])
    n = S1_SHAPE[-1]

    def step():
        x.grad = None
        lib.fft.irfft(lib.fft.rfft(x), n=n).backward(g)

    return step, None


def s1_check(lib, d):
    x, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["g"])
    spec = lib.fft.rfft(x)
    out = lib.fft.irfft(spec * 0.5, n=S1_SHAPE[-1])  # (a factor, so the gradient is not the upstream one)
    out.backward(g)
    return {"rfft": _np(lib.view_as_real(spec)), "irfft": _np(out), "x.grad": _np(x.grad)}


# ----------------------------------------------------------------------------- S2: stft + istft

S2_SHAPE, S2_FFT, S2_HOP = (8, 16000), 512, 128


def s2_data(rng):
    return {"x": rng.standard_normal(S2_SHAPE).astype(np.float32), "g": rng.standard_normal(S2_SHAPE).astype(np.float32)}


def _s2_forward(lib, x, scale=1.0):
    w = lib.hann_window(S2_FFT)
    spec = lib.stft(x, S2_FFT, hop_length=S2_HOP, window=w, return_complex=True)
    return spec, lib.istft(spec * scale, S2_FFT, hop_length=S2_HOP, window=w, length=S2_SHAPE[-1])


def s2_make(lib, d):
    x, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["g"])

    def step():
        x.grad = None
        _s2_forward(lib, x)[1].backward(g)

    return step, None


def s2_check(lib, d):
    x, g = lib.tensor(d["x"], requires_grad=True), lib.tensor(d["g"])
    spec, out = _s2_forward(lib, x, 0.5)
    out.backward(g)
    return {"stft": _np(lib.view_as_real(spec)), "istft": _np(out), "x.grad": _np(x.grad)}


WORKLOADS = {
    w.key: w
    for w in (
        Workload("S1", "rfft + irfft of (64, 4096) float32, fwd+bwd", "iter", 1, 1.5, s1_data, s1_make, s1_check),
        Workload("S2", "stft + istft of (8, 16000) float32, n_fft 512, hop 128, hann, fwd+bwd", "iter", 1, 2.0,
                 s2_data, s2_make, s2_check),
    )
}


if __name__ == "__main__":
    import run

    argv = sys.argv[1:]
    if not any(a.startswith(("--only", "--profile")) for a in argv):  # run.py knows these workloads: time them
        argv = ["--only", ",".join(WORKLOADS), *argv]
    sys.exit(run.main(argv))
