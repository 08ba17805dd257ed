"""torch.linalg.ldl_factor, ldl_factor_ex and ldl_solve: the Bunch-Kaufman LDL^T (LDL^H) factorization of
symmetric (Hermitian) matrices, as LAPACK's unblocked sytf2 / hetf2 and sytrs / hetrs compute it (lower triangle;
LAPACK runs the unblocked code for matrices smaller than its block size, 64 here). Not differentiable (as torch's).

Pivots (LAPACK's, 1-based int32): pivots[k] > 0 is a 1 x 1 block, rows k and pivots[k] swapped;
pivots[k] = pivots[k + 1] = -p < 0 is a 2 x 2 block, rows k + 1 and p swapped. LD holds L below the diagonal
and D on it (and the sub-diagonal of its 2 x 2 blocks), zeros above. Pivot choice (Bunch & Kaufman 1977,
alpha = (1 + sqrt 17) / 8): column k is kept when |a_kk| >= alpha colmax, or when |a_kk| colmax >= alpha colmax^2
/ rowmax; row imax is swapped in as a 1 x 1 pivot when |a_imax,imax| >= alpha rowmax, else a 2 x 2 block is
taken. |z| is |re| + |im| for complex entries (LAPACK's cabs1); the diagonal of a Hermitian matrix is real.
"""

from __future__ import annotations

import math

from .._backend import xp
from .._batching.array import BatchedArray as _BatchedArray
from .._batching.op_rules import run_folded
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import Tensor, wrap
from .linalg import _returned
from .matmul import _type_name

_ALPHA = (1 + math.sqrt(17)) / 8


def _cabs1(z):
    return abs(z.real) + abs(z.imag)


def _sytf2_lower(a, hermitian: bool):
    """(LD, pivots, info) of one (n, n) matrix (its lower triangle read)."""
    a = xp.tril(a).astype(a.dtype, copy=True)
    n = a.shape[0]
    ipiv = xp.zeros(n, dtype=xp.int32)
    info = 0
    conj = (lambda z: xp.conj(z)) if hermitian else (lambda z: z)
    if hermitian:
        a[xp.arange(n), xp.arange(n)] = a[xp.arange(n), xp.arange(n)].real
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k].real) if hermitian else _cabs1(a[k, k])
        if k < n - 1:
            col = _cabs1(a[k + 1:, k])
            imax = k + 1 + int(xp.argmax(col))
            colmax = float(col.max())
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                row = _cabs1(a[imax, k:imax])
                rowmax = float(row.max())
                if imax < n - 1:
                    rowmax = max(rowmax, float(_cabs1(a[imax + 1:, imax]).max()))
                diag_imax = abs(a[imax, imax].real) if hermitian else _cabs1(a[imax, imax])
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif diag_imax >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:  # swap rows and columns kk and kp of the trailing lower triangle
                if kp < n - 1:
                    a[kp + 1:, kk], a[kp + 1:, kp] = a[kp + 1:, kp].copy(), a[kp + 1:, kk].copy()
                seg = a[kk + 1:kp, kk].copy()
                a[kk + 1:kp, kk] = conj(a[kp, kk + 1:kp])
                a[kp, kk + 1:kp] = conj(seg)
                if hermitian:
                    a[kp, kk] = xp.conj(a[kp, kk])
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / (a[k, k].real if hermitian else a[k, k])
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= xp.tril(d11 * xp.outer(x, conj(x)))
                    a[k + 1:, k] *= d11
                    if hermitian:
                        idx = xp.arange(k + 1, n)
                        a[idx, idx] = a[idx, idx].real
            elif k < n - 2:
                if hermitian:
                    d = abs(a[k + 1, k])
                    d11 = a[k + 1, k + 1].real / d
                    d22 = a[k, k].real / d
                    tt = 1 / (d11 * d22 - 1)
                    d21 = a[k + 1, k] / d
                    d = tt / d
                    for j in range(k + 2, n):
                        wk = d * (d11 * a[j, k] - d21 * a[j, k + 1])
                        wkp1 = d * (d22 * a[j, k + 1] - xp.conj(d21) * a[j, k])
                        a[j:, j] -= a[j:, k] * xp.conj(wk) + a[j:, k + 1] * xp.conj(wkp1)
                        a[j, k], a[j, k + 1] = wk, wkp1
                        a[j, j] = a[j, j].real
                else:
                    d21 = a[k + 1, k]
                    d11 = a[k + 1, k + 1] / d21
                    d22 = a[k, k] / d21
                    t = 1 / (d11 * d22 - 1)
                    d21 = t / d21
                    for j in range(k + 2, n):
                        wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                        wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                        a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
                        a[j, k], a[j, k + 1] = wk, wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return a, ipiv, info


def _sytrs_lower(a, ipiv, b, hermitian: bool):
    """X with A X = B from sytf2's (LD, pivots) of A (lower), one matrix, B (n, k)."""
    n = a.shape[0]
    b = b.astype(xp.result_type(a, b), copy=True)
    ct = (lambda v: xp.conj(v)) if hermitian else (lambda v: v)
    k = 0
    while k < n:  # L D y = P b
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= xp.outer(a[k + 1:, k], b[k])
            b[k] = b[k] / (a[k, k].real if hermitian else a[k, k])
            k += 1
        else:
            kp = -ipiv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= xp.outer(a[k + 2:, k], b[k]) + xp.outer(a[k + 2:, k + 1], b[k + 1])
            akm1k = a[k + 1, k]
            akm1 = a[k, k] / ct(akm1k)
            ak = a[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1 = b[k] / ct(akm1k)
            bk = b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T x = y (L^H for Hermitian), undoing the swaps
        if ipiv[k] > 0:
            b[k] -= ct(a[k + 1:, k]) @ b[k + 1:]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ct(a[k + 1:, k]) @ b[k + 1:]
            b[k - 1] -= ct(a[k + 1:, k - 1]) @ b[k + 1:]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _factor_arrays(d, hermitian: bool):
    n = d.shape[-1]
    batch = d.shape[:-2]
    if type(d) is _BatchedArray:  # under vmap: the samples' matrices join the walk (one call on plain arrays)
        ld, piv, info = run_folded(lambda f: _factor_arrays(f, hermitian), [d.reshape((-1, n, n))])
        return ld.reshape(d.shape), piv.reshape(batch + (n,)), info.reshape(batch)
    flat = d.reshape((math.prod(batch), n, n))
    ld = xp.zeros_like(flat)
    piv = xp.zeros((flat.shape[0], n), dtype=xp.int32)
    info = xp.zeros(flat.shape[0], dtype=xp.int32)
    for i in range(flat.shape[0]):
        ld[i], piv[i], info[i] = _sytf2_lower(flat[i], hermitian)
    return ld.reshape(d.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def _check_square(name: str, a: Tensor) -> None:
    d = a._data
    if d.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are {d.shape[-2]} by "
                           f"{d.shape[-1]} matrices")
    if d.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got {_type_name(d.dtype)}")


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):  # noqa: N803
    """torch.linalg.ldl_factor_ex(A, hermitian=False, check_errors=False): (LD, pivots, info) of the
    Bunch-Kaufman factorization of symmetric (Hermitian) A (..., n, n), its lower triangle read; info > 0 names
    an exactly zero diagonal block of D.

    Raises:
        RuntimeError: fewer than 2 dims, non-square or non-floating A (torch's texts); torch.linalg.LinAlgError
            for a singular D with ``check_errors``.
    """
    _check_square("torch.linalg.ldl_factor_ex", A)
    ld, piv, info = _factor_arrays(A._data, bool(hermitian))
    if check_errors:
        _raise_info(info, "torch.linalg.ldl_factor_ex")
    return _returned("linalg_ldl_factor_ex", ("LD", "pivots", "info"), (wrap(ld), wrap(piv), wrap(info)))


def _raise_info(info, name: str) -> None:
    from .._batching.array import BatchedArray, any_sample, per_sample
    from .linalg import LinAlgError

    if type(info) is BatchedArray:  # under vmap: the first sample that failed raises its own message
        if any_sample(info):
            per_sample(lambda i: _raise_info(i, name), info)
        return
    flat = info.reshape(-1)
    bad = xp.nonzero(flat)[0]
    if bad.size:
        i = int(bad[0])
        prefix = f"(Batch element {i}): " if info.ndim else ""
        raise LinAlgError(f"{name}: {prefix}The factorization could not be completed because the input is not "
                          f"invertible.")


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):  # noqa: N803
    """torch.linalg.ldl_factor(A, hermitian=False): (LD, pivots) as ldl_factor_ex's."""
    _check_square("torch.linalg.ldl_factor", A)
    ld, piv, _info = _factor_arrays(A._data, bool(hermitian))
    return _returned("linalg_ldl_factor", ("LD", "pivots"), (wrap(ld), wrap(piv)))


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None) -> Tensor:  # noqa: N803
    """torch.linalg.ldl_solve(LD, pivots, B, hermitian=False): X with A X = B from ldl_factor's (LD, pivots) of A;
    B (..., n, k), batch dims broadcast.

    Raises:
        RuntimeError: mismatched shapes, dtypes, pivots not int32 (torch's texts)."""
    name = "torch.linalg.ldl_solve"
    ld, piv, b = LD._data, pivots._data, B._data
    if ld.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor LD must have at least 2 dimensions.")
    if b.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if piv.dtype != xp.int32:
        raise RuntimeError(f"{name}: Expected pivots to be integers. Got {_type_name(piv.dtype)}")
    if ld.dtype != b.dtype:
        raise RuntimeError(f"{name}: LD dtype {_type_name(ld.dtype)} does not match b dtype {_type_name(b.dtype)}")
    n = ld.shape[-1]
    batch = xp.broadcast_shapes(ld.shape[:-2], b.shape[:-2], piv.shape[:-1])
    count = math.prod(batch)
    ld_b = xp.broadcast_to(ld, batch + ld.shape[-2:]).reshape((count, n, n))
    piv_b = xp.broadcast_to(piv, batch + piv.shape[-1:]).reshape((count, n))
    b_b = xp.broadcast_to(b, batch + b.shape[-2:]).reshape((count,) + b.shape[-2:])
    # (under vmap the samples' systems join the walk: one call on plain arrays)
    out_arr = run_folded(lambda lds, pivs, bs: _solve_arrays(lds, pivs, bs, bool(hermitian)), [ld_b, piv_b, b_b])
    return wrap(out_arr.reshape(batch + b.shape[-2:]))


def _solve_arrays(ld_b, piv_b, b_b, hermitian: bool):
    """sytrs for (count, n, n) LD, (count, n) pivots, (count, n, k) B: X (count, n, k)."""
    out_arr = xp.empty(b_b.shape, dtype=ld_b.dtype)
    for i in range(out_arr.shape[0]):
        out_arr[i] = _sytrs_lower(ld_b[i], piv_b[i], b_b[i], hermitian)
    return out_arr


LINALG_EXPORTS: dict = {"ldl_factor": ldl_factor, "ldl_factor_ex": ldl_factor_ex, "ldl_solve": ldl_solve}
