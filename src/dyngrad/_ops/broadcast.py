"""Broadcast shape checking with torch's error text."""

from __future__ import annotations


def broadcast_shape(s1: tuple, s2: tuple) -> tuple:
    """The broadcast of two shapes.

    Raises:
        RuntimeError: "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1".
    """
    n = max(len(s1), len(s2))
    out = [0] * n
    for i in reversed(range(n)):  # torch reports the last mismatching dim first
        x = s1[i - n + len(s1)] if i - n + len(s1) >= 0 else 1
        y = s2[i - n + len(s2)] if i - n + len(s2) >= 0 else 1
        if x != y and x != 1 and y != 1:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton dimension {i}"
            )
        out[i] = y if x == 1 else x
    return tuple(out)
