"""The nn kernel families added for 3-D layers, unpooling, sampling and shuffles, gathered in one tuple
that ``_tensor_methods.FAMILIES`` takes in (so a new family of this group is added here)."""

from __future__ import annotations

from . import channel_ops, embedding_bag, grid_sample, pool3d, resample, unpool

NN_FAMILIES = (pool3d, channel_ops, unpool, grid_sample, embedding_bag, resample)
