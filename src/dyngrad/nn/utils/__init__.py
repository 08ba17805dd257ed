"""dyngrad.nn.utils (torch.nn.utils): gradient clipping, parameter/vector conversion, ``rnn`` (padding and packed
sequences), ``parametrize`` / ``parametrizations``, the hook-based weight_norm / spectral_norm, ``stateless``,
``fusion`` and ``skip_init``."""

from __future__ import annotations

from . import fusion, parametrizations, parametrize, rnn, stateless
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm


def convert_conv2d_weight_memory_format(module, memory_format):
    """torch.nn.utils.convert_conv2d_weight_memory_format: dyngrad keeps every tensor row-major (one memory
    format), so the module is returned as it is, as torch returns it after converting."""
    return module


def convert_conv3d_weight_memory_format(module, memory_format):
    """torch.nn.utils.convert_conv3d_weight_memory_format: the module as it is (see the 2-d one)."""
    return module


from ..._tensor import memory_format as _memory_format  # noqa: E402

memory_format = _memory_format  # torch.nn.utils exposes the type too

__all__ = ["rnn", "parametrize", "parametrizations", "stateless", "fusion", "clip_grad_norm", "clip_grad_norm_",
           "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm", "parameters_to_vector",
           "vector_to_parameters", "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "spectral_norm", "remove_spectral_norm", "weight_norm",
           "remove_weight_norm", "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
