"""Helpers shared by the special-function tests: element-wise comparison with torch in ulps."""

from __future__ import annotations

import numpy as np


def assert_ulp_close(mine: np.ndarray, ref: np.ndarray, ulps: float, what: str = "", scale=None, atol=0.0) -> None:
    """``mine`` equals torch's ``ref``: same dtype and shape, the same NaN and infinite entries, and finite
    entries within ``ulps`` units in the last place of ``scale`` (default: of ``ref`` itself) plus ``atol``
    (a number or an array shaped as ``ref``)."""
    assert mine.dtype == ref.dtype, f"{what}: dtype {mine.dtype} != {ref.dtype}"
    assert mine.shape == ref.shape, f"{what}: shape {mine.shape} != {ref.shape}"
    nan_mine, nan_ref = np.isnan(mine), np.isnan(ref)
    bad = np.flatnonzero(nan_mine != nan_ref)
    assert not bad.size, f"{what}: NaN differs at {bad[:5]}: {mine.ravel()[bad[:5]]} vs {ref.ravel()[bad[:5]]}"
    infinite = np.isinf(ref) | np.isinf(mine)
    bad = np.flatnonzero(infinite & (mine != ref))
    assert not bad.size, f"{what}: inf differs at {bad[:5]}: {mine.ravel()[bad[:5]]} vs {ref.ravel()[bad[:5]]}"
    finite = np.isfinite(ref) & np.isfinite(mine)
    if scale is None:
        scale = np.abs(ref)
    unit = np.spacing(np.broadcast_to(scale, ref.shape)[finite].astype(ref.dtype)).astype(np.float64)
    allowed = ulps * unit + np.broadcast_to(atol, ref.shape)[finite]
    err = np.abs(mine[finite].astype(np.float64) - ref[finite].astype(np.float64))
    worst = np.argmax(err - allowed) if err.size else 0
    assert not err.size or err[worst] <= allowed[worst], (
        f"{what}: {err[worst] / unit[worst]:.1f} ulps (allowed {allowed[worst] / unit[worst]:.1f}) at element "
        f"{np.flatnonzero(finite)[worst]}: {mine[finite][worst]!r} vs torch {ref[finite][worst]!r}"
    )
