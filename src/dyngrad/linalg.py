"""dyngrad.linalg: torch.linalg's functions (norms, inverses, decompositions, solves).

The functions live with their op family in ``_ops/``; each family lists its
``LINALG_EXPORTS`` and they are gathered here.
"""

from __future__ import annotations

from ._tensor_methods import FAMILIES as _FAMILIES

for _family in _FAMILIES:
    globals().update(getattr(_family, "LINALG_EXPORTS", {}))
del _family

from ._argparse import check_namespace as _check_namespace  # noqa: E402

_check_namespace(globals(), "linalg.")  # torch's argument errors, for the functions with a row
