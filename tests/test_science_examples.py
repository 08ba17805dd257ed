"""The science examples print, on dyngrad, exactly what they print on PyTorch.

examples/spectral_filter.py (torch.fft, a learned low-pass cut-off, a spectral loss),
examples/complex_fit.py (a complex-weight model fitted by Adam) and examples/likelihoods.py
(lgamma/digamma, i0, log_ndtr in maximum-likelihood fits) are each run as written and with their ``import dyngrad as torch`` line turned into ``import torch``; the
printed lines must match.
"""

from __future__ import annotations

import contextlib
import io
import re
import types
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DYNGRAD_IMPORT = re.compile(r"^import dyngrad as torch\b", re.MULTILINE)


def _run(path: Path, library: str) -> str:
    source = path.read_text()
    if library == "torch":
        source, n = DYNGRAD_IMPORT.subn("import torch", source)
        assert n == 1, "the example must import dyngrad exactly once, as torch"
    module = types.ModuleType(f"{path.stem}_{library}")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    assert module.torch.__name__ == library
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module.main()
    return out.getvalue()


@pytest.mark.parametrize("name", ["spectral_filter", "complex_fit", "likelihoods"])
def test_science_example_prints_what_torch_prints(name) -> None:
    path = EXAMPLES / f"{name}.py"
    printed = _run(path, "dyngrad")
    assert printed.splitlines() == _run(path, "torch").splitlines()
    assert len(printed.splitlines()) >= 5
