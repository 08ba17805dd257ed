"""dyngrad.nn.functional (torch.nn.functional): activations, softmax, convolution, pooling, losses.

The functions live with their op family in ``_ops/``; each family lists its
``FUNCTIONAL_EXPORTS`` and they are gathered here.
"""

from __future__ import annotations

from .._tensor_methods import FAMILIES as _FAMILIES

for _family in _FAMILIES:
    globals().update(getattr(_family, "FUNCTIONAL_EXPORTS", {}))
del _family

from .._argparse.python_level import check_python_namespace as _check_python_namespace  # noqa: E402

# torch's errors for wrong kinds given to its Python functions (before the autocast wrappers: they wrap the copies)
_check_python_namespace(globals(), "nn.functional.")

from .._ops import autocast_policy as _autocast_policy  # noqa: E402

_autocast_policy.install(globals())  # the losses torch's CPU autocast runs in float32 (Note [CPU autocast])

from .._argparse import check_namespace as _check_namespace  # noqa: E402

_check_namespace(globals(), "nn.functional.")  # torch's argument errors, for the functions with a row
