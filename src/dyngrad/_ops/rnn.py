"""Fused recurrent kernels: one LSTM layer (one direction) over a whole sequence as one node.

nn.LSTM on float32 input runs torch's oneDNN kernel on CPU: one ``mkldnn_rnn_layer`` call per layer
and direction, whose node is ``MkldnnRnnLayerBackward0`` with seven inputs (input, weight_ih,
weight_hh, bias_ih, bias_hh, hx, cx) and outputs (output, hy, cy, workspace). dyngrad's
``MkldnnRnnLayerBackward0`` is the same node: the forward runs the time loop on arrays (one matmul
for the input projection of every step, then per step one matmul and a few pointwise kernels), keeps
the gate activations, and a plain ``backward()`` runs backpropagation through time on arrays. Under
``create_graph=True`` the backward instead recomputes the layer with dyngrad's differentiable ops
(the per-step cell of torch.nn.LSTMCell) and differentiates that, so second derivatives are exact.

The equations are torch's (torch.nn.LSTM docs), gate order input, forget, cell, output:
    gates = x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh
    i, f, o = sigmoid(.), g = tanh(.);  c_t = f * c_{t-1} + i * g;  h_t = o * tanh(c_t)
The backward formulas are the chain rule through these (torch's derivatives.yaml routes
``mkldnn_rnn_layer`` to ``mkldnn_rnn_layer_backward``, the same BPTT).
"""

from __future__ import annotations

import sys
import threading

from .._backend import xp
from .._tensor import Tensor, wrap
from ..autograd import forward_ad as _fw_ad
from ..autograd import saved_hooks
from ..autograd.grad_mode import _state
from ..autograd.graph import SavedResult, new_node
from .registry import Op, edge, register

_LSTM_MODE = 2  # torch's rnn mode number for LSTM (RNN_RELU 0, RNN_TANH 1, LSTM 2, GRU 3)
_NO_FORWARD_AD = (
    "Trying to use forward AD with mkldnn_rnn_layer that does not support it because it has not been implemented "
    "yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?template=feature-request"
    ".yml so that we can prioritize its implementation or submit a PR adding the implementation to derivatives.yaml"
)


# Note [Buffer reuse]
# A training step allocates the same large arrays each time (the gate activations, the per-step
# gradients). Fresh large allocations cost page faults once the allocator has handed the memory
# back to the OS, about as much as the arithmetic that fills them, so the layer takes its
# buffers from a small pool. A pooled array is handed out again only when the pool holds the
# sole reference to it (CPython's reference count): a buffer still saved on a node (a graph kept
# with retain_graph) or held anywhere else is never reused. Pooled buffers never leave this
# module as tensors: outputs and gradients are fresh arrays. Each thread has its own pool, so
# two threads never see the same free buffer.
_LOCAL = threading.local()
_POOL_BYTES = 32 << 20  # a pool keeps at most this much, dropping its oldest buffers
_getrefcount = sys.getrefcount


def _buffer(shape: tuple, dtype):
    """An uninitialised array of ``shape``: a free pooled one, or a new one added to the pool."""
    pool = getattr(_LOCAL, "pool", None)
    if pool is None:
        pool = _LOCAL.pool = []
    for a in pool:
        # references: the pool's list, the loop variable and getrefcount's argument
        if a.shape == shape and a.dtype == dtype and _getrefcount(a) == 3:
            return a
    a = xp.empty(shape, dtype)
    if a.nbytes <= _POOL_BYTES:  # a larger one is used once and freed
        pool.append(a)
        total = sum(b.nbytes for b in pool)
        while total > _POOL_BYTES:
            total -= pool.pop(0).nbytes
    return a


def _lstm_layer_arrays(x, w_ih, w_hh, b_ih, b_hh, h0, c0, reverse, for_backward=True):
    """The forward on arrays. x: [T, B, I]; returns (output [T, B, H], hy, cy, workspace).

    Inside, time runs in processing order (reversed for the reverse direction). sigmoid(z) =
    0.5 * tanh(z / 2) + 0.5, so one tanh serves all four gates: the pre-activations of the
    sigmoid gates are halved first (exact in floating point). With ``for_backward`` the workspace
    holds what BPTT reads, computed while each step's values are in cache: the gate
    activations [T, B, 4H], per gate the factor that turns dc (gates i, f, g) or dh (gate o)
    into the gradient of its pre-activation, g i (1 - i), c_{t-1} f (1 - f), i (1 - g^2),
    tanh(c_t) o (1 - o) [T, 4, B, H], and dc_t/dh_t = o (1 - tanh(c_t)^2) [T, B, H].
    """
    steps, batch = x.shape[0], x.shape[1]
    h = w_hh.shape[1]
    dtype = x.dtype
    scale = xp.full(4 * h, 0.5, dtype=dtype)
    scale[2 * h : 3 * h] = 1  # the cell gate g keeps its tanh
    # h @ W^T runs faster on a contiguous W^T than on a transposed view; the scale comes free
    w_hh_s_t = xp.multiply(w_hh.T, scale, out=_buffer((h, 4 * h), dtype))
    bias = xp.zeros(4 * h, dtype=dtype)
    if b_ih is not None:
        bias = bias + b_ih
    if b_hh is not None:
        bias = bias + b_hh
    bias *= scale
    if reverse:
        x = x[::-1]
    # acts starts as the (halved) input projection of every step and becomes, step by step, the activations
    w_ih_s = xp.multiply(w_ih, scale[:, None], out=_buffer(w_ih.shape, dtype))
    acts = _buffer((steps, batch, 4 * h), dtype)
    xp.matmul(x.reshape(steps * batch, -1), w_ih_s.T, out=acts.reshape(steps * batch, 4 * h))
    acts += bias
    cells = _buffer((steps + 1, batch, h), dtype)  # c_{-1} = c0, then each c_t
    cells[0] = c0
    tanh_c = _buffer((steps, batch, h), dtype)
    out = xp.empty((steps, batch, h), dtype=dtype)
    if for_backward:
        factors = _buffer((steps, 4, batch, h), dtype)
        dh_to_dc = _buffer((steps, batch, h), dtype)
    # after the tanh, sigmoid gates take 0.5 * u + 0.5 (one multiply and one add over all four gates)
    coef = xp.where(scale == 1, 1, 0.5).astype(dtype)
    offset = xp.where(scale == 1, 0, 0.5).astype(dtype)
    hs = h0
    h2, h3 = 2 * h, 3 * h
    start = 0  # first step whose backward factors are still to compute
    for t in range(steps):
        a = acts[t]
        a += hs @ w_hh_s_t
        xp.tanh(a, out=a)
        a *= coef
        a += offset
        c = cells[t + 1]
        xp.multiply(a[:, h:h2], cells[t], out=c)
        c += a[:, :h] * a[:, h2:h3]
        tc = tanh_c[t]
        xp.tanh(c, out=tc)
        hs = out[t]
        xp.multiply(a[:, h3:], tc, out=hs)
        if for_backward and (t - start == _CHUNK - 1 or t == steps - 1):
            # a few steps at a time, while their values are still in cache
            _backward_factors(acts[start : t + 1], cells[start : t + 1], tanh_c[start : t + 1],
                              factors[start : t + 1], dh_to_dc[start : t + 1])
            start = t + 1
    hy = hs.copy()
    cy = cells[steps].copy()
    if reverse:
        out = xp.ascontiguousarray(out[::-1])
    return out, hy, cy, ((acts, factors, dh_to_dc) if for_backward else None)


_CHUNK = 8  # steps per batch of backward factors: [8, B, 4H] of float32 stays in cache for usual sizes


def _backward_factors(acts, c_prev, tanh_c, factors, dh_to_dc) -> None:
    """Fill, for some steps, what BPTT multiplies by (see _lstm_layer_arrays), in place.

    factors is gate-major, [steps, 4, B, H]: NumPy is several times slower on a gate's columns of
    a [B, 4H] row (runs of H) than on a contiguous block, so the activations are first copied
    gate-major once and every product below runs on contiguous blocks.
    """
    steps, batch, h = tanh_c.shape
    gates = _buffer(factors.shape, factors.dtype)
    xp.copyto(gates, acts.reshape(steps, batch, 4, h).transpose(0, 2, 1, 3))
    i, g, o = gates[:, 0], gates[:, 2], gates[:, 3]
    xp.subtract(1, gates, out=factors)
    factors *= gates  # s (1 - s): sigmoid' for the gates i, f, o
    factors[:, 0] *= g
    factors[:, 1] *= c_prev
    factors[:, 3] *= tanh_c
    fg = factors[:, 2]  # i (1 - g^2)
    xp.multiply(g, g, out=fg)
    xp.subtract(1, fg, out=fg)
    fg *= i
    xp.multiply(tanh_c, tanh_c, out=dh_to_dc)  # o (1 - tanh(c_t)^2)
    xp.subtract(1, dh_to_dc, out=dh_to_dc)
    dh_to_dc *= o


def _lstm_layer_backward_arrays(grad_out, grad_hy, grad_cy, x, w_ih, w_hh, h0, out, workspace, reverse, needs):
    """Backpropagation through time on arrays; returns the seven input gradients (None where not needed)."""
    acts, factors, dh_to_dc = workspace
    steps, batch, h = dh_to_dc.shape
    dtype = acts.dtype
    if reverse:  # processing order
        x, out, grad_out = x[::-1], out[::-1], grad_out[::-1]
    gf = acts[:, :, h : 2 * h]
    dgates = _buffer((steps, batch, 4, h), dtype)
    dh_next = grad_hy
    dc_next = grad_cy
    for t in range(steps - 1, -1, -1):
        dh = grad_out[t] + dh_next
        dc = dh * dh_to_dc[t]
        dc += dc_next
        d = dgates[t]
        xp.multiply(dc, factors[t], out=d.transpose(1, 0, 2))
        xp.multiply(dh, factors[t, 3], out=d[:, 3])
        dc_next = dc * gf[t]
        dh_next = d.reshape(batch, 4 * h) @ w_hh
    dflat = dgates.reshape(steps * batch, 4 * h)
    gx = gw_ih = gw_hh = gb = None
    if needs[0]:
        gx = (dflat @ w_ih).reshape(x.shape)
        if reverse:
            gx = gx[::-1]
    if needs[1] and needs[2]:  # both weight gradients in one matmul: dgates^T @ [x_t | h_{t-1}]
        n_in = x.shape[2]
        xh = _buffer((steps, batch, n_in + h), dtype)
        xh[:, :, :n_in] = x
        xh[0, :, n_in:] = h0
        xh[1:, :, n_in:] = out[:-1]
        gw = dflat.T @ xh.reshape(steps * batch, n_in + h)
        gw_ih, gw_hh = gw[:, :n_in], gw[:, n_in:]
    elif needs[1]:
        gw_ih = dflat.T @ x.reshape(steps * batch, -1)
    elif needs[2]:
        h_prev = _buffer((steps, batch, h), dtype)
        h_prev[0] = h0
        h_prev[1:] = out[:-1]
        gw_hh = dflat.T @ h_prev.reshape(steps * batch, h)
    if needs[3] or needs[4]:
        gb = dflat.sum(0)
    return (gx, gw_ih, gw_hh, gb if needs[3] else None, (gb.copy() if needs[3] else gb) if needs[4] else None,
            dh_next if needs[5] else None, dc_next if needs[6] else None)


def lstm_layer_composite(x, w_ih, w_hh, b_ih, b_hh, h, c, reverse: bool = False):
    """The same layer with dyngrad's differentiable ops, one LSTMCell step at a time (for create_graph)."""
    from . import join_split
    from . import nn_kernels as nk

    steps = x.shape[0]
    outs = [None] * steps
    for t in range(steps - 1, -1, -1) if reverse else range(steps):
        gates = nk.linear(x[t], w_ih, b_ih) + nk.linear(h, w_hh, b_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        outs[t] = h
    return join_split.stack(outs, 0), h, c


@register
class MkldnnRnnLayerBackward0(Op):
    """One LSTM layer over a sequence (torch's ``mkldnn_rnn_layer``), in one node.

    Inputs: input [T, B, I], weight_ih [4H, I], weight_hh [4H, H], bias_ih [4H] and bias_hh [4H]
    (either may be None: no bias), hx [B, H], cx [B, H]; params: (reverse,). Outputs: output
    [T, B, H], hy [B, H], cy [B, H]. Floating dtypes only (the public function admits float32
    as torch's kernel does). Saves its inputs, its output and the gate activations.

    Backward: BPTT on arrays for a plain backward; under create_graph, the composite
    (``lstm_layer_composite``) recomputed from the saved inputs and differentiated, so the
    gradients are themselves differentiable (torch's double backward of this node agrees).
    """

    def backward(self, grad_out, grad_hy, grad_cy):
        saved = self.saved()
        (reverse,) = self._params
        needs = [fn is not None for fn, _ in self.next_functions]
        if not _state.enabled:  # a plain backward: on arrays (Note [Backward on arrays])
            x, w_ih, w_hh, _, _, h0, _ = saved[:7]
            grads = _lstm_layer_backward_arrays(
                grad_out._data, grad_hy._data, grad_cy._data, x._data, w_ih._data, w_hh._data, h0._data,
                saved[7]._data, saved[8], reverse, needs,
            )
            return tuple(None if g is None else wrap(g) for g in grads)
        from ..autograd import grad as _grad

        inputs = list(saved[:7])
        # an alias per wanted input, so that one tensor passed twice (hx is cx) gets one gradient per slot
        wanted = [i for i in range(7) if needs[i]]
        for i in wanted:
            inputs[i] = inputs[i].view_as(inputs[i])
        outs = lstm_layer_composite(*inputs, reverse)
        got = _grad(outs, [inputs[i] for i in wanted], (grad_out, grad_hy, grad_cy), create_graph=True,
                    allow_unused=True)
        grads = [None] * 7
        for i, g in zip(wanted, got):
            grads[i] = g
        return tuple(grads)


def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes=(),  # noqa: A002
                     mode=_LSTM_MODE, hidden_size=None, num_layers=1, has_biases=True, bidirectional=False,
                     batch_first=False, train=True):
    """torch.mkldnn_rnn_layer for LSTM: (output, hy, cy, workspace); float32 only, as torch's CPU kernel.

    The input is always [T, B, I]: like torch's kernel, this ignores ``batch_first`` (nn.LSTM transposes
    before calling it), ``batch_sizes``, ``mode``, ``hidden_size``, ``num_layers``, ``bidirectional`` and
    ``train``. The workspace is an empty uint8 tensor (the saved activations live on the node). Raises
    torch's RuntimeError for other dtypes.
    """
    from .._creation import empty
    from .._dtype import uint8

    if input._data.dtype != xp.float32:
        raise RuntimeError("get_mkldnn_dtype: unsupported data type")
    out, hy, cy = lstm_layer(input, weight0, weight1, weight2 if has_biases else None,
                             weight3 if has_biases else None, hx_, cx_, bool(reverse))
    return out, hy, cy, empty(0, dtype=uint8)


def lstm_layer(x: Tensor, w_ih, w_hh, b_ih, b_hh, h0: Tensor, c0: Tensor, reverse: bool = False):
    """One LSTM layer and direction over x [T, B, I] from state (h0, c0) [B, H]: (output, hy, cy).

    Records one MkldnnRnnLayerBackward0 node when grad mode is on and an input requires grad. A dual
    input (forward-mode AD) raises torch's NotImplementedError: torch has no forward formula for it.
    """
    inputs = (x, w_ih, w_hh, b_ih, b_hh, h0, c0)
    if _fw_ad.STATE.active and _fw_ad.has_tangent(inputs):
        raise NotImplementedError(_NO_FORWARD_AD)
    record = _state.enabled and any(t is not None and t._requires_grad for t in inputs)
    out, hy, cy, workspace = _lstm_layer_arrays(
        x._data, w_ih._data, w_hh._data, None if b_ih is None else b_ih._data,
        None if b_hh is None else b_hh._data, h0._data, c0._data, reverse, record,
    )
    if not record:
        return wrap(out), wrap(hy), wrap(cy)
    node = new_node(MkldnnRnnLayerBackward0)
    node.next_functions = tuple([edge(t) for t in inputs])
    node._params = (reverse,)
    node._meta = ((out.shape, out.dtype), (hy.shape, hy.dtype), (cy.shape, cy.dtype))
    results = []
    for nr, arr in enumerate((out, hy, cy)):
        r = wrap(arr, True, node)
        r._output_nr = nr
        results.append(r)
    # saved: the inputs (with their versions, for torch's in-place error), output 0 and the workspace,
    # as torch's node; the engine frees them all after a backward without retain_graph
    node._saved = inputs + (SavedResult(out, results[0]._vc), workspace)
    node._versions = [None if t is None else t._vc[0] for t in inputs] + [0, None]
    if saved_hooks.STACK:  # saved_tensors_hooks: the tensors go through pack (the workspace stays as it is)
        node._saved = saved_hooks.pack_all(node._saved, results[0])
        node._versions = None
        node._packed = True
    return tuple(results)


EXPORTS = {"mkldnn_rnn_layer": mkldnn_rnn_layer}
