"""torch's CPU random generator: a Mersenne Twister (mt19937) with torch's draws, state layout and caches.

torch's ``CPUGeneratorImpl`` (aten/src/ATen/CPUGeneratorImpl.cpp, core/MT19937RNGEngine.h) is the classic
mt19937 of Matsumoto and Nishimura, seeded by ``init_genrand`` with the low 32 bits of the seed. Its draws:

- ``random()``: one tempered 32-bit word;
- ``random64()``: two words, the first the high half (``make64BitsFrom32Bits(hi, lo)``);
- a cached second Box-Muller value for the scalar normal path, one for double and one for float draws
  (``next_double_normal_sample`` / ``next_float_normal_sample``); ``manual_seed`` clears both.

NumPy's ``MT19937`` bit generator is the same engine (its ``_legacy_seeding`` is ``init_genrand``), so the
words come from it in bulk, in C; ``Generator.integers(0, 2**32, dtype=uint32)`` returns the raw words
unchanged (a full 32-bit range needs no rejection). NumPy keeps its position as ``pos`` (624 right after
seeding: twist before the next word); torch as ``left``/``next`` with ``left = 625 - next`` (``left == 1``
after seeding). The two convert exactly, which is how ``get_state``/``set_state`` read and write torch's
5056-byte ``CPUGeneratorImplState`` (see ``to_bytes``).
"""

from __future__ import annotations

import struct

import numpy as np

DEFAULT_SEED = 67280421310721  # c10::detail::default_rng_seed_val, the seed of a fresh torch.Generator
STATE_SIZE = 5056
_N = 624
# torch's CPUGeneratorImplState (legacy THGeneratorState, then the float normal cache):
# uint64 the_initial_seed; int left; int seeded; uint64 next; uint64 state[624];
# double normal_x, normal_y, normal_rho; int normal_is_valid; (4 pad) float next_float_normal_sample;
# bool is_next_float_normal_sample_valid; (3 pad)
_HEAD = struct.Struct("<QiiQ")
_TAIL = struct.Struct("<dddi4xf?3x")
_U32 = np.uint32


class MT19937Stream:
    """One torch CPU generator's state: the engine, the initial seed and the two normal caches."""

    __slots__ = ("_bits", "_draw", "seed", "next_double_normal", "next_float_normal", "_next_at_end")

    def __init__(self, seed: int = DEFAULT_SEED) -> None:
        self._bits = np.random.MT19937()
        self._draw = np.random.Generator(self._bits)
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> None:
        """torch's ``set_current_seed``: the engine from the seed's low 32 bits, caches cleared."""
        self.seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        self._bits._legacy_seeding(self.seed & 0xFFFFFFFF)
        self.next_double_normal = None
        self.next_float_normal = None
        # torch's ``next`` when a twist is due: 0 right after seeding, 624 once the words ran out (NumPy's
        # state cannot tell the two apart; only the bytes of get_state show it)
        self._next_at_end = 0

    # ------------------------------------------------------------------ raw draws
    def words(self, n: int) -> np.ndarray:
        """``n`` successive ``random()`` draws (uint32)."""
        if n:
            self._next_at_end = _N
        return self._draw.integers(0, 1 << 32, size=n, dtype=_U32)

    def random(self) -> int:
        self._next_at_end = _N
        return int(self._draw.integers(0, 1 << 32, dtype=_U32))

    def words64(self, n: int) -> np.ndarray:
        """``n`` successive ``random64()`` draws (uint64): two words each, the first the high half."""
        # two little-endian words (hi, lo) read as one uint64 are lo + hi << 32: swap the halves by a view
        w = self.words(2 * n).reshape(n, 2)[:, ::-1]
        return np.ascontiguousarray(w).view(np.uint64).reshape(n)

    def random64(self) -> int:
        hi, lo = self.words(2)
        return (int(hi) << 32) | int(lo)

    # ------------------------------------------------------------------ the state as torch's bytes
    def to_bytes(self) -> bytes:
        st = self._bits.state["state"]
        pos = int(st["pos"])
        nxt, left = (self._next_at_end, 1) if pos >= _N else (pos, _N + 1 - pos)
        key = np.asarray(st["key"], dtype=np.uint64)
        dn, fn = self.next_double_normal, self.next_float_normal
        return b"".join((
            _HEAD.pack(self.seed, left, 1, nxt), key.astype("<u8").tobytes(),
            _TAIL.pack(0.0, dn if dn is not None else 0.0, 0.0, dn is not None,
                       fn if fn is not None else 0.0, fn is not None),
        ))

    def from_bytes(self, raw: bytes) -> None:
        seed, left, _seeded, nxt = _HEAD.unpack_from(raw, 0)
        key = np.frombuffer(raw, dtype="<u8", count=_N, offset=_HEAD.size).astype(np.uint32)
        _x, normal_y, _rho, normal_valid, fnormal, fvalid = _TAIL.unpack_from(raw, _HEAD.size + 8 * _N)
        pos = _N if left <= 1 else _N + 1 - left
        self._next_at_end = nxt if left <= 1 else _N
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": pos}}
        self.seed = seed
        self.next_double_normal = normal_y if normal_valid else None
        self.next_float_normal = float(np.float32(fnormal)) if fvalid else None

    def copy_from(self, other: MT19937Stream) -> None:
        self.from_bytes(other.to_bytes())
