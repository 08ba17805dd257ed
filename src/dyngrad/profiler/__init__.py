"""torch.profiler's basics on dyngrad's CPU profiler (dyngrad/autograd/profiler.py).

``profile(activities=[ProfilerActivity.CPU])`` records what ``torch.autograd.profiler.profile`` records;
``schedule`` and ``step()`` are accepted (``schedule(wait, warmup, active, repeat, skip_first)`` gives
torch's ``ProfilerAction`` per step), and ``on_trace_ready`` is called with the profiler when it stops.
Device activities other than the CPU are accepted and record nothing (dyngrad computes on the CPU).
"""

from __future__ import annotations

import enum

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "kineto_available", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """torch.profiler.ProfilerActivity's members (only CPU activity is recorded)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a ``schedule`` asks of the profiler at a step (torch.profiler.ProfilerAction)."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def kineto_available() -> bool:
    """torch's Kineto backend is not part of dyngrad (its profiler is dyngrad/autograd/profiler.py)."""
    return False


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False):
    """An ``on_trace_ready`` that writes each trace to ``dir_name/<worker_name>.<ms since epoch>.pt.trace.json``
    (``.gz`` with ``use_gzip``), as torch's; ``worker_name`` defaults to ``<hostname>_<pid>``."""
    import gzip
    import os
    import socket
    import tempfile
    import time

    def handler(prof) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{name}.{int(time.time() * 1000)}.pt.trace.json")
        if not use_gzip:
            prof.export_chrome_trace(path)
            return
        with tempfile.TemporaryDirectory() as tmp:
            plain = os.path.join(tmp, "trace.json")
            prof.export_chrome_trace(plain)
            with open(plain, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                dst.write(src.read())

    return handler


def supported_activities() -> set:
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0):
    """torch.profiler.schedule: the action for step ``n`` of cycles of wait, warmup and active steps."""
    if warmup < 0 or active <= 0 or wait < 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        import warnings

        warnings.warn("Profiler won't be using warmup, this can skew profiler results", stacklevel=2)

    def schedule_fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait and step < wait:
            return ProfilerAction.NONE
        num_steps = wait + warmup + active
        if repeat > 0 and step / num_steps >= repeat:
            return ProfilerAction.NONE
        mod_step = step % num_steps
        if mod_step < wait:
            return ProfilerAction.NONE
        if mod_step < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if mod_step < num_steps - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class profile(_autograd_profiler.profile):
    """torch.profiler.profile on the CPU: ``with profile(activities=[ProfilerActivity.CPU]) as prof: ...``.

    With a ``schedule``, only the steps it marks RECORD / RECORD_AND_SAVE are recorded (``prof.step()``
    advances); ``on_trace_ready(prof)`` runs at each RECORD_AND_SAVE step and when the profiler stops.
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None, record_shapes: bool = False,
                 profile_memory: bool = False, with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config=None, execution_trace_observer=None,
                 acc_events: bool = False, use_cuda=None, custom_trace_id_callback=None,
                 post_processing_timeout_s=None) -> None:
        super().__init__(record_shapes=record_shapes, with_flops=with_flops, profile_memory=profile_memory,
                         with_stack=with_stack, with_modules=with_modules)
        self.activities = set(activities) if activities else supported_activities()
        self.schedule = schedule if schedule is not None else _always_record
        self.on_trace_ready = on_trace_ready
        self.step_num = 0
        self._recording = False

    def _sync(self) -> None:
        action = self.schedule(self.step_num)
        want = action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if want and not self._recording:
            self._start()
            self._recording = True
        elif not want and self._recording:
            self._finish()

    def _finish(self) -> None:
        self._stop()
        self._recording = False
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def start(self) -> None:
        self._sync()

    def stop(self) -> None:
        if self._recording:
            self._finish()

    def step(self) -> None:
        prev = self.schedule(self.step_num)
        self.step_num += 1
        if prev == ProfilerAction.RECORD_AND_SAVE and self._recording:
            self._finish()
        self._sync()

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
