"""torch's errors for arguments of a wrong kind given to the functions torch writes in Python.

torch.nn.functional's functions, torch.functional's (einsum, meshgrid, stft, ...) and a few others are
Python code in torch: they check nothing themselves, and a wrong argument fails wherever it first meets
something that does. ``F.relu(3.0)`` reaches ``torch.relu``, whose parser raises ``TypeError: relu():
argument 'input' (position 1) must be Tensor, not float``; ``F.softmax(3.0, 0)`` calls ``input.softmax``:
``AttributeError: 'float' object has no attribute 'softmax'``; ``F.batch_norm(np.ones(3), ...)`` calls
``input.size()``, an int to NumPy: ``TypeError: 'int' object is not callable``. dyngrad's functions, written
otherwise, fail elsewhere (``'float' object has no attribute '_data'``) or not at all.

Those answers are recorded from torch by scripts/gen_python_level.py in ``_python_level.RULES``: per
function, per argument (position and keyword name), per kind of wrong value (``kind_of``: float, int, str,
None, a NumPy array, a list by its first item's type), torch's exception and text. A function with rules is
wrapped (``python_checked``): before it runs, each argument with rules whose type is one of those kinds
(one type test each; a tensor never is) is looked up, and torch's error raised where one is recorded. Any
other value (a tensor, a kind torch took, a kind not recorded) goes to dyngrad's function unchanged, so a
rule never refuses a call torch takes. The arguments are looked at in their order; where a call has several
wrong ones, torch may fail on a later one first (its Python code decides).

A function that the argument parser's table already wraps (``_signatures``: F.linear, F.conv2d) is left to
it; a key without rules is not wrapped.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import functools
import inspect
import textwrap
import types

from .._backend import xp
from .._tensor import Tensor
from . import type_name
from ._python_level import RULES

# the Python types of the kinds of kind_of: an argument of any other type is never looked up
_LOOKED_UP = frozenset({float, int, str, type(None), list, xp.ndarray})


def kind_of(obj) -> str:
    """The kind of a wrong value, as _python_level's rules name it."""
    if type(obj) is list:
        return "list[" + (type_name(obj[0]) if obj else "") + "]"
    return type_name(obj)


def _raise_recorded(answers: tuple, obj) -> None:
    """Raise torch's error for ``obj`` where one is recorded for its kind (``answers``: (kind, exception, text)
    triples); else return, and the function runs."""
    kind = kind_of(obj)
    for recorded, exception, text in answers:
        if recorded == kind:
            raise getattr(builtins, exception)(text)


def _as_tuple(answers: dict) -> tuple:
    return tuple((kind, exception, text) for kind, (exception, text) in answers.items())


def python_checked(key: str, fn):
    """``fn`` raising torch's errors for arguments of a wrong kind (module docstring); ``fn`` itself when
    there is no rule for ``key`` or the parser's table already wraps it.

    Where it can, the type tests go into a copy of ``fn``'s own code (``_with_checks``: no extra call, one type
    test per argument with rules); else ``fn`` is wrapped."""
    rules = RULES.get(key)
    if not rules or not isinstance(fn, types.FunctionType) or hasattr(fn, "__wrapped_key__"):
        return fn
    rules = [(pos, name, _as_tuple(answers)) for pos, name, answers in rules]
    checked = _with_checks(fn, rules)
    if checked is None:
        checked = _wrapped(fn, rules)
    checked.__python_level_key__ = key
    return checked


def _wrapped(fn, rules):
    positional = tuple((pos, answers) for pos, _, answers in rules if pos is not None)
    by_name = {name: answers for _, name, answers in rules if name is not None}
    looked_up = _LOOKED_UP

    def wrapper(*args, **kwargs):
        for i, answers in positional:
            if i < len(args) and type(args[i]) in looked_up:
                _raise_recorded(answers, args[i])
        if kwargs:
            for name, value in kwargs.items():
                if type(value) in looked_up and name in by_name:
                    _raise_recorded(by_name[name], value)
        return fn(*args, **kwargs)

    functools.update_wrapper(wrapper, fn)
    return wrapper


def _checked_names(fn, rules):
    """(parameter name of ``fn``, answers) for each rule, or None where a rule names no parameter of ``fn``
    (an argument of ``*args``) or where a parameter's default is of a kind its rule refuses (a test in the code
    cannot tell a default from an argument given): ``fn``'s parameters are torch's, by position (dyngrad's names
    may differ: sigmoid's ``a``), else by keyword name."""
    code = fn.__code__
    named = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    defaults = dict(zip(named[code.co_argcount - len(fn.__defaults__ or ()):code.co_argcount], fn.__defaults__ or ()))
    defaults.update(fn.__kwdefaults__ or {})
    out = []
    for pos, name, answers in rules:
        if pos is not None and pos < code.co_argcount:
            param = named[pos]
        elif name is not None and name in named:
            param = name
        else:
            return None
        if param in defaults and any(kind == kind_of(defaults[param]) for kind, _, _ in answers):
            return None  # the test would refuse the default itself (None where torch's error is for None given)
        out.append((param, answers))
    return out


def _with_checks(fn, rules):
    """A copy of ``fn`` whose code starts with ``if type(p) in LOOKED_UP: RAISE(answers, p)`` for each parameter
    ``p`` with rules; None where ``fn`` is not a plain module-level function whose source is at hand.

    The copy is compiled from ``fn``'s own source (at its own lines: tracebacks show the file), and shares
    ``fn``'s globals, defaults and attributes; the two names it reads are put in those globals once."""
    names = _checked_names(fn, rules)
    code = fn.__code__
    if names is None or code.co_freevars or fn.__qualname__ != fn.__name__ or hasattr(fn, "__wrapped__"):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):  # no source; a lambda (its line is no statement)
        return None
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, ast.FunctionDef) or definition.name != code.co_name:
        return None
    checks = [
        ast.parse(f"if type({name}) in {_TYPES}: {_RAISE}({answers!r}, {name})").body[0] for name, answers in names
    ]
    body = definition.body
    at = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    for check in checks:
        ast.copy_location(check, body[min(at, len(body) - 1)])
    body[at:at] = checks
    definition.decorator_list = []  # (never run: only the function's code object is taken)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first - definition.lineno)
    module = compile(tree, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    new_code = next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name)
    if new_code.co_varnames[:code.co_argcount] != code.co_varnames[:code.co_argcount]:
        return None
    fn.__globals__.setdefault(_TYPES, _LOOKED_UP)
    fn.__globals__.setdefault(_RAISE, _raise_recorded)
    new = types.FunctionType(new_code, fn.__globals__, fn.__name__, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    functools.update_wrapper(new, fn, updated=("__dict__",))
    del new.__wrapped__  # (a copy, not a wrapper: inspect.signature reads its own code)
    return new


# the names the copies of _with_checks read from their module's globals
_TYPES, _RAISE = "__python_level_types__", "__python_level_raise__"
_FUTURE_FLAGS = __future__.annotations.compiler_flag


def check_python_namespace(namespace: dict, prefix: str = "") -> None:
    """Wrap the functions of ``namespace`` (a module's globals) that have rules, in place (called once where
    each namespace is gathered: dyngrad/__init__.py, nn/functional.py, special, fft)."""
    for key in RULES:
        if not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if "." in name:
            continue
        fn = namespace.get(name)
        if fn is not None and not isinstance(fn, Tensor) and not hasattr(fn, "__python_level_key__"):
            namespace[name] = python_checked(key, fn)
