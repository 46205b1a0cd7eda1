"""Memory and time of `histnorm lint`/`fix` on one long session file, at three sizes:
`python -m benchmarks.sessions [--sizes 4,8,16] [--json out.json]`.

Codex rollouts and Claude Code sessions are one transcript per file, read whole because
a fix relinks and moves lines (a long Claude Code session that needs nothing is read a
line at a time: `histnorm.document.streamed`). This writes two sessions of each format
per size (drawn by `benchmarks.corpus`: one with 10% of its stretches damaged, so `fix`
has work all along the file, and one clean), runs `histnorm lint` and `histnorm fix -o`
on each as a subprocess, and prints the peak RSS of the process (`os.wait4`), its ratio
to the file size, and the CPU seconds. The target (issue #28): peak memory under 3x the
file size, time linear in it. Each figure also holds the interpreter and histnorm's
modules, which are reported apart; the ratio is of what the file adds: the peak above
that of the same command on one stretch of a session of the same format and kind (a
damaged one loads the models and the fixes, about 10 MB, whatever its size). The ratio
above `histnorm lint` of a one-line clean session, which loads neither, is printed
beside it.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from benchmarks import corpus

MB = 1 << 20
QUICK_SIZES = (4.0, 8.0, 16.0)
TARGET_RATIO = 3.0


def _claude_code_stretches(rng: random.Random, damage: float) -> Iterator[list[dict[str, Any]]]:
    """One Claude Code session, a stretch of lines at a time: the corpus's session lines
    (`damage` of its stretches damaged), every stretch chained to the previous one by
    `parentUuid`, all under one `sessionId`."""
    drawer = corpus._Drawer(rng, "anthropic")
    parent: str | None = None
    session: str | None = None
    index = 0
    while True:
        lines = corpus.render_claude_code(drawer.draw(index, damage), drawer)
        index += 1
        for line in lines:
            session = session or line["sessionId"]
            if line["parentUuid"] is None:
                line["parentUuid"] = parent
            line["sessionId"] = session
            parent = line["uuid"]
        yield lines


def _codex_stretches(rng: random.Random, damage: float) -> Iterator[list[dict[str, Any]]]:
    """One Codex rollout, a stretch of lines at a time: a `session_meta` line, then the
    corpus's items and events (`damage` of its stretches damaged)."""
    drawer = corpus._Drawer(rng, "openai")
    index = 0
    while True:
        lines = corpus.render_codex(drawer.draw(index, damage), drawer)
        yield lines if index == 0 else lines[1:]
        index += 1


FORMATS: dict[str, Callable[[random.Random, float], Iterator[list[dict[str, Any]]]]] = {
    "claude-code": _claude_code_stretches,
    "codex": _codex_stretches,
}


DAMAGE = {"damaged": 0.1, "clean": 0.0}
"""The sessions measured: 10% of their stretches damaged (fix has work all along the
file), and none (the usual session, which lint and fix prove clean)."""


def write_session(path: Path, fmt: str, size_mb: float, seed: int = 0, damage: float = 0.1) -> int:
    """Write one session of about `size_mb` in `fmt` (`damage` of its stretches damaged),
    whole stretches only (a clean session ends with its last turn); returns its size in
    bytes."""
    wanted = int(size_mb * MB)
    written = 0
    with path.open("wb", buffering=MB) as out:
        for lines in FORMATS[fmt](random.Random(seed), damage):
            data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
            out.write(data)
            written += len(data)
            if written >= wanted:
                break
    return written


def run(args: list[str]) -> dict[str, Any]:
    """Run histnorm with `args`: exit code, peak RSS (MB) and CPU seconds of the process."""
    command = [sys.executable, "-c", "from histnorm_cli.app import main; main()", *args]
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=sink)
        _, status, usage = os.wait4(process.pid, 0)
    return {
        "exit": os.waitstatus_to_exitcode(status),
        "peak_mb": round(usage.ru_maxrss / 1024, 1),  # KB on Linux
        "cpu_s": round(usage.ru_utime + usage.ru_stime, 2),
    }


def _command(command: str, path: Path, folder: Path) -> list[str]:
    return [command, str(path), *(["-o", str(folder / "out.jsonl")] if command == "fix" else [])]


def _ratio(peak: float, baseline: float, nbytes: int) -> float:
    return round(max(peak - baseline, 0.0) / (nbytes / MB), 2)


def measure(sizes: tuple[float, ...], seed: int = 0) -> dict[str, Any]:
    """The figures for each format and size (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="histnorm-sessions-") as name:
        folder = Path(name)
        tiny = folder / "tiny.jsonl"
        line = next(_claude_code_stretches(random.Random(seed), 0.0))[0]
        tiny.write_bytes(orjson.dumps({**line, "parentUuid": None}) + b"\n")
        baseline = run(["lint", str(tiny)])
        own: dict[tuple[str, str, str], float] = {}  # one stretch of each format and kind
        for fmt, (kind, damage) in itertools.product(FORMATS, DAMAGE.items()):
            stretch = folder / f"{fmt}-{kind}-stretch.jsonl"
            write_session(stretch, fmt, 0.0, seed, 1.0 if damage else 0.0)
            for command in ("lint", "fix"):
                own[fmt, kind, command] = run(_command(command, stretch, folder))["peak_mb"]
        for fmt, (kind, damage), size in itertools.product(FORMATS, DAMAGE.items(), sizes):
            path = folder / f"{fmt}-{kind}-{size:g}.jsonl"
            nbytes = write_session(path, fmt, size, seed, damage)
            for command in ("lint", "fix"):
                got = run(_command(command, path, folder))
                rows.append(
                    {
                        "format": fmt,
                        "session": kind,
                        "command": command,
                        "size_mb": round(nbytes / MB, 1),
                        **got,
                        "baseline_mb": own[fmt, kind, command],
                        "ratio": _ratio(got["peak_mb"], own[fmt, kind, command], nbytes),
                        "ratio_clean_baseline": _ratio(got["peak_mb"], baseline["peak_mb"], nbytes),
                    }
                )
            path.unlink()
    return {"baseline_mb": baseline["peak_mb"], "target_ratio": TARGET_RATIO, "rows": rows}


def table(result: dict[str, Any]) -> str:
    """The figures as a Markdown table."""
    lines = [
        f"`histnorm lint` of a one-line clean session: {result['baseline_mb']} MB",
        "",
        "| format | session | command | file MB | peak MB | one stretch MB | x file (above "
        "one stretch) | x file (above the one-line lint) | CPU s | CPU s/MB |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        per_mb = r["cpu_s"] / r["size_mb"] if r["size_mb"] else 0.0
        lines.append(
            f"| {r['format']} | {r['session']} | {r['command']} | {r['size_mb']} | "
            f"{r['peak_mb']} | {r['baseline_mb']} | {r['ratio']} | "
            f"{r['ratio_clean_baseline']} | {r['cpu_s']} | {per_mb:.2f} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--sizes", default=",".join(f"{s:g}" for s in QUICK_SIZES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    options = parser.parse_args(argv)
    sizes = tuple(float(s) for s in options.sizes.split(","))
    result = measure(sizes, options.seed)
    print(table(result))
    if options.json is not None:
        options.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
