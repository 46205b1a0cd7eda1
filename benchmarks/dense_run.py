"""`histnorm lint` and `fix` on the dense corpus (`benchmarks.dense`), against the floors.

    python -m benchmarks dense [--sizes 1,16,128] [--formats sharegpt] [--1gb] [--keep]

The same measurements as the bench corpus (`python -m benchmarks`), in process and on the
very same file: the parse floor, the round-trip floor, `lint` (÷ parse floor) and `fix`
written to a copy (÷ round-trip floor), wall and CPU time. The full run also measures
these sizes (`--dense-sizes`); this entry point runs the dense corpus alone.

Corpora of `LARGE_MB` or more (the 1 GB one) are removed after they are measured unless
`--keep` is given; every corpus checks the free disk space before it is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks import corpus, dense
from benchmarks.measuring import (
    FLOOR_MIN_TIME,
    SCRATCH,
    _clear_scratch,
    _rates,
    _scratch_for,
    _summary,
    _table,
    best_of,
    fix_job,
    lint_job,
    log,
    parse_floor,
    roundtrip_floor,
    run_files,
    verdict,
)

QUICK_SIZES = (1.0, 16.0)
FULL_SIZES = (1.0, 16.0, 128.0)
GIGABYTE = 1024.0
LARGE_MB = 256.0

TARGETS = {"dense_lint_vs_parse": 2.5, "dense_fix_vs_roundtrip": 3.0}


def measure(
    fmt: str, size: float, args: argparse.Namespace, *, check_output: bool
) -> dict[str, Any]:
    """Floors, lint and fix on one dense corpus (generated first when it is not cached)."""
    info = dense.ensure(fmt, size, args.defect_rate, args.seed)
    repeats = args.repeats if size <= args.repeat_limit else 1
    files = [info.path]
    log(f"  dense {fmt} {size:g} MB: {info.transcripts} records, {info.messages} messages")
    floor = FLOOR_MIN_TIME if repeats > 1 else 0.0
    parse = best_of(repeats, lambda: parse_floor(files), min_time=floor)
    roundtrip = best_of(repeats, lambda: roundtrip_floor(files), min_time=floor)
    lint = best_of(repeats, lambda: run_files(files, lint_job(fmt)))
    _clear_scratch()
    dense.check_space(SCRATCH, size, copies=1)
    fix = best_of(repeats, lambda: run_files(files, fix_job(fmt)))
    fixed_errors = None
    if check_output:  # the fixed copy must lint clean (one pass, untimed)
        fixed_errors = _summary(run_files([_scratch_for(info.path)], lint_job(fmt)))["errors"]
    _clear_scratch()
    lint_sum, fix_sum = _summary(lint[2]), _summary(fix[2])
    if lint_sum["diagnostics"] == 0 or not fix_sum["applied"]:
        raise RuntimeError(f"the dense {fmt} corpus shows no damage: {lint_sum} {fix_sum}")
    return {
        "format": fmt,
        "size_mb": size,
        "repeats": repeats,
        "corpus": asdict(info),
        "density": dense.summary(info),
        "parse_floor": _rates(parse, info, parse),
        "roundtrip_floor": _rates(roundtrip, info, parse),
        "lint": {**_rates(lint, info, parse), **lint_sum},
        "fix": {**_rates(fix, info, roundtrip), **fix_sum, "fixed_errors": fixed_errors},
    }


def measure_all(
    formats: tuple[str, ...], sizes: tuple[float, ...], args: argparse.Namespace
) -> list[dict[str, Any]]:
    """Every (size, format), smallest first; large corpora are removed unless kept."""
    runs = []
    for size in sorted(sizes):
        for fmt in formats:
            try:
                runs.append(measure(fmt, size, args, check_output=size == min(sizes)))
            finally:
                _clear_scratch()
                if size >= LARGE_MB and not args.keep:
                    dense.remove(fmt, size, args.defect_rate, args.seed)
    return runs


def evaluate(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per dense target: the worst wall-time ratio (and the worst CPU ratio)."""
    rows = []
    for key, target, label in (
        ("lint", "dense_lint_vs_parse", "parse floor"),
        ("fix", "dense_fix_vs_roundtrip", "round-trip floor"),
    ):
        if not runs:
            continue
        limit = TARGETS[target]
        value, where = max((r[key]["ratio"], f"{r['format']} {r['size_mb']:g} MB") for r in runs)
        rows.append(
            {
                "target": f"dense: {key} <= {limit}x {label}",
                "limit": limit,
                "worst": value,
                "worst_cpu": max(r[key]["cpu_ratio"] for r in runs),
                "where": where,
                "failing": sum(1 for r in runs if r[key]["ratio"] > limit),
                "total": len(runs),
                "result": verdict(value, limit),
                "factor_over": value / limit,
            }
        )
    return rows


def render(runs: list[dict[str, Any]]) -> str:
    """The dense corpus table: throughput, then wall and CPU ratios to the floors."""
    lint_limit, fix_limit = TARGETS["dense_lint_vs_parse"], TARGETS["dense_fix_vs_roundtrip"]
    rows = [
        [
            r["format"],
            f"{r['corpus']['bytes'] / corpus.MB:.1f}",
            str(r["corpus"]["transcripts"]),
            f"{r['density']['messages_per_mb']:.0f}",
            f"{r['parse_floor']['mb_per_s']:.0f}",
            f"{r['roundtrip_floor']['mb_per_s']:.0f}",
            f"{r['lint']['seconds']:.2f}",
            f"{r['lint']['ratio']:.1f}x {verdict(r['lint']['ratio'], lint_limit)}",
            f"{r['lint']['cpu_ratio']:.1f}x",
            f"{r['fix']['seconds']:.2f}",
            f"{r['fix']['ratio']:.1f}x {verdict(r['fix']['ratio'], fix_limit)}",
            f"{r['fix']['cpu_ratio']:.1f}x",
        ]
        for r in runs
    ]
    header = [
        "dense corpus (400 B messages)",
        "MB",
        "records",
        "msgs/MB",
        "parse MB/s",
        "rt MB/s",
        "lint s",
        "lint/parse",
        "CPU",
        "fix s",
        "fix/rt",
        "CPU",
    ]
    return _table(header, rows)


def _floats(text: str) -> tuple[float, ...]:
    return tuple(float(x) for x in text.split(",") if x.strip())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks dense", description=__doc__)
    parser.add_argument("--sizes", type=_floats, default=None, help="MB, comma-separated")
    parser.add_argument("--formats", default=",".join(dense.FORMATS))
    parser.add_argument("--quick", action="store_true", help="sizes 1 and 16 MB")
    parser.add_argument("--1gb", dest="gigabyte", action="store_true", help="add the 1 GB size")
    parser.add_argument("--keep", action="store_true", help=f"keep corpora >= {LARGE_MB:g} MB")
    parser.add_argument("--defect-rate", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--repeat-limit", type=float, default=16)
    parser.add_argument("--json", type=Path, default=corpus.CORPUS_DIR / "dense-results.json")
    args = parser.parse_args(argv)
    sizes = args.sizes or (QUICK_SIZES if args.quick else FULL_SIZES)
    if args.gigabyte:
        sizes = (*sizes, GIGABYTE)
    formats = tuple(f.strip() for f in args.formats.split(",") if f.strip())
    unknown = [f for f in formats if f not in dense.FORMATS]
    if unknown:
        parser.error(f"unknown dense format(s): {', '.join(unknown)}")
    started = time.perf_counter()
    runs = measure_all(formats, tuple(sorted(set(sizes))), args)
    targets = evaluate(runs)
    print(render(runs))
    print()
    for t in targets:
        print(f"{t['target']}: worst {t['worst']:.2f}x ({t['where']}), CPU {t['worst_cpu']:.2f}x")
    print(f"\nwhole run {time.perf_counter() - started:.1f} s")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"runs": runs, "targets": targets}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
