"""dyngrad against PyTorch's OpInfo database (op_db): the results recorded in tests/opinfo_status.txt.

Each test runs one OpInfo entry through tests/opinfo_harness.py (torch's own samples, every tested
dtype: forward values, first- and second-order gradients, grad_fn names, errors) and asserts that the
statuses equal the recorded ones, in both directions: a check that used to pass and now fails is a
regression; a check that now passes where the file says otherwise must be recorded by regenerating
the file (`python scripts/opinfo_status.py --write -k NAME`), so the recorded counts stay honest.
"""

from __future__ import annotations

import math

import pytest

import opinfo_harness as harness

ENTRIES = harness.cpu_entries()
RECORDED, DUPLICATES = harness.read_status()


def test_status_file_lists_every_entry_once() -> None:
    """One line per (entry, tested dtype), and per entry with error inputs: no stale, absent or doubled lines."""
    expected = {(key, label) for key, opinfo in ENTRIES.items() for label in harness.line_labels(opinfo)}
    stale = sorted(set(RECORDED) - expected)
    absent = sorted(expected - set(RECORDED))
    assert not DUPLICATES, f"lines recorded twice (after a merge?): {DUPLICATES[:5]}; run `{harness.REGENERATE}`"
    assert not stale and not absent, (
        f"status file out of step with op_db: stale {stale[:5]}, absent {absent[:5]}; run `{harness.REGENERATE}`"
    )


def test_status_file_is_as_written() -> None:
    """The file is exactly what the script writes (header, sorted lines): merges and hand edits show up."""
    text = harness.STATUS_PATH.read_text()
    lines = [rec.text for rec in RECORDED.values()]
    assert text == harness.render_status(lines), f"tests/opinfo_status.txt is not in canonical form: run `{harness.REGENERATE}`"


@pytest.mark.parametrize("key", sorted(ENTRIES))
def test_opinfo_entry_matches_recorded_status(key: str) -> None:
    lines = harness.run_key(key, ENTRIES)
    differences = []
    for line in lines:
        old = RECORDED.get((key, line.dtype))
        if old is None or old.statuses != line.statuses():
            differences.append(f"recorded: {old.text if old else '(no line)'}\n     now: {line.render()}")
    assert not differences, (
        "OpInfo results differ from tests/opinfo_status.txt (a regression, or an improvement to record with "
        f"`{harness.REGENERATE} -k '{key}'`):\n" + "\n".join(differences)
    )


# The harness itself: a wrong dyngrad op must show up as a failure (so that "pass" means something).
def test_harness_reports_wrong_values_gradients_and_error_texts(monkeypatch) -> None:
    import dyngrad

    sin = ENTRIES["sin"]
    assert harness.run_entry(sin, "float64").statuses() == {"forward": "pass", "grad": "pass", "gradgrad": "pass"}

    monkeypatch.setattr(dyngrad, "sin", dyngrad.cos)
    line = harness.run_entry(sin, "float64")
    assert line.statuses()["forward"] == "fail" and "values differ" in line.checks["forward"].reason

    def sin_with_gradient_two(x):  # sin's values (as cos(x - pi/2)), but the gradient 2 everywhere
        return dyngrad.cos(x.detach() - math.pi / 2) + 2 * (x - x.detach())

    monkeypatch.setattr(dyngrad, "sin", sin_with_gradient_two)
    line = harness.run_entry(sin, "float64")
    assert line.statuses()["forward"] == "pass"
    assert line.statuses()["grad"] == "fail" and "grad[0]: values differ" in line.checks["grad"].reason

    def dot_with_another_message(*args, **kwargs):
        raise RuntimeError("another message")

    monkeypatch.setattr(dyngrad, "dot", dot_with_another_message)
    assert harness.run_error_inputs(ENTRIES["dot"]).statuses() == {"errors": "text"}
    monkeypatch.delattr(dyngrad, "dot")
    assert harness.run_error_inputs(ENTRIES["dot"]).statuses() == {"errors": "missing"}
