"""The examples train as advertised, on dyngrad and, unchanged but for the import, on PyTorch.

examples/digits.py is loaded twice: as written (``import dyngrad as torch``) and with that
line replaced by ``import torch``, so the second copy is a check that the demo is ordinary
PyTorch code and that dyngrad learns as well as torch does on it. Short runs keep this fast.
"""

from __future__ import annotations

import importlib.util
import re
import types
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sklearn")
pytest.importorskip("tqdm")
pytest.importorskip("matplotlib")

DIGITS = Path(__file__).resolve().parent.parent / "examples" / "digits.py"
# The import statement itself (line start), not the docstring's mention of it.
DYNGRAD_IMPORT = re.compile(r"^import dyngrad as torch\b", re.MULTILINE)
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
# A short run: 15 epochs at a larger step reach 96-97.5% on the held-out digits with
# both frameworks (seeds 0-3); 0.94 leaves a margin for changes in float rounding.
SHORT_RUN = ["--epochs", "15", "--lr", "0.2"]
SHORT_RUN_MIN_ACCURACY = 0.94


def _load(name: str, source: str) -> types.ModuleType:
    """Execute ``source`` as a fresh module called ``name`` (not ``__main__``, so main() does not run)."""
    module = types.ModuleType(name)
    module.__file__ = str(DIGITS)
    exec(compile(source, str(DIGITS), "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def digits_dyngrad() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("digits_dyngrad", DIGITS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.torch.__name__ == "dyngrad"
    return module


@pytest.fixture(scope="module")
def digits_torch() -> types.ModuleType:
    pytest.importorskip("torch")
    source = DIGITS.read_text()
    torch_source, n = DYNGRAD_IMPORT.subn("import torch", source)
    assert n == 1, "the example must import dyngrad exactly once, as torch"
    module = _load("digits_torch", torch_source)
    assert module.torch.__name__ == "torch"
    return module


def _check_run(module: types.ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> float:
    plot = tmp_path / "loss.png"
    acc = module.main([*SHORT_RUN, "--plot", str(plot)])
    assert isinstance(acc, float)
    assert SHORT_RUN_MIN_ACCURACY <= acc <= 1.0
    assert plot.read_bytes()[:8] == PNG_MAGIC
    out = capsys.readouterr().out
    assert "epoch  15  mean train loss" in out
    assert f"test accuracy: {acc:.2%}" in out
    return acc


def test_digits_trains_with_dyngrad(digits_dyngrad, tmp_path, capsys) -> None:
    _check_run(digits_dyngrad, tmp_path, capsys)


def test_digits_is_plain_pytorch_code(digits_torch, tmp_path, capsys) -> None:
    _check_run(digits_torch, tmp_path, capsys)


def test_digits_loss_and_gradients_match_torch(digits_dyngrad, digits_torch) -> None:
    """Same weights and batch in both frameworks: the example's loss and all four gradients agree."""
    rng = np.random.default_rng(0)
    n, n_in, n_hidden, n_out = 40, 64, 16, 10
    arrays = [
        rng.standard_normal((n_in, n_hidden)),
        rng.standard_normal(n_hidden),
        rng.standard_normal((n_hidden, n_out)),
        rng.standard_normal(n_out),
    ]
    x = rng.random((n, n_in)) * 3  # large inputs -> large logits: exercises the max shift
    y = rng.integers(0, n_out, size=n)

    results = []
    for module in (digits_dyngrad, digits_torch):
        t = module.torch
        params = [t.from_numpy(a.copy()).requires_grad_() for a in arrays]
        loss = module.cross_entropy(module.forward(params, t.from_numpy(x)), t.from_numpy(y))
        loss.backward()
        results.append((loss.item(), [p.grad.numpy() for p in params]))

    (loss_dg, grads_dg), (loss_pt, grads_pt) = results
    assert np.isfinite(loss_dg)
    np.testing.assert_allclose(loss_dg, loss_pt, rtol=1e-10)
    for g_dg, g_pt in zip(grads_dg, grads_pt, strict=True):
        np.testing.assert_allclose(g_dg, g_pt, rtol=1e-8, atol=1e-12)


def test_draw_graph_example_writes_the_digits_model_graph(tmp_path, capsys) -> None:
    """examples/draw_graph.py: the tree names the parameters, and the picture (or DOT) is written."""
    import shutil

    spec = importlib.util.spec_from_file_location("draw_graph", DIGITS.parent / "draw_graph.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    written = module.main(["--out", str(tmp_path / "graph.svg")])
    out = capsys.readouterr().out
    for name in ("w1", "b1", "w2", "b2", "MmBackward0", "ReluBackward0", "AccumulateGrad"):
        assert name in out
    text = open(written).read()
    if shutil.which("dot") is not None:
        assert written.endswith(".svg") and "<svg" in text and "MmBackward0" in text
    else:
        assert written.endswith(".dot") and text.startswith("digraph")
