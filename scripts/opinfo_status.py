"""dyngrad against PyTorch's OpInfo database: regenerate, check and summarise tests/opinfo_status.txt.

    python scripts/opinfo_status.py --write            # run every entry, rewrite the status file
    python scripts/opinfo_status.py --write -k fft. -j 2   # only entries whose key contains "fft.", 2 processes
    python scripts/opinfo_status.py --check            # run, print what differs from the file (exit 1 if any)
    python scripts/opinfo_status.py --summary          # counts from the file (no run)
    python scripts/opinfo_status.py --causes           # failures grouped by cause, most entries first

The harness is tests/opinfo_harness.py; tests/test_opinfo.py fails while the file differs from a run.
"""

from __future__ import annotations

import argparse
import collections
import fnmatch
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "src"))

import opinfo_harness as harness  # noqa: E402


# ------------------------------------------------------------------------------------------- running
def _selected(keys, patterns: list[str]) -> list[str]:
    """Keys containing one of ``patterns`` (or matching it as a glob); all keys if there are none."""
    if not patterns:
        return list(keys)
    return [k for k in keys if any(p in k or fnmatch.fnmatchcase(k, p) for p in patterns)]


def _run_keys(keys: list[str]) -> list[str]:
    entries = harness.cpu_entries()
    return [line.render() for key in keys for line in harness.run_key(key, entries)]


def run(keys: list[str], jobs: int) -> list[str]:
    """The rendered lines of ``keys``, in ``jobs`` processes (each entry is independent of the others)."""
    if jobs <= 1 or len(keys) < 2:
        return _run_keys(keys)
    import multiprocessing

    chunks = [keys[i::jobs * 8] for i in range(jobs * 8)]  # interleaved, so slow families spread out
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        return [line for part in pool.map(_run_keys, chunks) for line in part]


# ------------------------------------------------------------------------------------------- summary
def entry_statuses(recorded: dict) -> dict:
    """key -> list of (dtype, statuses)."""
    out = collections.defaultdict(list)
    for (key, dtype), rec in recorded.items():
        out[key].append((dtype, rec.statuses))
    return out


def classify_entry(rows) -> str:
    """fully passing / partially passing / failing / missing / not testable, from all its checks."""
    statuses = [s for _, st in rows for s in st if s not in ("-", "skip")]
    if not statuses:
        return "not testable"
    if "missing" in statuses:
        return "missing"
    if all(s == "pass" for s in statuses):
        return "fully passing"
    if any(s == "pass" for s in statuses):
        return "partially passing"
    return "failing"


def summary(recorded: dict) -> str:
    by_entry = entry_statuses(recorded)
    kinds = collections.Counter(classify_entry(rows) for rows in by_entry.values())
    out = [f"{len(by_entry)} OpInfo entries torch runs on CPU (op_db entries with a CPU dtype), "
           f"{len(recorded)} (entry, dtype) lines."]
    for kind in ("fully passing", "partially passing", "failing", "missing", "not testable"):
        out.append(f"  {kind:18} {kinds[kind]}")
    forward_everywhere = sum(
        1 for rows in by_entry.values() if all(st[0] == "pass" for _, st in rows)
    )
    out.append(f"  forward passes in every tested dtype: {forward_everywhere}")
    out.append("")
    out.append("per dtype: entries tested / forward pass / grad pass (of applicable) / gradgrad pass (of applicable)")
    dtypes = harness.FLOAT_DTYPES + ("other",)
    for dtype in dtypes:
        rows = [rec.statuses for (key, dt), rec in recorded.items()
                if dt == dtype or (dtype == "other" and dt not in harness.FLOAT_DTYPES)]
        counts = []
        for i in range(len(harness.CHECKS)):
            applicable = [st[i] for st in rows if st[i] not in ("-", "skip")]
            counts.append(f"{sum(s == 'pass' for s in applicable)}/{len(applicable)}")
        out.append(f"  {dtype:10} {len(rows):4} entries   forward {counts[0]:9} grad {counts[1]:9} gradgrad {counts[2]}")
    statuses = collections.Counter(s for rec in recorded.values() for s in rec.statuses)
    out.append("")
    out.append("checks by status: " + ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
    return "\n".join(out)


# The first reason of a failing check, reduced to its cause. Order matters: first match wins.
CAUSES = [
    (r"forward: no (.*)", lambda m: f"missing: {m.group(1).split('.')[0] if '.' in m.group(1) else 'dyngrad'}"
     f"{'.' + m.group(1).split('.')[1] if m.group(1).count('.') > 1 else ''} namespace op"),
    (r"unexpected keyword argument '(\w+)'", lambda m: f"argument parser: keyword '{m.group(1)}' not accepted"),
    (r"takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given",
     lambda m: "argument parser: too many positional arguments"),
    (r"missing \d+ required positional argument", lambda m: "argument parser: required argument missing"),
    (r"torch raised .*; dyngrad did not", lambda m: "no error where torch raises"),
    (r"dyngrad raised (\w+).*; torch raised (\w+)", lambda m: "error type differs from torch's"),
    (r"sample holds (.*), which", lambda m: f"sample value without a dyngrad counterpart: {m.group(1)}"),
    (r"grad_fn: dyngrad (\w+), torch (\w+)", lambda m: "grad_fn name differs"),
    (r"does not require grad", lambda m: "output does not require grad"),
    (r"dtype torch\.(\w+) != torch torch\.(\w+)", lambda m: "output dtype differs"),
    (r"shape \(.*\) != torch", lambda m: "output shape differs"),
    (r"items != torch|dyngrad gives", lambda m: "output structure differs"),
    (r"NotImplementedError: (.{0,60})", lambda m: "NotImplementedError (dyngrad)"),
    (r"not implemented for '(Complex\w+)'", lambda m: "complex dtype not supported"),
    (r"object has no attribute '(\w+)'", lambda m: f"attribute missing: {m.group(1)}"),
    (r"backward raised (\w+)", lambda m: f"backward raised {m.group(1)}"),
    (r"(?:dyngrad raised|forward raised) (\w+)", lambda m: f"forward raised {m.group(1)}"),
    (r"NaN positions differ|infinities differ", lambda m: "NaN/inf positions differ"),
    (r"values differ", lambda m: "values differ"),
]


def cause(reason: str, check: str, dtype: str) -> str:
    for pattern, name in CAUSES:
        m = re.search(pattern, reason)
        if m:
            label = name(m)
            if label == "values differ" and dtype.startswith("complex") and check != "forward":
                return "complex gradient values differ"
            if label == "values differ":
                return f"{check} values differ"
            return label
    return "other: " + reason[:60]


def causes(recorded: dict, top: int = 40) -> str:
    """Failing and missing checks grouped by cause; each cause counts distinct entries."""
    by_cause = collections.defaultdict(set)
    examples = {}
    for (key, dtype), rec in recorded.items():
        reasons = dict(part.split(": ", 1) for part in rec.text.split(" | ")[1:] if ": " in part)
        for check, status in zip(harness.CHECKS, rec.statuses):
            if status == "missing" and check == "forward":
                c = "missing op"
            elif status in ("fail", "text"):
                c = cause(reasons.get(check, ""), check, dtype)
                if status == "text":
                    c = "error text differs"
            else:
                continue
            by_cause[c].add(key)
            examples.setdefault(c, f"{key} {dtype} {check}: {reasons.get(check, '')}"[:160])
    ranked = sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    lines = [f"{len(keys):4} entries  {c}\n        e.g. {examples[c]}" for c, keys in ranked[:top]]
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------- main
def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="run and rewrite the status file")
    action.add_argument("--check", action="store_true", help="run and print the differences from the file")
    action.add_argument("--summary", action="store_true", help="print the counts recorded in the file")
    action.add_argument("--causes", action="store_true", help="print failures grouped by cause")
    parser.add_argument("-k", action="append", default=[], metavar="PATTERN",
                        help="only entries whose key contains PATTERN (or matches it as a glob); repeatable")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="processes to run the entries in")
    args = parser.parse_args(argv)

    recorded, duplicates = harness.read_status()
    if args.summary:
        print(summary(recorded))
        return 0
    if args.causes:
        print(causes(recorded))
        return 0

    entries = harness.cpu_entries()
    keys = _selected(entries, args.k)
    start = time.perf_counter()
    lines = run(keys, args.jobs)
    elapsed = time.perf_counter() - start
    new, _ = harness.parse_status("\n".join(lines))
    if args.write:
        kept = [rec.text for (key, _), rec in recorded.items() if key in entries and key not in set(keys)]
        harness.STATUS_PATH.write_text(harness.render_status(kept + lines))
        print(f"wrote {harness.STATUS_PATH.relative_to(ROOT)}: {len(keys)} entries run in {elapsed:.1f} s")
        return 0
    changed = 0
    for (key, dtype), rec in sorted(new.items()):
        old = recorded.get((key, dtype))
        if old is None or old.statuses != rec.statuses:
            changed += 1
            print(f"- {old.text if old else '(no line)'}\n+ {rec.text}")
    if not args.k:
        for key, dtype in sorted(set(recorded) - set(new)):
            changed += 1
            print(f"- {recorded[(key, dtype)].text}\n+ (no line: not an OpInfo entry on CPU any more)")
    if duplicates:
        print(f"{len(duplicates)} lines appear twice in the file (a merge?): regenerate it")
    print(f"{len(keys)} entries run in {elapsed:.1f} s; {changed} lines differ from the file")
    return 1 if changed or duplicates else 0


if __name__ == "__main__":
    sys.exit(main())
