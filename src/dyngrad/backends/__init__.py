"""dyngrad.backends: the switches scripts set on torch.backends, answered as torch's CPU build does.

dyngrad computes with NumPy on the CPU, so there is no CUDA, cuDNN or MPS backend: the queries
return what a CPU-only torch returns, and the flags (``cudnn.benchmark = True``,
``cudnn.deterministic = True``, ``cuda.matmul.allow_tf32``) can be set and read but change nothing.
"""

from __future__ import annotations

from types import SimpleNamespace


def _no() -> bool:
    return False


mps = SimpleNamespace(is_available=_no, is_built=_no)
cudnn = SimpleNamespace(
    is_available=_no, version=lambda: None, enabled=True, benchmark=False, deterministic=False, allow_tf32=True
)
cuda = SimpleNamespace(is_built=_no, matmul=SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True))
mkldnn = SimpleNamespace(is_available=lambda: False, enabled=True)
