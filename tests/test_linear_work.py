"""Lint does work in proportion to the history, counted without a clock (issue #28).

`user, N x function_call(call_id="same"), N x function_call_output(call_id="same")` in
OpenAI Responses items: HN016 (shared-call-id) walked the run of call items between the
first call and each later one, so lint took time growing with N squared (2.3 / 5.7 / 17.4
CPU seconds at N = 2,000 / 4,000 / 8,000). Here the work is the number of Python
function calls histnorm makes (`sys.setprofile`), which is the same on any machine: for
twice the history it must be about twice, never four times. The timing itself is
measured in `benchmarks.scale`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

import histnorm
from histnorm.rules import shared_call_id

N = 300


def _work(run: Callable[[], object]) -> int:
    """How many Python function calls (and generator steps) `run` makes."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def _responses(n: int, distinct: bool = False) -> dict[str, Any]:
    name = (lambda i: f"tool_{i}") if distinct else (lambda i: "tool")
    calls = [
        {"type": "function_call", "call_id": "same", "name": name(i), "arguments": "{}"}
        for i in range(n)
    ]
    outputs = [{"type": "function_call_output", "call_id": "same", "output": "ok"}] * n
    return {"input": [{"role": "user", "content": "go"}, *calls, *outputs]}


def _chat(n: int, distinct: bool = False) -> list[dict[str, Any]]:
    name = (lambda i: f"tool_{i}") if distinct else (lambda i: "tool")
    calls = [
        {"id": "same", "type": "function", "function": {"name": name(i), "arguments": "{}"}}
        for i in range(n)
    ]
    results = [
        {"role": "tool", "tool_call_id": "same", "name": name(i), "content": "ok"} for i in range(n)
    ]
    return [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": calls},
        *results,
    ]


SHAPES = {
    "responses-one-name": lambda n: _responses(n),
    "responses-distinct-names": lambda n: _responses(n, distinct=True),
    "chat-distinct-names": lambda n: _chat(n, distinct=True),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_lint_work_on_calls_sharing_one_id_grows_linearly(shape: str) -> None:
    make = SHAPES[shape]
    small, large = make(N), make(2 * N)
    histnorm.lint(small)  # imports and caches out of the count
    ratio = _work(lambda: histnorm.lint(large)) / _work(lambda: histnorm.lint(small))
    assert ratio < 2.4, f"twice the history took {ratio:.2f} times the work"


def test_batch_starts_agree_with_a_walk_between_the_two_calls() -> None:
    items = [
        {"role": "user", "content": "go"},
        {"type": "function_call", "call_id": "a", "name": "f", "arguments": "{}"},
        {"type": "reasoning", "summary": []},
        {"type": "function_call", "call_id": "a", "name": "g", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "a", "output": "ok"},
        {"type": "function_call", "call_id": "a", "name": "h", "arguments": "{}"},
    ]
    transcript = histnorm.load({"input": items}, format="openai-responses")
    starts = shared_call_id.batch_starts(transcript)
    messages = transcript.messages

    def walk(first: int, later: int) -> bool:
        return all(
            all(p.kind in ("tool_call", "reasoning") for p in m.parts)
            for m in messages[first : later + 1]
        )

    for later in range(len(messages)):
        for first in range(later):
            assert (starts[later] <= first) == walk(first, later), (first, later)
    found = shared_call_id.groups(transcript)
    assert found == {(1, 0): [(3, 0)]}  # h follows an output: another batch
