"""docs/ops.md lists every row of the op table with its status (regenerate: python scripts/ops_table.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_docs_ops_md_is_up_to_date() -> None:
    spec = importlib.util.spec_from_file_location("ops_table_script", ROOT / "scripts" / "ops_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "ops.md").read_text() == module.render(), "run: python scripts/ops_table.py"
