"""``python -m dyngrad``: unmodified PyTorch programs (tests/torch_programs/) print what torch prints.

Each program in tests/torch_programs/ is ordinary PyTorch code (``import torch``, ``import torch.nn
as nn``, ``from torch.utils.data import DataLoader``, ``torch.save``/``torch.load``). It runs once
with real torch (all of them in one process, to import torch once) and once through ``python -m
dyngrad PROGRAM`` in its own process; the outputs must be identical. Other tests check the runner
itself: ``-c`` and ``-m``, ``sys.argv``, exit statuses, tracebacks, and names dyngrad lacks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import dyngrad

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "torch_programs"
ALL = sorted(p.name for p in PROGRAMS.glob("*.py"))
ARGS = {"argv_and_exit.py": ["7"]}  # exits with status 3
TIMEOUT = 180


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONHASHSEED"] = "0"
    return env


def _run(*args: str, cwd: Path = PROGRAMS) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT)


# Runs every program with real torch in one interpreter: stdout and exit status of each, as JSON.
_TORCH_RUNNER = r"""
import contextlib, io, json, runpy, sys
import torch
results = {}
for name, args in json.loads(sys.argv[1]):
    out = io.StringIO()
    sys.argv = [name, *args]
    code = 0
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(name, run_name="__main__")
        except SystemExit as e:
            code = e.code or 0
    assert torch.__name__ == "torch"
    results[name] = [out.getvalue(), code]
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def outputs() -> dict:
    """{program: (torch stdout, torch status, dyngrad stdout, dyngrad status, dyngrad stderr)}."""
    jobs = [(name, ARGS.get(name, [])) for name in ALL]
    with ThreadPoolExecutor(max_workers=3) as pool:
        torch_future = pool.submit(_run, "-c", _TORCH_RUNNER, json.dumps(jobs))
        ours = {name: pool.submit(_run, "-m", "dyngrad", name, *args) for name, args in jobs}
        torch_run = torch_future.result()
        assert torch_run.returncode == 0, torch_run.stderr
        theirs = json.loads(torch_run.stdout)
        return {name: (*theirs[name], ours[name].result().stdout, ours[name].result().returncode,
                       ours[name].result().stderr) for name in ALL}


def test_there_are_a_dozen_programs() -> None:
    assert len(ALL) >= 12


@pytest.mark.parametrize("name", ALL)
def test_program_prints_what_torch_prints(outputs, name) -> None:
    torch_out, torch_status, our_out, our_status, our_err = outputs[name]
    assert our_out == torch_out, our_err
    assert our_status == torch_status, our_err
    assert "Traceback" not in our_err


def test_traceback_and_status_of_a_failing_program_as_python_gives_them() -> None:
    """The same stderr (the program's frames only) and status 1 as `python PROGRAM` with real torch."""
    ours = _run("-m", "dyngrad", "argv_and_exit.py", "3", "--fail")
    theirs = _run("argv_and_exit.py", "3", "--fail")
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout) == (1, theirs.stdout)
    assert ours.stderr == theirs.stderr
    assert ours.stderr.endswith("ValueError: asked to fail with n=3\n")
    assert str(ROOT / "src" / "dyngrad") not in ours.stderr and "runpy" not in ours.stderr  # (the checkout may be named dyngrad)


def test_code_and_module_modes() -> None:
    code = ("import sys, torch, torch.nn as nn, dyngrad; from torch.utils.data import DataLoader; "
            "print(torch is dyngrad, nn is dyngrad.nn, DataLoader is dyngrad.utils.data.DataLoader, sys.argv, "
            "__name__, torch.nn.__spec__.name, torch.__file__ == dyngrad.__file__)")
    run = _run("-m", "dyngrad", "-c", code, "a", "b")
    assert run.returncode == 0, run.stderr
    assert run.stdout == "True True True ['-c', 'a', 'b'] __main__ dyngrad.nn True\n"


def test_module_mode_runs_a_projects_tests_with_pytest(tmp_path) -> None:
    (tmp_path / "test_uses_torch.py").write_text(
        "import torch\nimport torch.nn.functional as F\n\n"
        "def test_relu():\n    assert torch.__name__ == 'dyngrad'\n"
        "    assert F.relu(torch.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]\n"
    )
    run = _run("-m", "dyngrad", "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path), cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout


def test_names_dyngrad_lacks_say_so() -> None:
    run = _run("-m", "dyngrad", "-c", "import torch.onnx")
    assert run.returncode == 1
    assert run.stderr == (
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'torch.onnx': dyngrad, running in place of torch, does not "
        "provide torch.onnx (there is no dyngrad.onnx)\n"
    )
    run = _run("-m", "dyngrad", "-c", "import torch; torch.quantize_per_tensor")
    assert run.stderr.endswith(
        "AttributeError: module 'dyngrad' has no attribute 'quantize_per_tensor' (dyngrad does not provide "
        "torch.quantize_per_tensor; docs/differences.md lists what is missing)\n"
    )


def test_usage_and_missing_script() -> None:
    run = _run("-m", "dyngrad")
    assert run.returncode == 2 and run.stdout.startswith("usage: python -m dyngrad SCRIPT [ARGS...]")
    run = _run("-m", "dyngrad", "no_such_file.py")
    assert run.returncode == 2
    assert run.stderr == (f"python -m dyngrad: can't open file {str(PROGRAMS / 'no_such_file.py')!r}: "
                          "[Errno 2] No such file or directory\n")


def test_install_as_torch_in_a_fresh_interpreter() -> None:
    code = ("import dyngrad, sys; dyngrad.install_as_torch(); dyngrad.install_as_torch(); "
            "import torch.nn as nn; print(sys.modules['torch'] is dyngrad, nn.Linear is dyngrad.nn.Linear)")
    run = _run("-c", code)
    assert run.returncode == 0, run.stderr
    assert run.stdout == "True True\n"


def test_install_as_torch_refuses_once_real_torch_is_imported() -> None:
    import torch  # the test oracle is imported in this process

    with pytest.raises(RuntimeError, match="the real torch is already imported in this interpreter"):
        dyngrad.install_as_torch()
    assert sys.modules["torch"] is torch
