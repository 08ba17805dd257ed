"""The base class of every distribution (torch.distributions.Distribution).

Shapes: a distribution holds a batch of independent distributions (``batch_shape``), each over values
of ``event_shape``; ``sample(sample_shape)`` has shape ``sample_shape + batch_shape + event_shape`` and
``log_prob(value)`` the shape of ``value`` without the event dims.

Validation (torch's default: on, as Python's ``assert``; off under ``python -O`` or with
``validate_args=False`` / ``Distribution.set_default_validate_args(False)``): the constructor checks each
parameter against ``arg_constraints`` and ``log_prob``/``cdf`` check their value's shape and support,
raising ValueError with torch's texts.
"""

from __future__ import annotations

import warnings

import dyngrad

from .._tensor import Size, Tensor
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]

_SCALAR = Size()


class Distribution:
    """Abstract base: subclasses set ``arg_constraints``, ``support`` and implement what they can of
    ``rsample``/``sample``, ``log_prob``, ``cdf``, ``icdf``, ``entropy``, ``mean``, ``mode``, ``variance``,
    ``enumerate_support`` and ``expand``."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution created afterwards without an explicit
        ``validate_args``. Raises ValueError for anything but True or False."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=_SCALAR, event_shape=_SCALAR, validate_args: bool | None = None) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._validate_parameters()
        super().__init__()

    def _validate_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` or "
                "initialize the distribution with `validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # given the other way (logits for probs): nothing to check yet
            value = getattr(self, param)
            if not bool(constraint.check(value).all()):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                    f"but found invalid values:\n{value}"
                )

    def expand(self, batch_shape, _instance=None):
        """A distribution with the batch dims broadcast to ``batch_shape`` (parameters expanded, not copied;
        no new validation)."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers for subclasses
    def _get_checked_instance(self, cls, _instance=None):
        """The instance ``expand`` fills: ``_instance`` when a subclass passes one, else a bare one."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def _finish_expand(self, new, batch_shape, event_shape=None):
        """Initialise an expanded copy (no validation) and give it this distribution's validation flag."""
        Distribution.__init__(new, batch_shape, self.event_shape if event_shape is None else event_shape,
                              validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _expand_params(self, cls, batch_shape, _instance, names, event_shape=None):
        """The common ``expand``: each parameter of ``names`` present on this instance, expanded to
        ``batch_shape`` (plus ``event_shape`` dims when given), on a new instance of ``cls``."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = Size(batch_shape)
        shape = batch_shape if event_shape is None else batch_shape + event_shape
        for name in names:
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(shape))
        return self._finish_expand(new, batch_shape)

    # ------------------------------------------------------------------ shapes and constraints
    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict:
        """Parameter name -> the constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint a value must satisfy to have positive density."""
        raise NotImplementedError

    # ------------------------------------------------------------------ moments
    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """sqrt(variance)."""
        return self.variance.sqrt()

    # ------------------------------------------------------------------ sampling and scoring
    def sample(self, sample_shape=()) -> Tensor:
        """Draws of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        with dyngrad.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()) -> Tensor:
        """Reparameterised draws: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """Deprecated: ``sample((n,))``."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.", FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """log density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """Cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """Inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The values of a discrete distribution along dim 0: shape ``(cardinality,) + batch_shape +
        event_shape``, or with singleton batch dims when ``expand`` is False."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """Entropy, of shape batch_shape."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """exp(entropy)."""
        return dyngrad.exp(self.entropy())

    def _extended_shape(self, sample_shape=()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value) -> None:
        """The checks ``log_prob``/``cdf`` run under validation: a tensor whose rightmost dims match the event
        shape and broadcast with the batch shape, inside the support. Raises ValueError (torch's texts)."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs {self._event_shape}."
            )
        actual = value.size()
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. Please initialize the "
                "distribution with `validate_args=False` to turn off validation.",
                stacklevel=2,
            )
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not bool(support.check(value).all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) "
                f"of the distribution {self!r}, "
                f"but found invalid values:\n{value}"
            )

    def __repr__(self) -> str:
        shown = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for name in shown:
            value = self.__dict__[name]
            parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
