"""dyngrad.distributed.nn: the differentiable collectives (``functional``)."""

from . import functional  # noqa: F401
