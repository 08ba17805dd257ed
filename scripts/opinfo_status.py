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

    harness.cpu_entries()  # import op_db once, before forking: the workers inherit it
    chunks = [keys[i::jobs * 4] for i in range(jobs * 4)]  # interleaved, so slow families spread out
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return [line for part in pool.map(_run_keys, chunks) for line in part]


# ------------------------------------------------------------------------------------------- summary
VALUE_CHECKS = harness.CHECKS  # forward, grad, gradgrad: what an entry's classification is made of


def entry_statuses(recorded: dict) -> dict:
    """key -> list of (dtype, {check: status}) for the dtype lines (not the error_inputs line)."""
    out = collections.defaultdict(list)
    for (key, dtype), rec in recorded.items():
        if dtype != harness.ERRORS:
            out[key].append((dtype, rec.statuses))
    return out


def _applicable(statuses) -> list[str]:
    return [s for s in statuses if s not in ("-", "skip")]


def classify_entry(rows) -> str:
    """fully passing / partially passing / failing / missing / not testable, from its value checks."""
    statuses = _applicable(st[c] for _, st in rows for c in VALUE_CHECKS)
    if not statuses:
        return "not testable"
    if "missing" in statuses:
        return "missing"
    if all(s == "pass" for s in statuses):
        return "fully passing"
    if any(s == "pass" for s in statuses):
        return "partially passing"
    return "failing"


def _passing(rows, dtypes=None, checks=VALUE_CHECKS) -> bool:
    statuses = _applicable(st[c] for dt, st in rows if dtypes is None or dt in dtypes for c in checks)
    return bool(statuses) and all(s == "pass" for s in statuses)


def summary(recorded: dict) -> str:
    by_entry = entry_statuses(recorded)
    kinds = collections.Counter(classify_entry(rows) for rows in by_entry.values())
    present = {k: rows for k, rows in by_entry.items() if classify_entry(rows) != "missing"}
    out = [
        f"{len(by_entry)} OpInfo entries torch runs on CPU (op_db entries that list a CPU dtype).",
        "An entry fully passes when every applicable check (forward, grad, gradgrad) passes in every tested dtype;",
        "partially when some pass; fails when none does; is missing when dyngrad has no callable of its name.",
    ]
    for kind in ("fully passing", "partially passing", "failing", "missing", "not testable"):
        out.append(f"  {kind:18} {kinds[kind]}")
    out.append(f"  of the {len(present)} present: forward passes in every tested dtype "
               f"{sum(_passing(r, checks=('forward',)) for r in present.values())}; every check passes in "
               f"float64 {sum(_passing(r, ('float64',)) for r in present.values())}, in float64 and float32 "
               f"{sum(_passing(r, ('float64', 'float32')) for r in present.values())}")
    out.append("")
    out.append("per dtype: entries tested, then passing / applicable for each check")
    for dtype in harness.FLOAT_DTYPES + ("other",):
        rows = [rec.statuses for (_, dt), rec in recorded.items()
                if dt == dtype or (dtype == "other" and dt not in harness.FLOAT_DTYPES + (harness.ERRORS,))]
        counts = []
        for c in VALUE_CHECKS:
            applicable = _applicable(st[c] for st in rows)
            counts.append(f"{sum(s == 'pass' for s in applicable)}/{len(applicable)}")
        out.append(f"  {dtype:10} {len(rows):4} entries   forward {counts[0]:9} grad {counts[1]:9} gradgrad {counts[2]}")
    errors = collections.Counter(rec.statuses["errors"] for (_, dt), rec in recorded.items() if dt == harness.ERRORS)
    out.append(f"  {harness.ERRORS} {sum(errors.values())} entries: " + ", ".join(
        f"{s} {errors[s]}" for s in ("pass", "text", "fail", "missing", "skip", "-") if errors[s]))
    statuses = collections.Counter(s for rec in recorded.values() for s in rec.statuses.values())
    out.append("")
    out.append(f"{len(recorded)} lines; checks by status: " + ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
    return "\n".join(out)


# The first reason of a failing check, reduced to its cause. Order matters: the first match wins.
CAUSES = [
    (r"unexpected keyword argument '(\w+)'", lambda m: f"argument parser: keyword '{m.group(1)}' not accepted"),
    (r"takes (?:from )?\d+ (?:to \d+ )?positional arguments? but \d+ (?:were|was) given",
     lambda m: "argument parser: too many positional arguments"),
    (r"missing \d+ required positional argument", lambda m: "argument parser: a required argument missing"),
    (r"torch: .*(received an invalid combination of arguments|must be Tensor, not|doesn't apply to a)",
     lambda m: "argument parser: a Python number where torch's parser requires a Tensor"),
    (r"torch raises \w+, dyngrad does not", lambda m: "no error where torch raises one"),
    (r"dyngrad raises (\w+), torch (\w+)", lambda m: "error type differs from torch's"),
    (r"\w+ text differs", lambda m: "error message text differs"),
    (r"holds (.*), which has no dyngrad", lambda m: f"sample value without a dyngrad counterpart: {m.group(1)}"),
    (r"grad_fn: dyngrad (\w+), torch (\w+)", lambda m: "grad_fn name differs"),
    (r"does not require grad", lambda m: "output does not require grad"),
    (r"dtype torch\.complex\w+ != torch torch\.float", lambda m: "complex input: real output expected, complex given"),
    (r"dtype torch\.(\w+) != torch torch\.(\w+)", lambda m: "output dtype differs"),
    (r"shape \(.*\) != torch", lambda m: "output shape differs"),
    (r"items != torch|dyngrad gives", lambda m: "output structure differs"),
    (r"not implemented for '(Complex\w+)'|argument must be a string or a real number, not 'complex'",
     lambda m: "complex dtype not supported"),
    (r"NotImplementedError: dyngrad:", lambda m: "dyngrad's own NotImplementedError (a mode or case)"),
    (r"object has no attribute '(\w+)'", lambda m: f"attribute missing: {m.group(1)}"),
    (r"backward raised (\w+)", lambda m: f"backward raised {m.group(1)}"),
    (r"dyngrad raised (\w+)", lambda m: f"forward raised {m.group(1)}"),
    (r"NaN positions differ|infinities differ", lambda m: "NaN/inf positions differ"),
    (r"values differ", lambda m: "values differ"),
]
# Reasons that only repeat an earlier check's failure of the same sample.
FOLLOW_ONS = re.compile(r"^sample \d+: (forward raised|first-order backward raised|no first-order gradients \(see grad\))$")


def cause(reason: str, check: str, dtype: str) -> str:
    for pattern, name in CAUSES:
        m = re.search(pattern, reason)
        if m:
            label = name(m)
            if label == "values differ":
                complex_grad = dtype.startswith("complex") and check != "forward"
                return "complex gradient values differ" if complex_grad else f"{check} values differ"
            return label
    return "other: " + reason[:60]


def _missing_namespace(reason: str) -> str:
    """``no dyngrad.linalg.x`` -> ``dyngrad.linalg``; ``no dyngrad.x or dyngrad.Tensor.x`` -> ``dyngrad``."""
    m = re.match(r"no (dyngrad(?:\.\w+)*)\.\w+", reason)
    if m:
        return m.group(1)
    m = re.search(r"torch's op is an? (\w+)", reason)
    return f"not a torch function ({m.group(1)})" if m else "other"


def causes(recorded: dict, top: int = 30) -> str:
    """Failing checks grouped by cause (value checks, then error inputs), then missing entries by namespace.

    A cause counts the distinct entries whose first reason (for some dtype and check) it is.
    """
    by_cause = {"values": collections.defaultdict(set), "errors": collections.defaultdict(set)}
    missing = collections.defaultdict(set)
    examples = {}
    for (key, dtype), rec in recorded.items():
        reasons = dict(part.split(": ", 1) for part in rec.text.split(" | ")[1:] if ": " in part)
        for check, status in rec.statuses.items():
            reason = reasons.get(check, "")
            if status == "missing" and check in ("forward", "errors"):
                missing[_missing_namespace(reason)].add(key)
                continue
            if status not in ("fail", "text") or FOLLOW_ONS.match(reason):
                continue
            c = cause(reason, check, dtype)
            group = "errors" if check == "errors" else "values"
            by_cause[group][c].add(key)
            examples.setdefault((group, c), f"{key} {dtype} {check}: {reason}"[:200])
    lines = []
    for group, title in (("values", "forward/grad/gradgrad"), ("errors", "error_inputs")):
        ranked = sorted(by_cause[group].items(), key=lambda kv: (-len(kv[1]), kv[0]))
        lines.append(f"failing {title} checks by cause ({len(set().union(*by_cause[group].values()))} entries):")
        lines += [f"{len(keys):4} entries  {c}\n        e.g. {examples[(group, c)]}" for c, keys in ranked[:top]]
        lines.append("")
    lines.append(f"missing entries by namespace ({len(set().union(*missing.values()))} entries):")
    for ns, keys in sorted(missing.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        lines.append(f"{len(keys):4}  {ns}: {', '.join(sorted(keys)[:8])}{', ...' if len(keys) > 8 else ''}")
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
