"""Peak memory of `histnorm lint`/`fix` on inputs full of findings: `python -m benchmarks.memory`.

It writes a JSONL file in which every line is defective (several orphan tool calls and
empty text parts per transcript, so several diagnostics per line) and one JSON transcript
with many messages, each defective, then runs `histnorm lint` (text, json, jsonl, sarif),
`histnorm lint --jobs 2` and `histnorm fix` on each as a subprocess and prints the peak
RSS of the process tree (`os.wait4`, the largest of the process and the workers it
reaped). The target: under 150 MB per process, except a single transcript larger than
that, whose cost grows linearly with its size.

    python -m benchmarks.memory                      # 200 MB JSONL, 200k-message JSON
    python -m benchmarks.memory --jsonl-mb 50 --messages 50000 --json /tmp/rss.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

MB = 1 << 20
TARGET_MB = 150.0


def _defective_transcript(i: int) -> dict[str, Any]:
    """One openai-chat transcript with four orphan tool calls (HN001) and an empty text."""
    calls = [
        {
            "id": f"call_{i}_{k}",
            "type": "function",
            "function": {"name": "lookup", "arguments": f'{{"q": {k}}}'},
        }
        for k in range(4)
    ]
    return {
        "messages": [
            {"role": "user", "content": f"question {i}"},
            {"role": "assistant", "content": None, "tool_calls": calls},
            {"role": "user", "content": "never mind"},
            {"role": "assistant", "content": f"answer {i}"},
        ]
    }


def write_jsonl(path: Path, size_mb: float) -> tuple[int, int]:
    """Fully defective JSONL of about `size_mb`; returns (bytes, lines)."""
    wanted = int(size_mb * MB)
    written = lines = 0
    with path.open("wb", buffering=MB) as out:
        while written < wanted:
            line = orjson.dumps(_defective_transcript(lines)) + b"\n"
            out.write(line)
            written += len(line)
            lines += 1
    return written, lines


def write_json(path: Path, messages: int) -> int:
    """One JSON transcript of `messages` messages in which every assistant turn has an
    orphan tool call; returns its size in bytes."""
    with path.open("wb", buffering=MB) as out:
        out.write(b'{"messages": [\n')
        for i in range(0, messages, 2):
            sep = b",\n" if i else b""
            call = {
                "id": f"call_{i}",
                "type": "function",
                "function": {"name": "lookup", "arguments": "{}"},
            }
            pair = [
                {"role": "user", "content": f"question {i}"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
            ]
            out.write(sep + b",\n".join(orjson.dumps(m) for m in pair))
        out.write(b"\n]}\n")
    return path.stat().st_size


def _command() -> list[str]:
    return [sys.executable, "-c", "from histnorm_cli.app import main; main()"]


def measure(args: list[str], cwd: Path) -> dict[str, Any]:
    """Run histnorm with `args`; wall time, exit code and peak RSS (MB) of its tree."""
    started = time.perf_counter()
    with open(os.devnull, "wb") as sink:
        process = subprocess.Popen([*_command(), *args], cwd=cwd, stdout=sink, stderr=sink)
        _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return {
        "args": " ".join(args),
        "exit": process.returncode,
        "seconds": round(time.perf_counter() - started, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),  # KB on Linux
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--jsonl-mb", type=float, default=200.0)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="also write the results here")
    options = parser.parse_args(argv)
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="histnorm-memory-") as name:
        folder = Path(name)
        jsonl = folder / "defective.jsonl"
        size, lines = write_jsonl(jsonl, options.jsonl_mb)
        print(f"{jsonl.name}: {size / MB:.0f} MB, {lines} lines, every one defective")
        transcript = folder / "long.json"
        json_size = write_json(transcript, options.messages)
        print(f"{transcript.name}: {json_size / MB:.0f} MB, {options.messages} messages")
        runs: list[list[str]] = []
        for target in (jsonl.name, transcript.name):
            for fmt in ("text", "json", "jsonl", "sarif"):
                runs.append(["lint", "--output-format", fmt, target])
        runs.append(["lint", "--jobs", str(options.jobs), "--output-format", "json", jsonl.name])
        for target in (jsonl, transcript):
            copy = folder / f"copy{target.suffix}"
            shutil.copyfile(target, copy)
            runs.append(["fix", "--output-format", "json", copy.name])
        for args in runs:
            if args[0] == "fix" and args[-1] == "copy.jsonl":
                shutil.copyfile(jsonl, folder / "copy.jsonl")
            result = measure(args, folder)
            mark = "ok" if result["peak_rss_mb"] < TARGET_MB else "OVER"
            print(
                f"{result['peak_rss_mb']:>8.1f} MB {mark:>4} {result['seconds']:>7.1f} s "
                f"exit {result['exit']}  histnorm {result['args']}",
                flush=True,
            )
            results.append(result)
    if options.json:
        options.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
