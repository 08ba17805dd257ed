"""Higher-level derivatives built on ``grad``: jacobian, hessian, vjp, jvp, hvp, vhp
(torch.autograd.functional).

Each takes a function of tensors and the point ``inputs`` (a Tensor or a tuple) and
returns tensors shaped as torch's: ``jacobian`` gives ``output.shape + input.shape``
per (output, input) pair. ``jvp`` and ``hvp`` use the double-vjp trick
(a vjp is linear in its cotangent, so its vjp is the jvp), as torch's functional API does.
"""

from __future__ import annotations

from .._backend import xp
from .._tensor import Tensor, wrap
from . import grad as _grad
from .grad_mode import enable_grad


def _tuple(x):
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _prepare(inputs, create_graph: bool):
    """Fresh leaves that require grad (detached copies sharing memory unless create_graph)."""
    is_tuple = not isinstance(inputs, Tensor)
    ins = _tuple(inputs)
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"The inputs given to jacobian must be either a Tensor or a tuple of Tensors but the value at index "
                f"{i} has type {type(t)}."
            )
    prepared = tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(True) for t in ins)
    return is_tuple, prepared


def _check_outputs(outputs, name="outputs"):
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            raise TypeError(
                f"The {name} of the user-provided function given to jacobian must be either a Tensor or a tuple of "
                f"Tensors but the value at index {i} has type {type(o)}."
            )
    return isinstance(outputs, tuple), outs


def _grads_or_zeros(outputs, inputs, grad_outputs, create_graph: bool, strict: bool):
    """vjp of ``outputs`` at ``grad_outputs``; inputs the outputs do not depend on get zeros."""
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o.requires_grad]
    if not pairs:
        if strict:
            raise RuntimeError(
                "Output 0 of the user-provided function does not require gradients. The outputs must be computed "
                "in a differentiable manner from the input when running in strict mode."
            )
        return tuple(wrap(xp.zeros_like(t._data)) for t in inputs)
    grads = _grad(
        [o for o, _ in pairs], inputs, [g for _, g in pairs], create_graph=create_graph, retain_graph=True,
        allow_unused=True,
    )
    out = []
    for i, (t, g) in enumerate(zip(inputs, grads)):
        if g is None:
            if strict:
                raise RuntimeError(
                    f"The output of the user-provided function is independent of input {i}. This is not allowed in "
                    "strict mode."
                )
            g = wrap(xp.zeros_like(t._data))
        out.append(g)
    return tuple(out)


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T J): the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        is_tuple, ins = _prepare(inputs, create_graph)
        out_tuple, outs = _check_outputs(func(*ins))
        if v is None:
            if any(o.numel() != 1 for o in outs):
                raise RuntimeError(
                    "The vector v can only be None if the user-provided function returns a single Tensor with a "
                    "single element."
                )
            v = tuple(wrap(xp.ones_like(o._data)) for o in outs)
        vs = _tuple(v)
        grads = _grads_or_zeros(outs, ins, vs, create_graph, strict)
    result = tuple(o if create_graph else o.detach() for o in outs)
    grads = tuple(g if create_graph else g.detach() for g in grads)
    return (result if out_tuple else result[0]), (grads if is_tuple else grads[0])


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), J v): the Jacobian-vector product, by the double-vjp trick."""
    with enable_grad():
        is_tuple, ins = _prepare(inputs, create_graph)
        out_tuple, outs = _check_outputs(func(*ins))
        if v is None:
            if any(t.numel() != 1 for t in ins):
                raise RuntimeError(
                    "The vector v can only be None if the input to the user-provided function is a single Tensor "
                    "with a single element."
                )
            v = tuple(wrap(xp.ones_like(t._data)) for t in ins)
        vs = _tuple(v)
        dummies = tuple(wrap(xp.zeros_like(o._data), True) for o in outs)
        g = _grads_or_zeros(outs, ins, dummies, True, strict)
        jv = _grads_or_zeros(g, dummies, vs, create_graph, strict) if any(x.requires_grad for x in g) else tuple(
            wrap(xp.zeros_like(o._data)) for o in outs
        )
    result = tuple(o if create_graph else o.detach() for o in outs)
    jv = tuple(t if create_graph else t.detach() for t in jv)
    return (result if out_tuple else result[0]), (jv if out_tuple else jv[0])


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """d func / d inputs, one reverse pass per output element; shapes ``out.shape + in.shape``.

    ``strategy="forward-mode"`` gives the same values; as torch's, it needs ``vectorize=True`` and refuses
    ``create_graph`` and ``strict`` (torch's errors).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more '
            'outputs than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".'
        )
    if strategy == "forward-mode":
        _check_forward_strategy(create_graph, strict, vectorize)
    with enable_grad():
        is_tuple, ins = _prepare(inputs, create_graph)
        out_tuple, outs = _check_outputs(func(*ins))
        rows = []  # rows[j][i]: d out_j / d in_i
        for o in outs:
            per_input = [xp.zeros((o._data.size,) + t._data.shape, dtype=o._data.dtype) for t in ins]
            graph_rows = [[] for _ in ins]
            for k in range(o._data.size):
                seed = xp.zeros(o._data.size, dtype=o._data.dtype)
                seed[k] = 1
                gs = _grads_or_zeros([o], ins, [wrap(seed.reshape(o._data.shape))], create_graph, strict)
                for i, g in enumerate(gs):
                    if create_graph:
                        graph_rows[i].append(g)
                    else:
                        per_input[i][k] = g._data
            if create_graph:
                from .._ops.join_split import stack

                row = tuple(
                    (stack(graph_rows[i]) if graph_rows[i] else wrap(per_input[i])).reshape(o._data.shape + t._data.shape)
                    for i, t in enumerate(ins)
                )
            else:
                row = tuple(wrap(per_input[i].reshape(o._data.shape + t._data.shape)) for i, t in enumerate(ins))
            rows.append(row)
    if not out_tuple and not is_tuple:
        return rows[0][0]
    if not out_tuple:
        return rows[0]
    if not is_tuple:
        return tuple(r[0] for r in rows)
    return tuple(rows)


def _check_forward_strategy(create_graph: bool, strict: bool, vectorize: bool) -> None:
    """torch's refusals for strategy="forward-mode" (its forward-AD Jacobian is vectorised only)."""
    if create_graph:
        raise NotImplementedError(
            'torch.autograd.functional.jacobian: `create_graph=True` and `strategy="forward-mode"` are not '
            'supported together (yet). Please either set `create_graph=False` or `strategy="reverse-mode"`.'
        )
    if strict:
        raise RuntimeError(
            'torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not supported '
            'together (yet). Please either set `strict=False` or `strategy="reverse-mode"`.'
        )
    if not vectorize:
        raise NotImplementedError(  # (torch's text has no space between "is" and "only")
            "Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly implemented for "
            "`vectorize=True`."
        )


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of a scalar function: the jacobian of its gradient (the outer one by
    ``outer_jacobian_strategy``, with jacobian's conditions on forward mode)."""
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    if outer_jacobian_strategy == "forward-mode":
        _check_forward_strategy(create_graph, strict, vectorize)
    is_tuple = not isinstance(inputs, Tensor)

    def gradient(*ins):
        out = func(*ins)
        if not isinstance(out, Tensor) or out.numel() != 1:
            raise RuntimeError("The function given to hessian should return a single Tensor with a single element.")
        g = _grads_or_zeros((out,), ins, (wrap(xp.ones_like(out._data)),), True, strict)
        return g if is_tuple else g[0]

    return jacobian(gradient, inputs, create_graph=create_graph, strict=strict)


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), v^T H) for a scalar function."""
    with enable_grad():
        is_tuple, ins = _prepare(inputs, create_graph)
        out = func(*ins)
        g = _grads_or_zeros((out,), ins, (wrap(xp.ones_like(out._data)),), True, strict)
        vs = _tuple(v)
        res = _grads_or_zeros(g, ins, vs, create_graph, strict)
    out = out if create_graph else out.detach()
    res = tuple(r if create_graph else r.detach() for r in res)
    return out, (res if is_tuple else res[0])


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """(func(inputs), H v) for a scalar function (H is symmetric, so it equals vhp)."""
    return vhp(func, inputs, v, create_graph, strict)
