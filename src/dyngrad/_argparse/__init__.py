"""One argument parser for the public functions and Tensor methods, after torch's.

torch checks every call of a C-implemented function against its Python signatures (generated from
native_functions.yaml; torch/csrc/utils/python_arg_parser.cpp) and raises a TypeError that quotes them
when no signature takes the arguments. dyngrad keeps those signatures in one table,
``_signatures.SIGNATURES`` (generated from torch by scripts/gen_signatures.py), keyed by the name a user
calls: ``"exp"`` (dyngrad.exp), ``"Tensor.add"``, ``"nn.functional.linear"``, ``"linalg.inv"``.

Note [Argument checks off the hot path]
Parsing every call as torch does would cost microseconds per op. The functions are wrapped instead
(``checked``) so that the common call costs one extra Python call and one type test:
- before the call, only the cheap test of Note [Suspect arguments] runs (on the positional arguments and
  the keywords): a type test per argument; a tuple where an int list goes passes when its items are all
  ints (one ``issuperset`` over their types, _IntTuple), an int there only where torch takes a lone int
  (_signatures.UNSIZED); the keyword names, with the number of positional arguments, must fit some
  signature (Note [Keywords on the fast path], _fit_by_names: remembered per combination);
- the op runs; if it raises (a float has no ``_data``), the call is parsed against the table: when no
  signature takes the arguments, torch's TypeError replaces the error, since torch parses before it
  runs anything; otherwise the op's own error stands (it was about something else);
- a keyword torch accepts as a NumPy alias (``axis=``, ``keepdims=``) is renamed and the call retried,
  on that same slow path.
A function the table does not know is not wrapped: nothing is checked, nothing breaks. A function that
looks at its caller's frame skips the wrapper's (``stacklevel``; Tensor.requires_grad_'s user check).

The parse follows torch's (python_arg_parser.cpp): a parameter is found by its name, then by its NumPy
alias; None passes where the type is optional (a None default, or ``_signatures.NULLABLE``: ``int? to``,
which the signature text prints ``int to``); a lone int list takes the positional arguments from a first
int on; leftover keywords are reported by their own names. The TypeError describing an invalid
combination follows invalid_arguments.cpp, quirks included (``_described_names``, ``_plainly``).

Adding a row: a new builtin torch function gets its row by running scripts/gen_signatures.py (once
dyngrad has the function under torch's name); a hand-written row is a tuple of torch's signature
strings, e.g. ``"exp": ("(Tensor input, *, Tensor out = None)",)``.
"""

from __future__ import annotations

import functools
import operator

from .._backend import xp
from .._creation import Generator
from .._dtype import dtype
from .._tensor import Size, Tensor, device, layout, memory_format
from ._signatures import CALLED, NULLABLE, NUMBERS_AS_TENSORS, SIGNATURES, UNSIZED

_NUMBER_TYPES = (bool, int, float, complex, xp.bool_, xp.number)

# torch's NumPy-compatible keyword names (python_arg_parser.cpp, numpy_compatibility_arg_names)
NUMPY_NAMES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"), "other": ("x2",)}
ALIASES = {alias: name for name, aliases in NUMPY_NAMES.items() for alias in aliases}


class Param:
    __slots__ = ("type", "name", "kwonly", "optional", "allow_none", "no_lone_int")

    def __init__(self, text: str, kwonly: bool, nullable: tuple, unsized: tuple = ()):
        head, eq, default = text.partition(" = ")
        self.type, _, self.name = head.rpartition(" ")
        self.kwonly = kwonly
        self.optional = bool(eq)
        # None passes for a None default and for an optional type (``int? to``, which the text prints ``int to``)
        self.allow_none = default == "None" or self.name in nullable
        # an int list of no size (``int[]``) takes no lone int, save as the lone positional parameter (varargs)
        self.no_lone_int = self.name in unsized


@functools.cache
def parse_signature(text: str, nullable: tuple = (), unsized: tuple = ()) -> tuple:
    """``"(Tensor input, *, Tensor out = None)"`` -> its Params; ``nullable``: the names that take None besides
    those of a None default (_signatures.NULLABLE); ``unsized``: the int lists that take no lone int
    (_signatures.UNSIZED)."""
    params, kwonly = [], False
    body = text.strip()[1:-1]
    for part in body.split(", ") if body else ():
        if part == "*":
            kwonly = True
        else:
            params.append(Param(part, kwonly, nullable, unsized))
    return tuple(params)


def signatures(key: str) -> list:
    """The parsed signatures of a table key."""
    nullable, unsized = NULLABLE.get(key), UNSIZED.get(key)
    return [parse_signature(s, nullable[i] if nullable else (), unsized[i] if unsized else ())
            for i, s in enumerate(SIGNATURES[key])]


def type_name(obj) -> str:
    """How torch's messages name the type of ``obj`` (Python's tp_name: ``numpy.ndarray``, ``float``)."""
    if isinstance(obj, Tensor):  # a subclass by its own name (Parameter), as Python's tp_name gives it
        return "Tensor" if type(obj) is Tensor else type(obj).__name__
    t = type(obj)
    if t is dtype:
        return "torch.dtype"
    if t is Size:
        return "torch.Size"
    if t in (layout, memory_format, device):
        return f"torch.{t.__name__}"
    if t.__module__ == "builtins" or t.__flags__ & (1 << 9):  # builtin, or a class written in Python
        return t.__name__
    return f"{t.__module__}.{t.__name__}"


def _is_int(obj) -> bool:
    return (type(obj) is not bool and isinstance(obj, (int, xp.integer))) or (
        isinstance(obj, Tensor) and obj._data.ndim == 0 and obj._data.dtype.kind in "iu"
    )


def _is_list_item(obj, first: bool) -> bool:
    """Whether torch reads ``obj`` as an item of an int list (``x.reshape((2, obj))``).

    The first item is checked with the signature (python_arg_parser.cpp, is_int_or_symint): an int, a NumPy
    int, an object with ``__index__`` (a 0-d integer array), or a tensor of one element of an integral or
    bool dtype; never a bool. The others are read once a signature took the call, where a Python bool
    passes as an int (``x.sum((0, True))``) but a NumPy bool does not.
    """
    t = type(obj)
    if t is int:
        return True
    if t is bool:
        return not first
    if isinstance(obj, Tensor):
        return obj._data.size == 1 and obj._data.dtype.kind in "iub"
    if isinstance(obj, (float, complex, str, xp.bool_)) or obj is None:
        return False
    try:
        operator.index(obj)
    except TypeError:
        return False
    return True


def accepts(kind: str, obj, numbers_as_tensors: bool) -> bool:
    """Whether torch's parameter type ``kind`` takes ``obj`` (FunctionParameter::check, for the types
    dyngrad meets; an unknown type takes anything, so a missing rule never rejects a valid call)."""
    if kind == "Tensor":
        return isinstance(obj, Tensor) or (numbers_as_tensors and isinstance(obj, _NUMBER_TYPES))
    if kind == "Number":  # a number, or a tensor of one element and no dimension
        return isinstance(obj, _NUMBER_TYPES) or (isinstance(obj, Tensor) and obj._data.ndim == 0)
    if kind in ("int", "SymInt"):
        return _is_int(obj)
    if kind == "bool":
        return isinstance(obj, (bool, xp.bool_))
    if kind == "float":  # (a bool too: it is an int to Python, and torch's check)
        return isinstance(obj, (int, float, xp.integer, xp.floating, Tensor))
    if kind in ("str", "c10::string_view"):
        return isinstance(obj, str)
    if kind.startswith("tuple of ints") or kind.startswith("tuple of SymInts"):
        return _is_int(obj) or (isinstance(obj, (tuple, list)) and all(_is_int(v) for v in obj))
    if kind == "tuple of Tensors":
        return isinstance(obj, (tuple, list))
    if kind == "torch.dtype":
        # NumPy dtypes too: dyngrad's own code casts with them (x.to(array.dtype))
        return isinstance(obj, (dtype, xp.dtype)) or any(obj is t for t in (int, float, bool, complex))
    if kind == "torch.Generator":
        return isinstance(obj, Generator)
    if kind == "torch.memory_format":
        return isinstance(obj, memory_format)
    if kind == "torch.layout":
        return isinstance(obj, layout)
    if kind == "tuple of Scalars":
        return isinstance(obj, (tuple, list)) and all(isinstance(v, _NUMBER_TYPES) for v in obj)
    if kind == "tuple of floats":  # (a number too: torch's ArrayRef<double> takes one)
        return isinstance(obj, (tuple, list)) and all(accepts("float", v, False) for v in obj) or accepts(
            "float", obj, False)
    if kind == "torch.device":
        return isinstance(obj, (str, device)) or _is_int(obj)
    return True


def _positional(params) -> list:
    return [p for p in params if not p.kwonly]


class _Mismatch(Exception):
    pass


class _Unpacked(Exception):
    """torch's error whatever the other signatures say: an item of a tensor list is no tensor (raised as
    the list is checked), or a signature took the call but an item of an unpacked int list is no int
    (raised as the arguments are read, after the parse)."""


def _lookup(kwargs: dict, name: str):
    """The keyword argument for parameter ``name``: by its name, else by its NumPy alias (torch looks both
    up, FunctionSignature::parse); _ABSENT when neither is given."""
    obj = kwargs.get(name, _ABSENT)
    if obj is _ABSENT:
        for alias in NUMPY_NAMES.get(name, ()):
            obj = kwargs.get(alias, _ABSENT)
            if obj is not _ABSENT:
                break
    return obj


_ABSENT = object()


def _bind(name, params, args, kwargs, nat):
    """Match a call against one signature; raises _Mismatch(torch's text for it) when it does not take it.

    In torch's order (FunctionSignature::parse): too many positional arguments, then each parameter in
    turn (missing, wrong type), then keywords left over: the first that is no parameter's own name (a
    NumPy alias counts as none: np.sum(t) passes ``axis=None, out=None``) is unexpected, one naming a
    parameter given by position is given twice.
    """
    pos = _positional(params)
    unpacked, later = False, []
    if len(args) > len(pos):
        # a lone int-list parameter takes its ints unpacked: x.reshape(2, 3), x.permute(1, 0), zeros(2, 3); torch
        # takes all the positional arguments when the first is an int, and checks the others only as it
        # unpacks them (after the signature matched: "failed to unpack the object at pos 2")
        if len(pos) == 1 and pos[0].type.startswith("tuple of ints") and _is_list_item(args[0], True):
            args, unpacked = (tuple(args),), True
        else:
            n, least, k = len(pos), _min_args(params), len(args)
            if least != n:  # sic: torch counts required keyword-only parameters in the lower bound
                raise _Mismatch(f"{name}() takes from {least} to {n} positional arguments but {k} were given")
            raise _Mismatch(
                f"{name}() takes {n} positional argument{'' if n == 1 else 's'} but {k} {'was' if k == 1 else 'were'} given"
            )
    used = 0
    for i, p in enumerate(params):
        given_pos = not p.kwonly and i < len(args)
        obj = args[i] if given_pos else _lookup(kwargs, p.name)
        if obj is _ABSENT:
            if not p.optional:
                rest = [q.name for q in params[i:] if not q.optional]
                names = ", ".join(f'"{m}"' for m in rest)
                # sic: torch's "s" goes with one missing argument (python_arg_parser.cpp, missing_args)
                raise _Mismatch(
                    f"{name}() missing {len(rest)} required positional argument{'s' if len(rest) == 1 else ''}: {names}"
                )
            continue
        used += not given_pos
        if obj is None and p.allow_none:
            continue
        where = f" (position {i + 1})" if given_pos else ""
        if unpacked and i == 0:
            continue
        if p.no_lone_int and _lone_int_refused(obj, given_pos, pos):
            raise _Mismatch(f"{name}(): argument '{p.name}'{where} must be tuple of ints, not {type_name(obj)}")
        if p.type.startswith("tuple of ints") and isinstance(obj, (list, tuple)) and obj:
            # torch checks the first item only (is_int_or_symint_list); the others as it reads the list, once a
            # signature took the call (x.sum(dim=(0, 1.0)): "failed to unpack the object at pos 2")
            if _is_list_item(obj[0], True):
                later.append((p.name, obj))
                continue
            if given_pos:  # (a keyword's is the plain "must be tuple of ints, not tuple" below)
                raise _Mismatch(
                    f"{name}(): argument '{p.name}'{where} must be tuple of ints, but found element of type "
                    f"{type_name(obj[0])} at pos 0"
                )
        if not accepts(p.type, obj, nat):
            raise _Mismatch(f"{name}(): argument '{p.name}'{where} must be {p.type}, not {type_name(obj)}")
        if p.type == "tuple of Tensors":
            for j, item in enumerate(obj):
                if not isinstance(item, Tensor):  # (torch raises it as it checks the list, whatever comes next)
                    raise _Unpacked(f"expected Tensor as element {j} in argument {i}, but got {type_name(item)}")
    if used < len(kwargs):  # python_arg_parser.cpp, extra_kwargs
        where = {p.name: i for i, p in enumerate(params)}
        for key in kwargs:
            if key not in where:
                raise _Mismatch(f"{name}() got an unexpected keyword argument '{key}'")
            if where[key] < len(args) and not params[where[key]].kwonly:
                raise _Mismatch(f"{name}() got multiple values for argument '{key}'")
    if unpacked:
        later.insert(0, (params[0].name, args[0]))
    for param_name, items in later:
        for j, item in enumerate(items):
            if j and not _is_list_item(item, False):
                raise _Unpacked(
                    f"{name}(): argument '{param_name}' failed to unpack the object at pos {j + 1} with error "
                    f'"type must be tuple of ints,but got {type_name(item)}"'
                )


def _lone_int_refused(obj, given_pos: bool, pos) -> bool:
    """An int where an int list of no size goes (Param.no_lone_int): refused, save by position as the lone
    positional parameter, which takes its ints unpacked (``x.view(4)``, but ``x.view(size=4)``, ``x.flip(dims=0)``,
    ``torch.reshape(x, 4)`` are refused)."""
    return _is_int(obj) and not (given_pos and len(pos) == 1)


def _kwargs_in_torch_order(kwargs: dict) -> list:
    # torch keeps the keywords in a std::unordered_map to describe them: with libstdc++, small maps
    # iterate in reverse order of insertion
    return list(reversed(kwargs.items()))


def _got(args, kwargs) -> str:
    """torch's ``_argDesc``: the types of the arguments given."""
    kw = [f"{k}={type_name(v)}" for k, v in _kwargs_in_torch_order(kwargs)]
    if args or not kw:
        return "(" + ", ".join([type_name(a) for a in args] + kw) + ")"
    return "(" + ", ".join(kw) + ", )"


def _described(obj) -> str:
    """A type as torch's ``_formattedArgDesc`` writes it: lists and tuples with their items' types."""
    if type(obj) is list:
        return "list of [" + ", ".join(_described(v) for v in obj) + "]"
    if type(obj) is tuple:
        return "tuple of (" + ", ".join(_described(v) for v in obj) + ")"
    return type_name(obj)


def _why_not(params, text: str, args, kwargs) -> str:
    """The line torch adds under a signature that takes as many arguments as were given (sic: its count
    includes the ``*`` of keyword-only parameters; invalid_arguments.cpp, _argcountMatch)."""
    if text.count(", ") + 1 != len(args) + len(kwargs):
        return ""
    names = _described_names(params)
    unmatched = [k for k, _ in _kwargs_in_torch_order(kwargs) if k not in names]
    if unmatched:
        return "      didn't match because some of the keywords were incorrect: " + ", ".join(unmatched) + "\n"
    parts = []
    pos = _positional(params)
    for i, obj in enumerate(args):
        ok = i < len(pos) and not pos[i].optional and _plainly(pos[i].type, obj)
        ok = ok and not (pos[i].no_lone_int and _lone_int_refused(obj, True, pos))
        parts.append(_described(obj) if ok else f"!{_described(obj)}!")
    for k, obj in _kwargs_in_torch_order(kwargs):  # (the mark takes in the name: "(!dim=NoneType!, )")
        ok = _plainly(names[k].type, obj) and not (names[k].no_lone_int and _is_int(obj))
        parts.append(f"{k}={_described(obj)}" if ok else f"!{k}={_described(obj)}!")
    # sic: torch drops the last ", " only when some argument was positional (invalid_arguments.cpp)
    tail = ")" if args else ", )"
    return "      didn't match because some of the arguments have invalid types: (" + ", ".join(parts) + tail + "\n"


def _described_names(params) -> dict:
    """The parameters the description of an invalid call knows by name: the required ones. (torch reads the
    name after the last space of ``Number alpha = 1``, its default, so a keyword never matches a parameter
    with a default there, and no argument matches its type: ``(!int!, ...)`` under ``(int dim = -1, ...)``.)"""
    return {p.name: p for p in params if not p.optional}


def _plainly(kind: str, obj) -> bool:
    """The type test of torch's error description (invalid_arguments.cpp, stricter than the parser's: it
    knows no "Number" type, so nothing matches one: ``(!int!, ...)`` under ``(Number self, Tensor other)``)."""
    if kind == "Number":
        return False
    if isinstance(obj, Tensor) and type(obj) is not Tensor:  # torch marks a Parameter there too: (!Parameter!, ...)
        return False
    return accepts(kind, obj, False)


def explain(key: str, args: tuple, kwargs: dict):
    """torch's TypeError for a call of ``key`` that no signature of the table takes; None if one does."""
    sigs = SIGNATURES.get(key)
    if sigs is None:
        return None
    name = CALLED.get(key, key.rpartition(".")[2])
    nat = key in NUMBERS_AS_TENSORS
    parsed = signatures(key)
    errors = []
    for params in parsed:
        try:
            _bind(name, params, args, kwargs, nat)
            return None
        except _Mismatch as e:
            errors.append(str(e))
        except _Unpacked as e:
            return TypeError(str(e))
    if len(sigs) == 1 and key not in HIDDEN:
        return TypeError(errors[0])  # a function of one signature: its own message
    # several signatures (some maybe hidden, deprecated ones: HIDDEN): one that the number of arguments
    # fits gives its own message, else torch lists them (PythonArgParser::print_error)
    n = len(args) + len(kwargs)
    plausible = [i for i, params in enumerate(parsed) if _min_args(params) <= n <= len(params)]
    if len(plausible) == 1:
        return TypeError(errors[plausible[0]])
    head = f"{name}() received an invalid combination of arguments - got "
    if len(sigs) == 1:  # one visible signature (invalid_arguments.cpp, format_invalid_args)
        names = _described_names(parsed[0])
        unmatched = [k for k, _ in _kwargs_in_torch_order(kwargs) if k not in names]
        if unmatched:
            return TypeError(f"{name}() received an invalid combination of arguments - got unrecognized keyword "
                             f"arguments: {', '.join(unmatched)}")
        return TypeError(f"{head}{_got(args, kwargs)}, but expected {sigs[0]}")
    lines = []
    for text, params in zip(sigs, parsed):
        lines.append(f" * {text}\n{_why_not(params, text, args, kwargs)}")
    return TypeError(f"{head}{_got(args, kwargs)}, but expected one of:\n" + "".join(lines))


def _keywords_to_positions(key: str, fn, args: tuple, kwargs: dict):
    """(args, kwargs) with the keywords that name the next positional parameters of a signature moved to
    their positions, where the op function has no parameter of that name (it reads them as ``*size``:
    ``x.view(size=(2, 3))``, ``zeros(size=(2, 3))``, ``x.permute(dims=[1, 0])``); None when none moves."""
    own = _by_keyword(fn)
    for params in signatures(key):
        pos, moved, rest = _positional(params), list(args), dict(kwargs)
        while len(moved) < len(pos) and pos[len(moved)].name in rest and pos[len(moved)].name not in own:
            moved.append(rest.pop(pos[len(moved)].name))
        if len(moved) > len(args):
            return tuple(moved), rest
    return None


def _min_args(params) -> int:
    return sum(1 for p in params if not p.optional)


from ._signatures import HIDDEN  # noqa: E402


def _realias(kwargs: dict, key: str):
    """``kwargs`` with torch's NumPy-style names renamed to the signature's, or None if none applies
    (called once the table took the call: the alias named a parameter)."""
    names = {p.name for params in signatures(key) for p in params}
    renamed, changed = {}, False
    for k, v in kwargs.items():
        alias = ALIASES.get(k)
        if alias is not None and k not in names and alias in names and alias not in kwargs:
            renamed[alias] = v
            changed = True
        else:
            renamed[k] = v
    return renamed if changed else None


def stacklevel(level: int) -> int:
    """``level`` for warnings.warn, counting the wrappers of the argument check between the warning
    function and its caller too (a warning reported at the user's line stays there: torch.range's)."""
    import sys

    frame, extra = sys._getframe(level), 0
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame, extra = frame.f_back, extra + 1
    return level + extra


def checked(key: str, fn, method: bool = False):
    """``fn`` wrapped with torch's argument errors (Note [Argument checks off the hot path]).

    ``method``: ``fn`` is a Tensor method; positions in messages count from the first argument after self.
    """
    sigs = SIGNATURES.get(key)
    if sigs is None or not callable(fn):
        return fn
    nat = key in NUMBERS_AS_TENSORS
    parsed = signatures(key)
    suspect, most, least = _suspect_positions(parsed, method, nat)
    # where a number is a tensor only by numbers_as_tensors (every signature says Tensor there)
    wrapped = tuple(i for i, _ in _suspect_positions(parsed, method)[0] if nat and _tensor_only(parsed, i - method))
    # a lone int list taking the positional arguments unpacked (x.view(3, 2)): the ints past the first are
    # checked before the op runs too, which could take a float (x.view(3, 2.0))
    unpacked_from = None if most is not None else 1 + method
    if most is None:
        most = 1 << 30
    by_name = _keyword_types(parsed, fn)
    if "out" in by_name and not _takes_out(fn):
        del by_name["out"]  # out= goes the slow way, to _call_with_out
    fits = {}  # (number of positional arguments, *keyword names) -> whether some signature takes those names

    def slow(args, kwargs, error):
        problem = explain(key, args[1:] if method else args, _known_keywords(key, fn, kwargs))
        if problem is not None:
            raise problem from None
        if kwargs:
            renamed = _realias(kwargs, key)
            if renamed is not None:  # torch.sum(x, axis=0): the call again, by torch's names
                return wrapper(*args, **renamed)
            moved = _keywords_to_positions(key, fn, args[1:] if method else args, kwargs)
            if moved is not None:  # x.view(size=(2, 3)), torch.reshape(x, shape=s): the op takes them by position
                return fn(*args[:1] if method else (), *moved[0], **moved[1])
        if "out" in kwargs and _has_out(key) and not _takes_out(fn):
            return _call_with_out(key, wrapper, args, kwargs)
        # the op took no number there (torch.add(1, 2)): torch's wrapped tensors. Only for the errors a number
        # causes (no ``_data``, a type check): an op that failed after writing in place (an inference tensor's
        # version bump) must not run twice
        if wrapped and isinstance(error, (TypeError, AttributeError)):
            converted = _numbers_to_tensors(args, wrapped)
            if converted is not None:
                return fn(*converted, **kwargs)
        if error is not None:
            raise error
        return fn(*args, **kwargs)

    def wrapper(*args, **kwargs):
        if len(args) > most or len(args) < least:
            return slow(args, kwargs, None)
        if unpacked_from is not None and len(args) > unpacked_from:
            for a in args[unpacked_from:]:
                if type(a) is not int:
                    return slow(args, kwargs, None)
        for i, fast in suspect:
            if i < len(args) and type(args[i]) not in fast and not (Tensor in fast and isinstance(args[i], Tensor)) and not (
                    _IntTuple in fast and type(args[i]) is tuple and _INT_ONLY.issuperset(map(type, args[i]))):
                return slow(args, kwargs, None)
        if kwargs:
            fit = fits.get((len(args), *kwargs))
            if fit is None:
                fit = _fit_by_names(fits, parsed, len(args), method, kwargs, fn)
            if not fit:  # x.sum(keepdim=True): a keyword no signature takes without some positional argument
                return slow(args, kwargs, None)
            for k, v in kwargs.items():
                fast = by_name.get(k, _UNKNOWN)
                if fast is _UNKNOWN or (fast is not None and type(v) not in fast and not (
                        Tensor in fast and isinstance(v, Tensor)) and not (
                        _IntTuple in fast and type(v) is tuple and _INT_ONLY.issuperset(map(type, v)))):
                    return slow(args, kwargs, None)
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - torch parses before it runs: a call no signature takes fails so
            return slow(args, kwargs, e)

    functools.update_wrapper(wrapper, fn)
    wrapper.__wrapped_key__ = key
    return wrapper


_UNKNOWN = object()


def _fit_by_names(fits: dict, parsed, n_args: int, method: bool, kwargs: dict, fn) -> bool:
    """Note [Keywords on the fast path]: whether some signature takes ``n_args`` positional arguments and
    these keyword names, by names alone (the types are tested apart); remembered in ``fits``.

    torch's parse matches the names first: ``x.sum(keepdim=True)`` fits no signature (``keepdim`` comes with a
    ``dim``), nor ``sort(x, 0, stable=True)`` (``stable`` is a keyword of the overload without positional
    ``dim``), ``arange(5, step=2)``. The op function could take them; the call is parsed first. Names only the
    op function has (a keyword the table misses, _known_keywords) are left out of the test; a NumPy alias
    (``axis=``) fits no signature by its own name: the slow path renames it.
    """
    own = _keywords_of(fn)
    table = {p.name for params in parsed for p in params}
    names = [k for k in kwargs if k in table or k not in own]
    n = n_args - method
    fit = any(_names_fit(params, n, names) for params in parsed)
    if len(fits) < 256:
        fits[(n_args, *kwargs)] = fit
    return fit


def _names_fit(params, n: int, names) -> bool:
    """Whether one signature takes ``n`` positional arguments and the keywords ``names`` (_bind, by names)."""
    pos = _positional(params)
    if n > len(pos):
        if len(pos) != 1 or not pos[0].type.startswith("tuple of ints"):
            return False
        n = 1  # a lone int list takes its ints unpacked
    given = set(names)
    for i, p in enumerate(params):
        if not p.kwonly and i < n:
            if p.name in given:
                return False  # given twice
            continue
        if p.name in given:
            given.discard(p.name)
        elif not p.optional:
            return False  # missing
    return not given


def _keyword_types(parsed, fn) -> dict:
    """Note [Suspect arguments], for keywords: by parameter name, the Python types surely taken under it
    (``_FAST``; None where the types are not all among those, or where only the op function has the name:
    not checked before the op runs). A keyword neither has (a NumPy alias, a misspelling) is parsed first."""
    types, unchecked = {}, set()
    for params in parsed:
        for p in params:
            if p.type not in _FAST:
                unchecked.add(p.name)
                continue
            accepted = types.setdefault(p.name, set())
            # (an int list of no size takes no lone int by keyword: x.flip(dims=0) is parsed first)
            accepted.update(t for t in _FAST[p.type] if not (t is int and p.no_lone_int))
            if p.allow_none:
                accepted.add(type(None))
            if p.type == "tuple of ints":
                accepted.discard(list)
    for accepted in types.values():
        _items_checked(accepted)
    out = {name: frozenset(accepted) for name, accepted in types.items()}
    for name in unchecked:
        out[name] = None
    for name in _own_keywords(fn):
        out.setdefault(name, None)
    return out


def _own_keywords(fn) -> tuple:
    """The names the op function takes by keyword (not ``*args``/``**kwargs`` themselves)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return ()
    return tuple(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _known_keywords(key: str, fn, kwargs: dict) -> dict:
    """``kwargs`` less the keywords the table lacks but the op function names: a row probed from torch
    may miss a keyword-only parameter (one its docstring does not list), which the op, written after
    torch's, has."""
    if not kwargs:
        return kwargs
    names = {p.name for params in signatures(key) for p in params}
    own = _keywords_of(fn)
    return {k: v for k, v in kwargs.items() if k in names or k not in own}


@functools.cache
def _keywords_of(fn) -> frozenset:
    import inspect

    try:
        return frozenset(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return frozenset()


@functools.cache
def _by_keyword(fn) -> frozenset:
    """The names ``fn`` takes by keyword (``*size`` is none of them)."""
    return frozenset(_own_keywords(fn))


@functools.cache
def _takes_out(fn) -> bool:
    """Whether the op function handles ``out=`` itself: it has an ``out`` parameter that its code reads (or it
    takes any keyword). An op written with ``out=None`` in its signature only, and a factory (a ``layout``
    parameter: torch takes the dtype from ``out``, not handled here) that ignores it, are neither."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return True
    if "out" not in params:
        return False
    return "layout" in params or _reads_out(fn)


def _reads_out(fn) -> bool:
    """Whether the code of ``fn`` (or of the function it wraps) uses its parameter ``out``."""
    import dis

    code = getattr(fn, "__code__", None)
    while code is not None and "out" not in code.co_varnames[: code.co_argcount + code.co_kwonlyargcount]:
        fn = getattr(fn, "__wrapped__", None)
        code = getattr(fn, "__code__", None)
    if code is None:
        return True  # not a Python function: as before, trusted to handle it
    if "out" in code.co_cellvars:  # read by a nested function
        return True
    for ins in dis.get_instructions(code):
        if ins.opname.startswith(("LOAD_FAST", "STORE_FAST", "DELETE_FAST")) and (
                ins.argval == "out" or (isinstance(ins.argval, tuple) and "out" in ins.argval)):
            return True
    return False


@functools.cache
def _has_out(key: str) -> bool:
    return any(p.name == "out" for params in signatures(key) for p in params)


def _call_with_out(key: str, fn, args: tuple, kwargs: dict):
    """``out=`` for an op written without it: the result is computed, then written into ``out`` as torch's
    out= variants do (_ops/out_param.py: dtype kept, resized with torch's warning, refused under autograd)."""
    from .._ops.out_param import check_out_autograd, tensors_in, write_out

    kwargs = dict(kwargs)
    out = kwargs.pop("out")
    name = CALLED.get(key, key.rpartition(".")[2])
    inputs = tensors_in(args, kwargs)  # (those in a list too: cat's)
    if out is not None:
        outs = out if isinstance(out, (tuple, list)) else (out,)
        check_out_autograd(name, outs[0], *inputs, *outs[1:])
    result = fn(*args, **kwargs)
    if out is None:
        return result
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type_name(out)}")
        written = [write_out(r, o, key, inputs) for r, o in zip(result, out)]
        return type(result)(*written) if hasattr(result, "_fields") else tuple(written)
    return write_out(result, out, key, inputs)


def _tensor_only(parsed, i: int) -> bool:
    positional = [_positional(params) for params in parsed]
    return all(len(p) > i and p[i].type == "Tensor" for p in positional)


def _numbers_to_tensors(args: tuple, positions: tuple) -> tuple:
    """``torch.add(1, 2)``: numbers where a tensor goes become 0-d tensors (int64, the default float,
    bool, complex), as torch wraps them; None when there is none."""
    from .._creation import tensor

    converted = list(args)
    for i in positions:
        if i < len(args) and isinstance(args[i], _NUMBER_TYPES):
            converted[i] = tensor(args[i])
    return tuple(converted) if any(a is not b for a, b in zip(args, converted)) else None


_FAST = {  # Note [Suspect arguments]: the Python types a parameter type surely takes
    "Tensor": (Tensor,),
    # a tuple is the common spelling of a shape; a list is parsed first (it may hold floats: x.tile([2.5]))
    "tuple of ints": (int, tuple, Size),
    "torch.dtype": (dtype, *{type(xp.dtype(c)) for c in "?bBhilqefdFD"}),  # (NumPy's: dyngrad's own calls)
    "torch.device": (str, int, device),
    "torch.Generator": (Generator,),
    "Number": (Tensor, int, float, bool, complex),
    "int": (int,),
    "bool": (bool,),
    "float": (float, int),
    "str": (str,),
    "tuple of Tensors": (tuple, list),
    "torch.memory_format": (memory_format,),
    "torch.layout": (layout,),
}


class _IntTuple:
    """Marks the types of an int-list parameter in Note [Suspect arguments]: a tuple passes there only when
    its items are all ints (``x.permute((0, 1.0))`` is parsed first: the op could take the float)."""


_INT_ONLY = frozenset({int})


def _items_checked(types: set) -> None:
    """An int-list parameter's fast types: a tuple passes after the test of its items (_IntTuple), not by its
    type alone. (Size holds ints only.)"""
    if tuple in types:
        types.discard(tuple)
        types.add(_IntTuple)


def _suspect_positions(parsed, method: bool, numbers_as_tensors: bool = False) -> tuple:
    """Note [Suspect arguments]: the positional arguments checked before the op runs, as (index, types).

    At a position that every signature with that many positional parameters types Tensor, Number, int,
    bool, float, an int list, a dtype or a device, an argument whose type is not among those the types
    surely take (``_FAST``) is parsed before the op runs: an op could take it silently (``abs([1, 2])``,
    ``x.eq([1, 2])``, ``x.to([1])``). Tensor subclasses are tested by isinstance, after the type test
    fails. Other positions are parsed only when the op fails. Also returned: the most positional
    arguments any signature takes (None when a lone int list takes them unpacked) and the fewest that
    every signature needs: a call outside those bounds is parsed first too.
    """
    positional = [_positional(params) for params in parsed]
    offset = 1 if method else 0
    out = []
    for i in range(max(len(p) for p in positional)):
        params = [p[i] for p in positional if len(p) > i]
        kinds = {q.type for q in params}
        if not kinds <= _FAST.keys():
            continue
        types = set()
        for p in positional:  # (an int list of no size, but the lone one, takes no int: torch.reshape(x, 4))
            if len(p) > i:
                types.update(t for t in _FAST[p[i].type] if not (t is int and p[i].no_lone_int and len(p) > 1))
        if numbers_as_tensors and "Tensor" in kinds:  # x.mul(2): the op takes the number itself
            types.update(_FAST["Number"])
        if "tuple of ints" in kinds:  # a list where either a tensor list or an int list goes: parsed first
            types.discard(list)
            if "tuple of Tensors" not in kinds:
                _items_checked(types)
        if any(q.allow_none for q in params):
            types.add(type(None))
        out.append((i + offset, frozenset(types)))
    varargs = any(len(p) == 1 and p[0].type.startswith("tuple of ints") for p in positional)
    most = None if varargs else max(len(p) for p in positional) + offset
    least = min(sum(1 for q in p if not q.optional) for p in positional) + offset
    return tuple(out), most, least


def check_namespace(namespace: dict, prefix: str = "") -> None:
    """Wrap the functions of ``namespace`` (a module's globals) that the table knows, in place.

    Called once where each namespace is gathered (dyngrad/__init__.py, nn/functional.py, linalg.py);
    a function without a row stays as it is.
    """
    import types

    for key in SIGNATURES:
        if not key.startswith(prefix):
            continue
        name = key[len(prefix):]
        if "." in name:
            continue
        fn = namespace.get(name)
        if isinstance(fn, types.FunctionType) and not hasattr(fn, "__wrapped_key__"):
            namespace[name] = checked(key, fn)


def check_methods(methods: dict) -> dict:
    """The Tensor methods, those taking arguments besides self wrapped (Note [Argument checks off the hot path]).

    A method of no argument but self (``x.exp()``, ``x.sin()``) is left as it is: self is a tensor whenever
    it is called as a method, so a wrapper would only add a call.
    """
    import types

    out = dict(methods)
    for name in list(vars(Tensor)):  # the methods written in the class itself (size, view, to ...)
        if name not in methods and not name.startswith("__"):
            out[name] = vars(Tensor)[name]
    for name, fn in list(out.items()):
        key = "Tensor." + name
        sigs = SIGNATURES.get(key)
        if getattr(fn, "parses_itself", False):  # a method written in Python over the checked op, as torch's
            continue
        if sigs and isinstance(fn, types.FunctionType) and any(signatures(key)):
            out[name] = checked(key, fn, method=True)
        elif name not in methods:
            del out[name]  # a class attribute left as it is
    return out
