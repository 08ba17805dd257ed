"""Run PyTorch's own operator database (OpInfo, ``op_db``) through dyngrad and torch, and compare.

``torch.testing._internal.common_methods_invocations.op_db`` lists every operator with the
inputs PyTorch tests it on (``sample_inputs``), the dtypes it supports on CPU and whether it is
differentiable once or twice. For each entry that torch runs on CPU and each tested dtype, this
module draws the entry's samples from torch (seeded), converts every sample to dyngrad values,
calls torch's op and dyngrad's op of the same name, and records one status per check:

- ``forward``: outputs' structure, shapes, dtypes and values (per-dtype tolerances; NaN and
  infinity positions exactly; integer and bool outputs exactly); if torch raises, dyngrad must
  raise the same exception type (a different message text is status ``text``, not ``fail``);
- ``grad``: ``autograd.grad`` of the differentiable outputs (after the sample's
  ``output_process_fn_grad``) with respect to the differentiable inputs, with the same seeded
  random ``grad_outputs`` in both libraries (complex ones for complex outputs), and the
  ``grad_fn`` class names of the outputs;
- ``gradgrad`` (float64 and complex128 where the entry supports it): the first-order gradients
  (taken with ``create_graph=True`` and grad_outputs that require grad) differentiated again
  with respect to the inputs and the grad_outputs, contracted with fixed random vectors,
  as torch's gradgradcheck does;
- ``errors`` (one line per entry that has ``error_inputs``): each of torch's error inputs that
  raises in torch must raise in dyngrad with the same type and message.

Statuses: ``pass``, ``fail`` (with the first mismatch or error as reason), ``text`` (the same
exception types, different message), ``missing`` (dyngrad has no callable of that name),
``skip`` (torch itself could not produce the samples) and ``-`` (not applicable: the entry is not
differentiable in that dtype, or no sample had a differentiable output).

Everything is deterministic: torch is seeded before drawing each (entry, dtype)'s samples,
grad_outputs come from a NumPy generator seeded by the sample's index, and dyngrad is seeded
before every call (so a random op gives the same, if different from torch's, result each run).
The entries are independent, so any subset can be run (tests/test_opinfo.py runs one per test).
"""

from __future__ import annotations

import dataclasses
import importlib
import itertools
import os
import random
import re
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import torch

import dyngrad

torch.set_num_threads(1)  # as tests/conftest.py: the recorded results must not depend on the thread count

FLOAT_DTYPES = ("float64", "float32", "complex128", "complex64")
GRADGRAD_DTYPES = ("float64", "complex128")
# An entry that supports none of FLOAT_DTYPES (bitwise ops, gcd, bincount, ...) is checked forward
# in the first of these it supports, so that every entry torch runs on CPU has a line.
FALLBACK_DTYPES = ("int64", "int32", "bool", "uint8", "int16", "int8")
CHECKS = ("forward", "grad", "gradgrad")
# Each entry with an error_inputs_func also gets one line `key error_inputs errors=S`: torch's own
# inputs that must raise (wrong shapes, dtypes, out= tensors); dyngrad must raise the same type and text.
ERRORS = "error_inputs"
SAMPLE_SEED = 0

# (rtol, atol) by the dtype of the compared tensor (a complex one by its real dtype). float64 is
# torch.testing.assert_close's default. For float32 the atol is scaled by the tensor's largest magnitude:
# dyngrad's NumPy kernels may sum in another order than ATen's, and the rounding error of a sum that
# cancels is relative to its terms, not to the result. Second-order gradients get 10 times as much.
FORWARD_TOL = {"float64": (1e-7, 1e-7), "float32": (1e-4, 1e-5), "float16": (1e-3, 1e-3)}
GRAD_TOL = {"float64": (1e-7, 1e-7), "float32": (1e-4, 1e-5), "float16": (1e-3, 1e-3)}
GRADGRAD_TOL = {"float64": (1e-6, 1e-6), "float32": (1e-3, 1e-4), "float16": (1e-2, 1e-2)}
SCALED_ATOL = ("float32", "float16")

# Entries whose outputs are drawn from the random stream: dyngrad's stream is not torch's, so their
# outputs and gradients are compared by structure, shape, dtype and grad_fn only.
# (uniform, cauchy, exponential, geometric and log_normal are not here: their entries seed the stream
# through wrapper_set_seed, see _REBOUND_HELPERS, and dyngrad's fills draw torch's values from it.)
RANDOM_VALUES = frozenset({
    "bernoulli", "multinomial", "normal",
    "normal[in_place]", "normal[number_mean]", "rand_like", "randint", "randint_like", "randn",
    "randn_like", "svd_lowrank", "pca_lowrank", "nn.functional.alpha_dropout", "nn.functional.dropout",
    "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.feature_alpha_dropout[with_train]",
    "nn.functional.fractional_max_pool2d", "nn.functional.fractional_max_pool3d", "nn.functional.rrelu",
})
# Entries whose outputs are uninitialised memory: compared by structure, shape and dtype only.
UNSPECIFIED_VALUES = frozenset({"empty", "empty_like", "empty_permuted", "empty_strided", "new_empty",
                                "new_empty_strided"})

REASON_LENGTH = 240


# ---------------------------------------------------------------------------------- the entries
def op_db():
    """torch's OpInfo list (imported lazily: the import takes a few seconds).

    Importing torch's test suite changes global state that other tests of this suite see: it freezes
    torch.backends' flags (``torch.backends.cudnn.benchmark = True`` then raises), adds warning
    filters, an environment variable and a sys.path entry. All are put back as they were.
    """
    if "torch.testing._internal.common_methods_invocations" not in sys.modules:
        filters, path, environ = list(warnings.filters), list(sys.path), dict(os.environ)
        frozen = torch.backends.flags_frozen()
        importlib.import_module("torch.testing._internal.common_methods_invocations")

        warnings.filters[:] = filters
        sys.path[:] = path
        for name in set(os.environ) - set(environ):
            del os.environ[name]
        if not frozen:
            # undo torch.backends.disable_global_flags(): its flag lives in the module's own globals
            torch.backends.flags_frozen.__globals__["__allow_nonbracketed_mutation_flag"] = True
    return sys.modules["torch.testing._internal.common_methods_invocations"].op_db


def entry_key(opinfo) -> str:
    """``name`` or ``name[variant_test_name]``: unique over op_db."""
    return f"{opinfo.name}[{opinfo.variant_test_name}]" if opinfo.variant_test_name else opinfo.name


def cpu_entries() -> dict:
    """key -> OpInfo for every entry torch runs on CPU (one that lists a CPU dtype)."""
    out = {}
    for opinfo in op_db():
        if opinfo.supported_dtypes("cpu"):
            key = entry_key(opinfo)
            assert key not in out, f"duplicate OpInfo key {key}"
            out[key] = opinfo
    return out


def tested_dtypes(opinfo) -> list[str]:
    """The dtype names checked for an entry: its CPU dtypes among FLOAT_DTYPES, else one fallback."""
    supported = {str(d).removeprefix("torch.") for d in opinfo.supported_dtypes("cpu")}
    floats = [d for d in FLOAT_DTYPES if d in supported]
    if floats:
        return floats
    return ([d for d in FALLBACK_DTYPES if d in supported] or sorted(supported))[:1]


def applicable_checks(opinfo, dtype: str) -> tuple[bool, bool]:
    """(grad, gradgrad) for this entry and dtype, from the entry's own flags."""
    backward = {str(d).removeprefix("torch.") for d in opinfo.supported_backward_dtypes("cpu")}
    grad = opinfo.supports_autograd and dtype in backward
    gradgrad = grad and bool(opinfo.supports_gradgrad) and dtype in GRADGRAD_DTYPES
    return grad, gradgrad


# ---------------------------------------------------------------------------------- resolution
class Missing(Exception):
    """dyngrad has no callable for the entry."""


def _lookup(root, path: str):
    obj = root
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


_TORCH_NAMESPACES = ("torch", "torch.nn", "torch.nn.functional", "torch.linalg", "torch.special", "torch.fft")
_rebound_globals: dict[tuple, dict | None] = {}
# Helpers of torch's test suite that wrapped ops call and that must themselves see dyngrad: wrapper_set_seed
# (``torch.manual_seed(42)`` then the op) seeds dyngrad's stream, which reproduces torch's CPU stream.
_REBOUND_HELPERS = frozenset({"wrapper_set_seed"})


def _dyngrad_globals(module_globals: dict, helpers: bool = True) -> dict | None:
    """A copy of a module's globals with torch's public namespaces replaced by dyngrad's (None: none there);
    with ``helpers``, also the _REBOUND_HELPERS found there, rebound (one level: no recursion)."""
    key = (id(module_globals), helpers)
    if key not in _rebound_globals:
        replaced = {}
        for name, value in module_globals.items():
            if isinstance(value, types.ModuleType) and value.__name__ in _TORCH_NAMESPACES:
                path = value.__name__.removeprefix("torch").lstrip(".")
                replaced[name] = _lookup(dyngrad, path) if path else dyngrad
            elif helpers and name in _REBOUND_HELPERS and isinstance(value, types.FunctionType):
                replaced[name] = rebind(value, helpers=False)
        _rebound_globals[key] = {**module_globals, **replaced} if replaced else None
    return _rebound_globals[key]


def rebind(fn, helpers: bool = True):
    """``fn`` (a lambda or helper of torch's test suite) with ``torch``, ``F``, ... meaning dyngrad's.

    OpInfo entries whose ``op`` is ``lambda x, shape: x.view(shape)`` or
    ``lambda x, n: torch.polygamma(n, x)``, and samples' ``output_process_fn_grad`` helpers, run
    unchanged on dyngrad values this way: only the names ``torch``/``F``/... are looked up anew.
    """
    if not isinstance(fn, types.FunctionType):
        return fn
    new_globals = _dyngrad_globals(fn.__globals__, helpers)
    if new_globals is None:
        return fn
    new = types.FunctionType(fn.__code__, new_globals, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__ = fn.__kwdefaults__
    return new


# Entries that the rules of `resolve` do not resolve correctly. Keep this short: each line says why.
OVERRIDES: dict[str, object] = {}


def _has_name(opinfo) -> bool:
    """dyngrad has the entry's name as a callable (dyngrad.<path> or dyngrad.ops.aten.<path>) or a Tensor
    attribute, or (the random fills: entry ``uniform`` wraps ``Tensor.uniform_``) an in-place Tensor method."""
    name = opinfo.name.removeprefix("torch.")
    if callable(_lookup(dyngrad, name)) or callable(_lookup(dyngrad.ops.aten, name)):
        return True
    return "." not in name and (hasattr(dyngrad.Tensor, name) or hasattr(dyngrad.Tensor, name + "_"))


def _aten_target(op):
    """dyngrad.ops.aten's packet or overload for torch's ``torch.ops.aten.<name>[.<overload>]`` (or None)."""
    if isinstance(op, torch._ops.OpOverloadPacket):
        namespace, _, name = op._qualified_op_name.partition("::")
        return _lookup(dyngrad.ops, f"{namespace}.{name}")
    if isinstance(op, torch._ops.OpOverload):
        namespace, _, name = op._schema.name.partition("::")
        return _lookup(dyngrad.ops, f"{namespace}.{name}.{op._overloadname}")
    return None


def resolve(opinfo):
    """The dyngrad callable for an OpInfo entry, called as torch's ``opinfo.op`` is; or raise Missing.

    Rules, in order: the override table; torch's op is ``torch.<path>`` -> ``dyngrad.<path>``;
    torch's op is ``torch.Tensor.<name>`` -> ``dyngrad.Tensor.<name>``; torch's op is a Python
    wrapper (a lambda in op_db) -> the same code with ``torch`` meaning dyngrad (`rebind`), if
    dyngrad has the entry's name at all; torch's op is ``torch.ops.aten.<name>[.<overload>]`` ->
    ``dyngrad.ops.aten.<name>[.<overload>]``. Anything else (CUDA jiterator functions) is missing.
    """
    key = entry_key(opinfo)
    if key in OVERRIDES:
        target = OVERRIDES[key]
        if isinstance(target, Missing):
            raise target
        return target
    op = opinfo.op
    name = opinfo.name.removeprefix("torch.")
    if op is _lookup(torch, name):
        target = _lookup(dyngrad, name)
        if not callable(target):
            raise Missing(f"dyngrad.{name}")
        return target
    if "." not in name and op is getattr(torch.Tensor, name, None):
        if not hasattr(dyngrad.Tensor, name):
            raise Missing(f"dyngrad.Tensor.{name}")
        return getattr(dyngrad.Tensor, name)
    if isinstance(op, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        target = _aten_target(op)
        if target is None:
            raise Missing(f"dyngrad.ops.{op}")
        return target
    if isinstance(op, types.FunctionType):
        if not _has_name(opinfo):
            raise Missing(f"dyngrad.{name}" if "." in name else f"dyngrad.{name} or dyngrad.Tensor.{name}")
        return rebind(op)
    raise Missing(f"{name} (torch's op is a {type(op).__name__}, not a function of torch's namespaces)")


# ---------------------------------------------------------------------------------- conversion
class Unconvertible(Exception):
    """A sample holds a value with no dyngrad counterpart (a sparse tensor, an nn.Module, ...)."""


def _dtype(torch_dtype):
    name = str(torch_dtype).removeprefix("torch.")
    d = getattr(dyngrad, name, None)
    if not isinstance(d, dyngrad.dtype):
        raise Unconvertible(f"dtype {torch_dtype}")
    return d


# torch's float8 dtypes: their tensors are converted through their bytes (dyngrad needs the ml_dtypes extra)
_FLOAT8 = frozenset((torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
                     torch.float8_e8m0fnu))


def _storage_copy(t: torch.Tensor, storages: dict | None = None) -> np.ndarray:
    """A NumPy copy of ``t`` with ``t``'s strides (non-contiguous and expanded layouts kept).

    ``storages``: the copies made so far, by torch storage and dtype; tensors of one storage then share one
    copy, as views of it (an error input's out= tensor that overlaps an input)."""
    t = t.detach()
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    if t.numel() == 0:
        # (never t.numpy(): it makes t's storage unresizable, and torch's out= then fails to resize it)
        return np.empty(tuple(t.shape), dtype=torch.empty(0, dtype=t.dtype).numpy().dtype)
    if t.dim() > 64:
        raise Unconvertible(f"a {t.dim()}-dimensional tensor (NumPy arrays have at most 64 dimensions)")
    n = t.untyped_storage().nbytes() // t.element_size()
    key = (t.untyped_storage().data_ptr(), n, t.dtype)
    flat = None if storages is None else storages.get(key)
    if flat is None:
        flat = t.as_strided((n,), (1,), 0).clone().numpy()  # the whole storage, from its start
        if storages is not None:
            storages[key] = flat
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(flat[t.storage_offset():], tuple(t.shape), tuple(s * item for s in t.stride()))


def _dataclass_counterpart(x):
    """dyngrad's class of the same module path and name as the torch dataclass ``x``'s, or None."""
    tp = type(x)
    if not dataclasses.is_dataclass(x) or not tp.__module__.startswith("torch."):
        return None
    try:
        module = importlib.import_module("dyngrad" + tp.__module__.removeprefix("torch"))
    except ImportError:
        return None
    counterpart = getattr(module, tp.__qualname__, None)
    return counterpart if dataclasses.is_dataclass(counterpart) else None


class Converter:
    """torch sample values -> dyngrad values; the same torch tensor gives the same dyngrad tensor."""

    def __init__(self, share_storage: bool = False) -> None:
        self.tensors: dict[int, tuple] = {}  # id(torch tensor) -> (torch tensor, dyngrad tensor)
        # with share_storage, torch tensors of one storage become dyngrad tensors of one NumPy buffer
        self.storages: dict | None = {} if share_storage else None

    def __call__(self, x):
        if isinstance(x, torch.Tensor):
            return self.tensor(x)
        if isinstance(x, torch.Size):
            return dyngrad.Size(tuple(x))
        if isinstance(x, (list, tuple)):
            items = [self(v) for v in x]
            if type(x) in (list, tuple):
                return type(x)(items)
            if hasattr(x, "_fields"):  # a namedtuple
                return type(x)(*items)
            return tuple(items)
        if isinstance(x, dict):
            return {k: self(v) for k, v in x.items()}
        if isinstance(x, torch.dtype):
            return _dtype(x)
        if isinstance(x, torch.device):
            return dyngrad.device(str(x))
        if isinstance(x, (torch.memory_format, torch.layout)):
            name = str(x).removeprefix("torch.")
            if not hasattr(dyngrad, name):  # a memory format or layout dyngrad lacks
                raise Unconvertible(f"torch.{name} (dyngrad has only dense, strided tensors)")
            return getattr(dyngrad, name)
        if isinstance(x, torch.Generator):
            return dyngrad.Generator().manual_seed(x.initial_seed())
        if x is None or x is Ellipsis or isinstance(x, (bool, int, float, complex, str, slice, np.generic)):
            return x
        if type(x).__module__.startswith("torch.") and isinstance(getattr(type(x), "__members__", None), dict) \
                and isinstance(getattr(x, "value", None), int):  # a pybind11 enum (torch.nn.functional._ScalingType)
            return int(x)
        if isinstance(x, types.FunctionType):  # a callable argument written in torch's test suite
            return rebind(x)
        if isinstance(x, torch.nn.Module) and hasattr(dyngrad.nn, type(x).__name__) and not x._parameters \
                and not x._buffers and not x._modules:  # a stateless layer (PairwiseDistance): its settings
            d = object.__new__(getattr(dyngrad.nn, type(x).__name__))
            dyngrad.nn.Module.__init__(d)
            for k, v in vars(x).items():
                if not k.startswith("_"):
                    setattr(d, k, self(v))
            d.train(x.training)
            return d
        counterpart = _dataclass_counterpart(x)
        if counterpart is not None:  # a settings dataclass (LinearCrossEntropyOptions): field by field
            return counterpart(**{f.name: self(getattr(x, f.name)) for f in dataclasses.fields(x)})
        raise Unconvertible(f"{type(x).__module__}.{type(x).__qualname__}")

    def tensor(self, t: torch.Tensor):
        if id(t) in self.tensors:
            return self.tensors[id(t)][1]
        if t.layout != torch.strided:
            raise Unconvertible(f"{t.layout} tensor")
        if t.device.type != "cpu":  # e.g. the meta tensors of torch.gradient's error inputs
            raise Unconvertible(f"a {t.device.type} tensor (dyngrad runs on the CPU only)")
        dtype = _dtype(t.dtype)
        if t.dtype in _FLOAT8:  # neither library takes float8 NumPy arrays: the bytes, viewed as the float8 type
            d = dyngrad.from_numpy(_storage_copy(t.view(torch.uint8), self.storages)).view(dtype)
        else:
            d = dyngrad.from_numpy(_storage_copy(t, self.storages))
        assert d.dtype is dtype
        if t.requires_grad:
            d.requires_grad_(True)
        self.tensors[id(t)] = (t, d)
        return d


# ---------------------------------------------------------------------------------- comparison
def _one_line(text: str) -> str:
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= REASON_LENGTH else text[: REASON_LENGTH - 3] + "..."


def _error(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def _to_numpy(t):
    # no NumPy bfloat16 or float8 in torch: compare as float32 (exact)
    if repr(t.dtype) == "torch.bfloat16" or repr(t.dtype).startswith("torch.float8"):
        t = t.float()
    if isinstance(t, dyngrad.Tensor):
        return t.detach().numpy(force=True)  # a tensor with the conjugate bit too
    return t.detach().numpy(force=True)  # force: conjugate/negative views and ZeroTensors too


def _fmt(x) -> str:
    """A NumPy scalar as Python prints the plain number (``-0.326404``, ``(1+2j)``, ``True``)."""
    x = x.item() if isinstance(x, np.generic) else x
    if isinstance(x, float):
        return f"{x:.6g}"
    if isinstance(x, complex):
        return f"({x.real:.6g}{x.imag:+.6g}j)"
    return repr(x)


def compare_arrays(d: np.ndarray, t: np.ndarray, tol: dict, what: str) -> str | None:
    """None if ``d`` matches ``t`` (same NaN/inf positions, values within the dtype's tolerance ``tol``)."""
    if d.dtype.kind not in "fc":
        if not np.array_equal(d, t):
            idx = tuple(int(i) for i in np.argwhere(d != t)[0])
            return f"{what}: values differ at {idx}: dyngrad {_fmt(d[idx])}, torch {_fmt(t[idx])}"
        return None
    real_dtype = str(d.real.dtype)
    rtol, atol = tol.get(real_dtype, (1e-7, 1e-7))
    if real_dtype in SCALED_ATOL and t.size:
        with np.errstate(all="ignore"):
            finite = np.abs(t[np.isfinite(t)])
        atol *= max(1.0, float(finite.max())) if finite.size else 1.0
    parts = (d.real, t.real, "") if d.dtype.kind == "f" else (d.real, t.real, " (real)")
    for dp, tp, label in (parts,) + (((d.imag, t.imag, " (imag)"),) if d.dtype.kind == "c" else ()):
        dn, tn = np.isnan(dp), np.isnan(tp)
        if not np.array_equal(dn, tn):
            idx = tuple(int(i) for i in np.argwhere(dn != tn)[0])
            return f"{what}{label}: NaN positions differ at {idx}: dyngrad {_fmt(dp[idx])}, torch {_fmt(tp[idx])}"
        dinf, tinf = np.isinf(dp), np.isinf(tp)
        if not np.array_equal(dinf, tinf) or not np.array_equal(dp[tinf], tp[tinf]):
            idx = tuple(int(i) for i in np.argwhere((dinf != tinf) | (tinf & (dp != tp)))[0])
            return f"{what}{label}: infinities differ at {idx}: dyngrad {_fmt(dp[idx])}, torch {_fmt(tp[idx])}"
        finite = ~(tn | tinf)
        with np.errstate(all="ignore"):
            err = np.where(finite, np.abs(dp.astype(np.float64) - tp), 0.0)
            bad = err > atol + rtol * np.abs(np.where(finite, tp, 0.0).astype(np.float64))
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            return (f"{what}{label}: values differ at {idx}: dyngrad {_fmt(dp[idx])}, torch {_fmt(tp[idx])} "
                    f"(max abs err {err.max():.3g}, {int(bad.sum())} of {bad.size})")
    return None


def compare_tensors(d, t: torch.Tensor, tol: dict | None, what: str) -> str | None:
    """None if dyngrad's tensor ``d`` matches ``t``: shape, dtype and (unless ``tol`` is None) values."""
    if not isinstance(d, dyngrad.Tensor):
        return f"{what}: dyngrad gives {type(d).__name__}, torch a Tensor"
    if tuple(d.shape) != tuple(t.shape):
        return f"{what}: shape {tuple(d.shape)} != torch {tuple(t.shape)}"
    if repr(d.dtype) != repr(t.dtype):
        return f"{what}: dtype {d.dtype!r} != torch {t.dtype!r}"
    if tol is None:
        return None
    return compare_arrays(_to_numpy(d), _to_numpy(t), tol, what)


def compare_values(d, t, tol: dict | None, what: str = "output") -> str | None:
    """None if dyngrad's result ``d`` equals torch's ``t``; else the first difference, in one line.

    ``tol`` None compares structure, shapes and dtypes, not values.
    """
    if isinstance(t, torch.Tensor):
        return compare_tensors(d, t, tol, what)
    if isinstance(t, torch.Size):
        return None if isinstance(d, tuple) and tuple(d) == tuple(t) else f"{what}: {d!r} != torch {t!r}"
    if isinstance(t, (list, tuple)):
        if not isinstance(d, (list, tuple)):
            return f"{what}: dyngrad gives {type(d).__name__}, torch a {type(t).__name__}"
        if isinstance(t, list) != isinstance(d, list):
            return f"{what}: dyngrad gives a {type(d).__name__}, torch a {type(t).__name__}"
        if len(d) != len(t):
            return f"{what}: {len(d)} items != torch {len(t)}"
        for i, (a, b) in enumerate(zip(d, t)):
            reason = compare_values(a, b, tol, f"{what}[{i}]")
            if reason:
                return reason
        return None
    if isinstance(t, torch.dtype):
        return None if repr(d) == repr(t) else f"{what}: {d!r} != torch {t!r}"
    if type(d) is not type(t):  # a Python number, a string, None: the same type and value as torch's
        return f"{what}: dyngrad gives {type(d).__name__} {d!r}, torch {type(t).__name__} {t!r}"
    if isinstance(t, (bool, int, float, complex)):
        return None if tol is None else compare_arrays(np.asarray(d), np.asarray(t), tol, what)
    return None if d == t else f"{what}: {d!r} != torch {t!r}"


def _pairs(t, d, what: str = "output"):
    """(torch tensor, dyngrad value, path) for every tensor in torch's structure ``t``."""
    if isinstance(t, torch.Tensor):
        yield t, d, what
    elif isinstance(t, (list, tuple)) and isinstance(d, (list, tuple)) and len(t) == len(d):
        for i, (a, b) in enumerate(zip(t, d)):
            yield from _pairs(a, b, f"{what}[{i}]")
    elif isinstance(t, dict) and isinstance(d, dict):
        for k in t:
            yield from _pairs(t[k], d.get(k), f"{what}[{k!r}]")


def _grad_fn_name(x) -> str | None:
    fn = getattr(x, "grad_fn", None)
    return None if fn is None else type(fn).__name__


def _random_like(rng: np.random.Generator, t: torch.Tensor) -> np.ndarray:
    """Seeded standard-normal values of ``t``'s shape and dtype (complex: independent real/imag)."""
    np_dtype = _to_numpy(t).dtype
    values = np.asarray(rng.standard_normal(tuple(t.shape)))
    if np_dtype.kind == "c":
        values = values + 1j * rng.standard_normal(tuple(t.shape))
    return np.asarray(values, dtype=np_dtype)


def _differentiable(t) -> bool:
    return isinstance(t, torch.Tensor) and t.requires_grad and (t.is_floating_point() or t.is_complex())


def _call(fn):
    """(result, None) or (None, exception)."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - any error is a result to compare
        return None, e


def compare_errors(d_err, t_err, what: str) -> tuple[str, str] | None:
    """None if both raised the same type with the same text; else (status, reason), the types first."""
    t_type = type(t_err).__name__
    if d_err is None:
        return "fail", f"{what}: torch raises {t_type}, dyngrad does not; torch: {t_err}"
    d_type = type(d_err).__name__
    if type(d_err) is not type(t_err):
        return "fail", f"{what}: dyngrad raises {d_type}, torch {t_type}; dyngrad: {d_err} / torch: {t_err}"
    if str(d_err) != str(t_err):
        return "text", f"{what}: {t_type} text differs; dyngrad: {d_err} / torch: {t_err}"
    return None


# ---------------------------------------------------------------------------------- one entry
@dataclasses.dataclass
class Check:
    """One check's status over the samples of one (entry, dtype): the worst result and its reason."""

    status: str = "-"
    reason: str = ""

    RANK = {"-": 0, "pass": 1, "text": 2, "fail": 3}

    def record(self, status: str, reason: str = "", sample: int | None = None) -> None:
        if self.RANK[status] > self.RANK[self.status]:
            self.status = status
            prefix = f"sample {sample}: " if sample is not None else ""
            self.reason = _one_line(prefix + reason) if reason else ""

    @property
    def failed(self) -> bool:
        return self.status == "fail"


@dataclasses.dataclass
class Line:
    """The status file's line for one (entry, dtype)."""

    key: str
    dtype: str
    checks: dict  # check name -> Check
    note: str = ""

    def render(self) -> str:
        """``key dtype forward=S grad=S gradgrad=S`` then `` | check: reason`` for each check with one."""
        statuses = " ".join(f"{c}={check.status}" for c, check in self.checks.items())
        reasons = [f"{c}: {check.reason}" for c, check in self.checks.items() if check.reason]
        if self.note:
            reasons.append(f"note: {self.note}")
        return f"{self.key} {self.dtype} {statuses}" + "".join(f" | {r}" for r in reasons)

    def statuses(self) -> dict:
        return {c: check.status for c, check in self.checks.items()}


_MISSING_ATTRIBUTE = re.compile(r"^module '(dyngrad[\w.]*)' has no attribute '(\w+)'( \(dyngrad does not provide .*\))?$")


class _Sample:
    """One sample's run: the converted inputs, both results and the gradient checks."""

    def __init__(self, index: int, sample, opinfo, fn, tols: tuple) -> None:
        self.index, self.sample, self.opinfo, self.fn = index, sample, opinfo, fn
        self.forward_tol, self.grad_tol, self.gradgrad_tol = tols
        self.forward_error = None

    def run_forward(self, forward: Check):
        """Convert, call both; compare. Returns (d_out, t_out) when both ran, else None."""
        s, i = self.sample, self.index
        self.conv = Converter()
        try:  # convert before torch runs: an in-place op would change the sample
            d_args = self.conv((s.input, *s.args))
            d_kwargs = self.conv(s.kwargs)
        except Unconvertible as e:
            forward.record("fail", f"sample holds {e}, which has no dyngrad counterpart", i)
            return None
        t_out, t_err = _call(lambda: self.opinfo.op(s.input, *s.args, **s.kwargs))
        dyngrad.manual_seed(SAMPLE_SEED)
        d_out, d_err = _call(lambda: self.fn(*d_args, **d_kwargs))
        if isinstance(d_err, AttributeError) and _MISSING_ATTRIBUTE.match(str(d_err)):
            # a wrapper (rebound lambda) called a torch function dyngrad lacks: torch.zero_, torch.polygamma
            raise Missing("{}.{}".format(*_MISSING_ATTRIBUTE.match(str(d_err)).groups()))
        if t_err is not None:
            result = compare_errors(d_err, t_err, "forward")
            forward.record(*(result or ("pass", "")), sample=i)
            return None
        if d_err is not None:
            forward.record("fail", f"dyngrad raised {_error(d_err)}", i)
            self.forward_error = d_err
            return None
        reason = compare_values(d_out, t_out, self.forward_tol)
        if reason and self._same_up_to_gauge(d_out, t_out):
            reason = None
        forward.record("fail" if reason else "pass", reason or "", i)
        return d_out, t_out

    def _same_up_to_gauge(self, d_out, t_out) -> bool:
        """The outputs agree after the sample's ``output_process_fn_grad``, where it is not the identity.

        Decompositions are unique only up to a choice (the signs or phases of singular vectors and
        eigenvectors); their samples' output_process_fn_grad removes that choice (``U.abs()``,
        ``U @ Vh``), and it is what torch's own gradient tests compare.
        """
        process = self.sample.output_process_fn_grad
        t_proc, t_err = _call(lambda: process(t_out))
        if t_err is not None or t_proc is t_out:
            return False
        d_proc, d_err = _call(lambda: rebind(process)(d_out))
        return d_err is None and compare_values(d_proc, t_proc, self.forward_tol) is None

    def run_grads(self, d_out, t_out, grad: Check, gradgrad: Check | None) -> None:
        """First-order gradients (and second-order ones where ``gradgrad`` is given) of one sample."""
        i = self.index
        grad_fn_reason = next((f"{what}.grad_fn: dyngrad {_grad_fn_name(d)}, torch {_grad_fn_name(t)}"
                               for t, d, what in _pairs(t_out, d_out) if _grad_fn_name(t) != _grad_fn_name(d)), None)
        process = self.sample.output_process_fn_grad
        t_proc, t_err = _call(lambda: process(t_out))
        d_proc, d_err = _call(lambda: rebind(process)(d_out))
        if t_err is not None or d_err is not None:
            if t_err is None:
                grad.record("fail", f"output_process_fn_grad on dyngrad's output raised {_error(d_err)}", i)
                if gradgrad is not None:
                    gradgrad.record("fail", "no first-order gradients (see grad)", i)
            return
        outs = [(t, d, what) for t, d, what in _pairs(t_proc, d_proc) if _differentiable(t)]
        ins = [(t, d) for t, d in self.conv.tensors.values() if _differentiable(t)]
        if not outs or not ins:
            if grad_fn_reason:
                grad.record("fail", grad_fn_reason, i)
            return
        for _, d, what in outs:
            if not isinstance(d, dyngrad.Tensor) or not d.requires_grad:
                grad.record("fail", grad_fn_reason or f"{what} does not require grad in dyngrad", i)
                if gradgrad is not None:
                    gradgrad.record("fail", "no first-order gradients (see grad)", i)
                return
        rng = np.random.default_rng(i)
        second = gradgrad is not None
        g_np = [_random_like(rng, t) for t, _, _ in outs]
        t_go = [torch.from_numpy(a.copy()).requires_grad_(second) for a in g_np]
        d_go = [dyngrad.from_numpy(a.copy()).requires_grad_(second) for a in g_np]
        t_ins, d_ins = [t for t, _ in ins], [d for _, d in ins]
        t_g, t_err = _call(lambda: torch.autograd.grad([t for t, _, _ in outs], t_ins, t_go, allow_unused=True,
                                                       create_graph=second))
        d_g, d_err = _call(lambda: dyngrad.autograd.grad([d for _, d, _ in outs], d_ins, d_go, allow_unused=True,
                                                         create_graph=second))
        if t_err is not None:
            result = compare_errors(d_err, t_err, "backward")
            grad.record(*(result or ("pass", "")), sample=i)
            return
        if d_err is not None:
            grad.record("fail", f"backward raised {_error(d_err)}", i)
            if second:
                gradgrad.record("fail", "first-order backward raised", i)
            return
        reason = _compare_grads(d_g, t_g, t_ins, self.grad_tol, "grad") or grad_fn_reason
        grad.record("fail" if reason else "pass", reason or "", i)
        if second and not gradgrad.failed:
            self._run_gradgrad(t_g, d_g, t_ins + t_go, d_ins + d_go, gradgrad, rng)

    def _run_gradgrad(self, t_g, d_g, t_wrt, d_wrt, gradgrad: Check, rng) -> None:
        i = self.index
        firsts = [(t, d) for t, d in zip(t_g, d_g) if t is not None and t.requires_grad]
        if not firsts:
            return
        v_np = [_random_like(rng, t) for t, _ in firsts]
        t_v = [torch.from_numpy(a.copy()) for a in v_np]
        t_gg, t_err = _call(lambda: torch.autograd.grad([t for t, _ in firsts], t_wrt, t_v, allow_unused=True))
        # dyngrad's first-order gradients that are None or constant contribute nothing: leave them out
        # and let the values show whether torch's contribution was nonzero.
        d_firsts = [(d, dyngrad.from_numpy(a.copy())) for (_, d), a in zip(firsts, v_np)
                    if isinstance(d, dyngrad.Tensor) and d.requires_grad]
        note = "" if len(d_firsts) == len(firsts) else " (some of dyngrad's first-order grads do not require grad)"
        if d_firsts:
            d_gg, d_err = _call(lambda: dyngrad.autograd.grad([d for d, _ in d_firsts], d_wrt,
                                                              [v for _, v in d_firsts], allow_unused=True))
        else:
            d_gg, d_err = [None] * len(d_wrt), None
        if t_err is not None:
            result = compare_errors(d_err, t_err, "double backward")
            gradgrad.record(*(result or ("pass", "")), sample=i)
            return
        if d_err is not None:
            gradgrad.record("fail", f"double backward raised {_error(d_err)}", i)
            return
        reason = _compare_grads(d_gg, t_gg, t_wrt, self.gradgrad_tol, "gradgrad")
        gradgrad.record("fail" if reason else "pass", reason + note if reason else "", i)


def _compare_grads(d_grads, t_grads, t_wrt, tol: dict, what: str) -> str | None:
    """Gradients match; a None gradient (input unused) counts as zeros on either side."""
    for k, (d, t, x) in enumerate(zip(d_grads, t_grads, t_wrt)):
        if t is None and d is None:
            continue
        if t is None:
            t = torch.zeros_like(x)
        if d is None:
            d = dyngrad.from_numpy(np.zeros(tuple(t.shape), dtype=_to_numpy(t).dtype))
        reason = compare_tensors(d, t, tol, f"{what}[{k}]")
        if reason:
            return reason
    return None


def _tolerances(key: str) -> tuple:
    """(forward, grad, gradgrad) tolerance tables; None where values are not compared."""
    if key in RANDOM_VALUES or key in UNSPECIFIED_VALUES:
        return None, None, None
    return FORWARD_TOL, GRAD_TOL, GRADGRAD_TOL


def run_entry(opinfo, dtype: str) -> Line:
    """The checks of one entry in one dtype (see the module docstring)."""
    grad_on, gradgrad_on = applicable_checks(opinfo, dtype)
    key = entry_key(opinfo)
    line = Line(key, dtype, {c: Check() for c in CHECKS})
    if key in RANDOM_VALUES:
        line.note = "values not compared (drawn from the random stream)"
    elif key in UNSPECIFIED_VALUES:
        line.note = "values not compared (uninitialised memory)"
    try:
        fn = resolve(opinfo)
        _run_samples(opinfo, dtype, fn, line.checks, grad_on, gradgrad_on)
    except Missing as e:
        for name, on in zip(CHECKS, (True, grad_on, gradgrad_on)):
            line.checks[name] = Check("missing") if on else Check()
        line.checks["forward"].reason = f"no {e}"
        line.note = ""
    return line


def _run_samples(opinfo, dtype: str, fn, checks: dict, grad_on: bool, gradgrad_on: bool) -> None:
    forward = checks["forward"]
    grad = checks["grad"] if grad_on else None
    gradgrad = checks["gradgrad"] if gradgrad_on else None
    tols = _tolerances(entry_key(opinfo))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        torch.manual_seed(SAMPLE_SEED)  # samples are drawn from torch's stream (a few from Python's or NumPy's)
        random.seed(SAMPLE_SEED)
        np.random.seed(SAMPLE_SEED)
        # The generator under OpInfo.sample_inputs: that method wraps it in an iterator that inspects the
        # call stack once and reseeds torch (slowly) before every sample, half of this harness's time.
        samples, err = _call(lambda: iter(opinfo.sample_inputs_func(opinfo, "cpu", getattr(torch, dtype), grad_on)))
        for index in itertools.count():
            if err is None:
                sample, err = _call(lambda: next(samples))
            if isinstance(err, StopIteration):
                break
            if err is not None:  # torch cannot make (the rest of) this entry's samples on CPU
                if index == 0:
                    checks["forward"] = Check("skip", _one_line(f"torch's sample_inputs raised {_error(err)}"))
                break
            run = _Sample(index, sample, opinfo, fn, tols)
            outs = run.run_forward(forward)
            if grad is not None:
                if outs is not None:
                    run.run_grads(*outs, grad, gradgrad)
                elif run.forward_error is not None:
                    grad.record("fail", "forward raised", index)
                    if gradgrad is not None:
                        gradgrad.record("fail", "forward raised", index)
            if all(c is None or c.failed for c in (forward, grad, gradgrad)):
                break  # nothing more to learn from this entry's remaining samples


def run_error_inputs(opinfo) -> Line:
    """The ``errors`` check: each of torch's error inputs that raises in torch must raise alike in dyngrad."""
    line = Line(entry_key(opinfo), ERRORS, {"errors": Check()})
    check = line.checks["errors"]
    try:
        fn = resolve(opinfo)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            torch.manual_seed(SAMPLE_SEED)
            inputs, err = _call(lambda: iter(opinfo.error_inputs_func(opinfo, "cpu")))
            for index in itertools.count():
                if err is None:
                    error_input, err = _call(lambda: next(inputs))
                if isinstance(err, StopIteration):
                    break
                if err is not None:
                    if index == 0:
                        line.checks["errors"] = Check("skip", _one_line(f"torch's error_inputs raised {_error(err)}"))
                    break
                _run_error_input(index, error_input.sample_input, opinfo, fn, check)
                if check.failed:
                    break
    except Missing as e:
        line.checks["errors"] = Check("missing", f"no {e}")
    return line


def _run_error_input(index: int, s, opinfo, fn, check: Check) -> None:
    conv = Converter(share_storage=True)  # out= tensors that overlap an input must overlap it in dyngrad too
    try:
        d_args, d_kwargs = conv((s.input, *s.args)), conv(s.kwargs)
    except Unconvertible as e:
        check.record("fail", f"error input holds {e}, which has no dyngrad counterpart", index)
        return
    _, t_err = _call(lambda: opinfo.op(s.input, *s.args, **s.kwargs))
    if t_err is None:  # an error input of another device or build: nothing to compare
        return
    _, d_err = _call(lambda: fn(*d_args, **d_kwargs))
    if isinstance(d_err, AttributeError) and _MISSING_ATTRIBUTE.match(str(d_err)):
        raise Missing("{}.{}".format(*_MISSING_ATTRIBUTE.match(str(d_err)).groups()))
    check.record(*(compare_errors(d_err, t_err, "error") or ("pass", "")), sample=index)


def line_labels(opinfo) -> list[str]:
    """The status file's lines for an entry: its tested dtypes, then ERRORS if it has error inputs."""
    return tested_dtypes(opinfo) + ([ERRORS] if opinfo.error_inputs_func is not None else [])


def run_key(key: str, entries: dict | None = None) -> list[Line]:
    """Every line of one entry (see line_labels)."""
    entries = entries if entries is not None else cpu_entries()
    opinfo = entries[key]
    return [run_error_inputs(opinfo) if label == ERRORS else run_entry(opinfo, label) for label in line_labels(opinfo)]


# ---------------------------------------------------------------------------------- the status file
STATUS_PATH = Path(__file__).with_name("opinfo_status.txt")
REGENERATE = "python scripts/opinfo_status.py --write"
HEADER = f"""\
# dyngrad against PyTorch's OpInfo database (tests/opinfo_harness.py); checked by tests/test_opinfo.py.
# Regenerate with `{REGENERATE}` (`-k NAME` for some entries), never by hand;
# after a merge, regenerate rather than resolve conflicts line by line.
# One line per entry and dtype: `entry dtype forward=S grad=S gradgrad=S | check: first reason`,
# and `entry error_inputs errors=S` for an entry with error inputs (torch's inputs that must raise).
# S: pass, fail, text (same error type, other message), missing (no such callable in dyngrad),
# skip (torch could not make the samples), - (not applicable). The test compares S, not the reasons.
"""


@dataclasses.dataclass(frozen=True)
class Recorded:
    """One parsed line of the status file."""

    key: str
    dtype: str  # or ERRORS
    statuses: dict  # check name -> status
    text: str  # the whole line


def parse_status(text: str) -> tuple[dict, list[str]]:
    """{(key, dtype): Recorded} and the (key, dtype) pairs that appear more than once (a union merge)."""
    recorded: dict = {}
    duplicates = []
    for raw in text.splitlines():
        if not raw.strip() or raw.startswith("#"):
            continue
        head = raw.split(" | ", 1)[0].split()
        key, dtype, fields = head[0], head[1], dict(f.split("=", 1) for f in head[2:])
        if (key, dtype) in recorded:
            duplicates.append((key, dtype))
        recorded[(key, dtype)] = Recorded(key, dtype, fields, raw)
    return recorded, duplicates


def read_status(path: Path = STATUS_PATH) -> tuple[dict, list[str]]:
    return parse_status(path.read_text()) if path.exists() else ({}, [])


def render_status(lines: list[str]) -> str:
    return HEADER + "".join(line + "\n" for line in sorted(lines, key=_sort_key))


def _sort_key(line: str) -> tuple:
    key, dtype = line.split()[:2]
    order = FLOAT_DTYPES + FALLBACK_DTYPES
    rank = order.index(dtype) if dtype in order else len(order) + (dtype == ERRORS)
    return key, rank, dtype
