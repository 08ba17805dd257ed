"""Issue 5's benchmark rows: training steps of nn models, the same code on dyngrad and torch.

M1: one epoch of a LeNet-style CNN on the digits' shapes (1,347 8x8 images, batch 32, Adam);
M2: an LSTM language-model step (seq 35, batch 20, hidden 200, vocab 100, SGD);
M3: a TransformerEncoderLayer step (seq 64, batch 16, d_model 128, 4 heads, Adam);
M4/M5: a causal TransformerDecoderLayer step (seq 64, batch 16, d_model 128, 8 heads, dim_feedforward 512,
dropout 0, Adam), float32 / float64 (issue 12);
M6/M7: an LSTM step on a packed batch (32 sequences of lengths 1..50, input 64, hidden 128:
pack_padded_sequence -> LSTM -> pad_packed_sequence -> mean of squares -> backward -> SGD), float32 / float64.
Weights are copied from one set of NumPy arrays into both libraries so the check compares the
same computation.
"""

from __future__ import annotations

import numpy as np
from workloads import Workload, _np


def _copy_weights(lib, model, arrays):
    with lib.no_grad():
        for p, a in zip(model.parameters(), arrays):
            p.copy_(lib.tensor(a))


def _weights_like(model_torch, rng):
    return [(rng.standard_normal(tuple(p.shape)) * 0.1).astype(np.float32) for _, p in model_torch.named_parameters()]


# ----------------------------------------------------------------------------- M1: CNN epoch

def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 2 * 2, 64), nn.ReLU(), nn.Linear(64, 10),
    )


def cnn_data(rng):
    import torch

    return {
        "X": rng.random((1344, 1, 8, 8)).astype(np.float32),
        "y": rng.integers(0, 10, 1344).astype(np.int64),
        "w": _weights_like(_cnn(torch), rng),
    }


def _cnn_setup(lib, d):
    model = _cnn(lib)
    _copy_weights(lib, model, d["w"])
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    return model, opt, lib.nn.CrossEntropyLoss(), lib.tensor(d["X"]), lib.tensor(d["y"])


def cnn_make(lib, d):
    model, opt, loss_fn, X, y = _cnn_setup(lib, d)

    def step():
        for i in range(0, X.shape[0], 32):
            opt.zero_grad()
            loss_fn(model(X[i : i + 32]), y[i : i + 32]).backward()
            opt.step()

    return step, None


def cnn_check(lib, d):
    model, opt, loss_fn, X, y = _cnn_setup(lib, d)
    loss = loss_fn(model(X[:32]), y[:32])
    loss.backward()
    return {"loss": _np(loss), "conv1.grad": _np(model[0].weight.grad)}


# ----------------------------------------------------------------------------- M2: LSTM step

SEQ, BATCH, HIDDEN, VOCAB = 35, 20, 200, 100


class _LM:
    """Embedding -> LSTM -> Linear, built for either library."""

    def __init__(self, lib):
        nn = lib.nn
        self.lib = lib
        self.emb, self.lstm, self.out = nn.Embedding(VOCAB, HIDDEN), nn.LSTM(HIDDEN, HIDDEN), nn.Linear(HIDDEN, VOCAB)
        self.modules = nn.ModuleList([self.emb, self.lstm, self.out])

    def loss(self, tokens, targets):
        h, _ = self.lstm(self.emb(tokens))
        return self.lib.nn.functional.cross_entropy(self.out(h).reshape(-1, VOCAB), targets.reshape(-1))


def lstm_data(rng):
    import torch

    return {
        "tokens": rng.integers(0, VOCAB, (SEQ, BATCH)).astype(np.int64),
        "targets": rng.integers(0, VOCAB, (SEQ, BATCH)).astype(np.int64),
        "w": _weights_like(_LM(torch).modules, rng),
    }


def _lstm_setup(lib, d):
    lm = _LM(lib)
    _copy_weights(lib, lm.modules, d["w"])
    return lm, lib.optim.SGD(lm.modules.parameters(), lr=0.1), lib.tensor(d["tokens"]), lib.tensor(d["targets"])


def lstm_make(lib, d):
    lm, opt, tokens, targets = _lstm_setup(lib, d)

    def step():
        opt.zero_grad()
        lm.loss(tokens, targets).backward()
        opt.step()

    return step, None


def lstm_check(lib, d):
    lm, _, tokens, targets = _lstm_setup(lib, d)
    loss = lm.loss(tokens, targets)
    loss.backward()
    return {"loss": _np(loss), "emb.grad": _np(lm.emb.weight.grad)}


# ----------------------------------------------------------------------------- M3: transformer layer

T_SEQ, T_BATCH, D_MODEL = 64, 16, 128


def _layer(lib):
    return lib.nn.TransformerEncoderLayer(D_MODEL, nhead=4, dim_feedforward=256, dropout=0.0, batch_first=True)


def tf_data(rng):
    import torch

    return {"x": rng.standard_normal((T_BATCH, T_SEQ, D_MODEL)).astype(np.float32), "w": _weights_like(_layer(torch), rng)}


def _tf_setup(lib, d):
    layer = _layer(lib)
    _copy_weights(lib, layer, d["w"])
    return layer, lib.optim.Adam(layer.parameters(), lr=1e-3), lib.tensor(d["x"])


def tf_make(lib, d):
    layer, opt, x = _tf_setup(lib, d)

    def step():
        opt.zero_grad()
        layer(x).square().mean().backward()
        opt.step()

    return step, None


def tf_check(lib, d):
    layer, _, x = _tf_setup(lib, d)
    loss = layer(x).square().mean()
    loss.backward()
    return {"loss": _np(loss), "linear1.grad": _np(layer.linear1.weight.grad)}


# ----------------------------------------------------------------------------- M4, M5: transformer decoder layer

DEC_HEADS, DEC_FF = 8, 512


def _decoder(lib, dtype):
    layer = lib.nn.TransformerDecoderLayer(D_MODEL, nhead=DEC_HEADS, dim_feedforward=DEC_FF, dropout=0.0,
                                           batch_first=True)
    return layer.double() if dtype == np.float64 else layer


def _dec_data(dtype):
    def data(rng):
        import torch

        shape = (T_BATCH, T_SEQ, D_MODEL)
        return {"tgt": rng.standard_normal(shape).astype(dtype), "memory": rng.standard_normal(shape).astype(dtype),
                "w": [w.astype(dtype) for w in _weights_like(_decoder(torch, np.float32), rng)]}

    return data


def _dec_setup(lib, d):
    dtype = d["tgt"].dtype.type
    layer = _decoder(lib, dtype)
    _copy_weights(lib, layer, d["w"])
    mask = lib.nn.Transformer.generate_square_subsequent_mask(T_SEQ, dtype=lib.float64 if dtype == np.float64
                                                              else lib.float32)
    return layer, lib.optim.Adam(layer.parameters(), lr=1e-3), lib.tensor(d["tgt"]), lib.tensor(d["memory"]), mask


def _dec_loss(layer, tgt, memory, mask):
    return layer(tgt, memory, tgt_mask=mask, tgt_is_causal=True).square().mean()


def dec_make(lib, d):
    layer, opt, tgt, memory, mask = _dec_setup(lib, d)

    def step():
        opt.zero_grad()
        _dec_loss(layer, tgt, memory, mask).backward()
        opt.step()

    return step, None


def dec_check(lib, d):
    layer, _, tgt, memory, mask = _dec_setup(lib, d)
    loss = _dec_loss(layer, tgt, memory, mask)
    loss.backward()
    return {"loss": _np(loss), "self_attn.in_proj.grad": _np(layer.self_attn.in_proj_weight.grad),
            "linear1.grad": _np(layer.linear1.weight.grad)}


# ----------------------------------------------------------------------------- M6, M7: packed LSTM

P_BATCH, P_MAXLEN, P_IN, P_HIDDEN = 32, 50, 64, 128


def _packed_lstm(lib, dtype):
    lstm = lib.nn.LSTM(P_IN, P_HIDDEN, batch_first=True)
    return lstm.double() if dtype == np.float64 else lstm


def _packed_data(dtype):
    def data(rng):
        import torch

        lengths = np.sort(rng.integers(1, P_MAXLEN + 1, P_BATCH))[::-1].copy()
        lengths[0] = P_MAXLEN
        return {"x": rng.standard_normal((P_BATCH, P_MAXLEN, P_IN)).astype(dtype), "lengths": lengths.astype(np.int64),
                "w": [w.astype(dtype) for w in _weights_like(_packed_lstm(torch, np.float32), rng)]}

    return data


def _packed_setup(lib, d):
    lstm = _packed_lstm(lib, d["x"].dtype.type)
    _copy_weights(lib, lstm, d["w"])
    return lstm, lib.optim.SGD(lstm.parameters(), lr=0.1), lib.tensor(d["x"]), lib.tensor(d["lengths"])


def _packed_loss(lib, lstm, x, lengths):
    rnn = lib.nn.utils.rnn
    out, _ = lstm(rnn.pack_padded_sequence(x, lengths, batch_first=True))
    padded, _ = rnn.pad_packed_sequence(out, batch_first=True)
    return padded.square().mean()


def packed_make(lib, d):
    lstm, opt, x, lengths = _packed_setup(lib, d)

    def step():
        opt.zero_grad()
        _packed_loss(lib, lstm, x, lengths).backward()
        opt.step()

    return step, None


def packed_check(lib, d):
    lstm, _, x, lengths = _packed_setup(lib, d)
    loss = _packed_loss(lib, lstm, x, lengths)
    loss.backward()
    return {"loss": _np(loss), "weight_hh.grad": _np(lstm.weight_hh_l0.grad), "bias_ih.grad": _np(lstm.bias_ih_l0.grad)}


WORKLOADS = {
    w.key: w
    for w in (
        Workload("M1", "digits CNN training epoch (1,344 images, batch 32, Adam)", "epoch", 1, 1.5, cnn_data, cnn_make,
                 cnn_check, rtol=1e-3, atol=1e-4),
        Workload("M2", "LSTM LM step (seq 35, batch 20, hidden 200)", "step", 1, 1.5, lstm_data, lstm_make, lstm_check,
                 rtol=1e-3, atol=1e-4),
        Workload("M3", "TransformerEncoderLayer step (seq 64, batch 16, d_model 128)", "step", 1, 2.0, tf_data,
                 tf_make, tf_check, rtol=1e-3, atol=1e-4),
        Workload("M4", "TransformerDecoderLayer step, causal (seq 64, batch 16, d_model 128, 8 heads, ff 512) float32",
                 "step", 1, 1.5, _dec_data(np.float32), dec_make, dec_check, rtol=1e-3, atol=1e-4),
        Workload("M5", "TransformerDecoderLayer step, causal (seq 64, batch 16, d_model 128, 8 heads, ff 512) float64",
                 "step", 1, 1.5, _dec_data(np.float64), dec_make, dec_check),
        Workload("M6", "packed LSTM step (batch 32, lengths <= 50, input 64, hidden 128) float32", "step", 1, 1.5,
                 _packed_data(np.float32), packed_make, packed_check, rtol=1e-3, atol=1e-4),
        Workload("M7", "packed LSTM step (batch 32, lengths <= 50, input 64, hidden 128) float64", "step", 1, 1.5,
                 _packed_data(np.float64), packed_make, packed_check),
    )
}
