"""Request bodies are read in the format their own keys mark (issue #23, provider-verdicts-2).

Anthropic Messages bodies whose messages are plain text carry their format only in the
body: Anthropic's tool shape (`tools[].input_schema`), or `max_tokens` (which Anthropic
requires) with a Claude model. They were read as OpenAI Chat and linted under its
profile. Bedrock Converse bodies (`{"text": ...}` parts without `type`, `inferenceConfig`,
`toolConfig`) were read as OpenAI Chat or chat-template without a word; they are read as
`bedrock-converse` (issue #25), by that codec alone, and linted under its profile.

The bodies are ours, in the shapes those APIs take.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke

from histnorm import CODECS
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import detect_format

_PLAIN = [
    {"role": "user", "content": "What is 2+2?"},
    {"role": "assistant", "content": "4"},
    {"role": "user", "content": [{"type": "text", "text": "And 3+3?"}]},
]
_TOOL = {
    "name": "extract",
    "description": "Extract structured data",
    "input_schema": {"type": "object", "properties": {"title": {"type": "string"}}},
}
ANTHROPIC_BODIES: dict[str, dict[str, Any]] = {
    "input-schema": {"model": "m", "messages": _PLAIN, "tools": [_TOOL], "max_tokens": 4096},
    "claude-model": {"max_tokens": 32000, "messages": _PLAIN, "model": "claude-haiku-4-5"},
    "claude-model-no-tools": {
        "max_tokens": 1024,
        "messages": _PLAIN[:1],
        "model": "claude-sonnet-4-5",
        "tools": [],
        "stream": True,
    },
}

OPENAI_BODIES: dict[str, dict[str, Any]] = {
    "gpt-max-tokens": {"max_tokens": 100, "messages": _PLAIN, "model": "gpt-4", "temperature": 0},
    "openrouter-claude": {"max_tokens": 100, "messages": _PLAIN, "model": "anthropic/claude-4"},
}
"""OpenAI Chat bodies with `max_tokens`: the key alone marks no format."""

_TURNS = [
    {"role": "user", "content": [{"text": "Tell me a joke."}]},
    {"role": "assistant", "content": [{"text": "Why did the chicken cross the road?"}]},
    {"role": "user", "content": [{"text": "Why?"}]},
]
_TOOL_TURNS = [
    {"role": "user", "content": [{"text": "Top song on WZPZ?"}]},
    {
        "role": "assistant",
        "content": [{"toolUse": {"toolUseId": "t1", "name": "top_song", "input": {"s": "W"}}}],
    },
    {
        "role": "user",
        "content": [{"toolResult": {"toolUseId": "t1", "content": [{"text": "Rock"}]}}],
    },
]
CONVERSE_BODIES: dict[str, dict[str, Any]] = {
    "inference-config": {"inferenceConfig": {"maxTokens": 50}, "messages": _TURNS[:1]},
    "system-list": {
        "inferenceConfig": {"maxTokens": 100, "temperature": 0.1},
        "messages": _TURNS,
        "system": [{"text": "You tell jokes."}],
    },
    "tool-config": {
        "messages": _TOOL_TURNS,
        "toolConfig": {"tools": [{"toolSpec": {"name": "top_song", "inputSchema": {"json": {}}}}]},
    },
    "messages-only": {"messages": _TURNS},
}


@pytest.mark.parametrize("name", ANTHROPIC_BODIES)
def test_an_anthropic_body_marked_by_its_body_keys_is_anthropic(name: str) -> None:
    assert detect_format(ANTHROPIC_BODIES[name]) == "anthropic"


@pytest.mark.parametrize("name", OPENAI_BODIES)
def test_max_tokens_alone_marks_no_anthropic_body(name: str) -> None:
    assert detect_format(OPENAI_BODIES[name]) == "openai-chat"


@pytest.mark.parametrize("name", CONVERSE_BODIES)
def test_a_bedrock_converse_body_is_read_as_bedrock_converse_alone(name: str) -> None:
    body = CONVERSE_BODIES[name]
    assert {c.name for c in CODECS.values() if c.sniff(body)} == {"bedrock-converse"}
    assert detect_format(body) == "bedrock-converse"


def test_a_converse_body_no_codec_reads_is_an_error_naming_converse() -> None:
    body = {"inferenceConfig": {}, "messages": [{"role": "tool", "content": [{"text": "x"}]}]}
    with pytest.raises(HistnormError) as raised:
        detect_format(body)
    assert not isinstance(raised.value, NotATranscript)
    assert "--format bedrock-converse" in raised.value.message


def test_the_cli_lints_a_bedrock_converse_body_and_fix_keeps_it(tmp_path: Path) -> None:
    path = tmp_path / "converse.json"
    data = json.dumps(CONVERSE_BODIES["tool-config"], indent=1).encode()
    path.write_bytes(data)
    linted = invoke("lint", "--output-format", "json", str(path))
    assert linted.exit_code == 0, linted.output
    assert json.loads(linted.output) == []
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert path.read_bytes() == data
    dangling = {**CONVERSE_BODIES["tool-config"], "messages": [*_TOOL_TURNS[:2], _TURNS[2]]}
    path.write_text(json.dumps(dangling))
    linted = invoke("lint", "--output-format", "json", str(path))
    found = [(d["code"], d["location"]["pointer"]) for d in json.loads(linted.output)]
    assert found == [("HN001", "/messages/1/content/0")]
