"""Lint, fix and `repair()` in instructions beside their floors (issue #24's targets).

Instruction counts (callgrind) do not swing with the load of a shared machine as wall
clocks do, so this is what issue #24's targets are measured by. Each workload is a family
of calls on one input: its floor (`orjson.loads` of what is read, or a round trip,
`orjson.loads` and `orjson.dumps`) and histnorm's calls on the same input. A driver
process builds the input and makes every call of its family once (imports, caches and
compiled regular expressions are then in place), then makes one call `--repeat` times;
the count of a call is the count of that run less the count of a run that makes none,
divided by the repeats. Modules load from bytecode compiled once (`startup.cached_bytecode`),
the cyclic collector is off during the calls and `PYTHONHASHSEED` is fixed.

    python -m benchmarks.instructions [--only bench,dense,library] [--json out.json]
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import orjson

from benchmarks.startup import cached_bytecode, instructions

REPEATS = {"bench": 2, "dense": 2, "library": 20}
"""How many times the measured run makes its call, by group (a library call takes
microseconds: more repeats keep its count steady)."""

TARGETS: dict[tuple[str, str], tuple[str, float]] = {
    ("bench openai-chat", "lint"): ("parse", 2.0),
    ("bench openai-chat", "fix"): ("round trip", 2.5),
    ("bench claude-code", "lint"): ("parse", 2.0),
    ("bench claude-code", "fix"): ("round trip", 2.5),
    ("dense chat-template", "lint"): ("parse", 2.5),
    ("dense chat-template", "fix"): ("round trip", 3.0),
    ("dense sharegpt", "lint"): ("parse", 2.5),
    ("dense sharegpt", "fix"): ("round trip", 3.0),
    ("library", "repair, format given"): ("round trip", 2.0),
    ("library", "repair, detected"): ("round trip", 3.0),
    ("library", "repair, damaged"): ("round trip", 30.0),
}
"""Issue #24's targets: the floor each call is held to, and the ratio it may reach."""


Calls = dict[str, Callable[[], object]]

FILE_CALLS = ("parse", "round trip", "lint", "fix")
"""The calls of a workload of files: the two floors, then `lint` and `fix`."""
LIBRARY_CALLS = (
    "round trip",
    "repair, format given",
    "repair, detected",
    "repair, damaged",
    "lint, detected",
)
"""The calls of the library workload: the floor, then `repair()` and `lint()`."""


def _lines_calls(lines: list[bytes]) -> Calls:
    from histnorm.document import fix_lines, lint_lines

    def parse() -> object:
        return [orjson.loads(line) for line in lines]

    def round_trip() -> object:
        return [orjson.dumps(orjson.loads(line)) for line in lines]

    fns = (parse, round_trip, lambda: list(lint_lines(lines)), lambda: list(fix_lines(lines)))
    return dict(zip(FILE_CALLS, fns, strict=True))


def _bench_lines(fmt: str, count: int) -> list[bytes]:
    from benchmarks import corpus

    found = itertools.islice(corpus.transcripts(fmt), count)
    return [orjson.dumps(value) + b"\n" for _, value in found]


def _dense_lines(fmt: str, count: int) -> list[bytes]:
    from benchmarks import dense

    return [orjson.dumps(value) + b"\n" for _, value in itertools.islice(dense.records(fmt), count)]


def _sessions(count: int) -> Calls:
    from benchmarks import corpus
    from histnorm.document import fix_document, lint_document

    found = itertools.islice(corpus.transcripts("claude-code"), count)
    docs = [b"".join(orjson.dumps(line) + b"\n" for line in lines) for _, lines in found]

    def parse() -> object:
        return [[orjson.loads(line) for line in doc.splitlines()] for doc in docs]

    def round_trip() -> object:
        return [[orjson.dumps(orjson.loads(line)) for line in doc.splitlines()] for doc in docs]

    fns = (
        parse,
        round_trip,
        lambda: [lint_document(doc, path_hint="session.jsonl") for doc in docs],
        lambda: [fix_document(doc, path_hint="session.jsonl") for doc in docs],
    )
    return dict(zip(FILE_CALLS, fns, strict=True))


def _library() -> Calls:
    import histnorm
    from benchmarks.library_calls import clean_history, damaged_history

    clean, damaged = clean_history(), damaged_history()
    fns = (
        lambda: orjson.loads(orjson.dumps(clean)),
        lambda: histnorm.repair(clean, format="openai-chat"),
        lambda: histnorm.repair(clean),
        lambda: histnorm.repair(damaged),
        lambda: histnorm.lint(clean),
    )
    return dict(zip(LIBRARY_CALLS, fns, strict=True))


WORKLOADS: dict[str, tuple[str, tuple[str, ...], Callable[[], Calls]]] = {
    "bench openai-chat": (
        "bench",
        FILE_CALLS,
        lambda: _lines_calls(_bench_lines("openai-chat", 60)),
    ),
    "bench claude-code": ("bench", FILE_CALLS, lambda: _sessions(60)),
    "dense chat-template": (
        "dense",
        FILE_CALLS,
        lambda: _lines_calls(_dense_lines("chat-template", 100)),
    ),
    "dense sharegpt": ("dense", FILE_CALLS, lambda: _lines_calls(_dense_lines("sharegpt", 100))),
    "library": ("library", LIBRARY_CALLS, _library),
}
"""Each workload: its group (for `--only`), the names of its calls (the floors first) and
what builds them."""


def drive(workload: str, call: str | None, repeat: int) -> None:
    """The driver: build the workload's calls, make each once, then `call` `repeat`
    times (none when `call` is None)."""
    calls = WORKLOADS[workload][2]()
    for fn in calls.values():
        fn()
    gc.collect()
    gc.freeze()
    gc.disable()
    if call is not None:
        fn = calls[call]
        for _ in range(repeat):
            fn()


def measure(groups: set[str], repeat: int | None = None) -> dict[str, dict[str, int]]:
    """Instructions per call, by workload and call."""
    counts: dict[str, dict[str, int]] = {}
    with tempfile.TemporaryDirectory(prefix="histnorm-instructions-") as folder:
        env = cached_bytecode(Path(folder) / "pyc")
        env["PYTHONHASHSEED"] = "0"
        for workload, (group, names, _) in WORKLOADS.items():
            if group not in groups:
                continue
            base = [sys.executable, "-m", "benchmarks.instructions", "--run", workload]
            subprocess.run(base, env=env, capture_output=True, check=True)  # compile once
            none = instructions(base, env)
            counts[workload] = {}
            times = repeat or REPEATS[group]
            for name in names:
                argv = [*base, "--call", name, "--repeat", str(times)]
                counts[workload][name] = max((instructions(argv, env) - none) // times, 1)
    return counts


def table(counts: dict[str, dict[str, int]]) -> str:
    """The counts as a Markdown table, each call beside its floor and its target."""
    rows = [
        "| workload | call | instructions | x parse | x round trip | target |",
        "|---|---|---|---|---|---|",
    ]
    for workload, found in counts.items():
        parse, trip = found.get("parse"), found.get("round trip")
        for call, count in found.items():
            target = TARGETS.get((workload, call))
            verdict = ""
            if target is not None:
                floor = found[target[0]]
                ratio = count / floor
                verdict = (
                    f"<= {target[1]:g}x {target[0]}: {'PASS' if ratio <= target[1] else 'FAIL'}"
                )
            rows.append(
                f"| {workload} | {call} | {_shown(count)} | {_ratio(count, parse)} | "
                f"{_ratio(count, trip)} | {verdict} |"
            )
    return "\n".join(rows)


def _shown(count: int) -> str:
    return f"{count / 1e6:,.1f} M" if count >= 10_000_000 else f"{count / 1e3:,.0f} K"


def _ratio(count: int, floor: int | None) -> str:
    return "" if floor is None else f"{count / floor:.1f}x"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--only", default="bench,dense,library", help="groups to measure")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    parser.add_argument("--repeat", type=int, help="repeats of each call (default: by group)")
    parser.add_argument("--run", help=argparse.SUPPRESS)  # the driver (see `drive`)
    parser.add_argument("--call", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.run is not None:
        drive(options.run, options.call, options.repeat or 1)
        return 0
    if shutil.which("valgrind") is None:  # `make bench` goes on without these figures
        print("valgrind is not installed: no instruction counts", file=sys.stderr)
        return 0
    counts = measure(set(options.only.split(",")), options.repeat)
    print(table(counts))
    if options.json is not None:
        options.json.write_text(json.dumps(counts, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
