"""``python -m dyngrad``: run an unmodified PyTorch program on dyngrad.

    python -m dyngrad SCRIPT [ARGS...]     run a script, as `python SCRIPT [ARGS...]` would
    python -m dyngrad -c CODE [ARGS...]    run a string of code, as `python -c CODE`
    python -m dyngrad -m MODULE [ARGS...]  run a module, as `python -m MODULE` (e.g. -m pytest tests/)

Every ``import torch``, ``import torch.X`` and ``from torch.X import Y`` in the program (and in
whatever it imports) gives dyngrad and its submodules, even where real torch is installed (see
``dyngrad._as_torch``). The program sees what ``python SCRIPT`` would give it: ``__name__ ==
"__main__"``, ``sys.argv`` (the script's path then its arguments), the script's folder first on
``sys.path``; an uncaught exception prints a traceback of the program's own frames and exits with
status 1, and ``sys.exit(n)`` exits with ``n``.
"""

from __future__ import annotations

import importlib.machinery
import os
import runpy
import sys
import traceback
import types
import zipfile

USAGE = """usage: python -m dyngrad SCRIPT [ARGS...]
       python -m dyngrad -c CODE [ARGS...]
       python -m dyngrad -m MODULE [ARGS...]

Run a PyTorch program on dyngrad: `import torch` (and torch.nn, torch.utils.data, ...) gives dyngrad.
"""


def _run_code(code: str, args: list[str]) -> None:
    """``python -c CODE``: a fresh ``__main__`` module, ``sys.argv == ["-c", *args]``."""
    sys.argv = ["-c", *args]
    main = types.ModuleType("__main__")
    main.__builtins__ = __builtins__
    sys.modules["__main__"] = main
    sys.path.insert(0, "")
    exec(compile(code, "<string>", "exec"), main.__dict__)


def _run_script(path: str, args: list[str]) -> None:
    """``python SCRIPT``: argv[0] as given, ``__file__`` absolute, the script's folder first on sys.path."""
    sys.argv = [path, *args]
    if os.path.isdir(path) or zipfile.is_zipfile(path):  # a folder or zip with a __main__.py
        sys.path.insert(0, path)
        runpy.run_module("__main__", run_name="__main__", alter_sys=True)
        return
    filename = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(filename))
    with open(filename, "rb") as f:
        source = f.read()
    main = types.ModuleType("__main__")
    main.__file__ = filename
    main.__builtins__ = __builtins__
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", filename)
    sys.modules["__main__"] = main  # classes defined in the script pickle as __main__.Name, as usual
    exec(compile(source, filename, "exec"), main.__dict__)


def _run_module(name: str, args: list[str]) -> None:
    sys.argv = [name, *args]  # runpy replaces argv[0] with the module's file, as `python -m` does
    runpy.run_module(name, run_name="__main__", alter_sys=True)


def _is_runner_frame(filename: str) -> bool:
    """This runner's frames, runpy's and the import system's: `python SCRIPT` would show none of them."""
    return (os.path.abspath(filename) in _RUNNER_FILES or filename.startswith("<frozen runpy")
            or filename.startswith("<frozen importlib"))


_RUNNER_FILES = {os.path.abspath(__file__), os.path.abspath(runpy.__file__),
                 os.path.join(os.path.dirname(os.path.abspath(__file__)), "_as_torch.py")}


def _print_program_traceback(e: BaseException) -> None:
    report = traceback.TracebackException(type(e), e, e.__traceback__)
    seen = set()
    pending = [report]
    while pending:  # the exception and every exception chained to it
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.stack = traceback.StackSummary.from_list([f for f in current.stack if not _is_runner_frame(f.filename)])
        pending += [c for c in (current.__cause__, current.__context__) if c is not None]
    print("".join(report.format()), end="", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if args else 2
    if args[0] in ("-c", "-m") and len(args) < 2:
        print(f"python -m dyngrad: option {args[0]} requires an argument\n\n{USAGE}", end="", file=sys.stderr)
        return 2
    if args[0].startswith("-") and args[0] not in ("-c", "-m"):
        print(f"python -m dyngrad: unknown option {args[0]}\n\n{USAGE}", end="", file=sys.stderr)
        return 2
    if args[0] not in ("-c", "-m") and not os.path.exists(args[0]):
        print(f"python -m dyngrad: can't open file {os.path.abspath(args[0])!r}: "
              "[Errno 2] No such file or directory", file=sys.stderr)
        return 2

    from ._as_torch import install_as_torch

    install_as_torch()
    try:
        if args[0] == "-c":
            _run_code(args[1], args[2:])
        elif args[0] == "-m":
            _run_module(args[1], args[2:])
        else:
            _run_script(args[0], args[1:])
    except SystemExit:
        raise
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # as the interpreter reports an uncaught exception: the program's frames, status 1
        _print_program_traceback(e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
