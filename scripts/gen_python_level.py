"""Write src/dyngrad/_argparse/_python_level.py: what torch raises when a Python-level function gets a wrong type.

torch's functions written in Python (torch.nn.functional, torch.functional) check nothing themselves: a
wrong argument fails wherever it first meets something that does (a native op that parses its arguments:
``relu(): argument 'input' (position 1) must be Tensor, not float``; an attribute: ``'float' object has no
attribute 'dim'``; an operator: ``bad operand type for unary -: 'list'``). Those answers are read here from
torch itself, never typed in: each function of tests/python_level_calls.py is called as its valid call, with
one argument (the first one, and each later tensor) replaced by a value of each wrong kind, twice with two
different values of that kind. Where torch raises the same exception with the same text both times, the
answer is recorded for that kind (an answer that quotes the value is not: dyngrad's own code answers those),
unless the valid call itself has a value of that kind there, or the kind is None and the text does not name
NoneType (None is what optional arguments take: such an error may come from the other arguments). Also
recorded: the kinds dyngrad's own function takes without raising (they are tested before it runs; the others
only once it has raised). Rerun when dyngrad's functions change (tests/test_argtypes_python_level.py fails where
a function starts taking a kind torch refuses).

Kinds: float, int, str, None, numpy.ndarray, and a list by its first item's type (``list[float]``).

Run: PYTHONPATH=src .venv/bin/python scripts/gen_python_level.py   (needs torch; the runtime does not)
"""

from __future__ import annotations

import inspect
import os
import sys
import warnings

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

import dyngrad  # noqa: E402
from dyngrad._argparse import type_name  # noqa: E402
from python_level_calls import (  # noqa: E402
    SETS_STATE,
    public_functions,
    saved_state,
    substitute,
    substitutions,
    to_dyngrad,
    valid_call,
)


def _kind(obj) -> str:
    """The kind of a torch value, as dyngrad._argparse.python_level.kind_of names dyngrad's."""
    if type(obj) is list:
        return "list[" + (_kind(obj[0]) if obj else "") + "]"
    return "Tensor" if isinstance(obj, torch.Tensor) else type_name(obj)

_OUT = os.path.join(os.path.dirname(__file__), "..", "src", "dyngrad", "_argparse", "_python_level.py")

# two values of each kind, by the kind's name (dyngrad._argparse.python_level.kind_of)
PROBES = {
    "float": (3.0, -1.5),
    "int": (3, 7),
    "list[float]": ([1.0, 2.0], [5.0]),
    "numpy.ndarray": (np.ones(3), np.zeros((2, 2))),
    "NoneType": (None, None),
    "str": ("abc", "xy"),
}
_EXCEPTIONS = ("TypeError", "AttributeError", "RuntimeError", "ValueError", "IndexError", "NotImplementedError")


def _clone(x):
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, (list, tuple)) and type(x) in (list, tuple):
        return type(x)(_clone(v) for v in x)
    if isinstance(x, dict):
        return {k: _clone(v) for k, v in x.items()}
    return x


def _answer(fn, args, kwargs, stateful: bool):
    with saved_state(*[torch] * stateful):
        try:
            fn(*_clone(args), **_clone(kwargs))
        except Exception as e:  # noqa: BLE001 - every answer is recorded
            return type(e).__name__, str(e)
    return None


def _parameter(tfn, place: str):
    """(position or None, keyword name or None) of a place ("arg2", "kw:weight") of torch's function."""
    try:
        params = list(inspect.signature(tfn).parameters.values())
    except (TypeError, ValueError):
        params = []
    if place.startswith("kw:"):
        name = place[3:]
        for i, p in enumerate(params):
            if p.name == name and p.kind is p.POSITIONAL_OR_KEYWORD:
                return i, name
        return None, name
    i = int(place[3:])
    for j, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            return i, None  # from there on the arguments have no name
        if j == i:
            return i, (p.name if p.kind is p.POSITIONAL_OR_KEYWORD else None)
    return i, None


def _dyngrad_answer(dfn, args, kwargs, stateful: bool):
    """(exception name, text) dyngrad's own function (unchecked) raises for these arguments, or None."""
    raw = getattr(dfn, "__python_level_unchecked__", dfn)
    with saved_state(*[dyngrad] * stateful):
        try:
            raw(*to_dyngrad(args), **to_dyngrad(kwargs))
        except Exception as e:  # noqa: BLE001 - compared with torch's
            return type(e).__name__, str(e)
    return None


def _taken_by_dyngrad(dfn, args, kwargs, stateful: bool) -> bool:
    """Whether dyngrad's own function (unchecked) returns for these arguments (torch's values, converted)."""
    raw = getattr(dfn, "__python_level_unchecked__", dfn)
    with saved_state(*[dyngrad] * stateful):
        try:
            raw(*to_dyngrad(args), **to_dyngrad(kwargs))
        except Exception:  # noqa: BLE001 - it raised (whatever it says: the check replaces its error)
            return False
    return True


def gather():
    rules = {}
    for key, tfn, dfn in public_functions():
        call = valid_call(key, tfn)
        if call is None or dfn is None:
            continue
        args, kwargs = call
        places = []
        for place in substitutions(args, kwargs):
            answers = {}
            appended = place.startswith("arg") and int(place[3:]) == len(args)  # (a function of no argument)
            given = None if appended else _kind(args[int(place[3:])] if place.startswith("arg") else kwargs[place[3:]])
            for kind, values in PROBES.items():
                if kind == given:  # torch takes this kind here (some values of it): its answer is the value's
                    continue
                first, second = (_answer(tfn, *substitute(place, args, kwargs, v), key in SETS_STATE) for v in values)
                if first is None or first != second or first[0] not in _EXCEPTIONS:
                    continue
                if kind == "NoneType" and "NoneType" not in first[1] and not appended:
                    # None is the value optional arguments take: an error that does not name its type may come
                    # from the other arguments (batch_norm's "running_mean and running_var must either both be
                    # None or neither be None", embedding_bag's offsets of a 1-D input), and a call with other
                    # arguments may take it
                    continue
                if "invalid combination of arguments" in first[1] and _dyngrad_answer(
                        dfn, *substitute(place, args, kwargs, values[0]), key in SETS_STATE) == first:
                    # torch's listing quotes every argument's type ("got (list, int)"): a text recorded from one
                    # call is wrong for another; dyngrad's own parser gives it already (the special polynomials)
                    continue
                answers[kind] = first
            if answers:
                # the kinds dyngrad's own function takes without an error: tested before it runs (the others
                # once it has raised: no cost to a call that runs)
                before = tuple(kind for kind in answers if _taken_by_dyngrad(
                    dfn, *substitute(place, args, kwargs, PROBES[kind][0]), key in SETS_STATE))
                places.append((*_parameter(tfn, place), answers, before))
        if places:
            rules[key] = places
    return rules


# the type name each kind's texts say (a list's: "list", where the text is about the list itself)
NAMES = {"float": "float", "int": "int", "list[float]": "list", "numpy.ndarray": "numpy.ndarray", "NoneType": "NoneType",
         "str": "str"}


def _templates(answers: dict) -> list:
    """answers ({kind: (exception, text)}) as [(exception, template, kinds)]: the kinds whose texts differ only by
    their type name share one template (``str.format`` with the name gives each text back, checked; a template
    that would name another word, "print" for "int", gives no other kind's text and so stays that kind's own)."""
    out = []
    for kind, (exception, text) in answers.items():
        name = NAMES[kind]
        escaped = text.replace("{", "{{").replace("}", "}}")
        template = escaped.replace(name, "{0}")  # (every occurrence: "got (float)", "(!float!)")
        if template.format(name) != text:
            template = escaped
        for i, (e, t, kinds) in enumerate(out):
            if e == exception and t == template and t.format(name) == text:
                out[i] = (e, t, kinds + (kind,))
                break
        else:
            out.append((exception, template, (kind,)))
    for exception, template, kinds in out:  # (every text given back)
        assert all(answers[k] == (exception, template.format(NAMES[k])) for k in kinds), (template, kinds)
    return out


def main():
    warnings.simplefilter("ignore")  # the probes call deprecated functions
    assert type_name(np.ones(1)) == "numpy.ndarray"
    rules = gather()
    lines = [
        '"""What torch raises when its Python-level functions get an argument of a wrong kind (generated by',
        f'scripts/gen_python_level.py from torch {torch.__version__.split("+")[0]}; do not edit).',
        "",
        "RULES: key (as _signatures' keys) -> list of (position or None, keyword or None, answers, kinds dyngrad's own",
        "function takes), in the order of the arguments; answers: [(exception, text template, kinds)], the text of a",
        "kind being ``template.format(NAMES[kind])``. See _argparse/python_level.py.",
        '"""',
        "",
        f"NAMES = {NAMES!r}",
        f"ALL = {tuple(PROBES)!r}",
        "",
        "RULES = {",
    ]
    for key, places in rules.items():
        lines.append(f"    {key!r}: [")
        for pos, name, answers, before in places:
            lines.append(f"        ({pos!r}, {name!r}, [")
            for exception, template, kinds in _templates(answers):
                kinds = "ALL" if kinds == tuple(PROBES) else repr(kinds)
                lines.append(f"            ({exception!r}, {template!r}, {kinds}),")
            lines.append(f"        ], {'ALL' if before == tuple(PROBES) else repr(before)}),")
        lines.append("    ],")
    lines.append("}")
    with open(_OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(rules)} functions -> {os.path.normpath(_OUT)}")


if __name__ == "__main__":
    main()
