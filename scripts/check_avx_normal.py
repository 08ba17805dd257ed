"""Check dyngrad's float32 normal fill against torch's on every possible input (docs/random.md).

torch's float32 ``randn`` of 16 or more values transforms float uniforms ``k * 2**-24`` (k < 2**24) in blocks of 16:
lanes 0-7 are the ``u1`` of the log, lanes 8-15 the ``u2`` of sine and cosine. This script writes torch's generator
state so that its next draws are chosen words (the untempered words in the state array, ``next = 1``,
``left = 624``), 608 at a time, until every k has been the u1 of one lane and the u2 of another; it compares
torch's values with dyngrad's kernel (``_avx_box_muller.normal_fill_16_avx2``, exact) on the same uniforms.

    PYTHONPATH=src .venv/bin/python scripts/check_avx_normal.py      # about a minute; prints the mismatches
"""

from __future__ import annotations

import struct
import sys
import time

import numpy as np
import torch

from dyngrad._avx_box_muller import normal_fill_16_avx2

PER_STATE = 608  # 38 blocks: all drawn before the generator's next twist (623 words)


def untemper(y: np.ndarray) -> np.ndarray:
    """The mt19937 state words whose tempered outputs are ``y``."""
    y = y.astype(np.uint64)
    y ^= y >> np.uint64(18)
    y ^= (y << np.uint64(15)) & np.uint64(0xEFC60000)
    r = y.copy()
    for _ in range(5):
        r = y ^ ((r << np.uint64(7)) & np.uint64(0x9D2C5680))
    y = r & np.uint64(0xFFFFFFFF)
    r = y.copy()
    for _ in range(3):
        r = y ^ (r >> np.uint64(11))
    return r & np.uint64(0xFFFFFFFF)


def main() -> int:
    torch.set_num_threads(1)
    count = 1 << 24
    k = np.arange(count, dtype=np.int64)
    words = np.empty((count // 8, 16), np.int64)
    words[:, :8] = k.reshape(-1, 8)
    words[:, 8:] = ((k * 2654435761) % count).reshape(-1, 8)  # (an odd multiplier: a permutation of all k)
    flat = words.reshape(-1)
    flat = np.concatenate([flat, np.full((-flat.size) % PER_STATE, 777, np.int64)])
    raw = untemper(flat)

    torch.manual_seed(0)
    state = torch.get_rng_state().clone()
    view = state.numpy()
    view[8:24] = np.frombuffer(struct.pack("<iiQ", 624, 1, 1), np.uint8)
    slots = view[24 + 8:24 + 8 + 8 * PER_STATE].view("<u8")
    theirs = np.empty(flat.size, np.float32)
    start = time.time()
    for i in range(flat.size // PER_STATE):
        part = slice(i * PER_STATE, (i + 1) * PER_STATE)
        slots[:] = raw[part]
        torch.set_rng_state(state)
        theirs[part] = torch.randn(PER_STATE).numpy()
    print(f"torch: {time.time() - start:.1f} s")

    ours = (flat & 0xFFFFFF).astype(np.float32) * np.float32(2.0**-24)
    start = time.time()
    normal_fill_16_avx2(ours, exact=True)
    print(f"dyngrad: {time.time() - start:.1f} s")
    bad = np.flatnonzero(ours.view(np.int32) != theirs.view(np.int32))
    print(f"{flat.size} values, {bad.size} differ" + (f": first at {bad[:10].tolist()}" if bad.size else ""))
    return 1 if bad.size else 0


if __name__ == "__main__":
    sys.exit(main())
