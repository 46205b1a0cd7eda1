"""Every codec's sniff and `detect_format` take any JSON without raising anything but
`HistnormError`: a value of the wrong JSON type where a string is expected (an object as a
pydantic-ai `kind`, a list as a role, a number as a part type) is no mark of any format.

The documents drawn are shaped like histories (lists of message objects, bare or under an
envelope key) whose keys are the ones the sniffs read, with values of any JSON type, so the
draws reach the branches a random JSON value never would.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import invoke
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies_json import JSON_VALUES

import histnorm
from histnorm import CODECS
from histnorm.errors import HistnormError, NotATranscript
from histnorm.formats import detect_format
from histnorm.model import ToolResultPart

KEYS = (
    *("role", "content", "type", "id", "name", "text", "kind", "parts", "part_kind"),
    *("tool_calls", "tool_call_id", "function_call", "function", "arguments", "from"),
    *("value", "contents", "$type", "Role", "Contents", "data", "kwargs", "lc", "uuid"),
    *("parentUuid", "sessionId", "message", "timestamp", "payload", "input", "output"),
    *("call_id", "status", "state", "toolCallId", "source", "thinking", "signature"),
    *("prompt", "completion", "chosen", "rejected", "messages", "conversations", "items"),
    *("blocks", "block_type", "content_type", "additional_kwargs", "system", "tools"),
    *("outcome", "tool_name", "tool_use_id", "is_error", "inferenceConfig", "toolUse"),
)
"""Keys the sniffs read, at any level."""

WORDS = st.sampled_from(
    [
        *("user", "assistant", "tool", "system", "model", "request", "response", "text"),
        *("function", "tool_use", "tool_result", "function_call", "message", "human", "ai"),
        *("user-prompt", "tool-call", "tool-return", "gpt", "observation", "function_call_output"),
        *("retry-prompt", "failed", "request", "thinking", "image_url", "input_text"),
    ]
)
VALUES = st.recursive(
    JSON_VALUES | WORDS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)
    ),
    max_leaves=8,
)
MESSAGES = st.lists(st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5), max_size=4)
DOCUMENTS = (
    MESSAGES
    | st.builds(
        lambda k, m, extra: {**extra, k: m},
        st.sampled_from(KEYS),
        MESSAGES,
        st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=2),
    )
    | VALUES
)


KIND_OBJECT: Any = [{"kind": {"x": 1}, "parts": []}]


def test_a_kind_that_is_an_object_is_no_pydantic_ai_mark() -> None:
    for codec in CODECS.values():
        assert codec.sniff(KIND_OBJECT) == 0.0, codec.name
    assert CODECS["pydantic-ai"].read_outline(KIND_OBJECT) is None
    with pytest.raises(NotATranscript):
        detect_format(KIND_OBJECT)
    with pytest.raises(NotATranscript):
        histnorm.lint(KIND_OBJECT)
    (found,) = histnorm.lint(KIND_OBJECT, format="pydantic-ai")
    assert (found.code, found.location.pointer) == ("HN000", "/0/kind")
    assert histnorm.repair(KIND_OBJECT).value == KIND_OBJECT


def test_the_cli_reads_a_kind_that_is_an_object_without_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "kind.json"
    data = json.dumps(KIND_OBJECT).encode()
    path.write_bytes(data)
    skipped = invoke("lint", str(path))
    assert skipped.exception is None or isinstance(skipped.exception, SystemExit)
    assert skipped.exit_code == 0, skipped.output
    forced = invoke("lint", "--format", "pydantic-ai", str(path))
    assert forced.exit_code == 1, forced.output
    assert "HN000" in forced.output and "/0/kind" in forced.output
    fixed = invoke("fix", str(path))
    assert fixed.exit_code == 0, fixed.output
    assert path.read_bytes() == data


@settings(max_examples=300, deadline=None)
@given(DOCUMENTS)
def test_every_sniff_reader_and_decoder_takes_any_json(data: Any) -> None:
    for codec in CODECS.values():
        score = codec.sniff(data)
        assert 0.0 <= score <= 1.0, codec.name
    with contextlib.suppress(HistnormError):
        detect_format(data)
    for codec in CODECS.values():
        codec.read_outline(data)  # an outline, or None for what the fast reader leaves
        with contextlib.suppress(HistnormError):
            codec.decode(data)


def test_a_pydantic_ai_outcome_that_is_an_object_is_no_failure() -> None:
    part = {"part_kind": "tool-return", "tool_call_id": "c1", "tool_name": "t", "content": "ok"}
    history = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]},
        {
            "kind": "response",
            "parts": [
                {"part_kind": "tool-call", "tool_name": "t", "tool_call_id": "c1", "args": {}}
            ],
        },
        {"kind": "request", "parts": [{**part, "outcome": {"failed": True}}]},
    ]
    transcript = histnorm.load(history, format="pydantic-ai")
    result = transcript.messages[2].parts[0]
    assert isinstance(result, ToolResultPart) and not result.is_error
    assert histnorm.encode(transcript) == history
