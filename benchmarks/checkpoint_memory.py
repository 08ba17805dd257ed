"""Memory held between forward and backward with and without activation checkpointing.

A 16-layer tanh MLP (width 512, batch 256, float32). For each library the bytes of
tensors saved for backward are counted with saved_tensors_hooks (the same hook API in
both), once for the plain model and once with each 4-layer block checkpointed; the
gradients are checked to be the same. Run: python benchmarks/checkpoint_memory.py
"""

from __future__ import annotations

import importlib
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))

import numpy as np  # noqa: E402

LAYERS, WIDTH, BATCH, BLOCK = 16, 512, 256, 4


def run(lib, use_checkpoint: bool):
    checkpoint = importlib.import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
    rng = np.random.default_rng(0)
    weights = [lib.tensor((rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32), requires_grad=True)
               for _ in range(LAYERS)]
    x = lib.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    saved = []

    def pack(t):
        saved.append(t.numel() * t.element_size())
        return t

    def block(h, ws):
        for w in ws:
            h = (h @ w).tanh()
        return h

    with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        h = x
        for i in range(0, LAYERS, BLOCK):
            ws = weights[i : i + BLOCK]
            if use_checkpoint:
                h = checkpoint(lambda a, ws=ws: block(a, ws), h, use_reentrant=False)
            else:
                h = block(h, ws)
        loss = h.square().mean()
    held = sum(saved)
    loss.backward()
    return held, np.stack([w.grad.detach().numpy() for w in weights])


def main() -> None:
    import torch

    import dyngrad

    rows = []
    for lib in (dyngrad, torch):
        plain, g_plain = run(lib, False)
        ckpt, g_ckpt = run(lib, True)
        assert np.allclose(g_plain, g_ckpt, rtol=1e-4, atol=1e-6), f"{lib.__name__}: checkpointed gradients differ"
        rows.append((lib.__name__, plain, ckpt))
    print(f"{LAYERS}-layer tanh MLP, width {WIDTH}, batch {BATCH}, float32; checkpoint every {BLOCK} layers")
    print("| library | saved for backward | with checkpoint | ratio |")
    print("|---|---:|---:|---:|")
    for name, plain, ckpt in rows:
        print(f"| {name} | {plain / 2**20:.1f} MiB | {ckpt / 2**20:.1f} MiB | {ckpt / plain:.2f} |")


if __name__ == "__main__":
    main()
