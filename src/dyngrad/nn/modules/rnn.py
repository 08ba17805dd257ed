"""Recurrent layers (torch.nn.RNN, LSTM, GRU and their cells).

Parameter names, shapes, gate order (LSTM: input, forget, cell, output; GRU: reset, update, new)
and the equations are torch's (see the torch.nn.LSTM / GRU docs); initialisation is torch's,
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)) for every weight and bias.

The graph is torch's CPU graph. A float32 LSTM runs each layer and direction as one fused node,
``MkldnnRnnLayerBackward0`` (src/dyngrad/_ops/rnn.py: the time loop and backpropagation through
time on arrays), as torch's oneDNN kernel does; h_n and c_n stack the layers' final states
(``StackBackward0``), a bidirectional layer concatenates its directions (``CatBackward0``). Every
other case (float64, GRU, RNN, the cells) is a loop over time of linear maps and pointwise gates,
as torch's native path, so its output shows ``StackBackward0`` over the per-step ops.
"""

from __future__ import annotations

import math
import warnings

from ... import _creation
from ..._backend import xp
from ..._ops.indexing import slice_view
from ..._ops.join_split import cat, stack
from ..._ops.rnn import lstm_layer
from ..._ops.shape_extras import unsafe_chunk
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _rnn_tanh_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    return (F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)).tanh()


def _rnn_relu_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    return (F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)).relu()


def _lstm_cell(x, state, w_ih, w_hh, b_ih, b_hh):
    h, c = state
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


def _gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    gi = F.linear(x, w_ih, b_ih)
    gh = F.linear(h, w_hh, b_hh)
    i_r, i_z, i_n = gi.chunk(3, 1)
    h_r, h_z, h_n = gh.chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return (1 - z) * n + z * h


_CELLS = {"RNN_TANH": _rnn_tanh_cell, "RNN_RELU": _rnn_relu_cell, "LSTM": _lstm_cell, "GRU": _gru_cell}


def _lstm_cell_projected(x_proj, state, w_hh, b_hh):
    """aten's LSTMCell with its input projection precomputed (``pre_compute_input``): the gates are
    linear_hh(h) + x_proj (AddBackward0), cut by unsafe_chunk (UnsafeSplitBackward0), as torch's graph."""
    h, c = state
    gates = F.linear(h, w_hh, b_hh) + x_proj
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


_warned_projections = False


def _warn_projections_once() -> None:
    """torch's oneDNN LSTM kernel (float32) warns once per process that it cannot project."""
    global _warned_projections
    if not _warned_projections:
        _warned_projections = True
        warnings.warn(
            "LSTM with projections is not supported with oneDNN. Using default implementation. (Triggered "
            "internally at /__w/pytorch/pytorch/aten/src/ATen/native/RNN.cpp:1512.)",
            UserWarning,
            stacklevel=4,
        )


def _projecting(w_hr):
    """The projected-input LSTM cell followed by aten's projection of h: ``matmul(h, w_hr.t())``."""

    def cell(x_proj, state, w_hh, b_hh):
        h, c = _lstm_cell_projected(x_proj, state, w_hh, b_hh)
        return h.matmul(w_hr.t()), c

    return cell


def _projected_lstm_direction(layer_input, state, w, w_hr, reverse):
    """One layer and direction of an LSTM with projections (proj_size > 0), as aten's default (not oneDNN)
    layer: the input projected for all steps at once and unbound, then per step the cell and h @ w_hr^T
    (h has proj_size features, c hidden_size); h_t = W_hr (o_t * tanh(c_t)) (the PyTorch LSTM documentation)."""
    w_ih, w_hh, b_ih, b_hh = w
    x_proj = F.linear(layer_input, w_ih, b_ih).unbind(0)
    cell = _projecting(w_hr)
    seq_len = len(x_proj)
    out = [None] * seq_len
    for t in (range(seq_len - 1, -1, -1) if reverse else range(seq_len)):
        state = cell(x_proj[t], state, w_hh, b_hh)
        out[t] = state[0]
    return stack(out, 0), state


class RNNBase(Module):
    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__()
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an element being "
                "zeroed"
            )
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size  # an LSTM's h (and output) has proj_size features
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_creation.empty(shape, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer: int, direction: int):
        suffix = "_reverse" if direction == 1 else ""
        get = self._parameters.get
        return (get(f"weight_ih_l{layer}{suffix}"), get(f"weight_hh_l{layer}{suffix}"),
                get(f"bias_ih_l{layer}{suffix}"), get(f"bias_hh_l{layer}{suffix}"))

    def _w_hr(self, layer: int, direction: int):
        return self._parameters.get(f"weight_hr_l{layer}{'_reverse' if direction == 1 else ''}")

    def _h_zeros(self, c_zeros):
        """The initial h: c's zeros, or narrower ones (proj_size features) for an LSTM with projections."""
        if not self.proj_size:
            return c_zeros
        return _creation.zeros(*c_zeros.shape[:2], self.proj_size, dtype=c_zeros.dtype)

    def _check_forward_args(self, input, hx) -> None:
        """torch's RNNBase.check_forward_args: input dtype and size, then each hidden state's shape
        (``input`` is 3-D here, time first or batch first as given)."""
        w = self._parameters[self._flat_weights_names[0]]
        if input.dtype != w.dtype:
            raise ValueError(
                f"RNN input dtype ({input.dtype}) does not match weight dtype ({w.dtype}). "
                f"Convert input: input.to({w.dtype}), or convert model: model.to({input.dtype})"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}"
            )
        batch = input.shape[0] if self.batch_first else input.shape[1]
        expected = ((2 if self.bidirectional else 1) * self.num_layers, batch, self.hidden_size)
        expected_h = expected[:2] + (self.proj_size or self.hidden_size,)
        states = ((hx[0], "Expected hidden[0] size", expected_h), (hx[1], "Expected hidden[1] size", expected)) \
            if self.mode == "LSTM" else ((hx, "Expected hidden size", expected),)
        for h, text, want in states:
            if tuple(h.shape) != want:
                raise RuntimeError(f"{text} {want}, got {list(h.shape)}")
        if input.shape[1 if self.batch_first else 0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        is_lstm = self.mode == "LSTM"
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            # torch's texts: the RNN class alone says "tensor instead"
            kind = "RNN" if self.mode.startswith("RNN") else self.mode
            tail = "D tensor instead" if kind == "RNN" else "D instead"
            raise ValueError(f"{kind}: Expected input to be 2D or 3D, got {input.dim()}{tail}")
        if hx is not None:  # torch checks the states' ranks against the input's before anything else
            if is_lstm:
                want = 3 if batched else 2
                if hx[0].dim() != want or hx[1].dim() != want:
                    raise RuntimeError(
                        f"For {'batched 3-D' if batched else 'unbatched 2-D'} input, hx and cx should also be "
                        f"{want}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors"
                    )
            elif batched and hx.dim() != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
            elif not batched and hx.dim() != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            if hx is not None:
                hx = tuple(h.unsqueeze(1) for h in hx) if is_lstm else hx.unsqueeze(1)
        num_directions = 2 if self.bidirectional else 1
        if hx is None:
            batch = input.shape[0] if self.batch_first else input.shape[1]
            zeros = _creation.zeros(self.num_layers * num_directions, batch, self.hidden_size, dtype=input.dtype)
            hx = (self._h_zeros(zeros), zeros) if is_lstm else zeros
        self._check_forward_args(input, hx)
        if self.batch_first:
            input = input.transpose(0, 1)
        seq_len = input.shape[0]
        cell = _CELLS[self.mode]
        # torch runs float32 LSTMs through its fused oneDNN layer kernel (one MkldnnRnnLayerBackward0
        # node per layer and direction) and every other case step by step; dyngrad does the same
        fused = is_lstm and input._data.dtype == xp.float32 and input._data.size != 0
        if fused and self.proj_size:
            fused = False
            _warn_projections_once()
        if fused and (hx[0]._data.dtype != xp.float32 or hx[1]._data.dtype != xp.float32):
            if hx[0]._data.dtype == xp.float16 or hx[1]._data.dtype == xp.float16:
                raise RuntimeError(
                    "could not create a primitive descriptor for the LSTM forward propagation primitive. Run "
                    "workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic information."
                )
            raise RuntimeError("get_mkldnn_dtype: unsupported data type")  # torch's oneDNN kernel's text
        layer_input = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                state = (hx[0][idx], hx[1][idx]) if is_lstm else hx[idx]
                w = self._weights(layer, direction)
                if self.proj_size:
                    out, state = _projected_lstm_direction(layer_input, state, w, self._w_hr(layer, direction),
                                                           reverse=direction == 1)
                    outputs.append(out)
                    h_n.append(state[0])
                    c_n.append(state[1])
                    continue
                if fused:
                    out, hy, cy = lstm_layer(layer_input, *w, *state, reverse=direction == 1)
                    outputs.append(out)
                    h_n.append(hy)
                    c_n.append(cy)
                    continue
                steps = range(seq_len - 1, -1, -1) if direction == 1 else range(seq_len)
                out = [None] * seq_len
                for t in steps:
                    state = cell(layer_input[t], state, *w)
                    out[t] = state[0] if is_lstm else state
                outputs.append(stack(out, 0))
                if is_lstm:
                    h_n.append(state[0])
                    c_n.append(state[1])
                else:
                    h_n.append(state)
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_n = stack(h_n, 0)
        hidden = (h_n, stack(c_n, 0)) if is_lstm else h_n
        if not batched:
            output = output.squeeze(1)
            hidden = tuple(h.squeeze(1) for h in hidden) if is_lstm else hidden.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, hidden


    def _forward_packed(self, packed, hx):
        """A PackedSequence input: step t runs the first batch_sizes[t] sequences (torch's packed path).

        hx is given in the original batch order and permuted by ``sorted_indices``; a sequence's final
        state is its state after its last step; the output is a PackedSequence of the same layout and the
        states come back in the original order (``unsorted_indices``). Step by step (no fused kernel).
        """
        is_lstm = self.mode == "LSTM"
        data, sizes = packed.data, [int(n) for n in packed.batch_sizes.tolist()]
        batch, num_directions = sizes[0], 2 if self.bidirectional else 1
        if hx is None:
            zeros = _creation.zeros(self.num_layers * num_directions, batch, self.hidden_size, dtype=data.dtype)
            hx = (self._h_zeros(zeros), zeros) if is_lstm else zeros
        elif packed.sorted_indices is not None:
            idx = packed.sorted_indices
            hx = tuple(h.index_select(1, idx) for h in hx) if is_lstm else hx.index_select(1, idx)
        probe = (batch, 1) if self.batch_first else (1, batch)  # an input of the packed batch's shape
        self._check_forward_args(_creation.empty(*probe, data.shape[-1], dtype=data.dtype), hx)
        offsets = [0]
        for n in sizes:
            offsets.append(offsets[-1] + n)
        cell = _CELLS[self.mode]
        layer_input = data
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                init_state = (hx[0][idx], hx[1][idx]) if is_lstm else (hx[idx],)
                w = self._weights(layer, direction)
                out, final = _packed_direction(cell, layer_input, sizes, offsets, init_state, w, is_lstm,
                                               reverse=direction == 1, w_hr=self._w_hr(layer, direction))
                outputs.append(out)
                h_n.append(final[0])
                if is_lstm:
                    c_n.append(final[1])
            layer_input = outputs[0] if num_directions == 1 else cat(outputs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        h = stack(h_n, 0)
        hidden = (h, stack(c_n, 0)) if is_lstm else h
        if packed.unsorted_indices is not None:
            un = packed.unsorted_indices
            hidden = tuple(t.index_select(1, un) for t in hidden) if is_lstm else hidden.index_select(1, un)
        return PackedSequence(layer_input, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices), hidden


def _packed_direction(cell, data, sizes, offsets, init_state, w, is_lstm, reverse, w_hr=None):
    """One layer and direction over packed rows: (packed outputs, final state per sequence in sorted order).

    An LSTM projects every packed row by W_ih first (one AddmmBackward0 over all rows), and each step reads
    its rows of that projection (SliceBackward0), as aten's packed LSTM layer: one small product per step
    instead of two, and torch's graph.
    """
    steps = len(sizes)
    outs = [None] * steps
    if is_lstm:
        w_ih, w_hh, b_ih, b_hh = w
        proj = F.linear(data, w_ih, b_ih)
        data, w = proj, (w_hh, b_hh)
        cell = _lstm_cell_projected if w_hr is None else _projecting(w_hr)
    if not reverse:
        state = init_state
        done = []  # final states of sequences that ended, latest first
        for t in range(steps):
            n = sizes[t]
            if state[0].shape[0] > n:  # sequences n.. ended at step t - 1
                done.append(tuple(slice_view(s, 0, n, s.shape[0]) for s in state))
                state = tuple(slice_view(s, 0, 0, n) for s in state)
            x = slice_view(data, 0, offsets[t], offsets[t + 1])  # x[a:b] (SliceBackward0), without parsing a key
            state = cell(x, state if is_lstm else state[0], *w)
            state = state if is_lstm else (state,)
            outs[t] = state[0]
        pieces = [state] + done[::-1]
        final = tuple(cat([p[i] for p in pieces], 0) if len(pieces) > 1 else pieces[0][i]
                      for i in range(len(state)))
    else:
        state = tuple(s[:sizes[-1]] for s in init_state)
        for t in range(steps - 1, -1, -1):
            n = sizes[t]
            if state[0].shape[0] < n:  # sequences join at their last step, from the initial state
                state = tuple(cat([s, s0[s.shape[0]:n]], 0) for s, s0 in zip(state, init_state))
            x = slice_view(data, 0, offsets[t], offsets[t + 1])
            state = cell(x, state if is_lstm else state[0], *w)
            state = state if is_lstm else (state,)
            outs[t] = state[0]
        final = state
    return cat(outs, 0), final


def _no_projection(kwargs) -> None:
    """RNN and GRU refuse proj_size (torch's text); other unknown keywords get RNNBase's TypeError, as torch's."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"RNNBase.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, nonlinearity: str = "tanh",
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs) -> None:
        _no_projection(kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False, proj_size: int = 0,
                 device=None, dtype=None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, dtype=dtype)


class GRU(RNNBase):
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 device=None, dtype=None, **kwargs) -> None:
        _no_projection(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         dtype=dtype)


class RNNCellBase(Module):
    _mode = ""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, dtype=None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_creation.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(_creation.empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _check_cell_args(self, input, states) -> None:
        """aten's check_rnn_cell_forward_input / _hidden, on the 2-D (batched) input and states."""
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for label, h in enumerate(states):
            if input.shape[0] != h.shape[0]:
                raise RuntimeError(
                    f"Input batch size {input.shape[0]} doesn't match hidden{label} batch size {h.shape[0]}"
                )
            if h.size(1) != self.hidden_size:
                raise RuntimeError(
                    f"hidden{label} has inconsistent hidden_size: got {h.size(1)}, expected {self.hidden_size}"
                )

    def forward(self, input, hx=None):
        kind = f"{self._mode}Cell"  # torch's texts name the base cell class, not a subclass
        if input.dim() not in (1, 2):
            raise ValueError(f"{kind}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        is_lstm = self._mode == "LSTM"
        if hx is not None:
            for idx, h in enumerate(hx if is_lstm else (hx,)):
                if h.dim() not in (1, 2):
                    what = f"hx[{idx}]" if is_lstm else "hidden"
                    raise ValueError(f"{kind}: Expected {what} to be 1D or 2D, got {h.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
            if hx is not None:
                hx = tuple(h.unsqueeze(0) for h in hx) if is_lstm else hx.unsqueeze(0)
        if hx is None:
            zeros = _creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
            hx = (zeros, zeros) if is_lstm else zeros
        self._check_cell_args(input, hx if is_lstm else (hx,))
        mode = self._mode if self._mode != "RNN" else ("RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH")
        out = _CELLS[mode](input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if is_lstm else out.squeeze(0)
        return out


class RNNCell(RNNCellBase):
    _mode = "RNN"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTMCell(RNNCellBase):
    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, dtype=dtype)


class GRUCell(RNNCellBase):
    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, dtype=dtype)
