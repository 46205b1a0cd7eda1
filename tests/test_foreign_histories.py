"""Histories of formats histnorm does not read are never read as one it does (issue #23).

A Semantic Kernel `ChatHistory.serialize()` keeps a message's content under `items`, a
LlamaIndex `[m.model_dump() for m in messages]` under `blocks` and `additional_kwargs`;
both were read as OpenAI Chat or chat-template, every message looked empty (HN005), and
`fix` wrote an empty list. Now detection does not read a history as a format whose
content keys its messages lack (the file is skipped as no transcript in a format
histnorm reads), and a message read with `--format` whose content lies under keys its
reader does not read is unknown content (HN013), kept with its turn, never empty.
Both are now read by their own codecs, `semantic-kernel` and `llama-index` (issue #25),
with nothing lost. Look-alikes without those libraries' marks (`content_type`,
`block_type`) are still skipped.

The documents are ours, in the shapes those libraries write (semantic-kernel 1.45
`ChatMessageContent`, llama-index-core 0.14 `ChatMessage`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

import histnorm
from histnorm import CODECS
from histnorm.errors import NotATranscript
from histnorm.formats import detect_format


def _sk(role: str, *items: dict[str, Any], **more: Any) -> dict[str, Any]:
    typed = [{"metadata": {}, **item} for item in items]
    return {"metadata": {}, "content_type": "message", "role": role, "items": typed, **more}


def _text(text: str) -> dict[str, Any]:
    return {"content_type": "text", "text": text}


_SK_CALL = {
    "content_type": "function_call",
    "id": "call_1",
    "name": "weather-get",
    "function_name": "get",
    "plugin_name": "weather",
    "arguments": '{"city": "Paris"}',
}
_SK_RESULT = {
    "content_type": "function_result",
    "id": "call_1",
    "name": "weather-get",
    "function_name": "get",
    "plugin_name": "weather",
    "result": "18 C, sunny",
}
SEMANTIC_KERNEL: dict[str, Any] = {
    "messages": [
        _sk("system", _text("You are a weather bot.")),
        _sk("user", _text("Weather in Paris?")),
        _sk("assistant", _SK_CALL, finish_reason="tool_calls"),
        _sk("tool", _SK_RESULT),
        _sk("assistant", _text("It is 18 C and sunny."), finish_reason="stop"),
    ]
}
"""A clean `ChatHistory.serialize()` with a tool call and its result."""


def _li(role: str, *texts: str, **kwargs: Any) -> dict[str, Any]:
    blocks = [{"block_type": "text", "text": text} for text in texts]
    return {"role": role, "additional_kwargs": kwargs, "blocks": blocks}


_LI_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather"}}
_LI_CALL["function"]["arguments"] = '{"city": "Paris"}'
LLAMA_INDEX: list[dict[str, Any]] = [
    _li("system", "You are a weather bot."),
    _li("user", "Weather in Paris?"),
    _li("assistant", tool_calls=[_LI_CALL]),
    _li("tool", "18 C, sunny", tool_call_id="call_1", name="get_weather"),
    _li("assistant", "It is 18 C and sunny."),
]
"""A clean LlamaIndex message dump with a tool call and its result."""


def _unmarked(history: Any, mark: str) -> Any:
    """`history` with every `mark` key taken out: no library's own evidence is left."""
    if isinstance(history, dict):
        return {k: _unmarked(v, mark) for k, v in history.items() if k != mark}
    if isinstance(history, list):
        return [_unmarked(v, mark) for v in history]
    return history


FOREIGN = {
    "items": _unmarked(SEMANTIC_KERNEL, "content_type"),
    "segments": [
        {"role": m["role"], "segments": m["blocks"]}
        for m in _unmarked(LLAMA_INDEX, "block_type")
        if m["blocks"]
    ],
}
"""Look-alikes in a format no codec reads: content under `items` without the mark the
`semantic-kernel` codec detects it by, or under a key no format has (`segments`)."""
WHERE = {"items": "'items'", "segments": "'segments'"}
READ_ELSEWHERE = {"semantic-kernel": SEMANTIC_KERNEL, "llama-index": LLAMA_INDEX}
"""Histories whose content lies where OpenAI Chat and chat-template do not read it."""


def test_a_semantic_kernel_history_is_read_as_semantic_kernel_with_no_loss() -> None:
    assert {
        codec.name: codec.sniff(SEMANTIC_KERNEL)
        for codec in CODECS.values()
        if codec.sniff(SEMANTIC_KERNEL)
    } == {"semantic-kernel": 0.97}
    assert detect_format(SEMANTIC_KERNEL) == "semantic-kernel"
    assert histnorm.lint(SEMANTIC_KERNEL) == ()
    transcript = histnorm.load(json.dumps(SEMANTIC_KERNEL).encode())
    assert [len(m.parts) for m in transcript.messages] == [1, 1, 1, 1, 1]
    repaired = histnorm.repair(SEMANTIC_KERNEL)
    assert repaired.value == SEMANTIC_KERNEL and not repaired.applied


def test_the_cli_reads_a_semantic_kernel_history_and_fix_keeps_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "semantic-kernel.json"
    data = json.dumps(SEMANTIC_KERNEL, indent=2).encode()
    path.write_bytes(data)
    linted = invoke("lint", "--output-format", "json", str(path))
    assert linted.exit_code == 0, linted.output
    assert json.loads(linted.output) == []  # read, and clean: no skip record
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert path.read_bytes() == data
    dangling = {"messages": [*SEMANTIC_KERNEL["messages"][:3], _sk("user", _text("Hello?"))]}
    path.write_text(json.dumps(dangling, indent=2))
    linted = invoke("lint", "--output-format", "json", str(path))
    (found,) = json.loads(linted.output)
    assert (found["code"], found["location"]["pointer"]) == ("HN001", "/messages/2/items/0")


@pytest.mark.parametrize("name", FOREIGN)
def test_no_codec_claims_a_history_whose_content_lies_elsewhere(name: str) -> None:
    history = FOREIGN[name]
    assert {
        codec.name: codec.sniff(history) for codec in CODECS.values() if codec.sniff(history)
    } == {}
    with pytest.raises(NotATranscript) as raised:
        detect_format(history)
    assert "not a transcript in a format histnorm reads" in raised.value.message
    assert WHERE[name] in raised.value.message


@pytest.mark.parametrize("name", FOREIGN)
def test_the_library_leaves_a_foreign_history_alone(name: str) -> None:
    history = FOREIGN[name]
    with pytest.raises(NotATranscript):
        histnorm.lint(history)
    repaired = histnorm.repair(history)
    assert repaired.value == history and not repaired.applied


@pytest.mark.parametrize("name", FOREIGN)
def test_the_cli_skips_a_foreign_history_and_fix_keeps_its_bytes(tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.json"
    data = json.dumps(FOREIGN[name], indent=2).encode()
    path.write_bytes(data)
    linted = invoke("lint", "--output-format", "json", str(path))
    assert linted.exit_code == 0, linted.output
    (record,) = json.loads(linted.output)
    assert record["skipped"] == "not-a-transcript"
    assert WHERE[name] in record["message"]
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert "Fixed" not in fixed.output
    assert path.read_bytes() == data


def test_a_llama_index_dump_is_read_as_llama_index_with_nothing_lost() -> None:
    assert {
        codec.name: codec.sniff(LLAMA_INDEX)
        for codec in CODECS.values()
        if codec.sniff(LLAMA_INDEX)
    } == {"llama-index": 0.97}
    assert detect_format(LLAMA_INDEX) == "llama-index"
    assert histnorm.lint(LLAMA_INDEX) == ()
    transcript = histnorm.load(LLAMA_INDEX)
    roles = [(m.role, [p.kind for p in m.parts]) for m in transcript.messages]
    assert roles == [
        ("system", ["text"]),
        ("user", ["text"]),
        ("assistant", ["tool_call"]),
        ("tool", ["tool_result"]),
        ("assistant", ["text"]),
    ]
    assert histnorm.encode(transcript) == LLAMA_INDEX
    repaired = histnorm.repair(LLAMA_INDEX)
    assert repaired.value == LLAMA_INDEX and not repaired.applied


def test_the_cli_reads_a_llama_index_dump_and_fix_keeps_its_bytes(tmp_path: Path) -> None:
    path = tmp_path / "llama-index.json"
    data = json.dumps(LLAMA_INDEX, indent=2).encode()
    path.write_bytes(data)
    linted = invoke("lint", "--output-format", "json", str(path))
    assert linted.exit_code == 0, linted.output
    assert "skipped" not in linted.output
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert path.read_bytes() == data


def test_a_llama_index_dump_without_its_marks_is_no_guess() -> None:
    """Content under `blocks` whose entries carry no `block_type`: keys the `llama-index`
    codec reads, without the mark it is detected by. Nothing is read as it; the file is
    an HN000 that names the formats to choose from."""
    found = histnorm.lint(json.dumps(_unmarked(LLAMA_INDEX, "block_type")))
    assert [d.code for d in found] == ["HN000"]
    assert "pass --format" in found[0].message and "llama-index" in found[0].message


def _messages(history: Any) -> list[dict[str, Any]]:
    return history["messages"] if isinstance(history, dict) else history


@pytest.mark.parametrize("format", ["openai-chat", "chat-template"])
@pytest.mark.parametrize("name", READ_ELSEWHERE)
def test_read_as_a_format_its_messages_are_unknown_content_not_empty(
    name: str, format: str
) -> None:
    history = [m for m in _messages(READ_ELSEWHERE[name]) if m["role"] != "tool"]
    found = histnorm.lint(history, format=format)
    assert "HN005" not in {d.code for d in found}
    unknown = [d for d in found if d.code == "HN013"]
    assert [d.location.message_index for d in unknown] == list(range(len(history)))
    assert all(d.severity is histnorm.Severity.ERROR for d in unknown)
    assert "is this file in another format?" in unknown[0].message
    result = histnorm.fix(history, format=format)
    assert not result.changed
    assert histnorm.encode(result.transcript) == history


def test_the_report_points_at_the_key_that_holds_the_content() -> None:
    history = _messages(SEMANTIC_KERNEL)[:2]
    found = [d for d in histnorm.lint(history, format="openai-chat") if d.code == "HN013"]
    assert [d.location.pointer for d in found] == ["/0/items", "/1/items"]
    assert "'items'" in found[0].message


def test_one_hidden_message_in_an_openai_history_is_kept_with_its_turn() -> None:
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "payload": {"calls": [{"id": "c1"}]}},
        {"role": "assistant", "content": ""},  # an empty text (HN004) in the same turn
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": []},  # truly empty, in a turn of its own
    ]
    found = histnorm.lint(history, format="openai-chat")
    (hidden,) = [d for d in found if d.code == "HN013"]
    assert hidden.location.pointer == "/1/payload"
    assert [d.location.message_index for d in found if d.code == "HN005"] == [4]
    result = histnorm.fix(history, format="openai-chat")
    assert histnorm.encode(result.transcript) == history[:4]  # only the truly empty one goes


def test_a_string_or_number_under_an_unknown_key_is_metadata() -> None:
    history = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "trace": "abc", "loss": False},
    ]
    found = histnorm.lint(history)
    assert [d.code for d in found] == ["HN005"]


def test_the_turn_after_a_user_message_with_hidden_content_is_kept() -> None:
    # hidden results could sit in that user message: what answers them is kept as it is
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": "Checking."},
        {"role": "user", "content": None, "results": [{"id": "c1", "output": "sunny"}]},
        {"role": "assistant", "content": []},  # empty (HN005), after the hidden content
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": []},  # empty, in a turn of its own
    ]
    found = histnorm.lint(history, format="openai-chat")
    assert [d.location.pointer for d in found if d.code == "HN013"] == ["/2/results"]
    empty = {d.location.message_index: d.fix is not None for d in found if d.code == "HN005"}
    assert empty == {3: False, 5: True}
    result = histnorm.fix(history, format="openai-chat")
    assert histnorm.encode(result.transcript) == history[:5]
