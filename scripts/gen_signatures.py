"""Write src/dyngrad/_argparse/_signatures.py: torch's Python signatures of every builtin that dyngrad also has.

torch parses each call of a C-implemented function against signature strings generated from
native_functions.yaml, and quotes them in its TypeError texts. They are read here from torch itself
(never typed in), so the table follows the torch that generated it:

- a function with several signatures lists them all when it is called with more arguments than any
  of them takes ("received an invalid combination of arguments ... expected one of: * (...)"): those
  lines are copied as they are;
- a function with one signature never lists it (and its text is not shown: only its parameters'
  names, types and whether they may be left out matter; a default that is not None and that the
  docstring does not give is written ``<unknown>``); its parameters are found one at a time by passing an
  object of an unknown class where the next one goes: torch answers "argument 'NAME' (position N)
  must be TYPE, not ..." (or that it takes N positional arguments: the end). The keyword-only ones
  are named by the first line of the function's docstring (``exp(input, *, out=None)``) and typed the
  same way, as keywords.

Run: PYTHONPATH=src .venv/bin/python scripts/gen_signatures.py   (needs torch; the runtime does not)
"""

from __future__ import annotations

import os
import re
import types
import warnings

import torch
import torch.nn.functional as F

import dyngrad

_BUILTIN = (types.BuiltinFunctionType, types.BuiltinMethodType)
_OUT = os.path.join(os.path.dirname(__file__), "..", "src", "dyngrad", "_argparse", "_signatures.py")


class Probe:  # an object of a class torch does not know: its name appears in torch's message
    pass


_VALID = {  # a value of each torch type name, to get past a parameter while probing the next
    "Tensor": lambda: torch.ones(2, 2),
    "int": lambda: 0,
    "bool": lambda: False,
    "float": lambda: 1.0,
    "Number": lambda: 1,
    "tuple of ints": lambda: (0,),
    "torch.dtype": lambda: torch.float32,
    "str": lambda: "none",
    "tuple of Tensors": lambda: (torch.ones(2, 2),),
}


def _error(fn, args, kwargs):
    try:
        fn(*args, **kwargs)
    except TypeError as e:
        return str(e)
    except Exception:  # noqa: BLE001 - the arguments parsed; the op itself refused them
        return None
    return None


def _listing(fn):
    """The signature lines of an overloaded function, or None when it has a single one."""
    text = _error(fn, (), {f"zz{i}": i for i in range(40)})
    if text is not None and "expected one of:" in text:
        return tuple(line[3:] for line in text.split("\n") if line.startswith(" * "))
    # one visible signature and hidden (deprecated) ones: "got (...), but expected (SIGNATURE)"
    text = _error(fn, tuple(Probe() for _ in range(20)), {}) or ""
    m = re.search(r"but expected (\(.*\))$", text)
    if m:
        HIDDEN.add(fn)
    return (m.group(1),) if m else None


HIDDEN = set()  # functions with one visible signature and hidden (deprecated) ones


def _numbers_as_tensors(fn, signature: str) -> bool:
    """Whether torch takes Python numbers for the signature's Tensor parameters (a few ops, such as add and
    mul, do: python_arg_parser.cpp's should_allow_numbers_as_tensors). Every Tensor parameter gets a number:
    an op with a ``(Number self, Tensor other)`` overload (pow, bitwise_and) takes ``pow(2, x)`` by that
    overload, and refuses ``pow(2, 3)``."""
    params = []
    for part in signature.strip("()").split(", "):
        if part == "*":
            break
        if " = " not in part:
            params.append(part.rpartition(" ")[0])
    if "Tensor" not in params:
        return False
    args = [2.5 if kind == "Tensor" else _VALID.get(kind, lambda: None)() for kind in params]
    text = _error(fn, tuple(args), {})
    return text is None or ("not float" not in text and "got (" not in text)


_MUST = re.compile(r"argument '(\w+)'(?: \(position \d+\))? must be (.+), not Probe$")


def _single(fn, name, stub_keywords=()):
    """The signature of a one-signature function, found by probing (module docstring)."""
    missing = _error(fn, (), {}) or ""
    required = set(re.findall(r'"(\w+)"', missing)) if "required positional" in missing else set()
    doc = (fn.__doc__ or "").strip().split("\n")[0]
    documented = dict(re.findall(r"(\w+)=([^,)]+)", doc))  # exp(input, *, out=None): the defaults
    params = []
    args = []
    for _ in range(40):
        text = _error(fn, (*args, Probe()), {})
        m = _MUST.search(text or "")
        if not m:
            break
        kind, pname = m.group(2), m.group(1)
        default = ""
        if pname not in required:  # optional: its default, if None is one torch takes there (else the docstring's)
            takes_none = "NoneType" not in (_error(fn, (*args, None), {}) or "")
            doc_default = documented.get(pname, "None")
            default = " = " + ("None" if takes_none else doc_default if doc_default != "None" else "<unknown>")
        params.append(f"{kind} {pname}{default}")
        args.append(_VALID.get(kind, lambda: None)())
    # the docstring's other parameters (``gelu(input, approximate = 'none')``, ``exp(input, *, out=None)``)
    # are typed as keywords; torch takes them by name (they follow the positional ones found above)
    found = {p.split(" = ")[0].rpartition(" ")[2] for p in params}
    listed = re.match(r"[\w.]+\((.*)\)", doc)
    kwonly = []
    # (and the stubs' keyword-only parameters: take's docstring omits its out=)
    for part in [*(listed.group(1).split(",") if listed else ()), *stub_keywords]:
        key = part.split("=")[0].strip()
        if not key.isidentifier() or key in found:
            continue
        found.add(key)
        text = _error(fn, tuple(args), {key: Probe()})
        m = _MUST.search(text or "")
        if m and m.group(1) == key:
            kwonly.append(f"{m.group(2)} {key}" + ("" if key in required else " = None"))  # (linalg.solve_triangular's upper)
    if kwonly:
        params += ["*", *kwonly]
    return None if not params else (f"({', '.join(params)})",)


def _union_with_none(annotation) -> bool:
    """Whether a stub annotation is ``X | None`` at its top level (not ``tuple[Tensor | None, ...]``)."""
    import ast

    if isinstance(annotation, ast.Constant):
        return annotation.value is None
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union_with_none(annotation.left) or _union_with_none(annotation.right)
    return False


def _stub_overloads():
    """torch's type stubs (torch/_C/*.pyi), by module-level name and ``Tensor.`` method: for each overload,
    its parameter names and those annotated ``| None``. The signature strings of torch's messages drop the
    ``?`` of an optional type without default (``Tensor.random_(int from, int? to)`` prints ``int to``),
    yet torch's parser takes None there (FunctionParameter::allow_none); the stubs keep it."""
    import ast

    stubs = {}
    folder = os.path.join(os.path.dirname(torch.__file__), "_C")
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".pyi"):
            continue
        tree = ast.parse(open(os.path.join(folder, fname)).read())
        found = [("", n) for n in tree.body if isinstance(n, ast.FunctionDef)]
        for cls in tree.body:
            if isinstance(cls, ast.ClassDef) and cls.name == "TensorBase":
                found += [("Tensor.", n) for n in cls.body if isinstance(n, ast.FunctionDef)]
        for prefix, fn in found:
            args = [a for a in fn.args.args + fn.args.kwonlyargs if a.arg != "self"]
            names = tuple(a.arg.rstrip("_") or a.arg for a in args)
            nullable = frozenset(a.arg.rstrip("_") or a.arg for a in args if _union_with_none(a.annotation))
            kwonly = tuple(a.arg for a in fn.args.kwonlyargs)
            unsized = frozenset(a.arg.rstrip("_") or a.arg for a in args if _unsized_int_list(a.annotation))
            stubs.setdefault(prefix + fn.name, []).append((names, nullable, kwonly, unsized))
    return stubs


def _union_members(annotation) -> list:
    import ast

    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union_members(annotation.left) + _union_members(annotation.right)
    return [annotation]


def _unsized_int_list(annotation) -> bool:
    """Whether a stub annotation is an int list that takes no lone int: ``_size`` or ``Sequence[_int | SymInt]``
    (native_functions.yaml's ``int[]``), not ``_int | _size`` (``int[1]``, ``int[2]``: torch's parser takes an int
    there and repeats it, python_arg_parser.cpp's is_int_or_symint_list with a size)."""
    import ast

    if annotation is None:
        return False
    members = [ast.unparse(m) for m in _union_members(annotation)]
    int_list = [m for m in members if m == "_size" or m.startswith("Sequence[_int")]
    lone_int = [m for m in members if m in ("_int", "SymInt", "_int | SymInt")]
    return bool(int_list) and not lone_int


def _stub_keywords(stubs, key: str) -> list:
    """The keyword-only parameters of the stubs' overloads of ``key``."""
    prefix, _, name = key.rpartition(".")
    stub_name = {"": name, "Tensor": "Tensor." + name, "linalg": "linalg_" + name}.get(prefix, name)
    return [k for _, _, kwonly, _ in stubs.get(stub_name, []) for k in kwonly]


def _nullable(stubs, key: str, sigs) -> tuple:
    """The parameters of ``sigs`` that take None although the signature string gives them no None default:
    per signature, those of the stub overload with the same parameter names (else of any overload)."""
    prefix, _, name = key.rpartition(".")
    stub_name = {"": name, "Tensor": "Tensor." + name, "linalg": "linalg_" + name}.get(prefix, name)
    overloads = stubs.get(stub_name, [])
    out = []
    for sig in sigs:
        params = [p for p in sig.strip("()").split(", ") if p and p != "*"]
        names = tuple(p.split(" = ")[0].rpartition(" ")[2] for p in params)
        # (the stubs say "| None" where torch's parser refuses None: a Number (add's alpha), a list of
        # tensors (index_put's indices))
        no_default = {
            n for n, p in zip(names, params) if " = None" not in p and not p.startswith(("Number ", "tuple of Tensors "))
        }
        same = [nul for stub_names, nul, _, _ in overloads if set(stub_names) == set(names)]
        nullable = set().union(*same) if same else set().union(*(nul for _, nul, _, _ in overloads))
        out.append(tuple(n for n in names if n in nullable and n in no_default))
    return tuple(out)


def _unsized(stubs, key: str, sigs) -> tuple:
    """Per signature, its ``tuple of ints`` parameters that take no lone int (``int[]``; the signature strings
    print ``int[1]`` and ``int[]`` alike): those of the stub overload with the same parameter names, else those
    unsized in every overload that has them (never guessed: a valid call must not be refused)."""
    prefix, _, name = key.rpartition(".")
    stub_name = {"": name, "Tensor": "Tensor." + name, "linalg": "linalg_" + name}.get(prefix, name)
    overloads = stubs.get(stub_name, [])
    out = []
    for sig in sigs:
        params = [p for p in sig.strip("()").split(", ") if p and p != "*"]
        names = tuple(p.split(" = ")[0].rpartition(" ")[2] for p in params)
        lists = {n for n, p in zip(names, params) if p.startswith("tuple of ints ")}
        same = [uns for stub_names, _, _, uns in overloads if set(stub_names) == set(names)]
        if same:
            unsized = set.intersection(*(set(u) for u in same))
        else:
            having = [(set(stub_names), set(uns)) for stub_names, _, _, uns in overloads]
            unsized = {n for n in lists if any(n in h for h, _ in having) and all(n in u for h, u in having if n in h)}
        out.append(tuple(n for n in names if n in lists and n in unsized))
    return tuple(out)


# Signatures probing cannot find: a ``PyObject*`` parameter takes any object, so no probe is refused there
# (python_variable_methods.cpp). Written as torch's parser has them.
_BY_HAND = {
    "Tensor.map_": ("(Tensor other, PyObject* callable)",),
}


# Tensor methods that torch writes in Python over a builtin of the same name and arguments (torch/_tensor.py):
# the builtin's parser gives their argument errors (``x.unflatten(0, (1, 2.0))``). (split, norm, stft and istft
# call other builtins, whose names their messages carry: not probed.)
_PYTHON_OVER_BUILTIN = ("unflatten",)


def gather():
    x = torch.ones(2, 2)
    table, names, hidden, numbers, nullable, unsized = {}, {}, [], [], {}, {}
    stubs = _stub_overloads()
    spaces = [
        ("", torch, dyngrad),
        ("Tensor.", torch.Tensor, dyngrad.Tensor),  # probed as methods bound to x
        ("nn.functional.", F, dyngrad.nn.functional),
        ("linalg.", torch.linalg, dyngrad.linalg),
    ]
    for prefix, tmod, dmod in spaces:
        for name in sorted(dir(dmod)):
            if name.startswith("__") or (prefix != "Tensor." and name.startswith("_")):
                continue
            tfn = getattr(tmod, name, None)
            if prefix == "Tensor.":
                if name in _PYTHON_OVER_BUILTIN:
                    bound = getattr(torch._C.TensorBase, name).__get__(x)
                elif type(tfn).__name__ != "method_descriptor":
                    continue
                else:
                    bound = getattr(x, name)
            elif not isinstance(tfn, _BUILTIN):
                continue
            else:
                bound = tfn
            sigs = _BY_HAND.get(prefix + name) or _listing(bound)
            sigs = sigs or _single(bound, name, _stub_keywords(stubs, prefix + name))
            if sigs:
                table[prefix + name] = sigs
                if any(_nullable(stubs, prefix + name, sigs)):
                    nullable[prefix + name] = _nullable(stubs, prefix + name, sigs)
                if any(_unsized(stubs, prefix + name, sigs)):
                    unsized[prefix + name] = _unsized(stubs, prefix + name, sigs)
                if bound in HIDDEN:
                    hidden.append(prefix + name)
                if _numbers_as_tensors(bound, sigs[0]):
                    numbers.append(prefix + name)
                called = re.match(r"(\w+)\(\)", _error(bound, (), {"zz": 0}) or "")
                if called and called.group(1) != name:
                    names[prefix + name] = called.group(1)  # linalg.inv reports itself as linalg_inv
    return table, names, hidden, numbers, nullable, unsized


def main():
    warnings.simplefilter("ignore")  # the probes call deprecated functions
    table, names, hidden, numbers, nullable, unsized = gather()
    lines = [
        '"""torch\'s Python signatures, by dyngrad name (generated by scripts/gen_signatures.py from torch '
        f'{torch.__version__.split("+")[0]}; do not edit).',
        "",
        "Keys: ``name`` (dyngrad.name), ``Tensor.name``, ``nn.functional.name``, ``linalg.name``. Values: torch's",
        "signature strings, as its TypeError texts quote them (see _argparse/__init__.py for how they are used).",
        '"""',
        "",
        "SIGNATURES = {",
    ]
    for key, sigs in table.items():
        lines.append(f"    {key!r}: (")
        lines += [f"        {s!r}," for s in sigs]
        lines.append("    ),")
    lines.append("}")
    lines += ["", "# the name torch's messages give, where it is not the key's last part", "CALLED = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in names.items()]
    lines.append("}")
    lines += ["", "# one visible signature besides hidden ones: torch's message quotes it (\"but expected (...)\")"]
    lines += ["HIDDEN = frozenset({"] + [f"    {k!r}," for k in hidden] + ["})"]
    lines += ["", "# a Python number passes where these take a Tensor (torch.add(1, 2))"]
    lines += ["NUMBERS_AS_TENSORS = frozenset({"] + [f"    {k!r}," for k in numbers] + ["})"]
    lines += ["", "# per signature, the parameters that take None though the signature string shows no None default", "NULLABLE = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in nullable.items()]
    lines.append("}")
    lines += ["", "# per signature, the int lists that take no lone int (int[], not int[1]: the strings print both alike)",
              "UNSIZED = {"]
    lines += [f"    {k!r}: {v!r}," for k, v in unsized.items()]
    lines.append("}")
    with open(_OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(table)} entries -> {os.path.normpath(_OUT)}")


if __name__ == "__main__":
    main()
