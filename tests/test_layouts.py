"""torch's layout objects (torch.strided, torch.sparse_coo, ...): dyngrad names them all, makes strided tensors only."""

from __future__ import annotations

import pytest
import torch

import dyngrad

LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged", "_mkldnn"]


@pytest.mark.parametrize("name", LAYOUTS)
def test_layout_objects_as_torch(name):
    t, d = getattr(torch, name), getattr(dyngrad, name)
    assert isinstance(t, torch.layout) and isinstance(d, dyngrad.layout)
    assert (repr(d), str(d)) == (repr(t), str(t))


@pytest.mark.parametrize("window", ["hann", "bartlett", "kaiser", "gaussian", "general_cosine"])
def test_window_refuses_sparse_layout_as_torch(window):
    texts = []
    for lib in (torch, dyngrad):
        fn = getattr(lib.signal.windows, window)
        kwargs = {"a": [0.5, 0.5]} if window == "general_cosine" else {}
        with pytest.raises(ValueError) as info:
            fn(3, layout=lib.sparse_coo, **kwargs)
        texts.append(str(info.value))
    assert texts[1] == texts[0]


@pytest.mark.parametrize("factory", ["zeros", "ones", "empty", "rand", "randn", "eye"])
def test_factory_refuses_a_layout_it_cannot_make(factory):
    # torch makes a sparse tensor here; dyngrad has none to make
    with pytest.raises(NotImplementedError, match=r"^dyngrad has only dense, strided tensors: "
                                                  r"layout=torch\.sparse_csr is not supported$"):
        getattr(dyngrad, factory)(2, layout=dyngrad.sparse_csr)
    assert getattr(dyngrad, factory)(2, layout=dyngrad.strided).layout is dyngrad.strided
