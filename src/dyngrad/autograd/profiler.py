"""A CPU profiler with torch's interface (torch.autograd.profiler.profile, record_function).

What it records, while a ``profile`` block is open:
- every op run through ``registry.apply`` / ``apply_multi``, named as torch's operator
  (``aten::addmm`` for ``AddmmBackward0``: ``aten_key``), with its CPU time. The hook costs plain
  code nothing: ``forward_ad.STATE.profiling`` joins the one flag ``apply`` already tests, and only then
  do ops take the slow path that times them (``record_op``);
- every node the backward engine runs, as torch names it: ``autograd::engine::evaluate_function:
  AddmmBackward0`` around ``AddmmBackward0`` (``torch::autograd::AccumulateGrad`` for leaves), through
  the engine's observer hook (engine.OBSERVERS), so the engine's loop is unchanged;
- ``record_function`` ranges, including the ones optimizers open (``Optimizer.step#SGD.step``,
  ``Optimizer.zero_grad#SGD.zero_grad``, as torch's).

Times are ``time.perf_counter_ns`` in microseconds, as torch reports them. After the block, events
nest by their intervals (an event's children are the events inside it, torch's rule), which gives
self times: ``self_cpu_time_total = cpu_time_total - sum of the children's cpu_time_total``.
``key_averages()`` groups events by name into ``FunctionEventAvg`` rows with torch's field names, and
``table()`` prints them in torch's layout (torch.autograd.profiler_util._build_table's columns, widths
and time formats). What dyngrad does not record: ops outside ``apply`` (in-place updates written on
arrays, such as an optimizer's parameter update), torch's composite ops (``aten::linear`` around
``aten::t`` + ``aten::addmm``) and the ops torch runs inside its kernels; so counts agree with torch's
for the ops both run, not for every key.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import OrderedDict

from . import engine
from . import forward_ad as _fw_ad

_now = time.perf_counter_ns
_STACK: list = []  # the open profiles (the innermost records)

# dyngrad op classes whose torch operator name is not the snake_case of the class name (aten_key)
_ATEN_NAMES = {
    "UnsafeViewBackward0": "aten::_unsafe_view",
    "SoftmaxBackward0": "aten::_softmax",
    "LogSoftmaxBackward0": "aten::_log_softmax",
    "ToCopyBackward0": "aten::_to_copy",
    "NativeLayerNormBackward0": "aten::native_layer_norm",
    "NativeBatchNormBackward0": "aten::native_batch_norm",
    "ConvolutionBackward0": "aten::convolution",
}
_KEYS: dict = {}


def aten_key(op: type) -> str:
    """torch's profiler name for the op class ``op``: ``AddmmBackward0`` -> ``aten::addmm``."""
    key = _KEYS.get(op)
    if key is None:
        name = op.__name__
        key = _ATEN_NAMES.get(name)
        if key is None:
            stem = re.sub(r"Backward\d*$", "", name)
            key = "aten::" + re.sub(r"(?<!^)(?=[A-Z])", "_", stem).lower()
        _KEYS[op] = key
    return key


def record_op(op, run, *args):
    """Run ``run(op, *args)`` (an apply) and record it as one event of the innermost profile."""
    start = _now()
    try:
        return run(op, *args)
    finally:
        if _STACK:
            _STACK[-1]._raw.append((aten_key(op), start, _now(), threading.get_ident()))


def _set_profiling(on: bool) -> None:
    _fw_ad.STATE.profiling = on
    _fw_ad._refresh()


class _EngineObserver:
    """Records each node the engine runs; the engine calls ``begin`` when a backward starts."""

    def __init__(self, prof) -> None:
        self.prof = prof
        self.last = None

    def begin(self) -> None:
        self.last = _now()

    def __call__(self, node, grads, outs) -> None:
        end = _now()
        start = self.last if self.last is not None else end
        name = node.name()
        tid = threading.get_ident()
        raw = self.prof._raw
        raw.append((f"autograd::engine::evaluate_function: {name}", start, end, tid))
        raw.append((name, start, end, tid))
        self.last = _now()


# ----------------------------------------------------------------------------- events
def _format_time(time_us: float) -> str:
    """torch's time format: s / ms / us with three decimals."""
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"


def _format_time_share(time_us: float, total_us: float) -> str:
    if total_us == 0:
        return "NaN"
    return f"{time_us * 100.0 / total_us:.2f}%"


class _TimeStrings:
    """The ``*_str`` properties torch's events have."""

    @property
    def cpu_time_str(self) -> str:
        return _format_time(self.cpu_time)

    @property
    def cpu_time_total_str(self) -> str:
        return _format_time(self.cpu_time_total)

    @property
    def self_cpu_time_total_str(self) -> str:
        return _format_time(self.self_cpu_time_total)

    # no device: dyngrad computes on the CPU (torch's fields, always zero here)
    device_time_total = 0
    self_device_time_total = 0
    device_time = 0
    cpu_memory_usage = 0
    self_cpu_memory_usage = 0
    device_memory_usage = 0
    self_device_memory_usage = 0
    flops = 0
    is_async = False
    is_remote = False
    is_legacy = False
    node_id = -1
    overload_name = ""
    use_device = None
    device_type = "DeviceType.CPU"

    @property
    def cuda_time(self):
        return 0


class Interval:
    """An event's start and end in microseconds since the profile began (torch's ``time_range``)."""

    def __init__(self, start: float, end: float) -> None:
        self.start = start
        self.end = end

    def elapsed_us(self) -> float:
        return self.end - self.start


class FunctionEvent(_TimeStrings):
    """One recorded op, node or range (torch.autograd.profiler_util.FunctionEvent)."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float, is_user_annotation=False):  # noqa: A002
        self.id = id
        self.name = name
        self.key = name
        self.thread = thread
        self.time_range = Interval(start_us, end_us)
        self.cpu_children: list = []
        self.cpu_parent = None
        self.count = 1
        self.input_shapes: list = []
        self.stack: list = []
        self.scope = 0
        self.is_user_annotation = is_user_annotation

    @property
    def cpu_time_total(self) -> float:
        return self.time_range.elapsed_us()

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total

    def __repr__(self) -> str:
        return (
            f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_str} "
            f"start_us={self.time_range.start:.3f} end_us={self.time_range.end:.3f} "
            f"cpu_children={[c.id for c in self.cpu_children]} thread={self.thread}>"
        )


class FunctionEventAvg(_TimeStrings):
    """Events of one key added together (torch.autograd.profiler_util.FunctionEventAvg)."""

    def __init__(self) -> None:
        self.key = None
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.input_shapes = None
        self.stack = None
        self.scope = None
        self.cpu_parent = None
        self.cpu_children = None
        self.is_user_annotation = False

    def add(self, other) -> FunctionEventAvg:
        if self.key is None:
            self.key = other.key
            self.cpu_parent = other.cpu_parent
            self.cpu_children = other.cpu_children
            self.is_user_annotation = other.is_user_annotation
        self.count += other.count
        self.cpu_time_total += other.cpu_time_total
        self.self_cpu_time_total += other.self_cpu_time_total
        return self

    def __iadd__(self, other):
        return self.add(other)

    @property
    def cpu_time(self) -> float:
        return 0.0 if self.count == 0 else self.cpu_time_total / self.count

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total_str} "
            f"cpu_time={self.cpu_time_str}  self_cuda_time=0.000us cuda_time=0.000us input_shapes= "
            "cpu_memory_usage=0 cuda_memory_usage=0>"
        )


class EventList(list):
    """A list of events with torch's summaries (torch.autograd.profiler_util.EventList)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.pop("use_device", None)
        kwargs.pop("profile_memory", None)
        kwargs.pop("with_flops", None)
        super().__init__(*args, **kwargs)

    @property
    def self_cpu_time_total(self) -> float:
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shapes: bool = False, group_by_stack_n: int = 0, group_by_overload_name=False):
        """One ``FunctionEventAvg`` per key, in the order keys first occur (as torch's)."""
        stats: OrderedDict = OrderedDict()
        for evt in self:
            avg = stats.get(evt.key)
            if avg is None:
                avg = stats[evt.key] = FunctionEventAvg()
            avg.add(evt)
        return EventList(stats.values())

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg()
        for evt in self:
            total.add(evt)
        total.key = "Total"
        return total

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header=None, top_level_events_only: bool = False, time_unit=None) -> str:
        return _build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                            max_name_column_width=max_name_column_width,
                            top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path: str) -> None:
        _write_chrome_trace(self, path)

    def __str__(self) -> str:
        return self.table()


_TIME_UNITS = {"s": 1e6, "ms": 1e3, "us": 1.0}


def _build_table(events, sort_by=None, row_limit=100, header=None, max_name_column_width=55,
                 top_level_events_only=False, time_unit=None) -> str:
    """torch's summary table of CPU events: the same columns, widths, alignment and time formats."""
    if len(events) == 0:
        return ""
    if sort_by is not None:
        events = sorted(events, key=lambda e: getattr(e, sort_by.replace("cuda", "device")), reverse=True)

    def fmt(us: float) -> str:
        if time_unit in _TIME_UNITS:
            return f"{us / _TIME_UNITS[time_unit]:.3f}{time_unit}"
        return _format_time(us)

    name_width = max(len(e.key) for e in events) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg", "# of Calls"]
    widths = [name_width] + [12] * (len(headers) - 1)
    row_format = "".join("{: >" + str(w) + "}  " for w in widths)
    separator = "".join("-" * w + "  " for w in widths)
    line_length = sum(w + 2 for w in widths) - 2
    total = sum(e.self_cpu_time_total for e in events)
    lines = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]
    shown = 0
    for e in events:
        if shown == row_limit:
            break
        if top_level_events_only and e.cpu_parent is not None:
            continue
        shown += 1
        name = e.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[: max_name_column_width - 3] + "..."
        lines.append(row_format.format(
            name, _format_time_share(e.self_cpu_time_total, total), fmt(e.self_cpu_time_total),
            _format_time_share(e.cpu_time_total, total), fmt(e.cpu_time_total), fmt(e.cpu_time), e.count,
        ))
    lines += [separator, f"Self CPU time total: {fmt(total)}"]
    return "".join(line + "\n" for line in lines)


def _write_chrome_trace(events, path: str) -> None:
    """The events as a Chrome trace (chrome://tracing, Perfetto): complete ("X") events in microseconds."""
    trace = [
        {"ph": "X", "cat": "user_annotation" if e.is_user_annotation else "cpu_op", "name": e.name,
         "pid": os.getpid(), "tid": e.thread, "ts": e.time_range.start, "dur": e.cpu_time_total, "args": {}}
        for e in events
    ]
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": trace, "displayTimeUnit": "ms"}, f)


def _build_events(raw, origin_ns: int) -> EventList:
    """Events sorted by start (parents before their children), nested by their intervals per thread."""
    order = sorted(range(len(raw)), key=lambda i: (raw[i][1], -raw[i][2], i))
    events = EventList()
    open_by_thread: dict = {}
    for n, i in enumerate(order, start=1):
        name, start, end, tid = raw[i][:4]
        evt = FunctionEvent(n, name, tid, (start - origin_ns) / 1e3, (end - origin_ns) / 1e3,
                            is_user_annotation=len(raw[i]) > 4)
        stack = open_by_thread.setdefault(tid, [])
        while stack and stack[-1].time_range.end < evt.time_range.end:
            stack.pop()
        if stack:
            evt.cpu_parent = stack[-1]
            stack[-1].cpu_children.append(evt)
        stack.append(evt)
        events.append(evt)
    return events


# ----------------------------------------------------------------------------- the public API
class profile:
    """Record ops, backward nodes and ``record_function`` ranges on the CPU (torch.autograd.profiler.profile).

    Use as ``with profile() as prof: ...``; then ``prof.key_averages().table(sort_by="self_cpu_time_total")``,
    ``prof.function_events``, ``prof.export_chrome_trace(path)``. Options torch has for devices, shapes,
    memory, flops and stacks are accepted; dyngrad records CPU times and counts only. Inside the block the
    results are empty (an empty ``EventList``, an empty table), as torch's.
    """

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False, use_device=None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False, with_stack: bool = False,
                 with_modules: bool = False, use_kineto: bool = False, use_cpu: bool = True, experimental_config=None,
                 acc_events: bool = False, custom_trace_id_callback=None, post_processing_timeout_s=None,
                 activity_filters=None) -> None:
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.function_events = None
        self.entered = False
        self._raw: list = []
        self._observer = None
        self._origin = 0

    def __enter__(self):
        if not self.enabled:
            return None  # as torch's
        if self.entered:
            raise RuntimeError("Profiler context manager is not reentrant")
        self.entered = True
        self._start()
        return self

    def _start(self) -> None:
        self._raw = []
        self._origin = _now()
        self._observer = _EngineObserver(self)
        engine.OBSERVERS.append(self._observer)
        _STACK.append(self)
        _set_profiling(True)

    def _stop(self) -> None:
        if self in _STACK:
            _STACK.remove(self)
        if self._observer in engine.OBSERVERS:
            engine.OBSERVERS.remove(self._observer)
        _set_profiling(bool(_STACK))
        self.function_events = _build_events(self._raw, self._origin)

    def __exit__(self, *exc) -> None:
        if not self.enabled:
            return
        self._stop()

    def _finished_events(self) -> EventList:
        return self.function_events if self.function_events is not None else EventList()

    def events(self) -> EventList:
        return self._finished_events()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        return self._finished_events().key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self) -> FunctionEventAvg:
        return self._finished_events().total_average()

    def table(self, sort_by=None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header=None,
              top_level_events_only: bool = False, time_unit=None) -> str:
        return self._finished_events().table(sort_by=sort_by, row_limit=row_limit, header=header,
                                          max_name_column_width=max_name_column_width,
                                          top_level_events_only=top_level_events_only, time_unit=time_unit)

    def export_chrome_trace(self, path: str) -> None:
        _write_chrome_trace(self._finished_events(), path)

    @property
    def self_cpu_time_total(self) -> float:
        return self._finished_events().self_cpu_time_total

    def __str__(self) -> str:
        return str(self._finished_events())


class record_function:
    """A named range in the profile (torch.autograd.profiler.record_function); a context manager or a decorator.

    Outside a profile it records nothing and costs one check.
    """

    def __init__(self, name: str, args=None) -> None:
        self.name = name
        self.args = args
        self._start = None
        self._prof = None

    def __enter__(self):
        if _STACK:
            self._prof = _STACK[-1]
            self._start = _now()
        return self

    def __exit__(self, *exc) -> None:
        if self._prof is not None:
            self._prof._raw.append((self.name, self._start, _now(), threading.get_ident(), True))
            self._prof = None

    def __call__(self, func):
        import functools

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with record_function(self.name, self.args):
                return func(*args, **kwargs)

        return wrapper


class _NoRange:
    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


_NO_RANGE = _NoRange()


def range_if_profiling(name: str):
    """``record_function(name)`` while a profile is open, else a do-nothing context (for optimizers)."""
    return record_function(name) if _STACK else _NO_RANGE


def kineto_available() -> bool:
    """torch's Kineto backend is not part of dyngrad: this module is its profiler."""
    return False
