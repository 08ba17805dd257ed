"""Max unpooling, power-average (Lp) pooling and pdist (aten/src/ATen/native/MaxUnpooling.cpp, Distance.cpp;
torch/nn/functional.py for lp_pool*, which torch composes from avg_pool / max_pool)."""

from __future__ import annotations

from .._backend import xp
from .._dtype import FLOATING_KINDS
from .._tensor import wrap
from . import comparison as cmp
from . import pointwise as pw
from . import rounding
from . import shape as sh
from .indexing import gather, index_add, index_select
from .nn_kernels import _shape_list, _type_name
from .registry import Op, apply, register

# ------------------------------------------------------------------ max unpooling


def _unpool_array(a, idx, out_spatial):
    """Zeros of (.., *out_spatial) with a's values written at the flat positions ``idx`` of each plane
    (a later value wins where indices repeat, as aten's sequential CPU loop)."""
    nsp = len(out_spatial)
    lead = a.shape[: a.ndim - nsp]
    vol = 1
    for n in out_spatial:
        vol *= n
    out = xp.zeros(lead + (vol,), dtype=a.dtype)
    planes = out.reshape(-1, vol)
    rows = xp.repeat(xp.arange(planes.shape[0]), a.size // max(planes.shape[0], 1))
    planes[rows, idx.reshape(-1)] = a.reshape(-1)
    return out.reshape(lead + tuple(out_spatial))


class _MaxUnpool(Op):
    """max_unpool{2,3}d(input, indices, output_size): the values written into zeros at their flat indices.

    Backward (derivatives.yaml: max_pool_double_backward): the gradient gathered at the indices; its
    own backward is the unpooling again (linear). Params: (indices array, output spatial size).
    """

    @staticmethod
    def forward(a, idx, out_spatial):
        return _unpool_array(a, idx, out_spatial)

    def backward(self, g):
        idx, out_spatial = self._params
        lead = idx.shape[: idx.ndim - len(out_spatial)]
        flat = g.reshape(lead + (-1,))
        return (gather(flat, -1, wrap(idx.reshape(lead + (-1,)))).reshape(idx.shape),)


@register
class MaxUnpool2DBackward0(_MaxUnpool):
    """max_unpool2d; see _MaxUnpool."""


@register
class MaxUnpool3DBackward0(_MaxUnpool):
    """max_unpool3d; see _MaxUnpool."""


def _unpool_output_size(input, kernel, stride, padding, output_size):
    """torch's F._unpool_output_size: (n - 1) * stride + kernel - 2 * padding, or ``output_size`` within a stride of
    it (its last len(kernel) entries)."""
    nsp = len(kernel)
    spatial = input._data.shape[-nsp:]
    default = [(spatial[d] - 1) * stride[d] + kernel[d] - 2 * padding[d] for d in range(nsp)]
    if output_size is None:
        ret = default
    else:
        output_size = list(output_size)
        if len(output_size) == nsp + 2:
            output_size = output_size[2:]
        if len(output_size) != nsp:
            raise ValueError(f"output_size should be a sequence containing {nsp} or {nsp + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        for d in range(nsp):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not (lo < output_size[d] < hi):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
        ret = output_size
    for d in range(nsp):
        if ret[d] < 0:
            raise ValueError("max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return [int(v) for v in ret]


def _norm_args(v, n):
    return tuple(int(i) for i in v) if isinstance(v, (list, tuple)) else (int(v),) * n


def _max_unpool(input, indices, out_spatial, op, name):  # noqa: A002
    a, idx = input._data, indices._data
    nsp = len(out_spatial)
    if idx.dtype != xp.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {_type_name(idx)}")
    if a.shape != idx.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({_shape_list(a.shape)}) but got indices tensor with shape: {_shape_list(idx.shape)}")
    if a.ndim not in (nsp + 1, nsp + 2):
        raise RuntimeError(f"Input to {name} should be a {nsp + 1}d or {nsp + 2}d Tensor, but got a tensor with "
                           f"{a.ndim} dimensions.")
    vol = 1
    for n in out_spatial:
        vol *= n
    bad = (idx < 0) | (idx >= vol)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(idx[bad][0])} (output volumes are of size "
                           f"{'x'.join(str(n) for n in out_spatial)}")
    return apply(op, (input,), (idx, tuple(out_spatial)))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """torch.nn.functional.max_unpool1d: (N, C, L) or (C, L) values put back at max_pool1d's indices, zeros elsewhere.

    As torch: the 2-D unpooling of the inputs unsqueezed at -1, squeezed back (grad_fn SqueezeBackward1).
    """
    k = _norm_args(kernel_size, 1)
    s = _norm_args(stride, 1) if stride is not None else k
    size = _unpool_output_size(input, k, s, _norm_args(padding, 1), output_size) + [1]
    out = _max_unpool(sh.unsqueeze(input, -1), wrap(indices._data[..., None]), size, MaxUnpool2DBackward0,
                      "max_unpool2d")
    return sh.squeeze(out, -1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """torch.nn.functional.max_unpool2d: (N, C, H, W) or (C, H, W) values put back at max_pool2d's flat H * W
    indices, zeros elsewhere. ValueError for an output_size not within a stride of the default, RuntimeError
    for an index outside the output (torch's texts)."""
    k = _norm_args(kernel_size, 2)
    s = _norm_args(stride, 2) if stride is not None else k
    size = _unpool_output_size(input, k, s, _norm_args(padding, 2), output_size)
    return _max_unpool(input, indices, size, MaxUnpool2DBackward0, "max_unpool2d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):  # noqa: A002
    """torch.nn.functional.max_unpool3d: (N, C, D, H, W) or (C, D, H, W) values put back at max_pool3d's flat
    D * H * W indices, zeros elsewhere."""
    k = _norm_args(kernel_size, 3)
    s = _norm_args(stride, 3) if stride is not None else k
    size = _unpool_output_size(input, k, s, _norm_args(padding, 3), output_size)
    return _max_unpool(input, indices, size, MaxUnpool3DBackward0, "max_unpool3d")


# ------------------------------------------------------------------ Lp pooling


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nsp):  # noqa: A002
    """torch's composition: (sign(a) * relu(|a|) * prod(kernel)) ** (1 / p) with a = avg_pool(x ** p); p = +-inf
    is max pooling of |x| (negated for -inf). Its grad_fn is PowBackward0, as torch's."""
    from .pool3d import avg_pool3d, max_pool3d
    from .pooling import avg_pool1d, avg_pool2d, max_pool1d, max_pool2d

    avg = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[nsp]
    mx = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[nsp]
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return mx(pw.abs(input), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return pw.neg(mx(pw.neg(pw.abs(input)), kernel_size, stride, 0, 1, ceil_mode))
    k = _norm_args(kernel_size, nsp)
    count = 1
    for v in k:
        count *= v
    kernel = kernel_size if nsp == 1 else k
    out = avg(pw.pow(input, norm_type), kernel, stride if stride is not None else kernel, 0, ceil_mode)
    return pw.pow(pw.mul(pw.mul(rounding.sign(out), pw.relu(pw.abs(out))), count), 1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):  # noqa: A002
    """torch.nn.functional.lp_pool1d: the p-norm of each window of (N, C, L) (PyTorch's LPPool1d doc)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):  # noqa: A002
    """torch.nn.functional.lp_pool2d: the p-norm of each window of (N, C, H, W) (PyTorch's LPPool2d doc)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode: bool = False):  # noqa: A002
    """torch.nn.functional.lp_pool3d: the p-norm of each window of (N, C, D, H, W) (PyTorch's LPPool3d doc)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# ------------------------------------------------------------------ pdist


def _pair_rows(n: int):
    return xp.triu_indices(n, 1)


@register
class PdistBackward0(Op):
    """_pdist_forward(input (N, M), p): ||x_i - x_j||_p for every row pair i < j, in row-major order (N(N-1)/2,).

    Backward (aten's _pdist_backward, Distance.cpp): each pair's gradient g * d||diff||/d diff added to row i and
    subtracted from row j, with d/d diff = sign(diff) |diff|^(p-1) / d^(p-1) (0 where d == 0, and where
    diff == 0 for p < 1); p = 0: 0; p = 1: sign(diff); p = 2: diff / d; p = inf: sign(diff) where |diff| == d.
    Written with Tensor ops (torch itself has no second derivative of pdist).
    """

    save_inputs = True
    save_result = True

    @staticmethod
    def forward(a, p):
        i, j = _pair_rows(a.shape[0])
        diff = xp.abs(a[i] - a[j])
        if p == 0:
            return (diff != 0).sum(-1).astype(a.dtype)
        if p == float("inf"):
            return diff.max(-1, initial=0).astype(a.dtype)
        if p == 1:
            return diff.sum(-1)
        if p == 2:
            return xp.sqrt((diff * diff).sum(-1))
        return ((diff ** p).sum(-1)) ** (1.0 / p)

    def backward(self, g):
        x = self.saved()[0]
        (p,) = self._params
        d = self.saved_result()
        n = x._data.shape[0]
        if p == 0 or n < 2:
            return (pw.mul(x, 0),)
        i, j = (wrap(v) for v in _pair_rows(n))
        diff = pw.sub(index_select(x, 0, i), index_select(x, 0, j))
        gcol, dcol = sh.unsqueeze(g, -1), sh.unsqueeze(d, -1)
        zero = pw.mul(diff, 0)
        if p == 1:
            gd = pw.mul(rounding.sign(diff), gcol)
        elif p == float("inf"):
            gd = pw.mul(pw.mul(rounding.sign(diff), cmp.eq(pw.abs(diff), dcol)), gcol)
        elif p == 2:
            gd = pw.where(cmp.eq(dcol, 0), zero, pw.div(pw.mul(diff, gcol), dcol))
        else:
            safe_d = pw.where(cmp.eq(dcol, 0), pw.add(zero, 1), dcol)
            safe_diff = pw.where(cmp.eq(diff, 0), pw.add(zero, 1), pw.abs(diff))
            term = pw.div(pw.mul(pw.mul(rounding.sign(diff), pw.pow(safe_diff, p - 1)), gcol), pw.pow(safe_d, p - 1))
            dead = cmp.eq(dcol, 0) if p >= 1 else cmp.logical_or(cmp.eq(dcol, 0), cmp.eq(diff, 0))
            gd = pw.where(dead, zero, term)
        base = pw.mul(x, 0)
        return (pw.sub(index_add(base, 0, i, gd), index_add(base, 0, j, gd)),)


def pdist(input, p: float = 2.0):  # noqa: A002
    """torch.nn.functional.pdist: the p-norm distance of every pair of rows of an (N, M) input, i < j, as an
    (N (N - 1) / 2,) tensor. RuntimeError (torch's texts) for other ranks, non-floating dtypes and p < 0."""
    a = input._data
    if a.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {a.ndim}D")
    if a.dtype.kind not in FLOATING_KINDS:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    return apply(PdistBackward0, (input,), (float(p),))


EXPORTS: dict = {"pdist": pdist}
TENSOR_METHODS: dict = {}
LINALG_EXPORTS: dict = {}
FUNCTIONAL_EXPORTS: dict = {
    "max_unpool1d": max_unpool1d,
    "max_unpool2d": max_unpool2d,
    "max_unpool3d": max_unpool3d,
    "lp_pool1d": lp_pool1d,
    "lp_pool2d": lp_pool2d,
    "lp_pool3d": lp_pool3d,
    "pdist": pdist,
}
