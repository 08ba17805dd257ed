"""The distributions examples print the same numbers on dyngrad and on PyTorch.

examples/vae_digits.py (a VAE with Normal and kl_divergence) and examples/reinforce_bandit.py (REINFORCE
with Categorical) draw their noise and initial weights from NumPy's seeded generator, so their printed
output does not depend on the framework's random stream: each is run as written and with its one
``import dyngrad as torch`` line turned into ``import torch``, and the outputs must be identical. (The
Gaussian-mixture program is tests/torch_programs/gaussian_mixture.py, run by tests/test_run_as_torch.py.)
"""

from __future__ import annotations

import contextlib
import io
import re
import types
from pathlib import Path

import pytest

import dyngrad
from conftest import torch

pytest.importorskip("sklearn")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DYNGRAD_IMPORT = re.compile(r"^import dyngrad as torch\b", re.MULTILINE)


def _load(path: Path, as_torch: bool) -> types.ModuleType:
    source = path.read_text()
    if as_torch:
        source, n = DYNGRAD_IMPORT.subn("import torch", source)
        assert n == 1, "the example must import dyngrad exactly once, as torch"
        assert "dyngrad" not in re.sub(r"#.*", "", source.split('"""', 2)[2]), "dyngrad used past the import line"
    module = types.ModuleType(f"{path.stem}_{'torch' if as_torch else 'dyngrad'}")
    module.__file__ = str(path)
    exec(compile(source, str(path), "exec"), module.__dict__)
    assert module.torch is (torch if as_torch else dyngrad)
    return module


def _run(path: Path, argv, as_torch: bool):
    module = _load(path, as_torch)
    out = io.StringIO()
    before = module.torch.get_default_dtype()
    try:
        with contextlib.redirect_stdout(out):
            result = module.main(argv)
    finally:
        module.torch.set_default_dtype(before)
    return result, out.getvalue()


@pytest.mark.parametrize(("name", "argv"), [("vae_digits.py", ["--epochs", "10"]),
                                            ("reinforce_bandit.py", ["--steps", "200"])])
def test_example_prints_what_torch_prints(name, argv) -> None:
    d_result, d_out = _run(EXAMPLES / name, argv, as_torch=False)
    t_result, t_out = _run(EXAMPLES / name, argv, as_torch=True)
    assert d_out == t_out
    assert d_result == pytest.approx(t_result, rel=1e-9)


def _independent_pixels_log_likelihood() -> float:
    """The test log-likelihood of independent Bernoulli pixels fitted to the training images (the example's
    split): the baseline a latent-variable model must beat."""
    import numpy as np

    module = _load(EXAMPLES / "vae_digits.py", as_torch=False)
    train, test = (t.numpy() for t in module.load_digits(0))
    p = train.mean(axis=0).clip(1e-3, 1 - 1e-3)
    return float((test * np.log(p) + (1 - test) * np.log1p(-p)).sum(axis=1).mean())


def test_examples_learn() -> None:
    """The VAE's test log-likelihood beats independent pixels by nats; the policy finds the best actions."""
    ll, _ = _run(EXAMPLES / "vae_digits.py", ["--epochs", "10"], as_torch=False)
    assert ll > _independent_pixels_log_likelihood() + 1.0
    reward, _ = _run(EXAMPLES / "reinforce_bandit.py", ["--steps", "200"], as_torch=False)
    assert reward > 0.95
