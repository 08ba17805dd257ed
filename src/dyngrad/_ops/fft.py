"""torch.fft: discrete Fourier transforms (fft, ifft, rfft, irfft, hfft, ihfft, their 2-D and n-D forms),
fftfreq / rfftfreq and fftshift / ifftshift.

Every public function is built as torch 2.13 builds it (aten/src/ATen/native/SpectralOps.cpp), from
three primitive transforms, which are the registry ops (their grad_fn names are torch's):
- ``FftC2CBackward0``: complex -> complex over ``dims``, forward (e^-) or backward (e^+);
- ``FftR2CBackward0``: real -> complex, forward only; ``onesided`` keeps n // 2 + 1 entries of the last
  transformed dim (the rest follow by conjugate symmetry), otherwise all n;
- ``FftC2RBackward0``: a one-sided (Hermitian) spectrum -> real, backward only, of a given last length.
around which the public functions put torch's other nodes: ToCopyBackward0 (promotion to complex),
SliceBackward0 / ConstantPadNdBackward0 (``n`` / ``s`` crop or zero-pad the input), ConjBackward0 (ifft and
ihfft of real input are a conjugated forward r2c, hfft conjugates before its c2r) and ConjPhysicalBackward0
(ihfftn), RollBackward0 (fftshift). The node chain of each function is torch's, node for node.

Note [FFT normalization]
Each primitive takes torch's ``fft_norm_mode``: 0 none, 1 by 1/sqrt(n), 2 by 1/n, n being the product of
the signal sizes over the transformed dims (the input's for c2c and r2c, the output's for c2r).
``norm=`` maps to it by direction (norm_from_string): "backward" (or None) is none forward and 1/n
backward, "forward" the reverse, "ortho" 1/sqrt(n) both ways.

Note [FFT kernels]
The transforms run NumPy's pocketfft. From NumPy 2 it has single-precision kernels, reached through its
gufuncs (numpy.fft._pocketfft_umath) when the scale factor is a float32 too; ``numpy.fft.fft`` itself
passes the Python int 1 as factor, which selects the double kernel and casts the whole array in buffered
chunks, 3-8x slower. So float32/complex64 data is transformed in single precision, as torch's CPU kernels
(MKL) do: the results differ from torch's by a few float32 ulps of the largest magnitude, as two single
precision FFTs do (measured: |dyngrad - torch| <= 3e-7 of max|X| for n up to 4096). The scale factor is
applied inside the transform of one axis (pocketfft multiplies as it writes). NumPy 1.x lacks these
gufuncs: there the public numpy.fft functions run in double and the result is rounded to the dtype.
torch's MKL build refuses a transform of a tensor with no elements over non-empty signal dims (its text,
"MKL FFT error: ... Inconsistent configuration parameters"); so does dyngrad.

Gradients (derivatives.yaml: _fft_c2c, _fft_r2c, _fft_c2r; FunctionsManual.cpp fft_r2c_backward,
fft_c2r_backward), written with the primitives themselves so that they differentiate again:
- c2c: the c2c transform in the other direction with the same normalization mode (the adjoint of the
  DFT matrix is its conjugate transpose);
- c2r (fft_c2r_backward): the one-sided r2c of the gradient, with the entries 1 .. n - (n // 2 + 1) of the
  last dim doubled (each of them stands for itself and its mirrored partner);
- r2c, not one-sided: real(c2c backward of the gradient);
- r2c, one-sided: torch pads the gradient with zeros to n entries, runs the complex c2c backward and keeps
  the real part. dyngrad computes the same linear map as the c2r of the gradient with the entries
  1 .. n - (n // 2 + 1) halved: for a spectrum z that is zero past n // 2, Re(sum_k z_k e^{+2 pi i k t / n})
  counts those entries once where the Hermitian c2r counts them twice, and reads only the real parts of
  the first and (n even) the middle entry, as c2r does. Equal values (to rounding), a transform of half
  the size with real output, and its own gradient is again fft_c2r_backward's.
"""

from __future__ import annotations

import builtins
import math
import operator

from .._backend import xp
from .._dtype import FLOATING_KINDS, default_float_np, scalar_type_name
from .._tensor import Tensor, _dim_of_size, _wrap_dim, wrap
from .complex import conj, conj_physical, real
from .out_param import check_out_autograd, write_out
from .registry import Op, apply, register

try:  # NumPy >= 2: pocketfft's gufuncs, with single-precision loops (Note [FFT kernels])
    from numpy.fft import _pocketfft_umath as _pfu
except ImportError:  # pragma: no cover - NumPy 1.x
    _pfu = None

NORM_NONE, NORM_SQRT, NORM_N = 0, 1, 2  # torch's fft_norm_mode (Note [FFT normalization])

_EMPTY_BATCH = "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters"


# ------------------------------------------------------------------ kernels on arrays


def _scale(norm: int, n: int, real_dtype):
    """The factor of normalization mode ``norm`` for a signal of ``n`` points, in ``real_dtype``."""
    if norm == NORM_NONE:
        return real_dtype.type(1)
    if norm == NORM_SQRT:
        return real_dtype.type(1.0 / math.sqrt(n))
    return real_dtype.type(1.0 / n)


_F32, _F64 = xp.dtype(xp.float32), xp.dtype(xp.float64)


def _real_dtype(a):
    return _F32 if a.dtype in (xp.complex64, xp.float32) else _F64


def _axis_transform(kind: str, a, axis: int, n_out: int, fct):
    """One pocketfft pass along ``axis``: kind "fft"/"ifft" (complex -> complex, unnormalized, times ``fct``),
    "rfft" (real -> the n // 2 + 1 one-sided entries) or "irfft" (one-sided -> ``n_out`` reals)."""
    shape = a.shape[:axis] + (n_out,) + a.shape[axis + 1 :]
    if _pfu is not None:
        if kind == "irfft":
            out = xp.empty(shape, dtype=_real_dtype(a))
            ufunc = _pfu.irfft
        elif kind == "rfft":
            out = xp.empty(shape, dtype=xp.complex64 if a.dtype == xp.float32 else xp.complex128)
            ufunc = _pfu.rfft_n_even if a.shape[axis] % 2 == 0 else _pfu.rfft_n_odd
        else:
            out = xp.empty(shape, dtype=a.dtype)
            ufunc = _pfu.fft if kind == "fft" else _pfu.ifft
        return ufunc(a, fct, axes=[(axis,), (), (axis,)], out=out)
    # NumPy 1.x: double precision, "backward" forward / "forward" inverse are the unnormalized transforms
    fn = getattr(xp.fft, kind)
    norm = "forward" if kind in ("ifft", "irfft") else "backward"
    if kind == "irfft":
        out = fn(a, n=n_out, axis=axis, norm=norm) * float(fct)
        return out.astype(_real_dtype(a))
    out = fn(a, axis=axis, norm=norm) * float(fct)
    return out.astype(xp.complex64 if a.dtype in (xp.float32, xp.complex64) else xp.complex128)


def _check_batch(a, dims) -> None:
    if dims and a.size == 0:
        raise RuntimeError(_EMPTY_BATCH)


def _c2c(a, dims: tuple, norm: int, forward: bool):
    """The complex transform of ``a`` over ``dims`` (a copy when ``dims`` is empty)."""
    _check_batch(a, dims)
    if a.dtype.kind != "c":  # (a real gradient given for a complex output: its complex values)
        a = a.astype(xp.complex64 if a.dtype == xp.float32 else xp.complex128)
    if not dims:
        return a.copy()
    n = 1
    for d in dims:
        n *= a.shape[d]
    fct = _scale(norm, n, _real_dtype(a))
    kind = "fft" if forward else "ifft"
    one = fct.dtype.type(1)
    out = a
    for i, d in enumerate(dims):
        out = _axis_transform(kind, out, d, a.shape[d], fct if i == 0 else one)
    return out


def _r2c(a, dims: tuple, norm: int, onesided: bool):
    """The forward transform of real ``a`` over ``dims``: one-sided in ``dims[-1]`` or complete."""
    _check_batch(a, dims)
    last = dims[-1]
    n_last = a.shape[last]
    if not onesided and len(dims) > 1:  # (torch's public functions never ask for this)
        return _c2c(a.astype(xp.complex64 if a.dtype == xp.float32 else xp.complex128), dims, norm, True)
    n = 1
    for d in dims:
        n *= a.shape[d]
    fct = _scale(norm, n, _real_dtype(a))
    out = _axis_transform("rfft", a, last, n_last // 2 + 1, fct)
    for d in dims[:-1]:
        out = _axis_transform("fft", out, d, out.shape[d], fct.dtype.type(1))
    if onesided:
        return out
    # the upper half by conjugate symmetry: X[k] = conj(X[n - k]), k = n // 2 + 1 .. n - 1
    full = xp.empty(a.shape[:last] + (n_last,) + a.shape[last + 1 :], dtype=out.dtype)
    half = n_last // 2 + 1
    lead = (slice(None),) * last
    full[lead + (slice(0, half),)] = out
    full[lead + (slice(half, None),)] = xp.conjugate(out[lead + (slice(n_last - half, 0, -1),)])
    return full


def _c2r(a, dims: tuple, norm: int, last_size: int):
    """The real signal of ``last_size`` points along ``dims[-1]`` whose one-sided spectrum is ``a``."""
    _check_batch(a, dims)
    last = dims[-1]
    n = last_size
    for d in dims[:-1]:
        n *= a.shape[d]
    fct = _scale(norm, n, _real_dtype(a))
    out = a
    for d in dims[:-1]:  # the full dims first (numpy's irfftn order)
        out = _axis_transform("ifft", out, d, out.shape[d], fct.dtype.type(1))
    return _axis_transform("irfft", out, last, last_size, fct)


def _along(ndim: int, axis: int, values):
    """A 1-D array shaped to broadcast along ``axis`` of an ``ndim``-d array."""
    return values.reshape((-1,) + (1,) * (ndim - 1 - axis))


def _c2r_weights(n: int, dtype):
    """fft_c2r_backward's factors over the one-sided entries: 2 for 1 .. n - (n // 2 + 1), else 1."""
    w = xp.ones(n // 2 + 1, dtype=dtype)
    w[1 : n - (n // 2 + 1) + 1] = 2
    return w


# ------------------------------------------------------------------ the primitive ops


@register
class FftC2CBackward0(Op):
    """_fft_c2c(self, dim, normalization, forward). Backward (derivatives.yaml): _fft_c2c(grad, dim,
    normalization, !forward)."""

    @staticmethod
    def forward(a, dims, norm, forward):
        return _c2c(a, dims, norm, forward)

    def backward(self, g):
        dims, norm, forward = self._params
        return (c2c(g, dims, norm, not forward),)

    def backward_arrays(self, g):
        dims, norm, forward = self._params
        return (wrap(_c2c(g, dims, norm, not forward)),)


@register
class FftR2CBackward0(Op):
    """_fft_r2c(self, dim, normalization, onesided). Backward (FunctionsManual.cpp fft_r2c_backward):
    real(c2c backward of grad), the one-sided gradient zero-padded first; computed for the one-sided case
    as the c2r of grad with its doubled entries halved (the same map: see the module docstring)."""

    @staticmethod
    def forward(a, dims, norm, onesided, n_last):
        return _r2c(a, dims, norm, onesided)

    def backward(self, g):
        dims, norm, onesided, n_last = self._params
        if not onesided:
            return (real(c2c(g, dims, norm, False)),)
        nd = g._data.ndim
        w = _along(nd, dims[-1], 1 / _c2r_weights(n_last, _real_dtype(g._data)))
        return (c2r(g * wrap(w), dims, norm, n_last),)

    def backward_arrays(self, g):
        dims, norm, onesided, n_last = self._params
        if not onesided:
            return (wrap(xp.ascontiguousarray(_c2c(g, dims, norm, False).real)),)
        w = _along(g.ndim, dims[-1], 1 / _c2r_weights(n_last, _real_dtype(g)))
        return (wrap(_c2r(g * w, dims, norm, n_last)),)


@register
class FftC2RBackward0(Op):
    """_fft_c2r(self, dim, normalization, last_dim_size). Backward (FunctionsManual.cpp fft_c2r_backward):
    the one-sided _fft_r2c of grad with the entries 1 .. n - (n // 2 + 1) of the last dim doubled."""

    @staticmethod
    def forward(a, dims, norm, last_size):
        return _c2r(a, dims, norm, last_size)

    def backward(self, g):
        dims, norm, last_size = self._params
        gi = r2c(g, dims, norm, True)
        if last_size - (last_size // 2 + 1) > 0:
            w = _along(gi._data.ndim, dims[-1], _c2r_weights(last_size, g._data.dtype))
            gi = gi * wrap(w)
        return (gi,)

    def backward_arrays(self, g):
        dims, norm, last_size = self._params
        gi = _r2c(g, dims, norm, True)
        extra = last_size - (last_size // 2 + 1)
        if extra > 0:
            gi[(slice(None),) * dims[-1] + (slice(1, 1 + extra),)] *= 2
        return (wrap(gi),)


def c2c(x: Tensor, dims: tuple, norm: int, forward: bool) -> Tensor:
    """torch's _fft_c2c on a complex tensor (FftC2CBackward0); ``dims`` wrapped, ``norm`` a mode."""
    return apply(FftC2CBackward0, (x,), (tuple(dims), norm, forward))


def r2c(x: Tensor, dims: tuple, norm: int, onesided: bool) -> Tensor:
    """torch's _fft_r2c on a float32/float64 tensor (FftR2CBackward0)."""
    dims = tuple(dims)
    return apply(FftR2CBackward0, (x,), (dims, norm, onesided, x._data.shape[dims[-1]]))


def c2r(x: Tensor, dims: tuple, norm: int, last_size: int) -> Tensor:
    """torch's _fft_c2r on a complex tensor (FftC2RBackward0): ``last_size`` real points along dims[-1]."""
    return apply(FftC2RBackward0, (x,), (tuple(dims), norm, last_size))


# ------------------------------------------------------------------ argument handling (SpectralOps.cpp)


def _type_error(fname: str, arg: str, want: str, value) -> TypeError:
    return TypeError(f"fft_{fname}(): argument '{arg}' must be {want}, not {type(value).__name__}")


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) or hasattr(v, "__index__") and not isinstance(
        v, (bool, float, Tensor)
    )


def _check_input(fname: str, input) -> None:  # noqa: A002 - torch's name
    if not isinstance(input, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def _check_norm(fname: str, norm) -> None:
    if norm is not None and not isinstance(norm, str):
        raise _type_error(fname, "norm", "str", norm)


def _int_arg(fname: str, arg: str, value):
    if value is None:
        return None
    if isinstance(value, Tensor) and value._data.ndim == 0 and value._data.dtype.kind in "iu":
        return int(value.item())
    if not _is_int(value):
        raise _type_error(fname, arg, "int", value)
    return operator.index(value)


def _ints_arg(fname: str, arg: str, value):
    """An int or a sequence of ints (torch's ``int[]?``), as a tuple; None stays None."""
    if value is None:
        return None
    if _is_int(value):
        return (operator.index(value),)
    if isinstance(value, (tuple, list)) or type(value).__name__ == "Size":
        if all(_is_int(v) for v in value):
            return tuple(operator.index(v) for v in value)
    raise _type_error(fname, arg, "tuple of ints", value)


def norm_mode(norm, forward: bool) -> int:
    """torch's norm_from_string: the normalization mode of ``norm=`` for a transform in this direction.

    Raises:
        RuntimeError: ``Invalid normalization mode: "<norm>"``.
    """
    if norm is None or norm == "backward":
        return NORM_NONE if forward else NORM_N
    if norm == "forward":
        return NORM_N if forward else NORM_NONE
    if norm == "ortho":
        return NORM_SQRT
    raise RuntimeError(f'Invalid normalization mode: "{norm}"')


def promote(x: Tensor, require_complex: bool) -> Tensor:
    """torch's promote_tensor_fft: integers and bool to the default float dtype, to complex if asked
    (one ToCopyBackward0); complex stays. Raises RuntimeError ``Unsupported dtype Half`` for float16."""
    npd = x._data.dtype
    if npd.kind == "c":
        return x
    target = npd if npd.kind in FLOATING_KINDS else default_float_np()
    if target == xp.float16:
        raise RuntimeError("Unsupported dtype Half")
    if require_complex:
        target = xp.dtype(xp.complex64) if target == xp.float32 else xp.dtype(xp.complex128)
    return x if target == npd else x.to(target)


def resize(x: Tensor, dims, sizes) -> Tensor:
    """torch's resize_fft_input: crop (one SliceBackward0 per dim) or zero-pad at the end (one
    ConstantPadNdBackward0 for all dims) so that x.size(dims[i]) == sizes[i]; -1 keeps a size."""
    from .indexing import slice_view

    nd = x._data.ndim
    pad_amount = [0] * (2 * nd)
    must_pad = False
    for d, n in zip(dims, sizes):
        if n == -1:
            continue
        have = x._data.shape[d]
        if have < n:
            must_pad = True
            pad_amount[2 * (nd - 1 - d) + 1] = n - have
        if have > n:
            x = slice_view(x, d, 0, n)
    if must_pad:
        from .padding import pad

        x = pad(x, pad_amount)
    return x


def _wrap(dim: int, ndim: int) -> int:
    return _dim_of_size(dim, ndim) if ndim == 0 else _wrap_dim(dim, ndim)


def canonicalize(x: Tensor, s, dim):
    """torch's canonicalize_fft_shape_and_dim_args: (signal shape, wrapped dims) of an n-d transform.

    Raises:
        IndexError: a dim out of range. RuntimeError: repeated dims, ``s`` and ``dim`` of different
            lengths, ``s`` longer than the input's dims, a signal size below 1 (torch's texts).
    """
    nd = x._data.ndim
    sizes = x._data.shape
    dims = None
    if dim is not None:
        dims = [_wrap(d, nd) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is not None:
        if dim is not None and len(dim) != len(s):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if len(s) > nd:
            raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {nd} dimensions.")
        if dims is None:
            dims = list(range(nd - len(s), nd))
        shape = [sizes[d] if n == -1 else n for d, n in zip(dims, s)]
    elif dims is None:
        dims = list(range(nd))
        shape = list(sizes)
    else:
        shape = [sizes[d] for d in dims]
    for n in shape:
        if n <= 0:
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return shape, tuple(dims)


def _c2r_shape(fname: str, x: Tensor, s, dim):
    """torch's canonicalize_fft_c2r_shape_and_dim_args: (input shape, dims, output length of the last dim)."""
    shape, dims = canonicalize(x, s, dim)
    if not shape:
        raise RuntimeError(f"{fname} must transform at least one axis")
    last = 2 * (x._data.shape[dims[-1]] - 1) if s is None or s[-1] == -1 else shape[-1]
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    shape[-1] = last // 2 + 1
    return shape, dims, last


def _real_only(fname: str, x: Tensor, text: str = "a real input tensor") -> None:
    if x._data.dtype.kind == "c":
        raise RuntimeError(f"{fname} expects {text}, but got {scalar_type_name(x._data.dtype)}")


def _finish(fname: str, op_name: str, result: Tensor, out, complex_out: bool, inputs) -> Tensor:
    """``out=``: torch's dtype check for the output tensor, its autograd refusal, then the copy."""
    if out is None:
        return result
    if not isinstance(out, Tensor):
        raise TypeError(f"fft_{fname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    kind = out._data.dtype.kind
    if complex_out and kind != "c":
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {scalar_type_name(out._data.dtype)}")
    if not complex_out and kind not in FLOATING_KINDS:
        raise RuntimeError(
            f"{fname} expects a floating point output tensor, but got {scalar_type_name(out._data.dtype)}"
        )
    check_out_autograd(op_name, out, *inputs)
    return write_out(result.detach().resolve_conj(), out)


def _out_check(fname: str, out, complex_out: bool) -> None:
    """torch checks the ``out`` dtype before anything else in fft_r2c / fft_c2r."""
    if out is None or not isinstance(out, Tensor):
        return
    kind = out._data.dtype.kind
    if complex_out and kind != "c":
        raise RuntimeError(f"{fname} expects a complex output tensor, but got {scalar_type_name(out._data.dtype)}")
    if not complex_out and kind not in FLOATING_KINDS:
        raise RuntimeError(
            f"{fname} expects a floating point output tensor, but got {scalar_type_name(out._data.dtype)}"
        )


# ------------------------------------------------------------------ one-dimensional transforms


def _fft_c2c_1d(fname, x, n, dim, norm, forward):
    d = _wrap(dim, x._data.ndim)
    size = x._data.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = resize(x, (d,), (size,))
    return c2c(x, (d,), norm_mode(norm, forward), forward)


def _fft_r2c_1d(fname, x, n, dim, norm, forward, onesided):
    _real_only(fname, x)
    x = promote(x, False)
    d = _wrap(dim, x._data.ndim)
    size = x._data.shape[d] if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = resize(x, (d,), (size,))
    out = r2c(x, (d,), norm_mode(norm, forward), onesided)
    return out if forward else conj(out)  # (torch: "_fft_r2c doesn't support native r2c IFFT")


def _fft_c2r_1d(fname, x, n, dim, norm, forward):
    x = promote(x, True)
    d = _wrap(dim, x._data.ndim)
    size = 2 * (x._data.shape[d] - 1) if n is None else n
    if size < 1:
        raise RuntimeError(f"Invalid number of data points ({size}) specified")
    if n is not None:
        x = resize(x, (d,), (size // 2 + 1,))
    mode = norm_mode(norm, forward)
    if forward:  # hfft: the c2r of the conjugate
        x = conj(x)
    return c2r(x, (d,), mode, size)


def _one_d(fname, input, n, dim, norm):  # noqa: A002
    _check_input(fname, input)
    n = _int_arg(fname, "n", n)
    dim = _int_arg(fname, "dim", dim)
    _check_norm(fname, norm)
    return n, dim


def fft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002 - torch's names
    """torch.fft.fft: the 1-D discrete Fourier transform X[k] = sum_t x[t] e^{-2 pi i k t / n} along ``dim``.

    ``n`` crops or zero-pads the input along ``dim`` first. Real input (float32/float64; integers and bool as
    the default float dtype) gives complex64/complex128 through FftR2CBackward0 (not one-sided); complex input
    stays complex (FftC2CBackward0). ``norm``: "backward" (default, None), "forward" (1/n), "ortho" (1/sqrt n).

    Raises:
        RuntimeError: float16 input (``Unsupported dtype Half``), n < 1 or an empty signal (``Invalid number of
            data points (n) specified``), an unknown norm, an empty batch (torch's MKL text), a real ``out``.
        IndexError: ``dim`` out of range (also for a 0-d input).
    Source: SpectralOps.cpp fft_fft (fft_c2c / fft_r2c).
    """
    n, dim = _one_d("fft", input, n, dim, norm)
    complex_in = input._data.dtype.kind == "c"
    _out_check("fft", out, True)
    if complex_in:
        r = _fft_c2c_1d("fft", input, n, dim, norm, True)
    else:
        r = _fft_r2c_1d("fft", input, n, dim, norm, True, False)
    return _finish("fft", "_fft_c2c" if complex_in else "_fft_r2c", r, out, True, (input,))


def ifft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ifft: the 1-D inverse transform x[t] = 1/n sum_k X[k] e^{+2 pi i k t / n} along ``dim``.

    Complex input: FftC2CBackward0 (backward direction). Real input: torch conjugates the forward real
    transform (ConjBackward0 over FftR2CBackward0; the result has the conjugate bit, ``is_conj()``).
    Shapes, dtypes, ``n``, ``norm`` and errors as :func:`fft`. Source: SpectralOps.cpp fft_ifft.
    """
    n, dim = _one_d("ifft", input, n, dim, norm)
    complex_in = input._data.dtype.kind == "c"
    _out_check("ifft", out, True)
    if complex_in:
        r = _fft_c2c_1d("ifft", input, n, dim, norm, False)
    else:
        r = _fft_r2c_1d("ifft", input, n, dim, norm, False, False)
    return _finish("ifft", "_fft_c2c" if complex_in else "_fft_r2c", r, out, True, (input,))


def rfft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.rfft: the one-sided transform of a real signal: n // 2 + 1 entries along ``dim``
    (FftR2CBackward0); float32 -> complex64, float64 -> complex128, integers via the default float dtype.

    Raises:
        RuntimeError: complex input (``rfft expects a real input tensor, but got ComplexFloat``), and as
            :func:`fft`. Source: SpectralOps.cpp fft_rfft.
    """
    n, dim = _one_d("rfft", input, n, dim, norm)
    _out_check("rfft", out, True)
    r = _fft_r2c_1d("rfft", input, n, dim, norm, True, True)
    return _finish("rfft", "_fft_r2c", r, out, True, (input,))


def irfft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.irfft: the real signal of ``n`` points (default 2 * (size - 1)) whose one-sided spectrum is
    ``input`` along ``dim`` (FftC2RBackward0; the input is cropped / zero-padded to n // 2 + 1 entries, and
    promoted to complex first: ToCopyBackward0 for real input). complex64 -> float32, complex128 -> float64.
    The imaginary parts of the first entry (and of the last for even n) are ignored, as torch's c2r does.

    Raises:
        RuntimeError: n < 1 (``Invalid number of data points (n) specified``, also for an input of size 1
            without n), float16, an unknown norm, a complex ``out``. IndexError: ``dim`` out of range.
    Source: SpectralOps.cpp fft_irfft (fft_c2r).
    """
    n, dim = _one_d("irfft", input, n, dim, norm)
    _out_check("irfft", out, False)
    r = _fft_c2r_1d("irfft", input, n, dim, norm, False)
    return _finish("irfft", "_fft_c2r", r, out, False, (input,))


def hfft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.hfft: the forward transform of a Hermitian-symmetric signal given by its first half: the
    real spectrum of ``n`` points (default 2 * (size - 1)); torch computes it as the c2r of the conjugate
    (FftC2RBackward0 over ConjBackward0, backward-normalized as a forward transform). Dtypes, shapes and
    errors as :func:`irfft`. Source: SpectralOps.cpp fft_hfft.
    """
    n, dim = _one_d("hfft", input, n, dim, norm)
    _out_check("hfft", out, False)
    r = _fft_c2r_1d("hfft", input, n, dim, norm, True)
    return _finish("hfft", "_fft_c2r", r, out, False, (input,))


def ihfft(input: Tensor, n=None, dim: int = -1, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ihfft: the inverse of :func:`hfft`: n // 2 + 1 entries of the inverse transform of a real
    signal, computed as the conjugated one-sided forward transform (ConjBackward0 over FftR2CBackward0; the
    result has the conjugate bit). Dtypes and errors as :func:`rfft`. Source: SpectralOps.cpp fft_ihfft.
    """
    n, dim = _one_d("ihfft", input, n, dim, norm)
    _out_check("ihfft", out, True)
    r = _fft_r2c_1d("ihfft", input, n, dim, norm, False, True)
    return _finish("ihfft", "_fft_r2c", r, out, True, (input,))


# ------------------------------------------------------------------ n-dimensional transforms


def _n_d(fname, input, s, dim, norm):  # noqa: A002
    _check_input(fname, input)
    s = _ints_arg(fname, "s", s)
    dim = _ints_arg(fname, "dim", dim)
    _check_norm(fname, norm)
    return s, dim


def _fftn_c2c(fname, input, s, dim, norm, forward, out):  # noqa: A002
    s, dim = _n_d(fname, input, s, dim, norm)
    shape, dims = canonicalize(input, s, dim)
    x = promote(input, True)
    x = resize(x, dims, shape)
    r = c2c(x, dims, norm_mode(norm, forward), forward)
    return _finish("fftn", "_fft_c2c", r, out, True, (input,))


def fftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.fftn: the n-D transform over ``dim`` (default: the last len(s) dims, or all), each cropped /
    zero-padded to ``s`` (-1 keeps a size). Real input is promoted to complex first (ToCopyBackward0), then
    one FftC2CBackward0. A 0-d input or ``dim=()`` gives a copy.

    Raises:
        RuntimeError: repeated dims (``FFT dims must be unique``), ``s``/``dim`` of different lengths, ``s``
            longer than the input's dims, a size below 1, float16, an unknown norm, an empty batch.
        IndexError: a dim out of range. TypeError: ``s``/``dim`` not ints.
    Source: SpectralOps.cpp fft_fftn (canonicalize_fft_shape_and_dim_args, fftn_c2c).
    """
    return _fftn_c2c("fftn", input, s, dim, norm, True, out)


def ifftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ifftn: the n-D inverse transform; arguments, graph and errors as :func:`fftn`."""
    return _fftn_c2c("ifftn", input, s, dim, norm, False, out)


def fft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.fft2: :func:`fftn` over ``dim`` (default the last two dims)."""
    return _fftn_c2c("fft2", input, s, dim, norm, True, out)


def ifft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ifft2: :func:`ifftn` over ``dim`` (default the last two dims)."""
    return _fftn_c2c("ifft2", input, s, dim, norm, False, out)


def _rfftn(fname, input, s, dim, norm, out):  # noqa: A002
    s, dim = _n_d(fname, input, s, dim, norm)
    _real_only("rfftn", input, "a real-valued input tensor")
    shape, dims = canonicalize(input, s, dim)
    if not shape:
        raise RuntimeError("rfftn must transform at least one axis")
    x = resize(promote(input, False), dims, shape)
    r = r2c(x, dims, norm_mode(norm, True), True)
    return _finish("rfftn", "_fft_r2c", r, out, True, (input,))


def rfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.rfftn: the n-D transform of a real input, one-sided in the last of ``dim`` (n // 2 + 1 entries
    there), one FftR2CBackward0 after the crop / pad. float32 -> complex64, float64 -> complex128.

    Raises:
        RuntimeError: complex input (``rfftn expects a real-valued input tensor, but got ComplexFloat``), no
            dim to transform (``rfftn must transform at least one axis``), and as :func:`fftn`.
    Source: SpectralOps.cpp fft_rfftn.
    """
    return _rfftn("rfftn", input, s, dim, norm, out)


def rfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.rfft2: :func:`rfftn` over ``dim`` (default the last two dims)."""
    return _rfftn("rfft2", input, s, dim, norm, out)


def _irfftn(fname, input, s, dim, norm, out):  # noqa: A002
    s, dim = _n_d(fname, input, s, dim, norm)
    shape, dims, last = _c2r_shape("irfftn", input, s, dim)
    x = resize(promote(input, True), dims, shape)
    r = c2r(x, dims, norm_mode(norm, False), last)
    return _finish("irfftn", "_fft_c2r", r, out, False, (input,))


def irfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.irfftn: the inverse of :func:`rfftn`: the last of ``dim`` becomes s[-1] real points (default
    2 * (size - 1)), the others are full inverse transforms; one FftC2RBackward0 after the promotion to
    complex and the crop / pad (the last dim to s[-1] // 2 + 1). complex64 -> float32.

    Raises:
        RuntimeError: ``irfftn must transform at least one axis``, an output length below 1, and as
            :func:`fftn`. Source: SpectralOps.cpp fft_irfftn (canonicalize_fft_c2r_shape_and_dim_args).
    """
    return _irfftn("irfftn", input, s, dim, norm, out)


def irfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.irfft2: :func:`irfftn` over ``dim`` (default the last two dims)."""
    return _irfftn("irfft2", input, s, dim, norm, out)


def _hfftn(fname, input, s, dim, norm, out):  # noqa: A002
    s, dim = _n_d(fname, input, s, dim, norm)
    shape, dims, last = _c2r_shape("hfftn", input, s, dim)
    x = resize(promote(input, True), dims, shape)
    mode = norm_mode(norm, True)
    if len(dims) > 1:
        x = c2c(x, dims[:-1], mode, True)
    r = c2r(conj(x), dims[-1:], mode, last)
    return _finish("hfftn", "_fft_c2r", r, out, False, (input,))


def hfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.hfftn: the n-D transform of a signal Hermitian-symmetric in the last of ``dim`` (given by its
    first half): real output, s[-1] points there (default 2 * (size - 1)). torch's graph: FftC2CBackward0 over
    the other dims (when there are any), ConjBackward0, FftC2RBackward0 over the last. Errors as
    :func:`irfftn` (``hfftn must transform at least one axis``). Source: SpectralOps.cpp fft_hfftn_impl.
    """
    return _hfftn("hfftn", input, s, dim, norm, out)


def hfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.hfft2: :func:`hfftn` over ``dim`` (default the last two dims)."""
    return _hfftn("hfft2", input, s, dim, norm, out)


def _ihfftn(fname, input, s, dim, norm, out):  # noqa: A002
    s, dim = _n_d(fname, input, s, dim, norm)
    shape, dims = canonicalize(input, s, dim)
    if not shape:
        raise RuntimeError("ihfftn must transform at least one axis")
    x = resize(promote(input, False), dims, shape)
    mode = norm_mode(norm, False)
    if x._data.dtype.kind == "c":  # torch's _fft_r2c kernel refuses it only here
        raise RuntimeError(f"Only supports floating-point dtypes, but found: {scalar_type_name(x._data.dtype)}")
    r = r2c(x, dims[-1:], mode, True)
    if len(dims) == 1:
        return _finish("ihfftn", "_fft_r2c", conj(r), out, True, (input,))
    r = c2c(conj_physical(r), dims[:-1], mode, False)
    return _finish("ihfftn", "_fft_c2c", r, out, True, (input,))


def ihfftn(input: Tensor, s=None, dim=None, norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ihfftn: the inverse of :func:`hfftn` for a real input: one-sided in the last of ``dim``.
    torch's graph: FftR2CBackward0 (backward-normalized) over the last dim, then for one dim ConjBackward0
    (conjugate bit set), for more ConjPhysicalBackward0 and FftC2CBackward0 (backward) over the others.

    Raises:
        RuntimeError: ``ihfftn must transform at least one axis``; complex input (``Only supports
            floating-point dtypes, but found: ComplexFloat``, after the argument checks as torch); as
            :func:`fftn`. Source: SpectralOps.cpp fft_ihfftn_impl.
    """
    return _ihfftn("ihfftn", input, s, dim, norm, out)


def ihfft2(input: Tensor, s=None, dim=(-2, -1), norm=None, *, out=None) -> Tensor:  # noqa: A002
    """torch.fft.ihfft2: :func:`ihfftn` over ``dim`` (default the last two dims)."""
    return _ihfftn("ihfft2", input, s, dim, norm, out)


# ------------------------------------------------------------------ helpers: frequencies and shifts


def _freq_dtype(fname: str, dtype):
    from .._dtype import to_numpy

    npd = default_float_np() if dtype is None else to_numpy(dtype)
    if npd.kind == "c":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{scalar_type_name(npd)}'")
    if npd.kind not in FLOATING_KINDS:
        raise RuntimeError(f"{fname} requires a floating point or complex dtype")
    return npd


def _freq(fname: str, n, d, dtype, device, requires_grad, out, values):
    from .._creation import _check_device

    if not _is_int(n):
        raise TypeError(f"fft_{fname}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    n = operator.index(n)
    d = float(d.item()) if isinstance(d, Tensor) else builtins.float(d)
    if device is not None:
        _check_device(device)
    k = values(n)  # (at::empty's size check comes before the dtype checks)
    npd = _freq_dtype(fname, dtype if out is None or dtype is not None else out.dtype)
    with xp.errstate(divide="ignore"):
        scale = xp.float64(1.0) / xp.float64(n * d)  # IEEE: d = 0 gives inf (and 0 * inf = nan), as in C++
    # torch: arange in the dtype, then mul_(1.0 / (n * d)); the double scalar enters the product as the
    # kernel's math type: float for float32, half for float16 (rounded first), double for float64
    math_dtype = xp.float64 if npd == xp.float64 else (xp.float16 if npd == xp.float16 else xp.float32)
    with xp.errstate(all="ignore"):
        arr = (k.astype(npd).astype(math_dtype) * math_dtype(scale)).astype(npd)
    result = wrap(arr, bool(requires_grad))
    if out is not None:
        return write_out(result, out)
    return result


def _fft_positions(n: int):
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    return xp.concatenate([xp.arange((n - 1) // 2 + 1), xp.arange(-(n // 2), 0)]) if n else xp.arange(0)


def _rfft_positions(n: int):
    m = int(n / 2) + 1  # C++ division truncates toward zero: rfftfreq(-3) has 0 entries
    if m < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {m}: [{m}]")
    return xp.arange(m)


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """torch.fft.fftfreq: the sample frequencies [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (n * d), shape
    (n,), in ``dtype`` (default the default float dtype; float16 works, computed in float32 as torch).

    Raises:
        RuntimeError: an integer dtype (``fftfreq requires a floating point or complex dtype``), n < 0.
        NotImplementedError: a complex dtype (torch's arange has no complex kernel).
    Source: SpectralOps.cpp fft_fftfreq_out.
    """
    return _freq("fftfreq", n, d, dtype, device, requires_grad, out, _fft_positions)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    """torch.fft.rfftfreq: the one-sided frequencies [0, 1, ..., n // 2] / (n * d), shape (n // 2 + 1,).
    Errors as :func:`fftfreq`. Source: SpectralOps.cpp fft_rfftfreq_out."""
    return _freq("rfftfreq", n, d, dtype, device, requires_grad, out, _rfft_positions)


def _shift(fname: str, input, dim, inverse: bool) -> Tensor:  # noqa: A002
    from .shape import roll

    _check_input(fname, input)
    dim = _ints_arg(fname, "dim", dim)
    nd = input._data.ndim
    dims = tuple(range(nd)) if dim is None else tuple(_wrap(d, nd) for d in dim)
    sizes = input._data.shape
    shifts = tuple((sizes[d] + 1) // 2 if inverse else sizes[d] // 2 for d in dims)
    if not shifts:  # a 0-d input or dim=(): torch's roll refuses empty shifts
        raise RuntimeError("`shifts` required")
    return roll(input, shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:  # noqa: A002
    """torch.fft.fftshift: roll each of ``dim`` (default all) by size // 2, the zero frequency to the middle
    (RollBackward0, any dtype, same shape). Raises IndexError for a dim out of range, RuntimeError
    (```shifts` required``) for a 0-d input or ``dim=()``, as torch's roll. Source: SpectralOps.cpp."""
    return _shift("fftshift", input, dim, False)


def ifftshift(input: Tensor, dim=None) -> Tensor:  # noqa: A002
    """torch.fft.ifftshift: the inverse of :func:`fftshift`: roll by (size + 1) // 2."""
    return _shift("ifftshift", input, dim, True)


_PUBLIC = (
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
    "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
)
FFT_EXPORTS: dict = {name: globals()[name] for name in _PUBLIC}
EXPORTS: dict = {}
TENSOR_METHODS: dict = {}
