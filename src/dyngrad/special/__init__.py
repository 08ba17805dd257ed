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

from .._argparse.python_level import check_python_namespace as _check_python_namespace  # noqa: E402

_check_python_namespace(globals(), "special.")  # torch's errors for arguments of a wrong kind
