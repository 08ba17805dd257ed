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
None, a NumPy array, a list by its first item's type), torch's exception and text; and the kinds that
dyngrad's own function takes without raising (``softsign(3.0)`` computes on the float).

Note [Wrong kinds off the hot path]
A function with rules is replaced in its namespace by a checked copy (``python_checked``):
- a kind dyngrad's function would take is tested before it runs (one type test per such argument);
- every other kind only once the function has raised: its body runs in a ``try`` whose handler looks the
  arguments up and raises torch's error where one is recorded (else the function's own error stands).
  A ``try`` costs nothing to a call that does not raise (Python 3.11's exception tables), so a call of
  tensors runs as before; most functions (F.relu, F.softmax) have no test before they run.
The checks go into a copy of the function's own code (``_with_checks``, compiled from its source at its own
lines: no extra call); a function whose source cannot be copied so (a lambda, a closure, one wrapped by a
decorator) is wrapped instead (``_wrapped``: one extra call). Any value of another kind (a tensor, a kind
torch took, a kind not recorded) goes to dyngrad's function unchanged, so a rule never refuses a call torch
takes. The arguments are looked at in their order; where a call has several wrong ones, torch may fail on a
later one first (its Python code decides).

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
from ._python_level import NAMES, RULES
from ._signatures import SIGNATURES

# the Python type of each kind of kind_of: an argument of any other type is never looked up
_KIND_TYPES = {"float": float, "int": int, "str": str, "NoneType": type(None), "numpy.ndarray": xp.ndarray}


def _types_of(answers) -> frozenset:
    """The Python types of the kinds ``answers`` has (list for any ``list[...]``): the types a check tests (a
    None default, where None has no answer, is not looked up)."""
    return frozenset(list if kind.startswith("list[") else _KIND_TYPES[kind] for kind, _, _ in answers)


# the type sets of the checks put into functions' code, which index it (one list, in every such module's globals)
_TYPE_SETS: list = []


def kind_of(obj) -> str:
    """The kind of a wrong value, as _python_level's rules name it."""
    if type(obj) is list:
        return "list[" + (type_name(obj[0]) if obj else "") + "]"
    return type_name(obj)


def _raise_recorded(answers: tuple, obj) -> None:
    """Raise torch's error for ``obj`` where one is recorded for its kind (``answers``: (kind, exception, text)
    triples); else return."""
    kind = kind_of(obj)
    for recorded, exception, text in answers:
        if recorded == kind:
            raise getattr(builtins, exception)(text) from None  # (torch's has no context)


def _answers(templates: list) -> tuple:
    """The (kind, exception, text) triples of a rule's [(exception, template, kinds)] (_python_level)."""
    return tuple((kind, exception, template.format(NAMES[kind])) for exception, template, kinds in templates
                 for kind in kinds)


def python_checked(key: str, fn):
    """``fn`` raising torch's errors for arguments of a wrong kind (Note [Wrong kinds off the hot path]);
    ``fn`` itself when there is no rule for ``key`` or the parser's table already wraps it."""
    rules = RULES.get(key)
    if not rules or not isinstance(fn, types.FunctionType) or key in SIGNATURES or hasattr(fn, "__wrapped_key__"):
        return fn
    rules = [(pos, name, _answers(templates), before) for pos, name, templates, before in rules]
    checked = _with_checks(fn, rules) or _wrapped(fn, rules)
    checked.__python_level_key__ = key
    checked.__python_level_unchecked__ = fn  # (what scripts/gen_python_level.py calls)
    return checked


def _wrapped(fn, rules):
    """``fn`` wrapped: the kinds of ``before`` tested before it runs, all kinds once it has raised."""
    def plan(by_position):
        out = []
        for pos, name, answers, before in rules:
            where = pos if by_position else name
            if where is not None:
                out.append((where, _types_of([a for a in answers if a[0] in before]), _types_of(answers), answers))
        return tuple(out)

    positional, named = plan(True), plan(False)
    # (the rules with kinds to test before the call: most functions have none, and skip the test)
    early = (tuple(p for p in positional if p[1]), tuple(p for p in named if p[1]))
    early = early if any(early) else None

    def check(args, kwargs, positional, named, which):
        for i, *types_, answers in positional:
            if i < len(args) and type(args[i]) in types_[which]:
                _raise_recorded(answers, args[i])
        for name, *types_, answers in named:
            if name in kwargs and type(kwargs[name]) in types_[which]:
                _raise_recorded(answers, kwargs[name])

    def wrapper(*args, **kwargs):
        if early is not None:
            check(args, kwargs, *early, 0)
        try:
            return fn(*args, **kwargs)
        except Exception:
            check(args, kwargs, positional, named, 1)
            raise

    functools.update_wrapper(wrapper, fn)
    return wrapper


def _checked_names(fn, rules):
    """(parameter name of ``fn``, answers, before) for each rule, or None where a rule names no parameter of
    ``fn`` (an argument of ``*args``): ``fn``'s parameters are torch's, by position (dyngrad's names may
    differ: sigmoid's ``a``), else by keyword name. Where a parameter's default is of a kind its rule refuses
    (a test in the code cannot tell a default from an argument given), None too."""
    code = fn.__code__
    named = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    defaults = dict(zip(named[code.co_argcount - len(fn.__defaults__ or ()):code.co_argcount], fn.__defaults__ or ()))
    defaults.update(fn.__kwdefaults__ or {})
    out = []
    for pos, name, answers, before in rules:
        if pos is not None and pos < code.co_argcount:
            param = named[pos]
        elif name is not None and name in named:
            param = name
        else:
            return None
        if param in defaults and any(kind == kind_of(defaults[param]) for kind, _, _ in answers):
            return None
        out.append((param, answers, before))
    return out


def _check(name: str, answers: tuple) -> ast.stmt:
    """``if type(name) in TYPE_SETS[i]: RAISE(answers, name)``."""
    _TYPE_SETS.append(_types_of(answers))
    return ast.parse(f"if type({name}) in {_TYPES}[{len(_TYPE_SETS) - 1}]: {_RAISE}({answers!r}, {name})").body[0]


def _with_checks(fn, rules):
    """A copy of ``fn`` with the checks of Note [Wrong kinds off the hot path] in its code; None where ``fn`` is
    not a plain module-level function whose source is at hand.

    The body becomes ``<tests of the kinds it takes>; try: <body> except Exception: <tests of all>; raise``. A
    parameter the body assigns to is tested wholly before (the handler would see the new value). The copy is
    compiled from ``fn``'s own source at its own lines (tracebacks show the file), and shares ``fn``'s globals,
    defaults and attributes; the two names it reads are put in those globals once."""
    names = _checked_names(fn, rules)
    code = fn.__code__
    if (names is None or code.co_freevars or fn.__qualname__ != fn.__name__ or hasattr(fn, "__wrapped__")
            or code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE)):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError):  # no source; a lambda (its line is no statement)
        return None
    definition = tree.body[0] if tree.body else None
    if not isinstance(definition, ast.FunctionDef) or definition.name != code.co_name:
        return None
    body = definition.body
    at = 1 if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) else 0
    if at == len(body):
        return None
    assigned = {node.id for node in ast.walk(ast.Module(body=body[at:], type_ignores=[]))
                if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    before, after = [], []
    for name, answers, kinds in names:
        if name in assigned:
            before.append(_check(name, answers))
            continue
        early = tuple(a for a in answers if a[0] in kinds)
        if early:
            before.append(_check(name, early))
        after.append(_check(name, answers))
    statements = [*before, *body[at:]]
    if after:
        handler = ast.ExceptHandler(type=ast.Name(id="Exception", ctx=ast.Load()), name=None,
                                    body=[*after, ast.Raise()])
        statements = [*before, ast.Try(body=body[at:], handlers=[handler], orelse=[], finalbody=[])]
    for node in statements[:len(before) + bool(after)]:
        ast.copy_location(node, body[at])
    definition.body = body[:at] + statements
    definition.decorator_list = []  # (never run: only the function's code object is taken)
    ast.fix_missing_locations(tree)
    ast.increment_lineno(tree, first - definition.lineno)
    module = compile(tree, code.co_filename, "exec", flags=code.co_flags & _FUTURE_FLAGS, dont_inherit=True)
    new_code = next(c for c in module.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name)
    if new_code.co_varnames[:code.co_argcount] != code.co_varnames[:code.co_argcount]:
        return None
    fn.__globals__.setdefault(_TYPES, _TYPE_SETS)
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
            checked = python_checked(key, fn)
            if checked is not fn:
                # named where it lives, as torch's (torch.nn.functional.relu): pickle finds it by that name (the
                # original, under its own, is another object), and Python's own errors name it as torch's do
                checked.__module__, checked.__qualname__ = namespace["__name__"], name
                if fn.__name__ in (f"special_{name}", f"fft_{name}", f"linalg_{name}"):
                    # named as torch's builtin (special_round for special.round): Python's argument-count errors
                    # quote that name, as torch's do; pickle finds it under that name too
                    checked.__qualname__ = fn.__name__
                    namespace.setdefault(fn.__name__, checked)
            namespace[name] = checked
