"""How lint and fix time grows with the size of one transcript: `python -m benchmarks.scale`.

One transcript per case, built in memory: a user turn, one assistant message with N
parallel calls and then, by shape,

- `paired`: the N results (a clean turn);
- `orphans`: no results at all, then a user turn and an answer (fix, with
  `orphan_tool_call="synthesize"`, makes up the N results);
- `displaced`: a user turn between the calls and their N results (fix moves them);
- `duplicates`: one call answered N times under its id (fix drops N - 1);
- `shared-id`: N calls under one id, answered N times under it (issue #28: in
  `openai-responses`, one run of N call items sharing an id).

Each is rendered as `openai-chat`, `anthropic`, `openai-responses` and `meai`, dumped to
JSON bytes, and timed through the library (`histnorm.lint(bytes)`, `histnorm.fix(bytes)`),
each measurement in its own subprocess with a time limit (`--limit`, seconds). The table
gives the seconds per N and the growth per 10x of N (10 is linear, 100 quadratic).

    python -m benchmarks.scale                       # N = 1k, 10k, 100k
    python -m benchmarks.scale --sizes 1000,10000 --formats anthropic --shapes orphans
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

FORMATS = ("openai-chat", "anthropic", "openai-responses", "meai")
SHAPES = ("paired", "orphans", "displaced", "duplicates", "shared-id")
MODES = ("lint", "fix")


def _cid(i: int) -> str:
    return f"call_{i:07d}"


def _plan(shape: str, n: int) -> list[tuple[str, Any]]:
    """Format-neutral events: ("user" | "assistant", text) and ("calls" | "results", ids)."""
    calls = [_cid(i) for i in range(n)]
    events: list[tuple[str, Any]] = [("user", "run the tools")]
    if shape == "duplicates":
        events += [("calls", calls[:1]), ("results", calls[:1] * n)]
    elif shape == "shared-id":
        events += [("calls", calls[:1] * n), ("results", calls[:1] * n)]
    elif shape == "paired":
        events += [("calls", calls), ("results", calls)]
    elif shape == "orphans":
        events += [("calls", calls), ("user", "and now?")]
    elif shape == "displaced":
        events += [("calls", calls), ("user", "hurry up"), ("results", calls)]
    else:
        raise ValueError(shape)
    events.append(("assistant", "done"))
    return events


def _openai_chat(events: list[tuple[str, Any]]) -> Any:
    messages: list[dict[str, Any]] = []
    for kind, value in events:
        if kind == "calls":
            calls = [
                {"id": c, "type": "function", "function": {"name": "run", "arguments": "{}"}}
                for c in value
            ]
            messages.append({"role": "assistant", "content": None, "tool_calls": calls})
        elif kind == "results":
            messages += [{"role": "tool", "tool_call_id": c, "content": "ok"} for c in value]
        else:
            messages.append({"role": kind, "content": value})
    return {"messages": messages}


def _anthropic(events: list[tuple[str, Any]]) -> Any:
    messages: list[dict[str, Any]] = []
    for kind, value in events:
        if kind == "calls":
            blocks = [{"type": "tool_use", "id": c, "name": "run", "input": {}} for c in value]
            messages.append({"role": "assistant", "content": blocks})
        elif kind == "results":
            blocks = [{"type": "tool_result", "tool_use_id": c, "content": "ok"} for c in value]
            messages.append({"role": "user", "content": blocks})
        else:
            messages.append({"role": kind, "content": value})
    return {"model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages}


def _openai_responses(events: list[tuple[str, Any]]) -> Any:
    items: list[dict[str, Any]] = []
    for kind, value in events:
        if kind == "calls":
            items += [
                {"type": "function_call", "call_id": c, "name": "run", "arguments": "{}"}
                for c in value
            ]
        elif kind == "results":
            items += [{"type": "function_call_output", "call_id": c, "output": "ok"} for c in value]
        else:
            items.append({"role": kind, "content": value})
    return {"model": "gpt-5", "input": items}


def _meai(events: list[tuple[str, Any]]) -> Any:
    messages: list[dict[str, Any]] = []
    for kind, value in events:
        if kind == "calls":
            contents = [
                {"$type": "functionCall", "callId": c, "name": "run", "arguments": {}}
                for c in value
            ]
            messages.append({"role": "assistant", "contents": contents})
        elif kind == "results":
            contents = [{"$type": "functionResult", "callId": c, "result": "ok"} for c in value]
            messages.append({"role": "tool", "contents": contents})
        else:
            messages.append({"role": kind, "contents": [{"$type": "text", "text": value}]})
    return {"messages": messages}


RENDER: dict[str, Callable[[list[tuple[str, Any]]], Any]] = {
    "openai-chat": _openai_chat,
    "anthropic": _anthropic,
    "openai-responses": _openai_responses,
    "meai": _meai,
}


def document(format: str, shape: str, n: int) -> bytes:
    """The JSON bytes of one case."""
    return orjson.dumps(RENDER[format](_plan(shape, n)))


def measure(format: str, shape: str, n: int, mode: str) -> dict[str, Any]:
    """Time one case in this process: seconds, diagnostics (lint) or fixes applied (fix)."""
    import histnorm

    data = document(format, shape, n)
    start = time.process_time()
    if mode == "lint":
        found = histnorm.lint(data, format=format)
        seconds = time.process_time() - start
        return {"seconds": seconds, "count": len(found), "bytes": len(data)}
    policy = "synthesize" if shape == "orphans" else "drop"  # orphans: results are made up
    result = histnorm.fix(data, format=format, orphan_tool_call=policy)
    histnorm.dump(result.transcript)
    seconds = time.process_time() - start
    return {"seconds": seconds, "count": sum(result.applied.values()), "bytes": len(data)}


def _child(format: str, shape: str, n: int, mode: str, limit: float) -> dict[str, Any] | None:
    """`measure` in a subprocess; None when it did not finish within `limit` seconds."""
    args = [sys.executable, "-m", "benchmarks.scale", "--one", f"{format},{shape},{n},{mode}"]
    try:
        done = subprocess.run(args, capture_output=True, timeout=limit, check=True, text=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"{format} {shape} {n} {mode} failed:\n{error.stderr}") from error
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _cell(seconds: float | None, limit: float) -> str:
    return f">{limit:.0f}" if seconds is None else f"{seconds:.3f}"


def _growth(prev: float | None, cur: float | None, step: float) -> str:
    if prev is None or cur is None:
        return "-"
    return f"{(cur / max(prev, 1e-6)) ** (1 / step):.1f}x"


def main(argv: list[str] | None = None) -> None:
    """Run every case and print the table (and, with --json, the numbers)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--formats", default=",".join(FORMATS))
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument("--limit", type=float, default=120.0, help="seconds per measurement")
    parser.add_argument("--json", help="write the results here")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        format, shape, n, mode = args.one.split(",")
        print(json.dumps(measure(format, shape, int(n), mode)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    results: list[dict[str, Any]] = []
    header = ["format", "shape", "mode", *(f"N={n:,}" for n in sizes), "growth/10x"]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for format in args.formats.split(","):
        for shape in args.shapes.split(","):
            for mode in args.modes.split(","):
                times: list[float | None] = []
                for n in sizes:
                    if times and times[-1] is None:
                        times.append(None)  # the smaller size already ran out of time
                        continue
                    got = _child(format, shape, n, mode, args.limit)
                    times.append(None if got is None else got["seconds"])
                    case = {"format": format, "shape": shape, "mode": mode, "n": n}
                    results.append({**case, **(got or {})})
                growth = " ".join(
                    _growth(times[i], times[i + 1], math.log10(sizes[i + 1] / sizes[i]))
                    for i in range(len(sizes) - 1)
                )
                cells = [_cell(t, args.limit) for t in times]
                row = [format, shape, mode, *cells, growth]
                print(" | ".join(row), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(results, out, indent=1)


if __name__ == "__main__":
    main()
