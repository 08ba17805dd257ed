"""dyngrad: PyTorch's define-by-run autograd, in readable Python on NumPy.

``import dyngrad as torch`` runs ordinary PyTorch autograd code: tensors record
the ops applied to them and ``.backward()`` runs the chain rule back through that
graph. See README.md for what is covered.
"""

from __future__ import annotations

import builtins as _builtins

from . import _tensor_methods
from ._backend import manual_seed as _manual_seed
from ._creation import (
    Generator,
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
    tensor,
    zeros,
    zeros_like,
)
from ._dtype import (
    bfloat16,
    bool,
    cdouble,
    cfloat,
    chalf,
    complex32,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from ._dtype import (  # Note [Limited dtypes]
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    uint16,
    uint32,
    uint64,
)
from ._dtype import set_default_dtype as _set_default_dtype
from ._ops.comparison import eq, ge, gt, le, logical_not, lt, ne
from ._ops.indexing import getitem as _getitem  # noqa: F401
from ._ops.matmul import bmm, dot, matmul, mm, mv
from ._ops.pointwise import (
    abs,
    absolute,
    add,
    cos,
    div,
    divide,
    exp,
    log,
    mul,
    neg,
    negative,
    pow,
    reciprocal,
    relu,
    rsub,
    sigmoid,
    sin,
    sqrt,
    sub,
    tanh,
    true_divide,
)
from ._ops.pointwise import where_ as _where
from ._ops.reduction import max, mean, min, sum
from ._ops.join_split import stack, unbind
from ._ops.shape import (
    clone,
    expand_as,
    permute,
    reshape,
    squeeze,
    swapaxes,
    swapdims,
    t,
    transpose,
    unsqueeze,
)
from ._tensor import (  # noqa: E402
    Size, Tensor, channels_last, channels_last_3d, contiguous_format, device, layout, memory_format, preserve_format,
    strided, sparse_coo, sparse_csr, sparse_csc, sparse_bsr, sparse_bsc, jagged, _mkldnn,  # noqa: F401
)
from ._type_info import finfo, iinfo
from ._tensor_str import get_printoptions, set_printoptions
from .autograd import grad_mode as _grad_mode
from .autograd.grad_mode import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
from ._inference import is_inference  # noqa: E402,F401  (torch.is_inference)
from . import autograd  # noqa: E402
from . import fft, linalg, masked, nn, signal, special, viz  # noqa: E402
from . import backends, cuda, optim, utils  # noqa: E402
from . import func  # noqa: E402
from . import profiler  # noqa: E402,F401  (torch.profiler; torch.autograd.profiler is dyngrad.autograd.profiler)
from .func import vmap  # noqa: E402,F401  (torch.vmap)
from . import testing  # noqa: E402,F401  (torch.testing: assert_close, make_tensor)
from ._compile import compile  # noqa: E402,F401,A004  (torch.compile: the model runs as it is)
from .utils import checkpoint as _checkpoint  # noqa: E402,F401  (torch.utils.checkpoint without its own import)
from .serialization import load, save  # noqa: E402
from ._as_torch import install_as_torch  # noqa: E402
from ._runtime import (  # noqa: E402  (the switches scripts set in their first lines)
    are_deterministic_algorithms_enabled, autocast, get_default_device, get_float32_matmul_precision,
    get_num_threads, is_deterministic_algorithms_warn_only_enabled, set_default_device,
    set_float32_matmul_precision, set_num_threads, use_deterministic_algorithms,
)
from ._runtime import get_num_interop_threads, is_autocast_enabled, set_num_interop_threads  # noqa: E402
from ._runtime import get_autocast_dtype, set_autocast_dtype  # noqa: E402,F401
from . import amp, cpu  # noqa: E402,F401  (torch.amp.GradScaler, torch.cpu.amp)

_tensor_methods.install()
for _family in _tensor_methods.FAMILIES:  # each op family may add top-level functions (its EXPORTS)
    globals().update(getattr(_family, "EXPORTS", {}))
del _family
from . import ops  # noqa: E402,F401  (torch.ops.aten: the few aten operators torch's tests call by that name)
from .signal import window_functions as _window_functions  # noqa: E402

globals().update(_window_functions.EXPORTS)  # hann_window, kaiser_window ... (torch's top-level window factories)

__version__ = "0.1.0"

# torch's constants (torch.pi, torch.e, torch.inf, torch.nan)
from math import e, inf, nan, pi  # noqa: E402

multiply = mul
subtract = sub


from .random import default_generator, fork_rng, initial_seed, manual_seed, seed  # noqa: E402


def set_default_dtype(d) -> None:
    _set_default_dtype(d)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    return input.is_complex()


def numel(input: Tensor) -> int:
    return input.numel()


def where(condition, input=None, other=None):  # noqa: A002 - torch's name
    """torch.where(condition, input, other); ``where(condition)`` gives the indices of True elements."""
    if input is None and other is None:
        from ._backend import xp

        return tuple(from_numpy(i.astype(xp.int64)) for i in xp.nonzero(condition._data))
    return _where(condition, input, other)




def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    return input.flatten(start_dim, end_dim)


def result_type(a, b):
    from ._dtype import from_numpy as _fnp
    from ._dtype import result_type as _rt

    return _fnp(_rt(*(x._data if isinstance(x, Tensor) else x for x in (a, b))))


def promote_types(a, b):
    from ._dtype import promote_dtypes

    return promote_dtypes(a, b)


def __getattr__(name: str):
    """A missing top-level name: say that dyngrad lacks it (torch programs reach here as ``torch.<name>``).
    ``distributions`` and ``distributed`` are imported on first use (as an attribute; ``import dyngrad.distributions`` works too)."""
    if name in ("distributions", "distributed"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(
        f"module 'dyngrad' has no attribute '{name}' (dyngrad does not provide torch.{name}; "
        "docs/differences.md lists what is missing)"
    )


from ._legacy_types import LEGACY_TYPES as _LEGACY_TYPES  # noqa: E402

globals().update(_LEGACY_TYPES)  # torch.FloatTensor, torch.LongTensor ... (legacy constructors)

from ._argparse import check_namespace as _check_namespace  # noqa: E402

_check_namespace(globals())  # torch's argument errors for the functions with a row (last: after every definition)

from ._argparse.python_level import check_python_namespace as _check_python_namespace  # noqa: E402

_check_python_namespace(globals())  # torch's errors for wrong kinds given to its Python functions (einsum, stft)
