"""AdaptiveLogSoftmaxWithLoss (torch.nn): the adaptive softmax of Grave et al., "Efficient softmax approximation
for GPUs" (2017).

Classes are split by ``cutoffs`` into a shortlist (the frequent classes, scored by the ``head`` together with one
logit per tail cluster) and tail clusters, each scored by a two-layer projection whose hidden size shrinks by
``div_value`` per cluster. The log-probability of a tail class is its cluster's head log-probability plus its
log-probability within the cluster. Parameters, their order and names, the checks and their texts, and the
(output, loss) result are torch's; ``output`` is AddBackward0, ``loss`` the mean of -output (MeanBackward0).
"""

from __future__ import annotations

from collections import namedtuple

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: ``forward(input (N, in_features) or (in_features,), target (N,) or ())`` returns
    ``(output, loss)`` with output the target log-probabilities; ``log_prob`` gives all classes, ``predict``
    the most likely class.

    Raises (torch's texts): ValueError for cutoffs that are empty, unsorted, repeated, not integers or outside
    [1, n_classes - 1]; RuntimeError for batch/dimension mismatches and targets outside [0, n_classes - 1].
    """

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        valid = (cutoffs == sorted(cutoffs) and min(cutoffs) > 0 and max(cutoffs) <= n_classes - 1
                 and len(set(cutoffs)) == len(cutoffs) and all(int(c) == c for c in cutoffs))
        if not valid:
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing order, "
                             "where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, dtype=dtype),
                                        Linear(hidden, width, bias=False, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def _batched(self, input, target):
        tdim = target.dim()
        if tdim == 1:
            if input.size(0) != target.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size {input.size()}")
            return input, target, True
        if tdim == 0:
            if input.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size {input.size()}")
            return input.unsqueeze(0), target.unsqueeze(0), False
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input, target):
        x, t, batched = self._batched(input, target)
        n = t.size(0)
        output = x.new_zeros(n)
        head_index = t.clone()  # the head column each row reads: its class, or its cluster's column
        covered = 0
        bounds = [0] + self.cutoffs
        for c in range(len(bounds) - 1):
            low, high = bounds[c], bounds[c + 1]
            in_range = (t >= low) & (t < high)
            rows = in_range.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            covered += rows.numel()
            if c == 0:
                continue
            head_index = head_index.index_fill(0, rows, self.shortlist_size + c - 1)
            within = F.log_softmax(self.tail[c - 1](x.index_select(0, rows)), dim=1)
            picked = within.gather(1, (t[in_range] - low).unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, picked)
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{t.min().item()}, {t.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(x), dim=1)
        output = output + head_logprob.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, x, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            within = F.log_softmax(self.tail[i](x), dim=1)
            parts.append(within + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        from ... import cat

        return cat(parts, dim=1)

    def log_prob(self, input):
        """Log-probabilities of every class: (N, in_features) -> (N, n_classes) (a 1-D input is torch's IndexError)."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row of ``input`` (N, in_features) -> (N,); as torch's, a 1-D input is an
        IndexError (the argmax runs over dim 1)."""
        from ... import argmax

        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        tail_rows = output >= self.shortlist_size
        if bool(tail_rows.any()):
            full = self._full_log_prob(input[tail_rows], head_output[tail_rows])
            output = output.clone()
            output[tail_rows] = argmax(full, dim=1)
        return output
