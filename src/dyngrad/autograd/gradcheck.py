"""Finite-difference checks of analytical gradients (torch.autograd.gradcheck / gradgradcheck).

The numerical Jacobian uses central differences, (f(x + eps) - f(x - eps)) / (2 eps),
one input element at a time; the analytical one comes from backward with unit
output gradients, one output element at a time. They must agree within
``atol + rtol * |numerical|``. Use float64 inputs: float32 rounding swamps eps = 1e-6.
"""

from __future__ import annotations

import warnings

from .._backend import xp
from .._tensor import Tensor, wrap
from .grad_mode import enable_grad, no_grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical Jacobians differ (torch's type name)."""


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _differentiable_outputs(outputs):
    return tuple(o for o in outputs if isinstance(o, Tensor) and o._requires_grad)


# Complex numbers (as torch's gradcheck, in its real form): a complex element counts as two real
# coordinates (real, imaginary). The numerical Jacobian perturbs each real coordinate of an input and
# reads each real coordinate of the outputs; the analytical one seeds backward with 1 (and 1j for a
# complex output) at one output element: under torch's convention (Note [Complex gradients] in
# _ops/registry.py) the gradient's real and imaginary parts are then the derivatives of that output
# coordinate with respect to the input's real and imaginary parts.


def _real_size(t: Tensor) -> int:
    return t._data.size * (2 if t._data.dtype.kind == "c" else 1)


def _real_coords(a):
    """The real coordinates of an array, flattened: (re, im) pairs for a complex one."""
    a = a.reshape(-1)
    return xp.stack([a.real, a.imag], axis=1).reshape(-1) if a.dtype.kind == "c" else a


def _numerical_jacobian(fn, inputs, outputs, eps: float):
    """J[i][j]: d output j / d input i, over real coordinates: arrays of shape (input, output)."""
    jac = []
    for t in inputs:
        if not (isinstance(t, Tensor) and t._requires_grad):
            jac.append(None)
            continue
        cols = [xp.zeros((_real_size(t), _real_size(o)), dtype=xp.float64) for o in outputs]
        flat = t._data.reshape(-1)  # a view: writes change the input in place
        steps = (eps, 1j * eps) if flat.dtype.kind == "c" else (eps,)
        for k in range(flat.size):
            old = flat[k].item()
            for s, step in enumerate(steps):
                flat[k] = old + step
                with no_grad():
                    plus = [o._data.copy() for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]
                flat[k] = old - step
                with no_grad():
                    minus = [o._data.copy() for o in _as_tuple(fn(*inputs)) if isinstance(o, Tensor)]
                flat[k] = old
                for j, (p, m) in enumerate(zip(plus, minus)):
                    cols[j][k * len(steps) + s] = _real_coords((p - m) / (2 * eps))
        jac.append(cols)
    return jac


def _analytical_jacobian(inputs, outputs):
    from . import grad

    diff_inputs = [t for t in inputs if isinstance(t, Tensor) and t._requires_grad]
    jac = {id(t): [xp.zeros((_real_size(t), _real_size(o)), dtype=xp.float64) for o in outputs] for t in diff_inputs}
    for j, o in enumerate(outputs):
        seeds = (1, 1j) if o._data.dtype.kind == "c" else (1,)
        for k in range(o._data.size):
            for s, value in enumerate(seeds):
                seed = xp.zeros(o._data.size, dtype=o._data.dtype)
                seed[k] = value
                grads = grad(o, diff_inputs, wrap(seed.reshape(o._data.shape)), retain_graph=True, allow_unused=True)
                for t, g in zip(diff_inputs, grads):
                    if g is not None:
                        jac[id(t)][j][:, k * len(seeds) + s] = _real_coords(g._data)
    return [jac.get(id(t)) if isinstance(t, Tensor) and t._requires_grad else None for t in inputs]


def _fmt(array, like: Tensor) -> str:
    return repr(wrap(array.astype(like._data.dtype if like._data.dtype.kind != "c" else xp.float64)))


def gradcheck(
    func,
    inputs,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    raise_exception: bool = True,
    nondet_tol: float = 0.0,
    check_undefined_grad: bool = True,
    check_grad_dtypes: bool = False,
    check_batched_grad: bool = False,
    check_batched_forward_grad: bool = False,
    check_forward_ad: bool = False,
    check_backward_ad: bool = True,
    fast_mode: bool = False,
    masked=None,
) -> bool:
    """Compare ``func``'s gradients with central finite differences.

    Args:
        func: takes ``inputs`` and returns a Tensor or a tuple of Tensors.
        inputs: a Tensor or a tuple; those with ``requires_grad`` are checked (use float64).
        eps, atol, rtol: the perturbation and the tolerances (torch's defaults).
        raise_exception: raise ``GradcheckError`` on a mismatch, else return False.

    Returns:
        True when every Jacobian entry agrees.
    """
    inputs = _as_tuple(inputs)
    for i, t in enumerate(inputs):
        if isinstance(t, Tensor) and t._requires_grad and t._data.dtype not in (xp.float64, xp.complex128):
            warnings.warn(
                f"Input #{i} requires gradient and is not a double precision floating point or complex. This check "
                "will likely fail if all the inputs are not of double precision floating point or complex. ",
                UserWarning,
                stacklevel=2,
            )
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if not outputs:
        raise ValueError("gradcheck expects at least one output tensor requiring grad")
    numerical = _numerical_jacobian(func, inputs, outputs, eps)
    analytical = _analytical_jacobian(inputs, outputs)
    for i, (num, ana) in enumerate(zip(numerical, analytical)):
        if num is None:
            continue
        for j, (n, a) in enumerate(zip(num, ana)):
            if not xp.allclose(a, n, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{_fmt(n, inputs[i])}\nanalytical:{_fmt(a, inputs[i])}\n"
                )
    return True


def _random_like(rng, o: Tensor) -> Tensor:
    values = rng.standard_normal(o._data.shape)
    if o._data.dtype.kind == "c":
        values = values + 1j * rng.standard_normal(o._data.shape)
    return wrap(xp.asarray(values).astype(o._data.dtype), True)


def gradgradcheck(
    func,
    inputs,
    grad_outputs=None,
    *,
    eps: float = 1e-6,
    atol: float = 1e-5,
    rtol: float = 1e-3,
    gen_non_contig_grad_outputs: bool = False,
    raise_exception: bool = True,
    **kwargs,
) -> bool:
    """gradcheck of the gradient: checks second derivatives of ``func`` (torch.autograd.gradgradcheck).

    The gradient outputs default to random float64 tensors (fixed seed), differentiable
    themselves, as in torch.
    """
    from . import grad

    inputs = _as_tuple(inputs)
    outputs = _differentiable_outputs(_as_tuple(func(*inputs)))
    if grad_outputs is None:
        rng = xp.random.default_rng(0)
        grad_outputs = tuple(_random_like(rng, o) for o in outputs)
    else:
        grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]

    def first_grads(*all_inputs):
        ins, gos = all_inputs[:n_inputs], all_inputs[n_inputs:]
        with enable_grad():  # the numerical pass calls this under no_grad; the gradient itself needs a graph
            outs = _differentiable_outputs(_as_tuple(func(*ins)))
            gs = grad(outs, [ins[i] for i in diff_idx], gos, create_graph=True, allow_unused=True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(
        first_grads, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception
    )
