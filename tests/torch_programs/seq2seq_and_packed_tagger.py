"""A seq2seq nn.Transformer training step with causal and padding masks, and a packed-LSTM tagger."""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence


def fill(module):
    # deterministic weights (no dependence on the random stream)
    with torch.no_grad():
        for i, p in enumerate(module.parameters()):
            p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape).sin() * (1 if i % 2 else -1))


class Seq2Seq(nn.Module):
    def __init__(self, vocab=11, d=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.tr = nn.Transformer(d, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                                 dropout=0.0, batch_first=True)
        self.out = nn.Linear(d, vocab)

    def forward(self, src, tgt):
        mask = nn.Transformer.generate_square_subsequent_mask(tgt.size(1))
        h = self.tr(self.emb(src), self.emb(tgt), tgt_mask=mask, src_key_padding_mask=src == 0,
                    memory_key_padding_mask=src == 0, tgt_is_causal=True)
        return self.out(h)


model = Seq2Seq()
fill(model)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
src = torch.tensor([[1, 2, 3, 4, 0], [5, 6, 7, 0, 0]])
tgt = torch.tensor([[1, 3, 5, 7], [2, 4, 6, 8]])
for step in range(3):
    logits = model(src, tgt[:, :-1])
    loss = nn.functional.cross_entropy(logits.reshape(-1, 11), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(logits.shape, logits.grad_fn.name())
print(torch.nn.functional.scaled_dot_product_attention(torch.ones(1, 2, 3, 4), torch.ones(1, 2, 3, 4),
                                                       torch.arange(24.).reshape(1, 2, 3, 4), is_causal=True).round(decimals=3))


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4, padding_idx=0)
        self.lstm = nn.LSTM(4, 3, batch_first=True, bidirectional=True)
        self.head = nn.Linear(6, 5)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.emb(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, (h, c) = self.lstm(packed)
        padded, lens = pad_packed_sequence(out, batch_first=True)
        return self.head(padded), lens, h


tagger = Tagger()
fill(tagger)
tokens = torch.tensor([[1, 2, 0, 0], [3, 4, 5, 6], [7, 8, 9, 0]])
lengths = torch.tensor([2, 4, 3])
tags = torch.tensor([[1, 2, -100, -100], [3, 4, 0, 1], [2, 2, 3, -100]])
sgd = torch.optim.SGD(tagger.parameters(), lr=0.1)
for step in range(3):
    scores, lens, h = tagger(tokens, lengths)
    loss = nn.functional.cross_entropy(scores.reshape(-1, 5), tags.reshape(-1))
    sgd.zero_grad()
    loss.backward()
    sgd.step()
    print(step, round(loss.item(), 5), lens.tolist(), tuple(h.shape))
print(scores[1].argmax(-1))
