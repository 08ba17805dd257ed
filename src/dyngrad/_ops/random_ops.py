"""Random sampling ops: in-place fills (``uniform_``, ``normal_``, ...) and sampling functions.

Values come from dyngrad's NumPy generator (``dyngrad.manual_seed``): reproducible, but not the
numbers torch draws for the same seed. Sampling is not differentiable; the in-place fills are
in-place ops with torch's version-counter and leaf checks.
"""

from __future__ import annotations

# What this family adds to dyngrad's top level (``dyngrad.<name>``) and to Tensor.
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
