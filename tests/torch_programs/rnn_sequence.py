"""Recurrent layers: nn.LSTM and nn.GRU with batch_first, an Embedding, packed shapes."""
import torch
import torch.nn as nn

emb = nn.Embedding(10, 4)
lstm = nn.LSTM(input_size=4, hidden_size=3, num_layers=2, batch_first=True)
gru = nn.GRU(4, 3, batch_first=True, bidirectional=True)
for m in (emb, lstm, gru):
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.4, 0.4, p.numel()).reshape(p.shape) * (1 if i % 2 else -1))
tokens = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
x = emb(tokens)
out, (h, c) = lstm(x)
print(out.shape, h.shape, c.shape)
print(out[:, -1])
g_out, g_h = gru(x)
print(g_out.shape, g_h.shape)
print(g_h)
(out.sum() + g_out.sum()).backward()
print(emb.weight.grad[1:3])
print([n for n, _ in lstm.named_parameters()][:4])
