"""Throughput of `histnorm.integrations.datasets` in `Dataset.map` / `Dataset.filter`.

    python -m benchmarks.datasets_map --rows 10000 --procs 1,2

Seeded rows with tool calls (a tenth of them broken: a call left without its result),
in OpenAI Chat (`--kind openai-chat`: ids, string arguments) or chat-template shape
(`--kind chat-template`: object arguments, no ids), built with `Dataset.from_list` so
that Arrow unifies their keys. Each figure is the best of `--repeats` runs, next to a
`map` that returns the batch untouched, one that reads the message column and writes it
back as it is (what `datasets` itself costs a map of that column) and `histnorm.repair`
called on the same rows in a loop (what histnorm itself costs).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any

import datasets

import histnorm
from histnorm.integrations.datasets import is_clean, repairer


def _row(rng: random.Random, broken: bool, kind: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for turn in range(rng.randint(1, 4)):
        messages.append({"role": "user", "content": f"question {turn} " * rng.randint(1, 20)})
        if rng.random() < 0.5:
            result: dict[str, Any] = {"role": "tool", "content": "result " * 10}
            if kind == "openai-chat":
                function = {"name": "search", "arguments": '{"q": "x"}'}
                call = {"id": f"call_{turn}", "type": "function", "function": function}
                result["tool_call_id"] = f"call_{turn}"
            else:
                function = {"name": "search", "arguments": {"q": "x"}}
                call = {"type": "function", "function": function}
                result["name"] = "search"
            messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
            if not broken:
                messages.append(result)
        messages.append({"role": "assistant", "content": "answer " * rng.randint(5, 60)})
    return {"messages": messages}


def _as_read(batch: Any) -> dict[str, Any]:
    """The message column as `datasets` hands it over and takes it back: what any map
    that reads and writes the column pays before histnorm does anything."""
    return {"messages": batch["messages"]}


def _best(run: Callable[[], Any], repeats: int) -> tuple[float, float]:
    """The best wall and CPU seconds of `repeats` runs (CPU time counts this process
    only: with `num_proc` > 1 the workers' time is not in it)."""
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus)


def _line(name: str, rows: int, seconds: tuple[float, float]) -> str:
    wall, cpu = seconds
    return f"{name:31} wall {rows / wall:8.0f} rows/s   CPU {1e6 * cpu / rows:6.0f} us/row"


def main() -> None:
    """Print rows per second of map (repair), filter (lint) and an identity map."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--procs", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kind", default="openai-chat", choices=("openai-chat", "chat-template"))
    args = parser.parse_args()
    datasets.disable_caching()
    datasets.disable_progress_bars()
    rng = random.Random(0)
    rows = [_row(rng, rng.random() < 0.1, args.kind) for _ in range(args.rows)]
    ds = datasets.Dataset.from_list(rows)
    fix = repairer(applied_column="fixed")
    fixed = ds.map(fix, batched=True)
    print(f"{args.rows} {args.kind} rows, {sum(bool(c) for c in fixed['fixed'])} repaired")
    loop = _best(lambda: [histnorm.repair(row["messages"]) for row in rows], args.repeats)
    print(_line("histnorm.repair loop", args.rows, loop))
    for procs in (int(p) for p in args.procs.split(",")):
        n = procs if procs > 1 else None
        runs = {
            "map identity": lambda n=n: ds.map(lambda b: b, batched=True, num_proc=n),
            "map column as read": lambda n=n: ds.map(_as_read, batched=True, num_proc=n),
            "map repairer": lambda n=n: ds.map(fix, batched=True, num_proc=n),
            "filter is_clean": lambda n=n: ds.filter(is_clean(), batched=True, num_proc=n),
        }
        for name, run in runs.items():
            print(_line(f"num_proc={procs} {name}", args.rows, _best(run, args.repeats)))


if __name__ == "__main__":
    main()
