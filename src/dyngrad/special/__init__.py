"""dyngrad.special: torch.special's functions (gamma and error-function families, Bessel
functions, orthogonal polynomials, ...).

The functions live with their op family in ``_ops/``; each family lists its
``SPECIAL_EXPORTS`` and they are gathered here.
"""

from __future__ import annotations

from .._tensor_methods import FAMILIES as _FAMILIES

for _family in _FAMILIES:
    globals().update(getattr(_family, "SPECIAL_EXPORTS", {}))
del _family
