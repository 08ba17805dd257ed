"""Inference tensors: what ``torch.inference_mode()`` makes (torch's "Inference Mode" RFC, pytorch/rfcs#17).

A tensor made inside ``inference_mode()`` is an *inference tensor*: ``is_inference()`` is True, it has no
version counter (``_version`` raises), it may not be changed in place outside inference mode, and
autograd may not save it for backward. Views of an inference tensor are inference tensors; views made
inside the mode of a normal tensor stay normal tensors (they share its version counter).

How dyngrad marks them, without slowing the ops of plain code:
- an inference tensor's ``_vc`` (the version counter shared by a tensor and its views, see _tensor.py)
  is an ``InferenceVersion`` instead of a plain list: ``is_inference()`` is ``type(t._vc) is
  InferenceVersion``, and views inherit it because they share ``_vc`` with their base;
- while some thread is inside inference mode, ``DEPTH`` is positive and two flags that the hot paths
  already read are set: ``forward_ad.STATE.inference`` (folded into the one flag ``registry.apply``
  tests, so ops take its slow path, which marks their results) and ``_tensor._INFERENCE`` (read by
  ``wrap()``, which factories use);
- an in-place op on an inference tensor outside the mode fails on the counter itself
  (``InferenceVersion.__setitem__``), when the op bumps it after writing: torch too writes first and
  raises on bumping the version (``x.add_(1)`` raises and leaves ``x`` changed, in both);
- while an inference tensor is alive, the bit ``anomaly_mode.INFERENCE`` is set in the aids word that
  ``registry.apply`` already reads for every recorded op, and only then is each saved input checked.
"""

from __future__ import annotations

from . import _tensor
from .autograd import anomaly_mode
from .autograd import forward_ad as _fw_ad
from .autograd.grad_mode import _state

INPLACE_ERROR = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)
SAVE_ERROR = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it "
    "in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`."
)
VERSION_ERROR = "Inference tensors do not track version counter."
REQUIRES_GRAD_ERROR = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."

DEPTH = 0  # how many inference_mode(True) blocks are open, over all threads
_live = 0  # how many InferenceVersion counters (storages of inference tensors) are alive


class InferenceVersion(list):
    """The version counter of an inference tensor: it refuses to be bumped outside inference mode.

    It stays a one-element list so that code reading ``t._vc[0]`` works unchanged (inference tensors
    have no version in torch; ``Tensor._version`` raises for them).
    """

    __slots__ = ()

    def __init__(self) -> None:
        global _live
        super().__init__((0,))
        if not _live:
            anomaly_mode._set_bit(anomaly_mode.INFERENCE, True)
        _live += 1

    def __setitem__(self, index, value) -> None:
        if not _state.inference:
            raise RuntimeError(INPLACE_ERROR)
        list.__setitem__(self, index, value)

    def append(self, value) -> None:  # dyngrad.viz.track_origins notes where memory was modified
        if not _state.inference:
            raise RuntimeError(INPLACE_ERROR)
        list.append(self, value)

    def __del__(self) -> None:
        global _live
        _live -= 1
        if not _live and anomaly_mode is not None:  # (None while the interpreter shuts down)
            anomaly_mode._set_bit(anomaly_mode.INFERENCE, False)


def is_inference(t) -> bool:
    """Whether ``t`` is an inference tensor (torch.is_inference / Tensor.is_inference)."""
    if not isinstance(t, _tensor.Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {_tensor._tp_name(t)}")
    return type(t._vc) is InferenceVersion


def mark(t, force: bool = False) -> None:
    """Make the fresh tensor ``t`` an inference tensor when this thread is in inference mode (or ``force``)."""
    if (force or _state.inference) and type(t._vc) is not InferenceVersion:
        t._vc = InferenceVersion()


def mark_all(results):
    """``mark`` each tensor of an op's result (one tensor or a tuple of them); returns ``results``."""
    if isinstance(results, _tensor.Tensor):
        mark(results)
    elif isinstance(results, (tuple, list)):
        for r in results:
            if isinstance(r, _tensor.Tensor):
                mark(r)
    return results


def check_saved(tensors) -> None:
    """torch's refusal to save an inference tensor for backward."""
    for t in tensors:
        if isinstance(t, _tensor.Tensor) and type(t._vc) is InferenceVersion:
            raise RuntimeError(SAVE_ERROR)


def check_op_saves(op, inputs, edges, needed) -> None:
    """Raise SAVE_ERROR when the node ``apply`` is recording for ``op`` would save an inference input."""
    if not op.save_inputs:
        return
    saved = inputs
    if op.save_needs is not None and needed < len(inputs):
        from ._ops.registry import _saved_for_needs

        saved, _ = _saved_for_needs(op, inputs, edges, [None] * len(inputs))
    check_saved(saved)


def enter(mode: bool) -> None:
    """Called by ``inference_mode.__enter__`` after the thread's state is set."""
    global DEPTH
    if mode:
        DEPTH += 1
        _sync()


def leave(mode: bool) -> None:
    global DEPTH
    if mode:
        DEPTH -= 1
        _sync()


def _sync() -> None:
    on = DEPTH > 0
    _tensor._INFERENCE = on
    _fw_ad.STATE.inference = on
    _fw_ad._refresh()


_tensor._inference_mark = mark  # wrap() and Tensor() call it while an inference_mode() block is open
