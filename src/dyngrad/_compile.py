"""torch.compile for dyngrad: the model runs as it is.

dyngrad has no graph compiler: ``compile`` checks its arguments as torch does and returns torch's wrapper
shapes, so code written for compiled models runs unchanged with the same numbers. A module comes back as an
``OptimizedModule`` holding the original as ``_orig_mod`` (its state_dict keys carry the ``_orig_mod.``
prefix, attribute reads fall through to the original, as torch's); a function comes back as a wrapper that
calls it (``__wrapped__`` is the original); ``disable=True`` returns the model itself; with no model, a
decorator. ``Module.compile()`` compiles in place and returns None, as torch's.
"""

from __future__ import annotations

import functools

from .nn.modules.module import Module

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


class OptimizedModule(Module):
    """torch._dynamo.eval_frame.OptimizedModule: a module wrapping ``_orig_mod``; calls run the original."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


OptimizedModule.__module__ = "torch._dynamo.eval_frame"


def _check(model, mode, options) -> None:
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if model is not None and not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend="inductor", mode=None,  # noqa: A001
            options=None, disable: bool = False):
    """torch.compile(model, ...): see the module docstring. Errors (torch's): an unknown ``mode``
    (RuntimeError), ``mode`` with ``options`` (RuntimeError), a model that is not callable (AssertionError)."""
    _check(model, mode, options)
    if model is None:
        def fn(model):
            if model is None:
                raise RuntimeError("Model can't be None")
            return compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                           options=options, disable=disable)

        return fn
    if disable:
        return model
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled


def _module_compile(self, *args, **kwargs) -> None:
    """Module.compile(): compile this module's calls in place (for dyngrad: check the arguments, run as is)."""
    _check(None, kwargs.get("mode"), kwargs.get("options"))


Module.compile = _module_compile
