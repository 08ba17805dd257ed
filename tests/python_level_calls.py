"""The public functions whose arguments torch checks in Python (or not at all), and one valid call of each.

Shared by tests/test_argtypes_python_level.py (which calls each with wrong-typed arguments, in torch and in
dyngrad, and compares) and scripts/gen_python_level.py (which records torch's answers for dyngrad's runtime).

The functions are found by introspection: every public function of torch.nn.functional, the exports of
torch.functional, and the public functions of torch, torch.linalg, torch.special and torch.fft that dyngrad
also has and that the argument parser's table (_argparse._signatures) does not list. A valid call of each is
the first sample torch's own OpInfo database gives for it (float64 where it runs in float64), else a call of
``EXTRA_CALLS`` below.
"""

from __future__ import annotations

import contextlib
import inspect
import types
import warnings

import numpy as np
import torch
import torch.functional
import torch.nn.functional

import dyngrad
from dyngrad._argparse._signatures import SIGNATURES

# (key prefix, torch namespace, dyngrad namespace path)
NAMESPACES = (
    ("nn.functional.", torch.nn.functional, "nn.functional"),
    ("", torch, ""),
    ("linalg.", torch.linalg, "linalg"),
    ("special.", torch.special, "special"),
    ("fft.", torch.fft, "fft"),
)

# The wrong values put where an argument goes, by the name the test ids give them.
WRONG = {
    "float": lambda: 3.0,
    "int": lambda: 3,
    "list": lambda: [1.0, 2.0],
    "ndarray": lambda: np.ones(3),
    "None": lambda: None,
    "str": lambda: "abc",
}

# torch's functions that are no operation on tensors (the machinery of __torch_function__, typing helpers)
NOT_OPS = frozenset({
    "handle_torch_function", "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
    "boolean_dispatch", "assert_int_or_pair", "Optional", "Callable", "TYPE_CHECKING", "Union", "List", "Tuple",
    "overload", "cast", "warn", "importlib",
})


def dyngrad_namespace(path: str):
    obj = dyngrad
    for part in filter(None, path.split(".")):
        obj = getattr(obj, part)
    return obj


def _is_function(obj) -> bool:
    return callable(obj) and not inspect.isclass(obj) and not isinstance(obj, types.ModuleType)


def public_functions() -> list:
    """(key, torch function, dyngrad function or None) for every function checked, in key order."""
    out = {}
    for prefix, tmod, dpath in NAMESPACES:
        dmod = dyngrad_namespace(dpath)
        if prefix == "nn.functional.":
            names = dir(tmod)
        elif prefix == "":  # torch.functional's exports, and dyngrad's functions of torch's namespace
            names = list(torch.functional.__all__) + dir(dmod)
        else:
            names = dir(dmod)
        for name in names:
            if name.startswith("_") or name in NOT_OPS:
                continue
            tfn = getattr(tmod, name, None)
            if not _is_function(tfn) or getattr(tfn, "__module__", "") in ("typing", "warnings"):
                continue
            key = prefix + name
            if prefix != "nn.functional." and key in SIGNATURES and name not in torch.functional.__all__:
                continue  # parsed by the table: tests/test_argparse.py
            if prefix == "" and not (name in torch.functional.__all__ or isinstance(tfn, types.FunctionType)
                                     or key not in SIGNATURES):
                continue
            dfn = getattr(dmod, name, None)
            out[key] = (tfn, dfn if _is_function(dfn) else None)
    return [(k, *out[k]) for k in sorted(out)]


# ----------------------------------------------------------------------------------- valid calls
def _t(*shape, seed=0, dtype=torch.float64):
    return torch.from_numpy(np.random.default_rng(seed).standard_normal(shape)).to(dtype)


# Valid calls (args, kwargs) of torch's functions that OpInfo gives no sample for; torch values.
EXTRA_CALLS = {
    "is_signed": lambda: ((_t(3),), {}),
    "nn.functional.adaptive_max_pool1d_with_indices": lambda: ((_t(2, 3, 5), 2), {}),
    "nn.functional.adaptive_max_pool2d_with_indices": lambda: ((_t(2, 3, 5, 5), 2), {}),
    "nn.functional.adaptive_max_pool3d_with_indices": lambda: ((_t(2, 3, 4, 4, 4), 2), {}),
    "nn.functional.affine_grid": lambda: ((_t(2, 2, 3), [2, 3, 4, 5]), {"align_corners": False}),
    "nn.functional.alpha_dropout": lambda: ((_t(3, 4), 0.5), {"training": False}),
    "nn.functional.celu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.conv_tbc": lambda: ((_t(5, 2, 3), _t(2, 3, 4, seed=1), _t(4, seed=2)), {}),
    "nn.functional.dropout": lambda: ((_t(3, 4), 0.5), {"training": False}),
    "nn.functional.dropout1d": lambda: ((_t(2, 3, 4), 0.5), {"training": False}),
    "nn.functional.dropout2d": lambda: ((_t(2, 3, 4, 4), 0.5), {"training": False}),
    "nn.functional.dropout3d": lambda: ((_t(2, 3, 2, 2, 2), 0.5), {"training": False}),
    "nn.functional.elu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.embedding": lambda: ((torch.tensor([[0, 2], [1, 3]]), _t(4, 3)), {}),
    "nn.functional.embedding_bag": lambda: ((torch.tensor([0, 2, 1, 3]), _t(4, 3), torch.tensor([0, 2])), {}),
    "nn.functional.feature_alpha_dropout": lambda: ((_t(2, 3, 4), 0.5), {"training": False}),
    "nn.functional.fold": lambda: ((_t(1, 12, 4), (3, 3), 2), {}),
    "nn.functional.fractional_max_pool2d": lambda: ((_t(1, 2, 6, 6), 2), {"output_size": 3,
                                                                           "_random_samples": _t(1, 2, 2).abs() / 4}),
    "nn.functional.fractional_max_pool2d_with_indices": lambda: (
        (_t(1, 2, 6, 6), 2), {"output_size": 3, "_random_samples": _t(1, 2, 2).abs() / 4}),
    "nn.functional.fractional_max_pool3d": lambda: ((_t(1, 2, 6, 6, 6), 2), {
        "output_size": 3, "_random_samples": _t(1, 2, 3).abs() / 4}),
    "nn.functional.fractional_max_pool3d_with_indices": lambda: ((_t(1, 2, 6, 6, 6), 2), {
        "output_size": 3, "_random_samples": _t(1, 2, 3).abs() / 4}),
    "nn.functional.gumbel_softmax": lambda: ((_t(3, 4),), {"tau": 0.5}),
    "nn.functional.hardtanh_": lambda: ((_t(3, 4),), {}),
    "nn.functional.leaky_relu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.log_softmax": lambda: ((_t(3, 4),), {"dim": 1}),
    "nn.functional.lp_pool1d": lambda: ((_t(2, 3, 6), 2.0, 2), {}),
    "nn.functional.lp_pool2d": lambda: ((_t(2, 3, 6, 6), 2.0, 2), {}),
    "nn.functional.lp_pool3d": lambda: ((_t(2, 3, 4, 4, 4), 2.0, 2), {}),
    "nn.functional.max_pool1d_with_indices": lambda: ((_t(2, 3, 6), 2), {}),
    "nn.functional.max_pool2d_with_indices": lambda: ((_t(2, 3, 6, 6), 2), {}),
    "nn.functional.max_pool3d_with_indices": lambda: ((_t(2, 3, 4, 4, 4), 2), {}),
    "nn.functional.native_channel_shuffle": lambda: ((_t(2, 4, 3, 3), 2), {}),
    "nn.functional.relu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.rrelu": lambda: ((_t(3, 4),), {}),
    "nn.functional.rrelu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.selu_": lambda: ((_t(3, 4),), {}),
    "nn.functional.sigmoid": lambda: ((_t(3, 4),), {}),
    "nn.functional.softmax": lambda: ((_t(3, 4),), {"dim": 1}),
    "nn.functional.tanh": lambda: ((_t(3, 4),), {}),
    "nn.functional.threshold_": lambda: ((_t(3, 4), 0.1, 2.0), {}),
    "nn.functional.upsample": lambda: ((_t(1, 2, 3, 3),), {"scale_factor": 2}),
    "nn.functional.multi_head_attention_forward": lambda: (
        (_t(3, 2, 4), _t(3, 2, 4, seed=1), _t(3, 2, 4, seed=2), 4, 2, _t(12, 4, seed=3), _t(12, seed=4), None, None,
         False, 0.0, _t(4, 4, seed=5), _t(4, seed=6)), {}),
    "nn.functional.scaled_dot_product_attention": lambda: ((_t(2, 3, 4), _t(2, 5, 4, seed=1), _t(2, 5, 4, seed=2)),
                                                           {}),
    "chain_matmul": lambda: ((_t(2, 3), _t(3, 4, seed=1), _t(4, 2, seed=2)), {}),
    "einsum": lambda: (("ij,jk->ik", _t(2, 3), _t(3, 4, seed=1)), {}),
    "atleast_1d": lambda: ((_t(3, 4),), {}),
    "atleast_2d": lambda: ((_t(3),), {}),
    "atleast_3d": lambda: ((_t(3, 4),), {}),
    "block_diag": lambda: ((_t(2, 3), _t(1, 2, seed=1)), {}),
    "broadcast_tensors": lambda: ((_t(3, 1), _t(1, 4, seed=1)), {}),
    "broadcast_shapes": lambda: (((3, 1), (1, 4)), {}),
    "cartesian_prod": lambda: ((_t(2), _t(3, seed=1)), {}),
    "cdist": lambda: ((_t(3, 4), _t(5, 4, seed=1)), {}),
    "meshgrid": lambda: ((_t(2), _t(3, seed=1)), {"indexing": "ij"}),
    "norm": lambda: ((_t(3, 4),), {}),
    "split": lambda: ((_t(4, 3), 2), {}),
    "tensordot": lambda: ((_t(2, 3), _t(3, 4, seed=1)), {"dims": 1}),
    "unique": lambda: ((torch.tensor([3, 1, 2, 1]),), {}),
    "unique_consecutive": lambda: ((torch.tensor([1, 1, 2, 2, 1]),), {}),
    "unravel_index": lambda: ((torch.tensor([4, 7]), (3, 4)), {}),
    "lu": lambda: ((_t(3, 3),), {}),
    "stft": lambda: ((_t(32), 8), {"return_complex": True}),
    "istft": lambda: ((torch.stft(_t(32), 8, return_complex=True), 8), {}),
    "segment_reduce": lambda: ((_t(5), "sum"), {"lengths": torch.tensor([2, 3])}),
    "native_channel_shuffle": lambda: ((_t(2, 4, 3, 3), 2), {}),
    "pca_lowrank": lambda: ((_t(5, 4),), {"q": 2}),
    "svd_lowrank": lambda: ((_t(5, 4),), {"q": 2}),
    "special.digamma": lambda: ((_t(3, 4).abs() + 0.5,), {}),
    "special.psi": lambda: ((_t(3, 4).abs() + 0.5,), {}),
    "special.gammaln": lambda: ((_t(3, 4).abs() + 0.5,), {}),
    "special.erf": lambda: ((_t(3, 4),), {}),
    "special.erfc": lambda: ((_t(3, 4),), {}),
    "special.erfinv": lambda: ((_t(3, 4) / 10,), {}),
    "special.exp2": lambda: ((_t(3, 4),), {}),
    "special.expit": lambda: ((_t(3, 4),), {}),
    "special.expm1": lambda: ((_t(3, 4),), {}),
    "special.log1p": lambda: ((_t(3, 4).abs(),), {}),
    "special.i0": lambda: ((_t(3, 4),), {}),
    "special.round": lambda: ((_t(3, 4),), {}),
    "special.sinc": lambda: ((_t(3, 4),), {}),
    "special.logit": lambda: ((_t(3, 4).sigmoid(),), {}),
    "special.gammainc": lambda: ((_t(3, 4).abs(), _t(3, 4, seed=1).abs()), {}),
    "special.gammaincc": lambda: ((_t(3, 4).abs(), _t(3, 4, seed=1).abs()), {}),
    "special.xlogy": lambda: ((_t(3, 4), _t(3, 4, seed=1).abs()), {}),
    "special.polygamma": lambda: ((1, _t(3, 4).abs() + 0.5), {}),
    "special.multigammaln": lambda: ((_t(3, 4).abs() + 2, 2), {}),
    "special.softmax": lambda: ((_t(3, 4), 1), {}),
    "special.log_softmax": lambda: ((_t(3, 4), 1), {}),
    "special.logsumexp": lambda: ((_t(3, 4), 1), {}),
    "fft.fftfreq": lambda: ((5,), {}),
    "fft.rfftfreq": lambda: ((5,), {}),
    # torch's functions of no tensor: their own arguments (state they set is put back by ``saved_state``)
    "as_tensor": lambda: (([1.0, 2.0],), {}),
    "tensor": lambda: (([1.0, 2.0],), {}),
    "from_numpy": lambda: ((np.ones(2),), {}),
    "is_tensor": lambda: ((_t(2),), {}),
    "is_inference": lambda: ((_t(2),), {}),
    "vmap": lambda: ((lambda x: x * 2,), {}),
    "manual_seed": lambda: ((0,), {}),
    "set_default_dtype": lambda: ((torch.float32,), {}),
    "set_num_threads": lambda: ((1,), {}),
    "set_rng_state": lambda: ((torch.get_rng_state(),), {}),
    "use_deterministic_algorithms": lambda: ((False,), {}),
    "set_printoptions": lambda: ((4,), {}),
    "set_float32_matmul_precision": lambda: (("highest",), {}),
    "get_autocast_dtype": lambda: (("cpu",), {}),
    "set_autocast_dtype": lambda: (("cpu", torch.bfloat16), {}),
    "set_default_device": lambda: (("cpu",), {}),
    **{name: lambda: ((), {}) for name in (
        "are_deterministic_algorithms_enabled", "get_default_device", "get_default_dtype",
        "get_float32_matmul_precision", "get_num_interop_threads", "get_num_threads", "get_rng_state", "initial_seed",
        "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "is_deterministic_algorithms_warn_only_enabled", "is_grad_enabled", "is_inference_mode_enabled", "seed")},
}


# the functions that change process-wide settings, called under ``saved_state``
SETS_STATE = frozenset({
    "manual_seed", "seed", "set_default_dtype", "set_num_threads", "set_rng_state", "use_deterministic_algorithms",
    "set_printoptions", "set_float32_matmul_precision", "set_autocast_dtype", "set_default_device", "compile",
})


@contextlib.contextmanager
def saved_state(*libs):
    """Put back the process-wide settings of each of ``libs`` (torch, dyngrad) that a call may change: default
    dtype and device, thread count, deterministic mode, matmul precision, autocast dtype, print options, the
    random stream and distributions' default validation."""
    saved = [(lib, lib.get_default_dtype(), lib.get_default_device(), lib.get_num_threads(),
              lib.are_deterministic_algorithms_enabled(), lib.is_deterministic_algorithms_warn_only_enabled(),
              lib.get_float32_matmul_precision(), lib.get_autocast_dtype("cpu"), lib.get_rng_state(),
              lib.distributions.Distribution._validate_args)
             for lib in libs]
    try:
        yield
    finally:
        for lib, dtype, device, threads, deterministic, warn_only, precision, autocast, rng, validate in saved:
            lib.set_default_dtype(dtype)
            if lib.get_default_device() != device:
                # (None, not "cpu": torch.set_default_device("cpu") leaves a TorchFunctionMode on, which turns
                # torch's fast paths off, TransformerEncoder's nested tensors among them)
                lib.set_default_device(None if device.type == "cpu" else device)
            lib.set_num_threads(threads)
            lib.use_deterministic_algorithms(deterministic, warn_only=warn_only)
            lib.set_float32_matmul_precision(precision)
            lib.set_autocast_dtype("cpu", autocast)
            lib.set_printoptions(profile="default")
            lib.set_rng_state(rng)
            # (torch.compile's first call imports torch._dynamo, which turns distribution validation off)
            lib.distributions.Distribution.set_default_validate_args(validate)


_SAMPLES: dict = {}


def _opinfo_samples() -> dict:
    """id(torch function) -> the OpInfo entries whose op it is."""
    if not _SAMPLES:
        from opinfo_harness import op_db

        for opinfo in op_db():
            _SAMPLES.setdefault(id(opinfo.op), []).append(opinfo)
    return _SAMPLES


def valid_call(key: str, tfn):
    """(args, kwargs) of a call of torch's ``tfn`` that runs (torch values), or None when none is known."""
    if key in EXTRA_CALLS:
        return EXTRA_CALLS[key]()
    for opinfo in _opinfo_samples().get(id(tfn), ()):
        supported = opinfo.supported_dtypes("cpu")
        dtype = torch.float64 if torch.float64 in supported else next(iter(sorted(supported, key=str)), None)
        if dtype is None:
            continue
        torch.manual_seed(0)
        for sample in opinfo.sample_inputs("cpu", dtype, requires_grad=False):
            args, kwargs = (sample.input, *sample.args), dict(sample.kwargs)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # (upsample_nearest's deprecation)
                    tfn(*args, **kwargs)
            except Exception:  # noqa: BLE001 - a sample of the entry's error cases: the next one
                continue
            return args, kwargs
    return None


def substitutions(args: tuple, kwargs: dict) -> list:
    """The places a wrong value is put in a valid call: the first argument, and each later argument (by
    position or keyword) that is a tensor or a list of tensors. Each as ("arg0" or "kw:name", setter)."""
    if not args:  # a function of no argument: one given
        return ["arg0"]
    places = []
    for i, a in enumerate(args):
        if i == 0 or isinstance(a, torch.Tensor) or (isinstance(a, (list, tuple)) and a
                                                      and all(isinstance(v, torch.Tensor) for v in a)):
            places.append(f"arg{i}")
    for k, v in kwargs.items():
        if isinstance(v, torch.Tensor):
            places.append(f"kw:{k}")
    return places


def substitute(place: str, args: tuple, kwargs: dict, value):
    args, kwargs = list(args), dict(kwargs)
    if place.startswith("arg"):
        i = int(place[3:])
        if i == len(args):
            args.append(value)
        else:
            args[i] = value
    else:
        kwargs[place[3:]] = value
    return tuple(args), kwargs


def clone(x):
    """A copy of a call's values (tensors and arrays copied): an in-place function must not change the next call's."""
    if isinstance(x, torch.Tensor):
        return x.clone()
    if isinstance(x, np.ndarray):
        return x.copy()
    if type(x) in (list, tuple):
        return type(x)(clone(v) for v in x)
    if isinstance(x, dict):
        return {k: clone(v) for k, v in x.items()}
    return x


def to_dyngrad(x, convert=None):
    """torch's values as dyngrad's (opinfo_harness.Converter; a NumPy array stays one, copied)."""
    from opinfo_harness import Converter

    convert = convert or Converter()
    if isinstance(x, np.ndarray):
        return x.copy()
    if type(x) in (list, tuple):
        return type(x)(to_dyngrad(v, convert) for v in x)
    if isinstance(x, dict):
        return {k: to_dyngrad(v, convert) for k, v in x.items()}
    return convert(x)
