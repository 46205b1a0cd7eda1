"""The Anthropic fast outline reader (`histnorm.formats.anthropic.outline`), hand-picked cases."""

from __future__ import annotations

from typing import Any

import pytest
from outline_helpers import Step, summary

from histnorm.engine import outline_clean
from histnorm.formats import CODECS, outline_of
from histnorm.settings import Settings

CODEC = CODECS["anthropic"]


def _body(*extra: Any) -> dict[str, Any]:
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "system": [{"type": "text", "text": "Be brief."}],
        "tools": [{"name": "get_weather", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "Weather in Oslo?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "Look it up.", "signature": "c2ln"},
                    {"type": "redacted_thinking", "data": "ZW5j"},
                    {"type": "text", "text": "Checking."},
                    {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01", "content": "3 °C"},
                ],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is 3 °C."}]},
            *extra,
        ],
    }


def test_a_plain_request_body_is_plain() -> None:
    body = _body()
    found = CODEC.read_outline(body)
    assert found == outline_of(CODEC.decode(body))
    assert summary(found) == (
        Step("user", (), (), 1, 0),
        Step("assistant", ("toolu_01",), (), 3, 2),
        Step("user", (), ("toolu_01",), 0, 0),
        Step("assistant", (), (), 1, 0),
    )
    assert found is not None and outline_clean(found, Settings(profile="anthropic"), body)
    assert CODEC.read_outline(body["messages"]) == found  # a bare list reads the same


@pytest.mark.parametrize(
    "message",
    [
        {"role": "user", "content": [{"type": "text", "text": " \n"}]},
        {"role": "user", "content": ""},
        {"role": "user", "content": []},
        {"role": "user", "content": None},
        {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "u"}}]},
        {"role": "assistant", "content": [{"type": "server_tool_use", "id": "srvtoolu_1"}]},
        {"role": "assistant", "content": [{"type": "mcp_tool_use", "id": "mcptoolu_1"}]},
        {"role": "user", "content": [{"type": "web_search_tool_result", "tool_use_id": "s"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "", "name": "f"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": 3}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "handoff_to_x"}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": None}]},
        {"role": "assistant", "content": [{"type": "thinking", "thinking": 1}]},
        {"role": "user", "content": [{"type": "compaction"}]},
        {"role": "user", "content": ["hi"]},
        {"role": "tool", "content": "hi"},
        {"role": "User", "content": "hi"},
        {"role": "user", "id": 7, "content": "hi"},
    ],
)
def test_anything_but_plain_content_gives_none(message: dict[str, Any]) -> None:
    assert CODEC.read_outline(_body(message)) is None


@pytest.mark.parametrize("data", [None, "x", {"system": "s"}, {"messages": {}}, [1]])
def test_what_is_not_a_message_list_gives_none(data: Any) -> None:
    assert CODEC.read_outline(data) is None
