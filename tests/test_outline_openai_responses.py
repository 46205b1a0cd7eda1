"""The `openai-responses` fast outline reader: what it reads, and what it leaves to decode."""

from __future__ import annotations

from typing import Any

import pytest
from outline_helpers import Step, summary

from histnorm.engine import outline_clean
from histnorm.formats import outline_of
from histnorm.formats.openai_responses import OpenAIResponsesCodec
from histnorm.settings import Settings

CODEC = OpenAIResponsesCodec()
USER = {"role": "user", "content": "Weather in Oslo and Bergen?"}
REASONING = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA"}
CALL = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "weather"}
OUTPUT = {"type": "function_call_output", "call_id": "c1", "output": "4°C"}
ANSWER = {
    "type": "message",
    "id": "msg_1",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "Cold.", "annotations": []}],
}


def with_(item: dict[str, Any], **changes: Any) -> dict[str, Any]:
    return {**item, **changes}


def test_a_request_body_with_a_parallel_batch_is_plain() -> None:
    second = with_(CALL, id="fc_2", call_id="c2")
    body = {
        "model": "gpt-5",
        "input": [USER, REASONING, CALL, second, OUTPUT, with_(OUTPUT, call_id="c2"), ANSWER],
    }
    found = CODEC.read_outline(body)
    assert summary(found) == (
        Step("user", (), (), 1, 0),
        Step("assistant", (), (), 1, 1),
        Step("assistant", ("c1",), (), 0, 0),
        Step("assistant", ("c2",), (), 0, 0),
        Step("tool", (), ("c1",), 0, 0),
        Step("tool", (), ("c2",), 0, 0),
        Step("assistant", (), (), 1, 0),
    )
    assert found == outline_of(CODEC.decode(body))
    assert found is not None and outline_clean(found, Settings(profile="openai-responses"), body)


@pytest.mark.parametrize(
    "value",
    [
        {"input": "hello"},
        [USER, with_(ANSWER, content="Hi.")],
        [with_(USER, type="message", content=[{"type": "input_text", "text": "a"}] * 2)],
        [REASONING, ANSWER],
        [with_(REASONING, summary=None), with_(CALL, id=None), with_(OUTPUT, name="weather")],
        [],
        [with_(USER, content=[{"type": "input_text", "text": "  "}])],
        [
            with_(
                USER,
                content=[{"type": "input_text", "text": ""}, {"type": "input_text", "text": "a"}],
            )
        ],
        [with_(ANSWER, content=[{"type": "output_text", "text": "\n", "annotations": []}])],
    ],
)
def test_the_shape_is_the_decoded_shape(value: Any) -> None:
    found = CODEC.read_outline(value)
    assert found is not None
    assert found == outline_of(CODEC.decode(value))


def test_a_blank_text_part_is_read_as_one() -> None:
    """An empty or blank text part in a content list is read, marked empty (which HN010
    and the other content rules want), not left to decode."""
    blank = with_(
        USER, content=[{"type": "input_text", "text": " "}, {"type": "input_text", "text": "a"}]
    )
    found = CODEC.read_outline([blank, ANSWER])
    assert found is not None
    assert [part.empty for part in found.messages[0].parts] == [True, False]
    assert not outline_clean(found, Settings(), [blank, ANSWER])


@pytest.mark.parametrize(
    ("output", "imageless"),
    [("4°C", True), ({"temperature": 4}, True), ([{"type": "input_text", "text": "4°C"}], False)],
)
def test_a_list_output_is_where_an_image_may_be(output: Any, imageless: bool) -> None:
    """Text parts and results only: the reader tells that no image can be where the media
    checks look unless a result's output is a list."""
    found = CODEC.read_outline([USER, CALL, with_(OUTPUT, output=output), ANSWER])
    assert found is not None and found.imageless is imageless


@pytest.mark.parametrize(
    "value",
    [
        {"input": " \n"},
        {"messages": [USER]},
        "hello",
        [USER, "stray"],
        [with_(USER, content="")],
        [with_(USER, content=[])],
        [with_(USER, content=None)],
        [with_(USER, content=[{"type": "input_image", "image_url": "https://x/y.png"}])],
        [with_(ANSWER, content=[{"type": "refusal", "refusal": "No."}])],
        [with_(USER, role="tool")],
        [with_(USER, role="User")],
        [with_(USER, role=["user"])],
        [with_(USER, id=7)],
        [{"content": "no role, no type"}],
        [with_(CALL, name="handoff_to_billing"), with_(OUTPUT, name="handoff_to_billing")],
        [CALL, with_(OUTPUT, name="handoff_to_billing")],
        [with_(CALL, call_id="")],
        [with_(CALL, name=None)],
        [with_(OUTPUT, call_id=None)],
        [with_(REASONING, summary="thinking")],
        [with_(CALL, type="custom_tool_call")],
        [{"type": "web_search_call", "id": "ws_1", "status": "completed"}],
        [{"type": "item_reference", "id": "msg_1"}],
        [{"type": "mcp_approval_request", "id": "a1", "name": "x", "server_label": "s"}],
        [with_(USER, type=["message"])],
        [with_(USER, content=[{"type": {"a": 1}, "text": "hi"}])],
    ],
)
def test_anything_but_plain_content_has_no_shape(value: Any) -> None:
    assert CODEC.read_outline(value) is None
