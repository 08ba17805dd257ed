"""torch.random: the default CPU generator's seed and state, and ``fork_rng``.

The default generator is torch's mt19937 (_torch_rng.py); ``manual_seed(s)`` puts it where torch's is after
the same call, so the ops that follow draw torch's numbers (docs/random.md).
"""

from __future__ import annotations

import contextlib
import os

from . import _backend
from ._creation import Generator, default_generator
from ._ops.random_ops import get_rng_state, set_rng_state

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state", "Generator"]


def manual_seed(seed) -> Generator:
    """Seed the default generator (torch keeps the seed modulo 2**64; the engine uses its low 32 bits) and
    return it. Errors: a seed outside [-2**63, 2**64) (ValueError, torch's text)."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system's entropy and return the seed."""
    s = int.from_bytes(os.urandom(8), "little")
    _backend.manual_seed(s)
    return s


def initial_seed() -> int:
    """The seed the default generator was last seeded with (a Python int in [0, 2**64))."""
    return _backend.generator().seed


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda"):
    """Run the body with the CPU generator's state saved and restored on exit (torch.random.fork_rng; there
    are no accelerator generators to fork)."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
