"""Batching for ``dyngrad.func.vmap``: batched arrays, their rules and their autograd (see docs/func.md).

- ``array``: ``BatchedArray``, the array under a batched tensor, and NumPy's ufuncs on it;
- ``rules_*``: the batching rules of NumPy's functions (reductions, shape, indexing, linear algebra ...);
- ``context``: the state of the active vmaps (levels, randomness, the batched array namespace);
- ``dispatch``: ``registry.apply``'s path for ops with batched inputs, and the autograd nodes it records;
- ``tensors``: batched tensors (adding and removing a batch dim, the layout of gradients).
"""
