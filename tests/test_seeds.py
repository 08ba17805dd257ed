"""Every code example of the seed articles runs with ``import dyngrad as torch`` and prints what torch prints.

The programs are in tests/seeds/ (the articles lost the indentation of loop bodies; it is restored there).
Each one runs twice in a subprocess: as written (real torch 2.13) and with ``import dyngrad as torch``.
Object addresses (``0x7f...``) differ between runs and are masked.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

SEEDS = sorted((Path(__file__).parent / "seeds").glob("*.py"))
ADDRESS = re.compile(r"0x[0-9a-f]+")


def _run(source: str) -> str:
    out = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return ADDRESS.sub("0xADDR", out.stdout)


@pytest.mark.parametrize("path", SEEDS, ids=[p.stem for p in SEEDS])
def test_seed_program_prints_what_torch_prints(path: Path) -> None:
    source = path.read_text()
    assert "import torch\n" in source
    expected = _run(source)
    got = _run(source.replace("import torch\n", "import dyngrad as torch\n", 1))
    assert got == expected
    assert expected.strip()  # the program printed something
