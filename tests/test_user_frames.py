"""User code in a folder named ``dyngrad`` (a clone of this repository, a user's own project) is user code.

Anomaly mode's forward trace and ``viz.track_origins`` skip dyngrad's own frames; they decide by
the module a frame runs in, so a file under any ``.../dyngrad/...`` path still shows.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import dyngrad
from dyngrad import viz

USER_CODE = '''
def forward(lib):
    q = lib.tensor([-1.0], requires_grad=True)
    return q.sqrt().sum()  # the user's line


def modify(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a.exp()  # saved by the next op
    c = b * 2
    b.mul_(3)  # the in-place change the error names
    return c
'''


def _user_module(tmp_path, name: str):
    folder = tmp_path / "dyngrad"  # the trap: the user's folder shares the package's name
    folder.mkdir()
    path = folder / f"{name}.py"
    path.write_text(USER_CODE)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, str(path)


def test_anomaly_trace_shows_user_frames_under_a_dyngrad_folder(tmp_path) -> None:
    module, path = _user_module(tmp_path, "user_model_anomaly")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with dyngrad.autograd.detect_anomaly():
            try:
                module.forward(dyngrad).backward()
            except RuntimeError as e:
                assert "returned nan values in its 0th output" in str(e)
    trace = next(str(w.message) for w in caught if "Traceback of forward call" in str(w.message))
    assert f'File "{path}", line 4, in forward' in trace
    assert "q.sqrt().sum()  # the user's line" in trace
    assert "/src/dyngrad/" not in trace  # the library's own frames stay hidden


def test_track_origins_names_user_lines_under_a_dyngrad_folder(tmp_path) -> None:
    module, path = _user_module(tmp_path, "user_model_origins")
    with viz.track_origins():
        c = module.modify(dyngrad)
        try:
            c.sum().backward()
        except RuntimeError as e:
            message = str(e)
    assert f"{path}, line 11" in message or f"{path}:11" in message, message
