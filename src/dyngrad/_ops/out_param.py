"""The ``out=`` argument of torch's functional ops: the result is written into a given tensor."""

from __future__ import annotations

import warnings

from .._backend import xp
from .._dtype import from_numpy, scalar_type_name
from .._tensor import Tensor
from ..autograd.grad_mode import _state

_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def c_type_name(npd) -> str:
    """The C++ element type torch prints for a dtype (``float``, ``long int``, ``c10::complex<double>``)."""
    from .._tensor import _C_TYPE_NAMES

    return _C_TYPE_NAMES[from_numpy(npd).name]


# ops whose out= must have the result's dtype exactly (no cast), with torch's message for the two dtypes
_EXACT_DTYPE = {
    "gather": lambda want, got: (
        f"Expected out tensor to have dtype {c_type_name(want)}, but got {c_type_name(got)} instead"),
    "complex": lambda want, got: (
        f"Expected object of scalar type {scalar_type_name(want)} but got scalar type {scalar_type_name(got)} "
        "for argument 'out'"),
}


def check_out_autograd(name: str, out, *inputs) -> None:
    """torch refuses ``out=`` for a differentiable op when grad mode is on and a tensor involved requires grad.

    Raises:
        RuntimeError: ``<name>(): functions with out=... arguments don't support automatic differentiation,
            but one of the arguments requires grad.``
    """
    if out is None or not _state.enabled:
        return
    if any(isinstance(t, Tensor) and t._requires_grad for t in (*inputs, out)):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )


def write_out(result: Tensor, out, name: str | None = None, inputs: tuple = ()) -> Tensor:
    """``result`` when ``out`` is None; else ``result``'s values written into ``out``, which is returned.

    As torch's structured ops: ``out`` keeps its dtype (the result must cast to it safely: no float
    into an integer tensor), and is resized to the result's shape, with torch's deprecation warning
    when it had elements. Before anything is written, torch's memory-overlap checks (see
    ``check_out_overlap``) for the op ``name`` (dyngrad's name: ``"cat"``, ``"linalg.cross"``) and
    the tensors it read, ``inputs``.

    Raises:
        TypeError: ``out`` is not a tensor.
        RuntimeError: ``result type Float can't be cast to the desired output type Long``; torch's two
            ``unsupported operation: ...`` overlap errors.
    """
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    values = result._data
    dst = out._data
    if name in _EXACT_DTYPE and dst.dtype != values.dtype:
        raise RuntimeError(_EXACT_DTYPE[name](values.dtype, dst.dtype))
    if type(dst) is xp.ndarray:
        check_out_overlap(name, out, values.shape, inputs)
    if _CATEGORY[values.dtype.kind] > _CATEGORY[dst.dtype.kind]:
        raise RuntimeError(
            f"result type {scalar_type_name(values.dtype)} can't be cast to the desired output type "
            f"{scalar_type_name(dst.dtype)}"
        )
    if dst.shape != values.shape:
        if dst.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape [{', '.join(map(str, dst.shape))}]"
                f", which does not match the required output shape [{', '.join(map(str, values.shape))}]. This "
                "behavior is deprecated, and in a future PyTorch release outputs will not be resized unless they "
                "have zero elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                "elements with t.resize_(0). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/Resize.cpp:30.)",
                UserWarning,
                stacklevel=3,
            )
        out._data = xp.empty(values.shape, dtype=dst.dtype)
        dst = out._data
    dst[...] = values
    out._vc[0] += 1
    return out


# ------------------------------------------------------------------------------------ memory overlap
# torch (aten/src/ATen/MemoryOverlap.cpp) refuses an out= tensor whose memory would be written twice
# (``has_internal_overlap``: a dimension of size > 1 with stride 0, an expanded tensor) and, depending on
# the kernel, one that shares memory with an input: TensorIterator kernels (pointwise ops, cumsum, addmm)
# refuse a partial overlap (``assert_no_partial_overlap``) but take the input itself (``torch.exp(x,
# out=x)``); gather-like kernels refuse any overlap (``assert_no_overlap``). Which kernel checks what was
# found by running torch 2.13 over OpInfo's samples with an expanded out, out=input and an out shifted by
# one row in the input's storage.
_INTERNAL = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation."
)
_PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation."
)
# kernels that do not check the out tensor for internal overlap
_NO_INTERNAL_CHECK = frozenset({
    "bmm", "mv", "matmul", "tril", "triu", "histc", "std", "var", "linalg.multi_dot", "linalg.matrix_rank",
    "nn.functional.avg_pool3d", "nn.functional.linear",
})
# kernels that refuse any overlap of out with an input, the input itself included
_NO_OVERLAP = frozenset({
    "cat", "concat", "concatenate", "index_select", "gather", "take", "take_along_dim", "masked_select",
    "kthvalue", "kron", "cross", "linalg.cross",
})
# TensorIterator kernels: a partial overlap is refused, the input itself is taken
_NO_PARTIAL_OVERLAP = frozenset({
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "add", "addbmm", "addcdiv", "addcmul", "addmm", "addmv",
    "addr", "asin", "arcsin", "asinh", "arcsinh", "atan", "arctan", "atan2", "arctan2", "atanh", "arctanh",
    "baddbmm", "ceil", "clamp", "clip", "clamp_max", "clamp_min", "conj_physical", "copysign", "cos", "cosh",
    "cumprod", "cumsum", "deg2rad", "diff", "div", "divide", "true_divide", "exp", "exp2", "expm1", "fix", "fmax",
    "fmin", "fmod", "remainder", "frac", "floor", "floor_divide", "i0", "igamma", "igammac", "heaviside", "ldexp",
    "log", "log10", "log1p", "log2", "logaddexp", "logaddexp2", "logcumsumexp", "max", "maximum", "min", "minimum",
    "mul", "multiply", "neg", "negative", "nextafter", "pow", "rad2deg", "round", "sgn", "sign", "sin", "sinc",
    "sinh", "sub", "subtract", "tan", "tanh", "trunc", "nn.functional.normalize", "nn.functional.softshrink",
    "nn.functional.hardshrink", "nn.functional.gelu", "special.i0", "special.exp2", "special.expm1",
    "special.log1p", "special.round", "special.sinc",
})

# kernels that check out before it is resized (TensorIterator's, and a few written by hand); the others
# (structured kernels: mm, gather, cat) check it once resized to the result's shape, when a fresh one
# cannot overlap itself
_BEFORE_RESIZE = _NO_PARTIAL_OVERLAP | {"index_select", "take", "masked_select"}


def _dense(a) -> bool:
    """torch's ``is_non_overlapping_and_dense`` for a NumPy array: its elements fill a block of memory once."""
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return True
    expected = a.itemsize
    for stride, size in sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def _byte_bounds(a) -> tuple[int, int]:
    """The first and one-past-the-last byte addresses ``a``'s elements occupy (numpy's byte_bounds, which moved)."""
    lo = hi = a.__array_interface__["data"][0]
    for stride, size in zip(a.strides, a.shape):
        if stride < 0:
            lo += stride * (size - 1)
        else:
            hi += stride * (size - 1)
    return lo, hi + a.itemsize


def _root(a):
    """The object that holds ``a``'s memory, at the end of its chain of bases."""
    while getattr(a, "base", None) is not None:
        a = a.base
    return a


def _overlaps(out: Tensor, shape: tuple, other: Tensor) -> str | None:
    """torch's ``get_overlap_status(out, other)`` as "full", "partial" or None (none, or too hard to tell),
    with ``out`` as it is once resized to ``shape`` (contiguous from its first element when the shape changes)."""
    if out is other:
        return "full"
    a, b = out._data, other._data
    if type(b) is not xp.ndarray or not a.size or not b.size:
        return None
    resized = a.shape != shape
    # a resized out stays in its storage (torch grows the storage in place): it may overlap what shares the buffer
    if not (_root(a) is _root(b) if resized else xp.may_share_memory(a, b)):
        return None
    if not _dense(b) or not (resized or _dense(a)):
        return None
    a_lo, a_hi = _byte_bounds(a)
    if resized:
        a_hi = a_lo + int(xp.prod(shape, dtype=xp.int64)) * a.itemsize
    b_lo, b_hi = _byte_bounds(b)
    if (a_lo, a_hi) == (b_lo, b_hi):
        same = (not resized and a.strides == b.strides) or (resized and b.flags.c_contiguous)
        return "full" if same else "partial"
    return "partial" if a_lo < b_hi and b_lo < a_hi else None


def check_out_overlap(name: str | None, out: Tensor, shape: tuple, inputs: tuple) -> None:
    """torch's checks of the out= tensor ``out`` (to hold a result of ``shape``) against itself and the tensors
    ``inputs`` of the op ``name`` (see the note above).

    Raises:
        RuntimeError: torch's ``unsupported operation: ...`` texts.
    """
    a = out._data
    if name in _BEFORE_RESIZE:
        shape = a.shape
    if a.shape == shape and name not in _NO_INTERNAL_CHECK and not (a.flags.c_contiguous or a.flags.f_contiguous):
        if any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
            raise RuntimeError(_INTERNAL)
    if name in _NO_OVERLAP:
        refused = ("full", "partial")
    elif name in _NO_PARTIAL_OVERLAP:
        refused = ("partial",)
    else:
        return
    for t in inputs:
        if isinstance(t, Tensor) and _overlaps(out, shape, t) in refused:
            raise RuntimeError(_PARTIAL)


def tensors_in(args: tuple, kwargs: dict) -> tuple:
    """The tensors among an op's arguments, in order (those in a list or tuple argument too: cat's)."""
    found = []
    for a in (*args, *kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, Tensor))
    return tuple(found)
