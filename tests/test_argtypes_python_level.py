"""Every public function torch writes in Python, called with arguments of wrong types, against torch.

The functions (tests/python_level_calls.py, found by introspection): every public function of
torch.nn.functional, torch.functional's exports, and the public functions of torch, torch.linalg, torch.special
and torch.fft that dyngrad has and the argument parser's table does not list. Each is called as its valid call
(torch's OpInfo sample, else python_level_calls.EXTRA_CALLS) with one argument replaced by a wrong value
(python_level_calls.WRONG: a float, an int, a list, a NumPy array, None, a string): the first argument, and
each later argument that is a tensor or a list of tensors. Where torch raises, dyngrad must raise the same
exception type with the same text; where torch takes the value, dyngrad must take it too and give the same
result. The cases that cannot match are listed below, each with its reason; the list is checked both ways (a
listed case that starts matching must leave the list).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch

import dyngrad
from opinfo_harness import FORWARD_TOL, Converter, compare_values
from python_level_calls import (
    SETS_STATE,
    WRONG,
    clone,
    public_functions,
    saved_state,
    substitute,
    substitutions,
    to_dyngrad,
    valid_call,
)

FUNCTIONS = public_functions()
KEYS = [key for key, _, _ in FUNCTIONS]

# Functions with no valid call to start from, and why (each must be a public function found above).
NO_CALL = {
    "compile": "its first call imports torch._dynamo, which changes torch for the rest of the process (distribution "
               "validation off, no nested-tensor fast path in TransformerEncoder)",
    "load": "reads a file (its wrong arguments: tests/test_serialization.py)",
    "save": "writes a file (its wrong arguments: tests/test_serialization.py)",
    "set_num_interop_threads": "torch takes it once per process and raises afterwards whatever it is given, so "
                               "its answer depends on what ran before",
}

# Functions dyngrad does not have, and why (each must be missing in dyngrad).
MISSING = {
    "chain_matmul": "deprecated in torch (torch.linalg.multi_dot, which dyngrad has)",
    "nn.functional.conv_tbc": "not written yet (a convolution over (time, batch, channel) input)",
    "nn.functional.grouped_mm": "CUDA only in torch 2.13 (grouped GEMM for mixtures of experts)",
    "nn.functional.scaled_grouped_mm": "CUDA only in torch 2.13 (float8 grouped GEMM)",
    "nn.functional.scaled_mm": "CUDA only in torch 2.13 (float8 GEMM with scales)",
}

# Cases that cannot match: "key place kind" -> why. ``place``: arg<i> or kw:<name> (python_level_calls).
CANNOT_MATCH = {
    # torch's F.ctc_loss passes the list on to torch.ctc_loss, whose invalid-combination text quotes the types of
    # every argument, items of the lists included (the input and target lengths of the valid call, the wrong
    # list's floats): no text recorded once fits another call; dyngrad fails on the list's missing .dim()
    "nn.functional.ctc_loss arg0 list": "torch's text lists the items of every argument (value-dependent)",
    "nn.functional.ctc_loss arg1 list": "torch's text lists the items of every argument (value-dependent)",
    # dyngrad.device does not parse its argument as torch.device() does (torch's invalid-combination text
    # quoting a list's items); the device class is the argument parser's piece
    "set_default_device arg0 list": "dyngrad.device(list) is no parse error",
}

# Functions whose results are drawn from the random stream (dyngrad's is not torch's: gumbel_softmax; the random
# projections of the low-rank factorisations, whose signs follow them), or read process state that is dyngrad's
# own (its thread count, seed): where torch takes a value, the results are compared by type, structure, shape and
# dtype only.
RANDOM = frozenset({"nn.functional.gumbel_softmax", "nn.functional.rrelu", "pca_lowrank", "svd_lowrank",
                    "get_num_threads", "get_num_interop_threads", "seed", "initial_seed", "get_rng_state",
                    "manual_seed"})


def _outcome(key, fn, args, kwargs):
    """(result, None) or (None, exception); the settings a call may change put back."""
    with warnings.catch_warnings(), saved_state(*(torch, dyngrad) * (key.rpartition(".")[2] in SETS_STATE)):
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs), None
        except Exception as e:  # noqa: BLE001 - an error is an outcome to compare
            return None, e


def _mismatch(key, t_out, t_err, d_out, d_err) -> str | None:
    if t_err is not None:
        if d_err is None:
            return f"torch raises {type(t_err).__name__}: {t_err}; dyngrad returns"
        if type(d_err).__name__ != type(t_err).__name__ or str(d_err) != str(t_err):
            return f"torch {type(t_err).__name__}: {t_err} / dyngrad {type(d_err).__name__}: {d_err}"
        return None
    if d_err is not None:
        return f"torch returns; dyngrad raises {type(d_err).__name__}: {d_err}"
    if isinstance(t_out, (torch.device, torch.Generator)):  # (compared by what they are: dyngrad's own types)
        same = str(d_out) == str(t_out) if isinstance(t_out, torch.device) else isinstance(d_out, dyngrad.Generator)
        return None if same else f"torch returns {t_out!r}, dyngrad {d_out!r}"
    if isinstance(t_out, int) and key in RANDOM:
        return None if type(d_out) is int else f"torch returns an int, dyngrad {type(d_out).__name__}"
    if callable(t_out) and not isinstance(t_out, torch.Tensor):  # (compile, vmap: a function either way)
        return None if callable(d_out) else f"torch returns a function, dyngrad {type(d_out).__name__}"
    return compare_values(d_out, t_out, None if key in RANDOM else FORWARD_TOL)


def cases(key, tfn, dfn) -> dict:
    """``"key place kind"`` -> None (the same outcome as torch's) or the difference, for every case of one
    function."""
    args, kwargs = valid_call(key, tfn)
    # the valid call itself first: dyngrad takes it too, with torch's result (no recorded error fires on it)
    convert = Converter()
    d_args, d_kwargs = to_dyngrad(args, convert), to_dyngrad(kwargs, convert)
    torch.manual_seed(0)
    t_out, t_err = _outcome(key, tfn, clone(args), clone(kwargs))
    dyngrad.manual_seed(0)
    out = {f"{key} valid -": _mismatch(key, t_out, t_err, *_outcome(key, dfn, d_args, d_kwargs))}
    for place in substitutions(args, kwargs):
        for kind, wrong in WRONG.items():
            t_args, t_kwargs = substitute(place, clone(args), clone(kwargs), wrong())
            torch.manual_seed(0)
            t_out, t_err = _outcome(key, tfn, t_args, t_kwargs)
            convert = Converter()
            d_args, d_kwargs = substitute(place, to_dyngrad(args, convert), to_dyngrad(kwargs, convert), wrong())
            dyngrad.manual_seed(0)
            d_out, d_err = _outcome(key, dfn, d_args, d_kwargs)
            out[f"{key} {place} {kind}"] = _mismatch(key, t_out, t_err, d_out, d_err)
    return out


COUNTS: dict = {}  # key -> (cases, matching), for the summary test


@pytest.mark.parametrize("key", [k for k in KEYS if k not in NO_CALL and k not in MISSING])
def test_wrong_types_as_torch(key) -> None:
    _, tfn, dfn = FUNCTIONS[KEYS.index(key)]
    assert dfn is not None, f"dyngrad has no {key}"
    results = cases(key, tfn, dfn)
    COUNTS[key] = (len(results), sum(r is None for r in results.values()))
    differ = {case: why for case, why in results.items() if why is not None and case not in CANNOT_MATCH}
    assert not differ, "\n".join(f"{case}: {why}" for case, why in differ.items())
    now_match = [case for case, why in results.items() if why is None and case in CANNOT_MATCH]
    assert not now_match, f"listed in CANNOT_MATCH but now as torch: {now_match}"


def test_lists_name_real_cases() -> None:
    """NO_CALL, MISSING and CANNOT_MATCH name functions that exist here, for the reasons given."""
    for key in NO_CALL:
        assert key in KEYS and valid_call(key, FUNCTIONS[KEYS.index(key)][1]) is None, key
    for key in MISSING:
        assert key in KEYS and FUNCTIONS[KEYS.index(key)][2] is None, key
    for case in CANNOT_MATCH:
        assert case.split(" ")[0] in KEYS, case
    # every function found has a valid call or is listed (none is skipped silently)
    for key, tfn, dfn in FUNCTIONS:
        if key not in NO_CALL and key not in MISSING:
            assert valid_call(key, tfn) is not None, f"{key}: no valid call (add one to EXTRA_CALLS or NO_CALL)"
        if key not in MISSING:
            assert dfn is not None, f"dyngrad has no {key}"


def test_wrong_values_are_wrong() -> None:
    """The wrong values are what their names say (a guard on python_level_calls.WRONG)."""
    assert [type(v()).__name__ for v in WRONG.values()] == ["float", "int", "list", "ndarray", "NoneType", "str"]
    assert isinstance(WRONG["ndarray"](), np.ndarray)


@pytest.mark.parametrize("key", [k for k, _, d in FUNCTIONS if hasattr(d, "__python_level_key__")])
def test_checked_functions_pickle_as_torch(key) -> None:
    """A checked function is found again by its name, as torch's are (pickle by reference: a module holding F.relu
    saves), and Python's own errors name it as torch's (``relu() takes from 1 to 2 positional arguments``)."""
    import pickle

    dfn = FUNCTIONS[KEYS.index(key)][2]
    assert pickle.loads(pickle.dumps(dfn)) is dfn  # (also where torch's cannot: its boolean_dispatch locals)
    name = key.rpartition(".")[2]
    tfn = FUNCTIONS[KEYS.index(key)][1]
    # (torch's special/fft/linalg builtins are named special_round, ...: Python's errors quote that name)
    torch_name = getattr(tfn, "__name__", name)
    # (dyngrad's copy keeps torch's builtin name where its own function bears it: special_round, not fft_fft yet)
    assert dfn.__qualname__ == name or dfn.__qualname__ == torch_name in (f"special_{name}", f"fft_{name}", f"linalg_{name}")
