"""What `histnorm.repair` costs on message objects rather than dicts, per call.

    python -m benchmarks.objects [--repeats 7]

The history of `benchmarks.library_calls` (40 OpenAI Chat messages, 7 tool calls), clean
and damaged, held three ways: as dicts; with each assistant turn a `ChatCompletionMessage`
(what `response.choices[0].message` is, appended to the history); and as LangChain
messages (`convert_to_messages`). For LangChain it also times the round trip an
application wrote before `repair()` read LangChain messages itself (`messages_to_dict`,
`repair(format="langchain")`, `messages_from_dict` of what changed), beside
`repair(messages, format="langchain")`, which is what `repair_messages` now calls.
Figures are CPU time per call, best of `--repeats` rounds
(`benchmarks.library_calls.per_call`).
"""

from __future__ import annotations

import argparse
from typing import Any

from langchain_core.messages import convert_to_messages, messages_from_dict, messages_to_dict
from openai.types.chat import ChatCompletionMessage

import histnorm
from benchmarks.library_calls import clean_history, damaged_history, per_call


def _sdk(messages: list[dict[str, Any]]) -> list[Any]:
    return [
        ChatCompletionMessage.model_validate(m) if m["role"] == "assistant" else m for m in messages
    ]


def _round_trip(messages: list[Any]) -> list[Any]:
    dicts = messages_to_dict(messages)
    result = histnorm.repair(dicts, format="langchain")
    if not result.changed:
        return messages
    kept = {id(d): m for d, m in zip(dicts, messages, strict=True)}
    return [kept.get(id(d)) or messages_from_dict([d])[0] for d in result.value]


def measure(repeats: int) -> dict[str, float]:
    """CPU µs per call of each way of holding each history."""
    out: dict[str, float] = {}
    for state, history in (("clean", clean_history()), ("damaged", damaged_history())):
        held = {"dicts": history, "openai-sdk": _sdk(history)}
        held["langchain"] = convert_to_messages(history)
        for name, value in held.items():
            figure = per_call(lambda v=value: histnorm.repair(v), repeats)
            out[f"{name} {state}"] = figure["cpu_s"] * 1e6
        lc = per_call(lambda v=held["langchain"]: histnorm.repair(v, format="langchain"), repeats)
        out[f"langchain format= {state}"] = lc["cpu_s"] * 1e6
        trip = per_call(lambda v=held["langchain"]: _round_trip(v), repeats)
        out[f"langchain round trip {state}"] = trip["cpu_s"] * 1e6
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the figures."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.objects")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    for name, us in measure(args.repeats).items():
        print(f"{name:32} {us:9.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
