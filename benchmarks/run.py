"""Benchmark dyngrad against PyTorch on the same workloads, in one process.

    .venv/bin/python benchmarks/run.py                 # all workloads (about 30 s)
    .venv/bin/python benchmarks/run.py --quick         # fewer, shorter rounds (about 10 s)
    .venv/bin/python benchmarks/run.py --only W1,W3 --markdown bench.md
    .venv/bin/python benchmarks/run.py --clock process_time   # CPU time: steadier on a busy machine
    .venv/bin/python benchmarks/run.py --profile W1    # cProfile of dyngrad on W1, no timing table

Each workload (benchmarks/workloads.py) is written once against a library module,
so the very same code runs on ``dyngrad`` and on ``torch``. Before timing, one
forward value and one gradient (at least) from identical initial data are
compared between the two, and the run stops if they differ beyond float32
tolerance.

Method: each workload is warmed up, then timed in rounds that alternate between
the two libraries. A round runs an untimed reset, ``gc.collect()``, then times
(``time.perf_counter``, or ``--clock process_time``) a loop of k steps with the garbage collector left on
(as in real code); k is chosen so a round lasts about 0.2 s (0.1 s with
``--quick``). The reported time is the median over rounds of (round time / k),
divided by the number of ops per step for W1. Ratio = dyngrad / torch of the
medians (lower is better for dyngrad); the ratio of the fastest rounds is shown
too, as a check on noise.

BLAS and OpenMP run on one thread (set below, before NumPy or torch is imported,
and ``torch.set_num_threads(1)``): on 2-core machines multi-threaded timings
flip from run to run.
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import platform
import re
import statistics
import sys
import time

# One BLAS/OpenMP thread, before NumPy or torch are imported (they read these at load time).
for _var in (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
):
    os.environ[_var] = "1"

_HERE = os.path.dirname(os.path.abspath(__file__))


def _import_libs():
    """Import numpy, torch, dyngrad and the workloads (after the thread settings above)."""
    if _HERE not in sys.path:
        sys.path.insert(0, _HERE)
    try:
        import dyngrad
    except ImportError:  # not installed: use the source tree
        sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "src"))
        import dyngrad
    import numpy
    import torch

    torch.set_num_threads(1)
    import autograd_workloads
    import distribution_workloads
    import func_workloads
    import module_workloads
    import nn_workloads
    import special_workloads
    import spectral_workloads
    import workloads

    # issue 2's rows, then issue 3's (N), issue 4's (A), issue 5's (M), the special functions' and spectral ones (S),
    # the distributions' (D), torch.func's (F)
    workloads.ALL = {
        **workloads.WORKLOADS,
        **nn_workloads.WORKLOADS,
        **autograd_workloads.WORKLOADS,
        **module_workloads.WORKLOADS,
        **special_workloads.WORKLOADS,
        **spectral_workloads.WORKLOADS,
        **func_workloads.WORKLOADS,
        **distribution_workloads.WORKLOADS,
    }
    return numpy, torch, dyngrad, workloads


# ----------------------------------------------------------------------------- machine


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            text = f.read()
    except OSError:
        return platform.processor() or platform.machine()
    m = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
    model = m.group(1).strip() if m else (platform.processor() or platform.machine())
    flags = re.search(r"^flags\s*:\s*(.+)$", text, re.M)
    if flags:
        fl = set(flags.group(1).split())
        simd = [name for name, flag in (("AVX2", "avx2"), ("AVX-512", "avx512f"), ("AMX", "amx_tile")) if flag in fl]
        if simd:
            model += f" ({', '.join(simd)})"
    return model


def machine_lines(np, torch, dyngrad) -> list[str]:
    cores = os.cpu_count()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cores
    lines = [
        f"CPU: {_cpu_model()}; {cores} logical cores ({usable} usable)",
        f"Python {platform.python_version()} ({platform.python_implementation()}), numpy {np.__version__}, "
        f"torch {torch.__version__}, dyngrad {getattr(dyngrad, '__version__', '?')}",
    ]
    blas = []
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        blas.append(f"numpy: {cfg.get('name', '?')} {cfg.get('version', '')}".rstrip())
    except Exception:  # informational only
        pass
    m = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    if m:
        blas.append(f"torch: {m.group(1)}")
    threads = f"torch threads {torch.get_num_threads()}"
    try:
        from threadpoolctl import threadpool_info

        pools = sorted({f"{p['internal_api']}={p['num_threads']}" for p in threadpool_info()})
        if pools:
            threads += ", thread pools " + " ".join(pools)
    except ImportError:
        pass
    lines.append(f"BLAS: {'; '.join(blas) or 'unknown'}; {threads}")
    try:
        load = os.getloadavg()[0]
        busy = " (other processes are using the CPU: expect noisier timings)" if load > 0.5 else ""
        lines.append(f"Load average before the run: {load:.2f}{busy}")
    except OSError:
        pass
    return lines


# ----------------------------------------------------------------------------- timing


_clock = time.perf_counter


def _loop(step, k: int) -> float:
    clock = _clock
    t0 = clock()
    for _ in range(k):
        step()
    return clock() - t0


def _steps_per_round(step, round_s: float) -> int:
    """How many steps make a round of about ``round_s`` seconds (after warm-up)."""
    k, elapsed = 1, _loop(step, 1)
    while elapsed < 0.02:
        k *= 4
        elapsed = _loop(step, k)
    return max(1, math.ceil(round_s / (elapsed / k)))


def time_workload(wl, libs: dict, data, rounds: int, round_s: float, warmup: int) -> dict:
    """Median / min / max seconds per unit for each library, timed in alternating rounds."""
    runs = {}
    for name, lib in libs.items():
        step, reset = wl.make(lib, data)
        reset = reset or (lambda: None)
        for _ in range(warmup):
            step()
        reset()
        runs[name] = (step, reset, _steps_per_round(step, round_s), [])
    names = list(libs)
    for r in range(rounds):
        for name in names if r % 2 == 0 else reversed(names):
            step, reset, k, samples = runs[name]
            reset()
            gc.collect()
            samples.append(_loop(step, k) / k / wl.per_step)
    return {
        name: {"median": statistics.median(s), "min": min(s), "max": max(s), "k": k, "n": len(s)}
        for name, (_, _, k, s) in runs.items()
    }


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


# ----------------------------------------------------------------------------- profile


def profile_workload(wl, lib, data, seconds: float, top: int) -> None:
    """cProfile ``lib`` on a workload; print the top functions by own time, per unit."""
    import cProfile
    import pstats

    step, reset = wl.make(lib, data)
    for _ in range(5):
        step()
    if reset:
        reset()
    k = _steps_per_round(step, seconds)
    plain = _loop(step, k) / k / wl.per_step
    if reset:
        reset()
    prof = cProfile.Profile()
    prof.enable()
    _loop(step, k)
    prof.disable()
    units = k * wl.per_step
    st = pstats.Stats(prof)
    total = st.total_tt / units
    print(f"# cProfile of {lib.__name__} on {wl.key} ({wl.title})")
    print(f"{k} steps; without the profiler {_fmt(plain)} per {wl.unit}; under it {_fmt(total)} per {wl.unit}.")
    print("Times are per " + wl.unit + " and inflated by the profiler; compare them with each other.\n")
    print(f"| own time / {wl.unit} | cum time / {wl.unit} | calls / {wl.unit} | function |")
    print("|---:|---:|---:|---|")
    rows = sorted(st.stats.items(), key=lambda kv: kv[1][2], reverse=True)[:top]
    for (file, line, func), (_cc, nc, tt, ct, _callers) in rows:
        where = f"{os.path.relpath(file, os.path.dirname(_HERE))}:{line}" if file.startswith("/") else file
        print(f"| {_fmt(tt / units)} | {_fmt(ct / units)} | {nc / units:.2f} | `{func}` {where} |")


# ----------------------------------------------------------------------------- main


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--quick", action="store_true", help="fewer and shorter rounds (about 10 s in all)")
    ap.add_argument("--only", default="", help="comma-separated workloads to run, e.g. W1,W3")
    ap.add_argument("--markdown", metavar="PATH", help="also write the machine lines and the table to PATH")
    ap.add_argument("--rounds", type=int, help="timing rounds per library (default 15, 5 with --quick)")
    ap.add_argument(
        "--clock",
        choices=("perf_counter", "process_time"),
        default="perf_counter",
        help="wall time (default) or this process's CPU time, steadier when other processes share the CPU",
    )
    ap.add_argument("--seed", type=int, default=0, help="seed of the initial data")
    ap.add_argument("--profile", metavar="W", help="profile dyngrad on one workload with cProfile instead of timing")
    ap.add_argument("--top", type=int, default=25, help="rows of the --profile table")
    args = ap.parse_args(argv)

    global _clock
    _clock = getattr(time, args.clock)
    np, torch, dyngrad, workloads = _import_libs()
    all_wl = workloads.ALL
    keys = [k.strip().upper() for k in args.only.split(",") if k.strip()] or list(all_wl)
    unknown = [k for k in keys if k not in all_wl]
    if unknown:
        ap.error(f"unknown workload(s) {', '.join(unknown)}; choose from {', '.join(all_wl)}")

    if args.profile:
        key = args.profile.upper()
        if key not in all_wl:
            ap.error(f"unknown workload {key}; choose from {', '.join(all_wl)}")
        wl = all_wl[key]
        profile_workload(wl, dyngrad, wl.data(np.random.default_rng(args.seed)), 1.0, args.top)
        return 0

    rounds = args.rounds or (5 if args.quick else 15)
    round_s = 0.1 if args.quick else 0.2
    warmup = 2 if args.quick else 5
    libs = {"dyngrad": dyngrad, "torch": torch}

    header = machine_lines(np, torch, dyngrad)
    method = (
        f"Time: median of {rounds} rounds per library (rounds alternate between the libraries); a round times "
        f"a loop of k steps lasting ~{round_s:g} s with time.{args.clock}, gc on; {warmup} warm-up steps. "
        "Ratio = dyngrad / torch of the medians, lower is better for dyngrad; the last column is the ratio of the "
        "fastest rounds."
    )
    for line in header:
        print(line)
    print(method)
    print(flush=True)

    results = {}
    t_start = time.perf_counter()
    for key in keys:
        wl = all_wl[key]
        data = wl.data(np.random.default_rng(args.seed))
        ours, ref = wl.check(dyngrad, data), wl.check(torch, data)
        checked = workloads.compare(key, ours, ref, wl.rtol, wl.atol)
        print(f"{key} correctness vs torch: OK ({'; '.join(checked)})", flush=True)
        results[key] = time_workload(wl, libs, data, rounds, round_s, warmup)
        r = results[key]
        print(
            f"{key} timed: dyngrad {_fmt(r['dyngrad']['median'])} "
            f"[{_fmt(r['dyngrad']['min'])} .. {_fmt(r['dyngrad']['max'])}, k={r['dyngrad']['k']}], "
            f"torch {_fmt(r['torch']['median'])} "
            f"[{_fmt(r['torch']['min'])} .. {_fmt(r['torch']['max'])}, k={r['torch']['k']}] per {wl.unit}",
            flush=True,
        )

    table = [
        "| workload | dyngrad | torch | ratio | target | met | ratio of best times |",
        "|---|---:|---:|---:|---:|:---:|---:|",
    ]
    for key in keys:
        wl, r = all_wl[key], results[key]
        ratio = r["dyngrad"]["median"] / r["torch"]["median"]
        best = r["dyngrad"]["min"] / r["torch"]["min"]
        table.append(
            f"| {key}: {wl.title} (per {wl.unit}) | {_fmt(r['dyngrad']['median'])} | {_fmt(r['torch']['median'])} "
            f"| {ratio:.2f} | <= {wl.target:g} | {'yes' if ratio <= wl.target else 'no'} | {best:.2f} |"
        )
    print()
    print("\n".join(table))
    print(f"\n(total {time.perf_counter() - t_start:.0f} s)")

    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as f:
            f.write("".join(f"- {line}\n" for line in [*header, method]))
            f.write("\n" + "\n".join(table) + "\n")
        print(f"wrote {args.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
