"""Differentiation transforms of torch.func: grad, grad_and_value, vjp, jvp, linearize, jacrev, jacfwd, hessian.

Reverse mode runs dyngrad's own autograd: the arguments to differentiate become fresh leaves (or
aliases of tensors that already require grad, so an enclosing transform sees through), ``func``
runs, and ``autograd.grad`` gives the gradients. Under ``vmap`` (Note [Autograd under vmap is
physical] in _batching/tensors.py) an argument the vmap does not batch is first broadcast over the
batch, so that the gradient of each sample is its own: the per-sample gradients of ``vmap(grad(f))``.
The graph of the backward is recorded only when something needs it: an enclosing transform, an
active forward-AD level, or tensors of the caller's own graph that ``func`` reads.

Forward mode uses the forward-AD machinery (autograd/forward_ad.py): ``jvp`` runs ``func`` on dual
tensors. A ``jvp`` inside another one (``jacfwd(jacfwd(f))``) computes its product as the derivative of
a vector-Jacobian product instead (two reverse passes), since a dual tensor carries one tangent.
``jacrev`` maps ``vjp`` over the rows of the identity and ``jacfwd`` maps ``jvp`` over its columns, with
``vmap``, as torch does.
"""

from __future__ import annotations

import functools

from .._batching import context
from .._batching.array import BatchedArray
from .._batching.tensors import add_batch_level
from .._dtype import FLOATING_OR_COMPLEX_KINDS
from .._tensor import _TRANSFORMS, Tensor, wrap
from ..autograd import forward_ad as fwAD
from ..autograd.grad_mode import _state, enable_grad
from ..utils._pytree import tree_flatten, tree_map, tree_unflatten
from ._vmap import vmap


# ---------------------------------------------------------------------------------- argnums
def _wrap_argnum(argnum, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def _slice_argnums(args: tuple, argnums, as_tuple: bool = True):
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        i = _wrap_argnum(argnums, len(args))
        return (args[i],) if as_tuple else args[i]
    wrapped = tuple(_wrap_argnum(a, len(args)) for a in argnums)
    if len(wrapped) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return tuple(args[i] for i in wrapped)


def _replace_args(args: tuple, new, argnums) -> tuple:
    if isinstance(argnums, int):
        i = _wrap_argnum(argnums, len(args))
        return tuple(new if j == i else a for j, a in enumerate(args))
    wrapped = [_wrap_argnum(a, len(args)) for a in argnums]
    return tuple(new[wrapped.index(j)] if j in wrapped else a for j, a in enumerate(args))


# ---------------------------------------------------------------------------------- differentiable inputs
def _vmap_levels_missing(t: Tensor) -> list:
    """The active vmaps that do not batch ``t`` (outermost first)."""
    have = set()
    data = t._data
    while type(data) is BatchedArray:
        have.add(data.level)
        data = data.value
    return [lv for lv in context.STATE.stack if lv.level not in have]


def _make_differentiable(x, level=None):
    """The tensor ``func`` gets in place of ``x``: a leaf requiring grad (or an alias of ``x`` when ``x``
    already has a graph), batched over every active vmap, so its gradient is each sample's own; a
    forward-AD tangent of ``x`` stays with it."""
    if not isinstance(x, Tensor):
        raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    t = x
    for lv in _vmap_levels_missing(t):
        t = add_batch_level(t.unsqueeze(0).expand((lv.size,) + tuple(t.shape)), 0, lv.level)
    if x._requires_grad:
        return t.view_as(t) if t is x else t
    leaf = wrap(t._data, True)
    leaf._vc = t._vc
    leaf._func_level = level  # once this transform returns, nothing differentiates with respect to it
    if t._fw_grad is not None:
        fwAD._register(leaf, t._fw_grad)
    return leaf


def _reads_outer_graph(outputs, leaves) -> bool:
    """Whether the graph behind ``outputs`` reaches a tensor that requires grad other than ``leaves``
    (the caller's own graph, or an enclosing transform's): then the backward is recorded."""
    from ..autograd.graph import AccumulateGrad

    mine = {id(t) for t in leaves}
    seen = set()
    stack = [o._grad_fn for o in outputs if isinstance(o, Tensor) and o._grad_fn is not None]
    stack += [None for o in outputs if isinstance(o, Tensor) and o._requires_grad and o._grad_fn is None and id(o) not in mine]
    if None in stack:
        return True
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if type(node) is AccumulateGrad:
            var = node.variable
            level = var.__dict__.get("_func_level", -1)
            if id(var) not in mine and (level == -1 or level in context.STATE.grad_levels):
                return True  # the caller's leaf, or an enclosing transform's (a finished one's leads nowhere)
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in seen:
                stack.append(nxt)
    return False


def _needs_graph(outputs, leaves, grad_was_enabled: bool) -> bool:
    """Record the backward when a forward-AD level is active (its tangents flow through the backward's
    ops), or when the output reads tensors of an enclosing transform or of the caller's graph."""
    if fwAD.STATE.level >= 0:
        return True
    return grad_was_enabled and _reads_outer_graph(outputs, leaves)


def _autograd_grad(outputs, inputs, grad_outputs=None, retain_graph=False, create_graph=True):
    """autograd.grad with torch.func's conventions: outputs that do not require grad are skipped, unused
    inputs get zeros."""
    from .._creation import zeros_like
    from ..autograd import grad as _grad

    if grad_outputs is None:
        diff = [o for o in outputs if o._requires_grad]
        gos = None
    else:
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o._requires_grad]
        diff = [o for o, _ in pairs]
        gos = [g for _, g in pairs]
    if not diff:
        return tuple(zeros_like(t) for t in inputs)
    # a recorded backward reads the forward's saved values again (a saved result is its node's output): keep them
    grads = _grad(diff, inputs, gos, retain_graph=retain_graph or create_graph, create_graph=create_graph,
                  allow_unused=True)
    return tuple(zeros_like(t) if g is None else g for g, t in zip(grads, inputs))


def _detach_tree(tree, keep: bool):
    if keep:
        return tree
    return tree_map(lambda t: t.detach() if isinstance(t, Tensor) else t, tree)


class _grad_level:
    """A grad-like transform's level: transforms inside it record their backward for it."""

    def __enter__(self):
        self.level = context.new_level()
        context.STATE.grad_levels.append(self.level)
        _TRANSFORMS.depth += 1
        return self.level

    def __exit__(self, *exc):
        _TRANSFORMS.depth -= 1
        context.STATE.grad_levels.pop()


# ---------------------------------------------------------------------------------- grad, grad_and_value
def grad_and_value(func, argnums=0, has_aux: bool = False):
    """``(grad, value)`` of a function with one scalar output (torch.func.grad_and_value).

    Args:
        func: returns a 0-dim tensor (or ``(output, aux)`` with ``has_aux``).
        argnums: which positional argument(s) to differentiate: an int or a tuple of ints; each argument
            may be a pytree of tensors, its gradient has the same structure.
        has_aux: ``func`` returns ``(output, aux)``; aux is returned as is (without gradient tracking).

    Returns:
        A function returning ``(gradients, output)`` or ``(gradients, (output, aux))``.

    Raises:
        RuntimeError: the output is not a tensor or not 0-dim, ``has_aux`` without a pair, bad argnums
            (torch's texts); ValueError: an argument to differentiate that is not a tensor.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func, argnums=0, has_aux: bool = False):
    """The gradient of a function with one scalar output (torch.func.grad): ``grad(f)(x)`` is df/dx.

    See ``grad_and_value`` for the arguments; returns only the gradients (and aux with ``has_aux``).
    Composes with the other transforms: ``vmap(grad(f))`` gives per-sample gradients, ``grad(grad(f))``
    second derivatives.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


def _grad_and_value(func, argnums, has_aux, args, kwargs):
    grad_was_enabled = _state.enabled
    with _grad_level() as level, enable_grad():
        diff_args = _slice_argnums(args, argnums, as_tuple=False)
        diff_args = tree_map(lambda x: _make_differentiable(x, level), diff_args)
        new_args = _replace_args(args, diff_args, argnums)
        output = func(*new_args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(
                    "grad_and_value(f)(*args): output of function f should be a tuple: (output, aux) if has_aux is True"
                )
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(
                "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor with "
                f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?"
            )
        flat_diff, spec = tree_flatten(diff_args)
        keep = _needs_graph([output], flat_diff, grad_was_enabled)
    flat_grads = _autograd_grad([output], flat_diff, create_graph=keep)
    grads = tree_unflatten(list(flat_grads), spec)
    output = _detach_tree(output, keep)
    if has_aux:
        return grads, (output, _detach_tree(aux, keep))
    return grads, output


# ---------------------------------------------------------------------------------- vjp
def vjp(func, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` gives the vector-Jacobian products with respect to
    every primal (torch.func.vjp).

    ``vjp_fn(cotangents, retain_graph=True, create_graph=None)``: cotangents with the structure of the output;
    ``create_graph`` defaults to whether grad mode is on when it is called.
    """
    return _vjp_with_argnums(func, primals, argnums=None, has_aux=has_aux)


def _vjp_with_argnums(func, primals, argnums=None, has_aux=False, api="vjp(f, *primals)"):
    grad_was_enabled = _state.enabled
    with _grad_level() as level, enable_grad():
        if argnums is None:
            diff = tree_map(lambda x: _make_differentiable(x, level), primals)
            new_primals = diff
        else:
            diff = _slice_argnums(primals, argnums, as_tuple=False)
            diff = tree_map(lambda x: _make_differentiable(x, level), diff)
            new_primals = _replace_args(primals, diff, argnums)
        out = func(*new_primals)
        aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(
                    "vjp(f, *primals): output of function f should be a tuple: (output, aux) if has_aux is True"
                )
            out, aux = out
        flat_out, out_spec = tree_flatten(out)
        if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat_out})")
        for o in flat_out:
            if not isinstance(o, Tensor):
                raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
            if o._data.dtype.kind not in FLOATING_OR_COMPLEX_KINDS:
                raise RuntimeError(
                    f"vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got Tensor with dtype "
                    f"{o.dtype}"
                )
        flat_diff, diff_spec = tree_flatten(diff)
        keep = _needs_graph(flat_out, flat_diff, grad_was_enabled)

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph=None):
        if create_graph is None:
            create_graph = _state.enabled or fwAD.STATE.level >= 0
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError(
                "Expected pytree structure of cotangents to be the same as pytree structure of outputs to the "
                f"function. cotangents: {_pprint(ct_spec)}, primal output: {_pprint(out_spec)}"
            )
        # the products keep a graph only where something can differentiate them: an enclosing transform or
        # the caller's graph behind the primals, cotangents that require grad, a forward-AD level
        record = create_graph and (keep or fwAD.STATE.level >= 0 or any(
            isinstance(c, Tensor) and c._requires_grad for c in flat_ct))
        with enable_grad() if record else _null():
            result = _autograd_grad(flat_out, flat_diff, flat_ct, retain_graph=retain_graph, create_graph=record)
        return tree_unflatten(list(result), diff_spec)

    out = _detach_tree(out, keep)
    if has_aux:
        return out, vjp_fn, _detach_tree(aux, keep)
    return out, vjp_fn


class _in_transform:
    def __enter__(self):
        _TRANSFORMS.depth += 1

    def __exit__(self, *exc):
        _TRANSFORMS.depth -= 1


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return None


def _pprint(spec) -> str:
    """torch's treespec_pprint: the structure with leaves as ``*``."""
    from ..utils._pytree import LeafSpec

    def show(s):
        if isinstance(s, LeafSpec):
            return "*"
        inner = ", ".join(show(c) for c in s._children)
        if s.kind == "tuple":
            return f"({inner}{',' if len(s._children) == 1 else ''})"
        if s.kind == "list":
            return f"[{inner}]"
        if s.kind == "dict":
            return "{" + ", ".join(f"{k!r}: {show(c)}" for k, c in zip(s._context, s._children)) + "}"
        return f"{s._context.__name__}({inner})"

    return show(spec)


# ---------------------------------------------------------------------------------- jvp
_JVP = "jvp(f, primals, tangents)"


def jvp(func, primals, tangents, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product in forward mode (torch.func.jvp).

    Args:
        primals: a tuple of the arguments (pytrees of tensors).
        tangents: the direction, with the structure and shapes of ``primals``.
        strict: raise when an output does not depend on the primals (else its tangent is zeros).
        has_aux: ``func`` returns ``(output, aux)``.
    """
    return _jvp_with_argnums(func, primals, tangents, None, strict=strict, has_aux=has_aux)


def _check_tensors(values, argname: str) -> None:
    if len(values) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for v in values:
        if not isinstance(v, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got {type(v)}")


def _jvp_with_argnums(func, primals, tangents, argnums, *, strict=False, has_aux=False):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    diff = primals if argnums is None else _slice_argnums(primals, argnums)
    flat_primals, primals_spec = tree_flatten(diff)
    flat_tangents, tangents_spec = tree_flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError(
            f"{_JVP}: Expected primals and tangents to have the same python structure. For example, if primals is a "
            f"tuple of 3 tensors, tangents also must be. Got primals with structure {primals_spec!r} and tangents "
            f"with structure {tangents_spec!r}"
        )
    _check_tensors(flat_primals, "primals")
    _check_tensors(flat_tangents, "tangents")
    if fwAD.STATE.level >= 0:
        return _jvp_by_double_vjp(func, primals, flat_primals, flat_tangents, primals_spec, argnums, strict, has_aux)
    with fwAD.dual_level(), _in_transform():
        duals = tree_unflatten([fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)], primals_spec)
        if argnums is not None:
            duals = _replace_args(primals, duals if not isinstance(argnums, int) else duals[0], argnums)
        result = func(*duals)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: (output, aux) if has_aux is True")
            result, aux = result
        flat_result, spec = tree_flatten(result)
        _check_outputs(flat_result)
        outs, tans = [], []
        for dual in flat_result:
            primal, tangent = fwAD.unpack_dual(dual)
            if tangent is None:
                if strict:
                    raise RuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This is "
                        "not allowed with strict=True."
                    )
                from .._creation import zeros_like

                tangent = zeros_like(primal)
            outs.append(primal)
            tans.append(tangent)
    keep = _state.enabled and _reads_outer_graph(outs + tans, [])
    outs, tans = _detach_tree(outs, keep), _detach_tree(tans, keep)
    out_tree, tan_tree = tree_unflatten(outs, spec), tree_unflatten(tans, spec)
    if has_aux:
        return out_tree, tan_tree, aux
    return out_tree, tan_tree


def _check_outputs(flat_result) -> None:
    if (len(flat_result) == 1 and flat_result[0] is None) or len(flat_result) < 1:
        raise RuntimeError(f"{_JVP}: Expected f to be a function that has non-empty output (got output = {flat_result})")
    for o in flat_result:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{_JVP}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")


def _jvp_by_double_vjp(func, primals, flat_primals, flat_tangents, primals_spec, argnums, strict, has_aux):
    """jvp inside a forward-AD level: J t = d/du <J^T u, t>, two reverse passes (all recorded, so the
    enclosing level's tangents flow through them)."""
    from .._creation import zeros_like
    from ..autograd import grad as _grad

    with _grad_level() as level, enable_grad():
        diff = [_make_differentiable(p, level) for p in flat_primals]
        tree = tree_unflatten(diff, primals_spec)
        args = tree if argnums is None else _replace_args(primals, tree if not isinstance(argnums, int) else tree[0], argnums)
        result = func(*args)
        aux = None
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError(f"{_JVP}: output of function f should be a tuple: (output, aux) if has_aux is True")
            result, aux = result
        flat_result, spec = tree_flatten(result)
        _check_outputs(flat_result)
        tans = []
        dummies = [_batched_zeros(o, flat_tangents) for o in flat_result]
        live = [(o, d) for o, d in zip(flat_result, dummies) if o._requires_grad]
        if live:
            vjps = _grad([o for o, _ in live], diff, [d for _, d in live], create_graph=True, allow_unused=True)
            total = None
            for v, t in zip(vjps, flat_tangents):
                if v is not None:
                    term = (v * t).sum()
                    total = term if total is None else total + term
        else:
            total = None
        for o, d in zip(flat_result, dummies):
            if total is None or not o._requires_grad or not total._requires_grad:
                if strict:
                    raise RuntimeError(
                        "jvp(f, primals, tangents, strict=True): The output of f is independent of the inputs. This is "
                        "not allowed with strict=True."
                    )
                tans.append(zeros_like(o))
                continue
            (g,) = _grad(total, d, retain_graph=True, create_graph=True, allow_unused=True)
            tans.append(g if g is not None else zeros_like(o))
    out_tree, tan_tree = tree_unflatten(flat_result, spec), tree_unflatten(tans, spec)
    if has_aux:
        return out_tree, tan_tree, aux
    return out_tree, tan_tree


def _batched_zeros(o: Tensor, tangents) -> Tensor:
    """A zero cotangent for ``o`` that requires grad, batched over every vmap level of ``o`` and of the
    tangents: its gradient is then each sample's own (Note [Autograd under vmap is physical])."""
    import numpy as np

    from .._batching.array import levels

    data = np.zeros_like(o._data)
    t = wrap(data)
    have = levels(data)
    for tan in tangents:
        for lv, size in levels(tan._data).items():
            if lv not in have:
                t = add_batch_level(t.unsqueeze(0).expand((size,) + tuple(t.shape)), 0, lv)
                have[lv] = size
    t = t.detach()
    t._requires_grad = True
    t._func_level = 0  # a scratch leaf: nothing outside differentiates with respect to it
    return t


# ---------------------------------------------------------------------------------- linearize
def linearize(func, *primals):
    """``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``
    (torch.func.linearize). Each call of jvp_fn runs ``func`` again in forward mode."""
    output = func(*primals)
    _, output_spec = tree_flatten(output)
    flat_primals, primals_spec = tree_flatten(primals)
    shapes = [p.shape for p in flat_primals]
    dtypes = [p.dtype for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec!r} to have the same argspec as the primals {primals_spec!r}")
        for i, t in enumerate(flat_tangents):
            if t.shape != shapes[i]:
                raise RuntimeError(
                    f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the shape {shapes[i]} of the "
                    "corresponding primal."
                )
            if t.dtype != dtypes[i]:
                raise RuntimeError(
                    f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the dtype {dtypes[i]} of the "
                    "corresponding primal."
                )
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


# ---------------------------------------------------------------------------------- Jacobians
def _standard_basis(flat: list, numels: list, chunk_size=None):
    """Chunks of the rows of the identity (sum(numels) of them), split per tensor of ``flat`` and shaped
    as it: the cotangents (jacrev) or tangents (jacfwd) that give one Jacobian row/column each."""
    from .._creation import zeros

    total = sum(numels)
    chunk = total if chunk_size is None else chunk_size
    for start in range(0, total, chunk):
        n = min(chunk, total - start)
        parts = []
        offset = 0
        for t, k in zip(flat, numels):
            b = zeros((n, k), dtype=t.dtype)
            for r in range(n):
                j = start + r - offset
                if 0 <= j < k:
                    b._data[r, j] = 1
            parts.append(b.view((n,) + tuple(t.shape)))
            offset += k
        yield parts


def jacrev(func, argnums=0, *, has_aux: bool = False, chunk_size=None, _preallocate_and_copy: bool = False):
    """The Jacobian of ``func`` by reverse mode: ``vmap`` of ``vjp`` over the rows of the identity (torch.func.jacrev).

    Returns a function giving, for each output, the Jacobian with respect to each argument in
    ``argnums`` (shape ``output.shape + argument.shape``), nested as (outputs, then arguments).
    ``chunk_size`` computes that many rows at a time.
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        res = _vjp_with_argnums(func, args, argnums=argnums, has_aux=has_aux)
        if has_aux:
            output, vjp_fn, aux = res
        else:
            output, vjp_fn = res
        flat_out, out_spec = tree_flatten(output)
        numels = [o.numel() for o in flat_out]
        primals = _slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        stacked = None
        for basis in _standard_basis(flat_out, numels, chunk_size):
            rows = vmap(vjp_fn)(tree_unflatten(basis, out_spec))
            flat_rows = tree_flatten(rows)[0]
            stacked = [[r] for r in flat_rows] if stacked is None else [s + [r] for s, r in zip(stacked, flat_rows)]
        from .._ops.join_split import cat

        per_primal = [cat(s, 0) if len(s) > 1 else s[0] for s in stacked]
        per_primal = [r.split(numels, dim=0) for r in per_primal]
        flat_in_flat_out = [
            tuple(part.reshape(tuple(o.shape) + tuple(p.shape)) for part, o in zip(splits, flat_out))
            for splits, p in zip(per_primal, flat_primals)
        ]
        flat_out_flat_in = tuple(zip(*flat_in_flat_out))
        out_in = tuple(tree_unflatten(list(fi), primals_spec) for fi in flat_out_flat_in)
        if isinstance(argnums, int):
            out_in = tuple(x[0] for x in out_in)
        result = tree_unflatten(list(out_in), out_spec)
        if has_aux:
            return result, aux
        return result

    return wrapper


def jacfwd(func, argnums=0, has_aux: bool = False, *, randomness: str = "error"):
    """The Jacobian of ``func`` by forward mode: ``vmap`` of ``jvp`` over the columns of the identity
    (torch.func.jacfwd). Same results and nesting as ``jacrev``."""

    @functools.wraps(func)
    def wrapper(*args):
        primals = args if argnums is None else _slice_argnums(args, argnums)
        flat_primals, primals_spec = tree_flatten(primals)
        numels = [p.numel() for p in flat_primals]
        basis = tree_unflatten(next(_standard_basis(flat_primals, numels)), primals_spec)

        def push_jvp(b):
            out = _jvp_with_argnums(func, args, b, argnums=argnums, has_aux=has_aux)
            if has_aux:
                return out[1], out[2]
            return out[1]

        results = vmap(push_jvp, randomness=randomness)(basis)
        aux = None
        if has_aux:
            results, aux = results
            flat_aux, aux_spec = tree_flatten(aux)
            aux = tree_unflatten([a[0] for a in flat_aux], aux_spec)
        jac_outs, spec = tree_flatten(results)
        jac_outs_ins = []
        for jac_out in jac_outs:
            cols = jac_out.movedim(0, -1).split(numels, dim=-1)
            ins = [c.squeeze(-1) if len(p.shape) == 0 else c.unflatten(-1, tuple(p.shape)) for p, c in zip(flat_primals, cols)]
            jac_outs_ins.append(tree_unflatten(ins, primals_spec))
        if isinstance(argnums, int):
            jac_outs_ins = [j[0] for j in jac_outs_ins]
        result = tree_unflatten(jac_outs_ins, spec)
        if has_aux:
            return result, aux
        return result

    return wrapper


def hessian(func, argnums=0):
    """The Hessian of ``func``: ``jacfwd(jacrev(func, argnums), argnums)`` (torch.func.hessian)."""
    return jacfwd(jacrev(func, argnums), argnums)
