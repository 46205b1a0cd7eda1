"""Run the mutation fuzzer: `PYTHONPATH=tests python -m fuzzing [--cases N] [--jobs J]`.

Case `i` of seed `S` is the same on every run; `--seed S --case i` runs it alone. Each
failure prints its seed and case and writes the damaged input (its lines cut down to
those that still fail, for files) to `--out`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from fuzzing.cases import Failure, FileRun, check, fix_file, run_case, samples

CHUNK = 500


def _chunk(seed: int, start: int, stop: int) -> tuple[int, list[Failure]]:
    failures = [f for i in range(start, stop) if (f := run_case(seed, i)) is not None]
    return stop - start, failures


def _report(failure: Failure, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"seed{failure.seed}-case{failure.case}{failure.suffix}"
    path.write_bytes(failure.reproducer)
    print(
        f"FAIL --seed {failure.seed} --case {failure.case}: {failure.invariant}: "
        f"{failure.where}: {failure.message}\n  reproducer: {path}",
        flush=True,
    )


def replay(path: Path, fmt: str) -> int:
    """Check one file with the file invariants: 0 when it keeps them all."""
    data = path.read_bytes()
    run = FileRun(fmt, path.name, data, lambda data: fix_file(data, path.name, fmt))
    broken = check(run)
    print(f"{path}: " + ("ok" if broken is None else f"{broken[0]}: {broken[1]}"))
    return 0 if broken is None else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="fuzzing", description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=10_000, help="how many (default 10000)")
    parser.add_argument("--start", type=int, default=0, help="first case number")
    parser.add_argument("--case", type=int, help="run this one case only")
    parser.add_argument("--jobs", type=int, default=1, help="processes (default 1)")
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"))
    parser.add_argument("--replay", type=Path, help="check this file (a reproducer) instead")
    parser.add_argument("--format", help="the format of the --replay file (needed)")
    args = parser.parse_args(argv)
    if args.replay is not None:
        if args.format is None:
            parser.error("--replay needs --format")
        return replay(args.replay, args.format)
    if args.case is not None:
        args.start, args.cases = args.case, 1
    samples()  # read the fixtures before the workers fork
    began = time.perf_counter()
    stop = args.start + args.cases
    chunks = [(i, min(i + CHUNK, stop)) for i in range(args.start, stop, CHUNK)]
    done, failed = 0, Counter[str]()
    if args.jobs > 1:
        with ProcessPoolExecutor(args.jobs) as pool:
            futures = [pool.submit(_chunk, args.seed, a, b) for a, b in chunks]
            results = (future.result() for future in futures)
            done, failed = _collect(results, args.out, began, args.cases)
    else:
        results = (_chunk(args.seed, a, b) for a, b in chunks)
        done, failed = _collect(results, args.out, began, args.cases)
    elapsed = time.perf_counter() - began
    print(
        f"fuzz: {done} cases (seed {args.seed}, from {args.start}) in {elapsed:.0f} s, "
        f"{done / elapsed:.0f} cases/s, {sum(failed.values())} failed"
        + (f": {dict(failed)}" if failed else "")
    )
    return 1 if failed else 0


def _collect(results: object, out: Path, began: float, total: int) -> tuple[int, Counter[str]]:
    done, failed = 0, Counter[str]()
    for count, failures in results:  # type: ignore[attr-defined]
        done += count
        for failure in failures:
            failed[failure.invariant] += 1
            _report(failure, out)
        if done % 50_000 < CHUNK or done == total:
            rate = done / (time.perf_counter() - began)
            print(f"fuzz: {done}/{total} cases, {rate:.0f}/s", file=sys.stderr, flush=True)
    return done, failed


if __name__ == "__main__":
    sys.exit(main())
