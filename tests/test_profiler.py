"""The profiler (torch.autograd.profiler / torch.profiler) against torch's: keys, counts, table layout."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
import torch.autograd.profiler as torch_autograd_profiler
import torch.profiler as torch_profiler

import dyngrad
import dyngrad.autograd.profiler as dyngrad_autograd_profiler
import dyngrad.profiler as dyngrad_profiler
from conftest import assert_same_tensor

PROFILERS = {dyngrad: dyngrad_autograd_profiler, torch: torch_autograd_profiler}

# keys both libraries record for the MLP step below, with the same counts: the ops dyngrad runs as torch's
# operators, every backward node, optimizer and user ranges (torch also records the ops inside its
# composite ops and kernels, aten::linear, aten::empty ..., which dyngrad does not run)
MLP_STEP_KEYS = [
    "step", "aten::addmm", "aten::relu", "aten::mse_loss", "aten::mm",
    "Optimizer.zero_grad#SGD.zero_grad", "Optimizer.step#SGD.step",
    "MseLossBackward0", "AddmmBackward0", "ReluBackward0", "TBackward0", "torch::autograd::AccumulateGrad",
    "autograd::engine::evaluate_function: MseLossBackward0",
    "autograd::engine::evaluate_function: AddmmBackward0",
    "autograd::engine::evaluate_function: ReluBackward0",
    "autograd::engine::evaluate_function: TBackward0",
    "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad",
]


def _mlp_step(lib):
    rng = np.random.default_rng(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
    with lib.no_grad():
        for p in model.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32)))
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    x = lib.tensor(rng.standard_normal((5, 4)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((5, 2)).astype(np.float32))
    with PROFILERS[lib].profile() as prof:
        with PROFILERS[lib].record_function("step"):
            loss = lib.nn.functional.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return prof, loss, list(model.parameters())


def test_mlp_step_keys_and_counts_match_torch() -> None:
    prof_d, loss_d, params_d = _mlp_step(dyngrad)
    prof_t, loss_t, params_t = _mlp_step(torch)
    counts_d = {e.key: e.count for e in prof_d.key_averages()}
    counts_t = {e.key: e.count for e in prof_t.key_averages()}
    assert {k: counts_d.get(k) for k in MLP_STEP_KEYS} == {k: counts_t.get(k) for k in MLP_STEP_KEYS}
    # every key dyngrad records is one torch records too
    assert set(counts_d) <= set(counts_t), set(counts_d) - set(counts_t)
    # profiling changes nothing computed
    assert_same_tensor(loss_d, loss_t)
    for pd, pt in zip(params_d, params_t):
        assert_same_tensor(pd, pt)


def test_key_averages_fields_are_consistent() -> None:
    prof, _, _ = _mlp_step(dyngrad)
    rows = prof.key_averages()
    for row in rows:
        assert row.count >= 1
        assert row.cpu_time == pytest.approx(row.cpu_time_total / row.count)
        assert 0 <= row.self_cpu_time_total <= row.cpu_time_total + 1e-9
        assert row.cpu_time_total_str.endswith(("us", "ms", "s"))
    # the user range encloses everything: its total is the sum of every event's self time
    (step,) = [r for r in rows if r.key == "step"]
    assert step.cpu_time_total == pytest.approx(sum(r.self_cpu_time_total for r in rows))
    assert prof.key_averages().self_cpu_time_total == pytest.approx(step.cpu_time_total)


@pytest.mark.parametrize("sort_by", [None, "cpu_time_total", "self_cpu_time_total", "count"])
@pytest.mark.parametrize("row_limit", [3, 100])
def test_table_layout_matches_torch(sort_by, row_limit) -> None:
    tables = {}
    for lib in (dyngrad, torch):
        prof, _, _ = _mlp_step(lib)
        tables[lib] = prof.key_averages().table(sort_by=sort_by, row_limit=row_limit).split("\n")
    d, t = tables[dyngrad], tables[torch]
    assert d[:3] == t[:3]  # separator, header line, separator: the same column names and widths
    assert d[-3] == t[-3]  # the closing separator
    assert d[-2].startswith("Self CPU time total: ") and t[-2].startswith("Self CPU time total: ")
    assert d[-1] == t[-1] == ""
    if row_limit == 3:
        assert len(d) == len(t) == 3 + 3 + 3


def test_table_rows_format_times_as_torch() -> None:
    prof, _, _ = _mlp_step(dyngrad)
    table = prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=5)
    lines = table.split("\n")
    rows = lines[3:8]
    widths = [len(s) for s in lines[0].split("  ") if s]
    for line in rows:
        assert len(line) == len(lines[1])
        cells = [c for c in line[widths[0]:].split(" ") if c]
        assert cells[0].endswith("%") and cells[2].endswith("%")
        assert all(c.endswith(("us", "ms", "s")) for c in (cells[1], cells[3], cells[4]))
        assert cells[5].isdigit()
    long = [line for line in lines if "..." in line]
    assert all(len(line.split("  ")[0].strip()) <= 55 for line in long)
    self_times = [r.self_cpu_time_total for r in sorted(prof.key_averages(), key=lambda r: -r.self_cpu_time_total)]
    assert self_times[:5] == sorted(self_times[:5], reverse=True)


def test_table_time_unit_and_total_line() -> None:
    prof, _, _ = _mlp_step(dyngrad)
    total = prof.key_averages().self_cpu_time_total
    table = prof.key_averages().table(time_unit="ms", row_limit=2)
    assert table.split("\n")[-2] == f"Self CPU time total: {total / 1e3:.3f}ms"


def test_record_function_nests_and_works_as_decorator() -> None:
    names = {}
    for lib in (dyngrad, torch):
        P = PROFILERS[lib]

        @P.record_function("decorated")
        def f(a):
            return a.exp()

        with P.profile() as prof:
            with P.record_function("outer"):
                with P.record_function("inner"):
                    f(lib.ones(2))
        parents = {e.name: (e.cpu_parent.name if e.cpu_parent is not None else None) for e in prof.function_events}
        names[lib] = (parents["outer"], parents["inner"], parents["decorated"], parents["aten::exp"])
    assert names[dyngrad] == names[torch] == (None, "outer", "inner", "decorated")


def test_results_inside_the_block_are_empty_as_torch() -> None:
    for lib in (dyngrad, torch):
        with PROFILERS[lib].profile() as prof:
            lib.ones(2).exp()
            inside = (list(prof.key_averages()), prof.key_averages().table())
        assert inside == ([], "")


def test_export_chrome_trace(tmp_path) -> None:
    prof, _, _ = _mlp_step(dyngrad)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    assert sorted(e["name"] for e in events) == sorted(e.name for e in prof.function_events)
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    (step,) = [e for e in events if e["name"] == "step"]
    assert all(step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"] + 1e-6 for e in events)


def test_nothing_recorded_outside_and_hot_path_flag_restored() -> None:
    from dyngrad.autograd import forward_ad

    state = forward_ad.STATE
    active_before = state.active  # (on for good once some earlier test used bfloat16: Note [bfloat16 compute])
    with dyngrad_autograd_profiler.profile() as prof:
        assert state.profiling and state.active
        dyngrad.ones(2).exp()
    assert not state.profiling and state.active == active_before
    dyngrad.ones(2).exp()
    assert [e.name for e in prof.function_events] == ["aten::exp"]


def test_disabled_profile_records_nothing() -> None:
    for lib in (torch, dyngrad):
        profiler = PROFILERS[lib].profile(enabled=False)
        with profiler as entered:
            lib.ones(2).exp()
        assert entered is None  # torch's __enter__ returns nothing when disabled
    assert profiler.function_events is None and list(profiler.key_averages()) == []  # dyngrad's


def test_torch_profiler_with_activities_and_schedule() -> None:
    results = {}
    for lib, P in ((dyngrad, dyngrad_profiler), (torch, torch_profiler)):
        ready = []
        sched = P.schedule(wait=1, warmup=1, active=2, repeat=1)
        with P.profile(activities=[P.ProfilerActivity.CPU], schedule=sched,
                       on_trace_ready=lambda p, ready=ready: ready.append(p.step_num)) as prof:
            for i in range(6):
                with P.record_function(f"it{i}"):
                    lib.ones(2).exp()
                prof.step()
        results[lib] = (ready, [e.key for e in prof.key_averages() if e.key.startswith("it")],
                        [sched(i).name for i in range(6)])
    assert results[dyngrad] == results[torch]
    assert list(dyngrad_profiler.ProfilerActivity.__members__) == list(torch_profiler.ProfilerActivity.__members__)


@pytest.mark.parametrize("use_gzip", [False, True])
def test_tensorboard_trace_handler_writes_torchs_file_names(tmp_path, use_gzip) -> None:
    import gzip

    names = {}
    for lib, P in ((dyngrad, dyngrad_profiler), (torch, torch_profiler)):
        out = tmp_path / lib.__name__
        with P.profile(activities=[P.ProfilerActivity.CPU],
                       on_trace_ready=P.tensorboard_trace_handler(str(out), worker_name="w", use_gzip=use_gzip)):
            lib.ones(3).exp()
        (path,) = list(out.iterdir())
        opener = gzip.open if use_gzip else open
        with opener(path, "rt") as f:
            events = json.load(f)["traceEvents"]
        names[lib] = (path.name.split(".", 2)[0], path.name.split(".", 2)[2],
                      any(e.get("name") == "aten::exp" for e in events))
    assert names[dyngrad] == names[torch]
