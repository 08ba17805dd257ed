"""dyngrad.signal: torch.signal's window functions (``dyngrad.signal.windows``).

torch's window factories (``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``) live in ``window_functions`` and are exported at
the top level (``dyngrad.hann_window``), as in torch.
"""

from __future__ import annotations

from . import windows

__all__ = ["windows"]
