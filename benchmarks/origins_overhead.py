"""What ``dyngrad.viz.track_origins()`` costs on the per-op overhead workload (W1).

Times W1 (a chain of 100 small elementwise ops, then backward; see workloads.py) three
ways in one process, in alternating rounds: dyngrad with track_origins off, dyngrad
with it on, and torch. Prints the time per op of each, their ratios to torch, and
the on/off ratio (issue 6's target: below 1.05).

    .venv/bin/python benchmarks/origins_overhead.py [--rounds 21] [--clock process_time]
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time

import run  # sets one BLAS/OpenMP thread before NumPy and torch load


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=21, help="timing rounds per variant")
    ap.add_argument("--clock", choices=("perf_counter", "process_time"), default="perf_counter")
    args = ap.parse_args(argv)
    clock = getattr(time, args.clock)
    np, torch, dyngrad, workloads = run._import_libs()
    wl = workloads.ALL["W1"]
    data = wl.data(np.random.default_rng(0))
    steps = {"torch": wl.make(torch, data)[0], "off": wl.make(dyngrad, data)[0]}
    steps["on"] = steps["off"]  # the same step; track_origins is switched on around its rounds
    for step in steps.values():
        for _ in range(20):
            step()
    k = run._steps_per_round(steps["off"], 0.2)
    samples = {name: [] for name in steps}
    for r in range(args.rounds):
        for name in ("torch", "off", "on") if r % 2 == 0 else ("on", "off", "torch"):
            tracker = dyngrad.viz.track_origins(name == "on")
            gc.collect()
            t0 = clock()
            for _ in range(k):
                steps[name]()
            samples[name].append((clock() - t0) / k / wl.per_step)
            tracker.__exit__(None, None, None)
    med = {name: statistics.median(s) for name, s in samples.items()}
    for name, label in (("torch", "torch"), ("off", "dyngrad"), ("on", "dyngrad + track_origins")):
        print(f"{label:26s} {med[name] * 1e6:7.2f} µs/op   {med[name] / med['torch']:.2f}x torch")
    print(f"track_origins on / off: {med['on'] / med['off']:.3f} (median), "
          f"{min(samples['on']) / min(samples['off']):.3f} (fastest rounds)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
