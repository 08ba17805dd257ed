"""Make ``import torch`` give dyngrad: the machinery behind ``python -m dyngrad`` and ``install_as_torch()``.

An import hook (a finder placed first on ``sys.meta_path``) answers every import of ``torch`` or
``torch.X.Y`` with the module ``dyngrad`` or ``dyngrad.X.Y`` itself, so ``torch.nn is dyngrad.nn``
and a class defined once is the same class under both names. It answers before the ordinary
finders, so this holds even where real torch is installed. A ``torch.X`` that dyngrad has no
``dyngrad.X`` for raises ModuleNotFoundError saying so, instead of falling through to real torch
(mixing the two libraries in one program would fail in confusing ways later).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

_PREFIX = "torch"


def _target(fullname: str) -> str | None:
    """``torch.nn.functional`` -> ``dyngrad.nn.functional``; None for names outside torch."""
    if fullname == _PREFIX:
        return "dyngrad"
    if fullname.startswith(_PREFIX + "."):
        return "dyngrad" + fullname[len(_PREFIX):]
    return None


def _namespace_attribute(name: str):
    """``dyngrad.backends.cudnn`` when it is an attribute (a SimpleNamespace) of an imported package."""
    import types

    parent_name, _, last = name.rpartition(".")
    parent = sys.modules.get(parent_name)
    candidate = getattr(parent, last, None) if parent is not None else None
    return candidate if isinstance(candidate, types.SimpleNamespace) else None


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system the already-imported dyngrad module instead of creating one."""

    def __init__(self, module) -> None:
        self.module = module
        self.own_spec = getattr(module, "__spec__", None)

    def create_module(self, spec):
        return self.module

    def exec_module(self, module) -> None:
        # The import system has just set module.__spec__ to the alias's spec; put dyngrad's back, so
        # the module keeps its real identity (relative imports, reload, tools reading __spec__).
        if self.own_spec is not None:
            module.__spec__ = self.own_spec


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """The finder that maps ``torch`` and ``torch.*`` onto ``dyngrad`` and ``dyngrad.*``."""

    def find_spec(self, fullname, path=None, target=None):
        name = _target(fullname)
        if name is None:
            return None
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            namespace = _namespace_attribute(name)
            if namespace is not None:  # torch.backends.cudnn: a namespace object in dyngrad, a module in torch
                return importlib.machinery.ModuleSpec(fullname, _AliasLoader(namespace))
            if e.name is not None and (e.name == name or name.startswith(e.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named '{fullname}': dyngrad, running in place of torch, does not provide "
                    f"{fullname} (there is no {name})",
                    name=fullname,
                ) from None
            raise
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


_FINDER = TorchAliasFinder()


def is_installed() -> bool:
    return _FINDER in sys.meta_path


def install_as_torch():
    """Make ``import torch`` (and ``import torch.nn``, ``from torch.utils.data import ...``) give dyngrad.

    For notebooks and programs that cannot be started with ``python -m dyngrad``: call it before
    anything imports torch. Afterwards ``sys.modules["torch"] is dyngrad`` and every ``torch.X``
    is the module ``dyngrad.X``; a ``torch.X`` that dyngrad lacks raises ModuleNotFoundError naming it.
    Calling it again does nothing.

    Returns:
        The ``dyngrad`` module.

    Raises:
        RuntimeError: real torch (or one of its submodules) is already imported in this interpreter;
            the two cannot share the name. Restart the interpreter (or the notebook's kernel) and
            call ``install_as_torch()`` first.

    Example::

        >>> import dyngrad
        >>> dyngrad.install_as_torch()
        >>> import torch, torch.nn as nn
        >>> nn.Linear is dyngrad.nn.Linear
        True
    """
    import dyngrad

    if is_installed():
        return dyngrad
    loaded = sorted(n for n, m in sys.modules.items()
                    if _target(n) is not None and m is not None and not getattr(m, "__name__", "").startswith("dyngrad"))
    if loaded:
        where = getattr(sys.modules.get("torch"), "__file__", None) or "an earlier import"
        raise RuntimeError(
            f"dyngrad.install_as_torch(): the real torch is already imported in this interpreter ({where}; "
            f"modules {', '.join(loaded[:3])}{', ...' if len(loaded) > 3 else ''}). dyngrad cannot take its name "
            "now: restart the interpreter (or the notebook's kernel) and call dyngrad.install_as_torch() before "
            "anything imports torch, or run the program with `python -m dyngrad`."
        )
    sys.meta_path.insert(0, _FINDER)
    sys.modules[_PREFIX] = dyngrad
    return dyngrad
