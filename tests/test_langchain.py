"""Tests for the `langchain` codec (LangChain `messages_to_dict` / `dumpd` message lists).

Shapes: formats.md §6. Byte comparisons go through `orjson.dumps` because Python `==`
treats `1`, `1.0` and `True` as equal.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, resolve, with_message, with_parts
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies_langchain import transcripts

import histnorm
import histnorm.formats
from histnorm import jsonio
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats.langchain import LangChainCodec
from histnorm.formats.langchain.encode import as_args_object
from histnorm.model import (
    ApprovalRequestPart,
    MediaPart,
    Message,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)
from histnorm.pairing import pair_transcript

CODEC = LangChainCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "langchain"
PROPERTY = PROPERTY_SETTINGS["langchain"]


def round_trip(doc: Any) -> Any:
    return CODEC.encode(CODEC.decode(doc))


def without_part(t: Transcript, index: int, part_index: int) -> Transcript:
    return rewrite(t, remove=[(index, part_index)])


def item(kind: str, **data: Any) -> dict[str, Any]:
    """A `messages_to_dict` item with LangChain's full field list."""
    body: dict[str, Any] = {
        "content": data.pop("content", ""),
        "additional_kwargs": data.pop("additional_kwargs", {}),
        "response_metadata": data.pop("response_metadata", {}),
        "type": kind,
        "name": data.pop("name", None),
        "id": data.pop("id", None),
    }
    if kind == "ai":
        body |= {"tool_calls": [], "invalid_tool_calls": [], "usage_metadata": None}
    if kind == "tool":
        body |= {"tool_call_id": "", "artifact": None, "status": "success"}
    body.update(data)
    return {"type": kind, "data": body}


def lc(cls: str, **kwargs: Any) -> dict[str, Any]:
    """A `dumpd` item."""
    return {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", cls],
        "kwargs": kwargs,
    }


def call(call_id: str | None, name: str = "get_weather", **args: Any) -> dict[str, Any]:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


def raw_call(call_id: str, name: str = "get_weather", arguments: str = "{}") -> dict[str, Any]:
    return {"id": call_id, "function": {"arguments": arguments, "name": name}, "type": "function"}


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert dump(resolve(doc, at)) == dump(message.native)
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            assert pointer == at or pointer.startswith(at + "/")
            assert dump(resolve(doc, pointer)) == dump(part.native)


def _calls(t: Transcript) -> list[tuple[int, str | None, str | None]]:
    return [
        (mi, p.call_id, p.slot)
        for mi, m in enumerate(t.messages)
        for p in m.parts
        if isinstance(p, ToolCallPart)
    ]


@PROPERTY
@given(transcripts(), st.data())
def test_dropping_a_call_drops_its_provider_copies(doc: Any, data: st.DataObject) -> None:
    """No copy of a dropped call may come back as a call of its own when re-read."""
    t = CODEC.decode(doc)
    positions = [
        (mi, pi)
        for mi, m in enumerate(t.messages)
        for pi, p in enumerate(m.parts)
        if isinstance(p, ToolCallPart)
    ]
    assume(positions)
    edited = rewrite(t, remove=[data.draw(st.sampled_from(positions))])
    out = CODEC.encode(edited)
    assert _calls(CODEC.decode(out)) == _calls(edited)
    body, old = (out, doc) if isinstance(out, list) else (out["messages"], doc["messages"])
    kept = [m for m in edited.messages if m.native is not None and any(m is n for n in t.messages)]
    assert sum(1 for m in body if any(m is o for o in old)) >= len(kept) - 1


def _semantics(t: Transcript) -> list[Any]:
    """What a transcript says, less what LangChain keeps only in native form (which slot a
    call sits in, how its arguments are spelled, unknown blocks, results inside content)."""
    out = []
    for m in t.messages:
        parts = []
        for p in m.parts:
            if isinstance(p, UnknownPart) or (
                isinstance(p, ToolResultPart) and p.tool_type == "tool_result"
            ):
                continue
            data = p.model_dump(mode="json", exclude={"native", "slot", "metadata", "tool_type"})
            if isinstance(p, ToolCallPart):
                args = as_args_object(p.arguments)
                if args is None:
                    args = p.arguments if isinstance(p.arguments, str) else dump(p.arguments)
                data |= {"arguments": args, "name": p.name or ""}
            parts.append(dump(data))
        out.append([m.role, m.id, m.author_name, m.metadata, sorted(parts)])
    return out


def _fresh(t: Transcript) -> Transcript:
    """The transcript as another format would hand it over (natives and slots gone)."""
    messages = tuple(
        m.evolve(
            native=None,
            parts=tuple(
                p.evolve(native=None, slot=None)
                for p in m.parts
                if not isinstance(p, UnknownPart)
                and not (isinstance(p, ToolResultPart) and p.tool_type == "tool_result")
            ),
        )
        for m in t.messages
    )
    return Transcript(messages=messages, format="langchain")


@PROPERTY
@given(transcripts())
def test_fresh_encoding_keeps_meaning(doc: Any) -> None:
    t = CODEC.decode(doc)
    fresh = _fresh(t)
    encoded = CODEC.encode(fresh)
    assert all("data" in m for m in encoded)  # nothing left to say it was dumpd
    assert _semantics(CODEC.decode(encoded)) == _semantics(fresh)


# --- decoding: each shape --------------------------------------------------------------


def test_messages_to_dict_form() -> None:
    doc = [
        item("system", content="Be terse."),
        item("human", content="Weather in Oslo?", name="dana", id="m1"),
        item(
            "ai",
            tool_calls=[call("call_a1", city="Oslo")],
            id="run-1",
            response_metadata={"finish_reason": "tool_calls"},
        ),
        item(
            "tool", content="4 C", tool_call_id="call_a1", name="get_weather", artifact={"raw": [4]}
        ),
        item("ai", content="4 °C."),
    ]
    t = CODEC.decode(doc)
    assert t.format == "langchain" and t.native is None
    assert [m.role for m in t.messages] == ["system", "user", "assistant", "tool", "assistant"]
    user, ai, tool = t.messages[1], t.messages[2], t.messages[3]
    assert (user.author_name, user.id) == ("dana", "m1")
    assert user.parts == (
        TextPart(text="Weather in Oslo?", native="Weather in Oslo?", slot="content"),
    )
    assert ai.id == "run-1" and ai.metadata == {"finish_reason": "tool_calls"}
    (c,) = ai.parts  # "" content is no part
    assert c == ToolCallPart(
        call_id="call_a1",
        name="get_weather",
        arguments={"city": "Oslo"},
        tool_type="tool_call",
        native=doc[2]["data"]["tool_calls"][0],
        slot="tool_calls",
    )
    (r,) = tool.parts
    assert isinstance(r, ToolResultPart) and r.native is doc[3]
    assert (r.call_id, r.name, r.content, r.is_error, r.slot) == (
        "call_a1",
        "get_weather",
        "4 C",
        False,
        "tool",
    )
    assert tool.author_name is None
    assert pair_transcript(t).call_results == {(2, 0): (3, 0)}
    assert CODEC.part_pointer(t, 2, 0) == "/2/data/tool_calls/0"
    assert CODEC.part_pointer(t, 3, 0) == "/3"
    assert CODEC.part_pointer(t, 1, 0) == "/1/data/content"


def test_dumpd_form_and_chunk_classes() -> None:
    doc = {
        "messages": [
            lc("HumanMessage", content="hi", type="human"),
            lc(
                "AIMessageChunk",
                content="x",
                type="AIMessageChunk",
                tool_calls=[call("c3", "f")],
                tool_call_chunks=[
                    {"name": "f", "args": "{}", "id": "c3", "index": 0, "type": "tool_call_chunk"}
                ],
            ),
            lc("ToolMessage", content="ok", type="tool", tool_call_id="c3", status="error"),
            lc("ChatMessage", content="review", type="chat", role="editor"),
        ],
        "thread_id": "t-1",
    }
    t = CODEC.decode(doc)
    assert t.native is doc
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "editor"]
    assert [p.kind for p in t.messages[1].parts] == ["text", "tool_call"]  # chunks are copies
    (result,) = t.messages[2].parts
    assert isinstance(result, ToolResultPart) and result.is_error
    assert CODEC.part_pointer(t, 1, 1) == "/messages/1/kwargs/tool_calls/0"
    assert dump(round_trip(doc)) == dump(doc)


def test_mixed_forms_keep_their_own_form() -> None:
    doc = [item("human", content="a"), lc("AIMessage", content="b", type="ai")]
    t = CODEC.decode(doc)
    new = Message(role="tool", parts=(ToolResultPart(call_id="c", content="r"),))
    out = CODEC.encode(t.evolve(messages=(*t.messages, new)))
    assert out[0] is doc[0] and out[1] is doc[1]
    assert out[2] == item("tool", content="r", tool_call_id="c")  # the first item's form


@pytest.mark.parametrize(
    ("ltype", "role"),
    [
        ("human", "user"),
        ("HumanMessageChunk", "user"),
        ("ai", "assistant"),
        ("AIMessageChunk", "assistant"),
        ("system", "system"),
        ("SystemMessageChunk", "system"),
        ("developer", "developer"),
    ],
)
def test_roles(ltype: str, role: str) -> None:
    (message,) = CODEC.decode([{"type": ltype, "data": {"content": "x"}}]).messages
    assert message.role == role


def test_chat_message_role_and_function_message() -> None:
    doc = [
        item("chat", content="hm", role="critic"),
        item(
            "ai",
            additional_kwargs={"function_call": {"arguments": '{"id": 8}', "name": "lookup_order"}},
        ),
        {"type": "function", "data": {"content": "shipped", "name": "lookup_order"}},
    ]
    t = CODEC.decode(doc)
    assert t.messages[0].role == "critic"
    (fc,) = t.messages[1].parts
    assert isinstance(fc, ToolCallPart)
    assert (fc.call_id, fc.name, fc.arguments, fc.slot) == (
        None,
        "lookup_order",
        '{"id": 8}',
        "additional_kwargs.function_call",
    )
    (result,) = t.messages[2].parts
    assert isinstance(result, ToolResultPart) and result.call_id is None
    assert result.name == "lookup_order"
    assert pair_transcript(t).call_results == {(1, 0): (2, 0)}
    assert CODEC.part_pointer(t, 1, 0) == "/1/data/additional_kwargs/function_call"


def test_anthropic_tool_use_blocks_are_copies_of_tool_calls() -> None:
    doc = [
        item(
            "ai",
            content=[
                {"type": "thinking", "thinking": "hm", "signature": "EqQB"},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"c": 1}},
                {"type": "tool_use", "id": "toolu_x", "name": "lookup", "input": {}},
            ],
            tool_calls=[call("toolu_1", c=1)],
        )
    ]
    t = CODEC.decode(doc)
    parts = t.messages[0].parts
    assert [(p.kind, p.slot) for p in parts] == [
        ("reasoning", "content[]"),
        ("text", "content[]"),
        ("tool_call", "content[]"),  # toolu_x is in no tool_calls entry: a call of its own
        ("tool_call", "tool_calls"),
    ]
    reasoning = parts[0]
    assert isinstance(reasoning, ReasoningPart) and reasoning.opaque == "EqQB"
    assert [getattr(p, "call_id", None) for p in parts] == [None, None, "toolu_x", "toolu_1"]
    assert [CODEC.part_pointer(t, 0, j) for j in range(4)] == [
        "/0/data/content/0",
        "/0/data/content/1",
        "/0/data/content/3",
        "/0/data/tool_calls/0",
    ]


def test_openai_raw_calls_in_additional_kwargs() -> None:
    doc = [
        item(
            "ai",
            additional_kwargs={
                "tool_calls": [raw_call("call_1"), raw_call("call_2", "f", '{"a": 1}'), "junk"],
                "refusal": "No.",
            },
            tool_calls=[call("call_1")],
        )
    ]
    t = CODEC.decode(doc)
    refusal, parsed, raw = t.messages[0].parts
    assert isinstance(refusal, RefusalPart) and refusal.slot == "additional_kwargs.refusal"
    assert parsed.slot == "tool_calls" and getattr(parsed, "call_id", None) == "call_1"
    assert isinstance(raw, ToolCallPart) and raw.slot == "additional_kwargs.tool_calls"
    assert (raw.call_id, raw.name, raw.arguments) == ("call_2", "f", '{"a": 1}')
    assert CODEC.part_pointer(t, 0, 2) == "/0/data/additional_kwargs/tool_calls/1"


def test_invalid_tool_call_is_a_call_that_needs_a_result() -> None:
    doc = [
        item("human", content="Book it."),
        item(
            "ai",
            invalid_tool_calls=[
                {
                    "type": "invalid_tool_call",
                    "id": "c1",
                    "name": "book",
                    "args": '{"t": 1',
                    "error": "bad JSON",
                }
            ],
        ),
        item("human", content="Never mind."),
    ]
    t = CODEC.decode(doc)
    (bad,) = t.messages[1].parts
    assert isinstance(bad, ToolCallPart)
    assert (bad.call_id, bad.arguments, bad.tool_type) == ("c1", '{"t": 1', "invalid_tool_call")
    assert pair_transcript(t).unmatched_calls == ((1, 0),)


def test_content_blocks() -> None:
    blocks = [
        "plain",
        {"type": "text", "text": "t", "annotations": []},
        {"type": "redacted_thinking", "data": "abc"},
        {"type": "reasoning", "reasoning": "r", "extras": {"signature": "sig"}},
        {"type": "image_url", "image_url": {"url": "https://x/a.png"}},
        {"type": "image", "url": "https://x/b.png", "mime_type": "image/png"},
        {"type": "document", "source": {"type": "base64", "media_type": "application/pdf"}},
        {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
        {"type": "refusal", "refusal": "no"},
        {"type": "server_tool_call", "id": "ws_1", "name": "web_search", "args": {"q": 1}},
        {"type": "server_tool_result", "tool_call_id": "ws_1", "status": "error", "output": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_9", "content": "r", "is_error": True},
        {"type": "citation", "url": "u"},
        {"type": "text", "text": None},
    ]
    t = CODEC.decode([item("ai", content=blocks)])
    parts = t.messages[0].parts
    assert [p.kind for p in parts] == [
        "text",
        "text",
        "reasoning",
        "reasoning",
        "media",
        "media",
        "media",
        "media",
        "refusal",
        "tool_call",
        "tool_result",
        "tool_result",
        "unknown",
        "unknown",
    ]
    assert isinstance(parts[2], ReasoningPart) and parts[2].opaque == "abc"
    assert isinstance(parts[3], ReasoningPart) and (parts[3].text, parts[3].opaque) == ("r", "sig")
    media = [p for p in parts if isinstance(p, MediaPart)]
    assert [(m.media_type, m.uri) for m in media] == [
        (None, "https://x/a.png"),
        ("image/png", "https://x/b.png"),
        ("application/pdf", None),
        ("audio/wav", None),
    ]
    hosted_call, hosted_result, anthropic_result = parts[9], parts[10], parts[11]
    assert isinstance(hosted_call, ToolCallPart) and hosted_call.family is ToolFamily.HOSTED
    assert isinstance(hosted_result, ToolResultPart) and hosted_result.is_error
    assert pair_transcript(t).call_results == {(0, 9): (0, 10)}
    assert isinstance(anthropic_result, ToolResultPart) and anthropic_result.is_error
    assert (anthropic_result.call_id, anthropic_result.content) == ("toolu_9", "r")


def test_usage_remove_and_handoff() -> None:
    usage = {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}
    doc = [
        item("ai", tool_calls=[call("h1", "handoff_to_billing")], usage_metadata=usage),
        {"type": "remove", "data": {"content": "", "type": "remove", "id": "m0"}},
    ]
    t = CODEC.decode(doc)
    handoff, used = t.messages[0].parts
    assert isinstance(handoff, ToolCallPart) and handoff.family is ToolFamily.HANDOFF
    assert isinstance(used, UsagePart) and used.details == usage
    (marker,) = t.messages[1].parts
    assert t.messages[1].role == "remove" and isinstance(marker, UnknownPart)
    assert CODEC.part_pointer(t, 1, 0) == "/1/data"


def test_empty_string_id_and_empty_string_content() -> None:
    t = CODEC.decode([item("ai", content="", tool_calls=[call("")]), item("human", content="")])
    assert t.messages[0].parts[0].call_id == ""  # type: ignore[union-attr]
    assert t.messages[1].parts == ()


# --- sniffing (other formats' fixtures: test_codec_contract.py) ------------------------


@pytest.mark.parametrize(
    "doc",
    [
        [],
        {"messages": []},
        "x",
        [1],
        [{"role": "user", "content": "hi"}],
        [{"type": "message", "role": "user", "contents": [{"type": "text", "text": "af"}]}],
        [{"type": "human", "data": {"text": "no content"}}],
        [{"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}],
        [{"lc": 1, "type": "constructor", "id": ["langchain", "llms", "OpenAI"], "kwargs": {}}],
    ],
)
def test_sniff_rejects(doc: Any) -> None:
    assert CODEC.sniff(doc) == 0


# --- encoding after model edits --------------------------------------------------------


def _anthropic_doc() -> list[dict[str, Any]]:
    return [
        item("human", content="Weather in Paris and Rome?"),
        item(
            "ai",
            content=[
                {"type": "text", "text": "Checking both."},
                {"type": "tool_use", "id": "toolu_p", "name": "get_weather", "input": {"c": "P"}},
                {"type": "tool_use", "id": "toolu_r", "name": "get_weather", "input": {"c": "R"}},
            ],
            tool_calls=[call("toolu_p", c="P"), call("toolu_r", c="R")],
            id="run-1",
        ),
        item("tool", content="12 C", tool_call_id="toolu_p"),
    ]


def test_dropping_a_call_drops_its_tool_use_copy() -> None:
    doc = _anthropic_doc()
    before = copy.deepcopy(doc)
    out = CODEC.encode(without_part(CODEC.decode(doc), 1, 2))  # text, toolu_p, toolu_r
    expected = copy.deepcopy(before)
    del expected[1]["data"]["content"][2]
    del expected[1]["data"]["tool_calls"][1]
    assert dump(out) == dump(expected)
    assert out[0] is doc[0] and out[2] is doc[2]
    assert dump(doc) == dump(before)


def test_dropping_every_call_keeps_langchain_empty_lists() -> None:
    t = CODEC.decode(_anthropic_doc())
    out = CODEC.encode(without_part(without_part(t, 1, 2), 1, 1))
    assert out[1]["data"]["content"] == [{"type": "text", "text": "Checking both."}]
    assert out[1]["data"]["tool_calls"] == []


def test_dropping_a_call_drops_its_raw_openai_copy_and_the_emptied_key() -> None:
    kwargs = {"tool_calls": [raw_call("call_1"), raw_call("call_2")], "x_keep": 1}
    doc = [item("ai", additional_kwargs=kwargs, tool_calls=[call("call_1"), call("call_2")])]
    t = CODEC.decode(doc)
    out = CODEC.encode(without_part(t, 0, 0))
    assert out[0]["data"]["additional_kwargs"] == {"tool_calls": [raw_call("call_2")], "x_keep": 1}
    out = CODEC.encode(with_parts(t, 0))
    assert out[0]["data"]["additional_kwargs"] == {"x_keep": 1}  # an empty array is rejected
    assert list(out[0]["data"]) == list(doc[0]["data"])


def test_a_copy_stays_only_while_a_call_it_can_copy_stays() -> None:
    """A server-side call with the same id does not keep a raw OpenAI copy alive: read
    back, that copy would turn into a call of its own."""
    doc = [
        item(
            "ai",
            content=[{"type": "server_tool_call", "id": "", "name": "f", "args": {}}],
            additional_kwargs={"tool_calls": [raw_call("", "f")]},
            tool_calls=[call("", "f")],
        )
    ]
    t = CODEC.decode(doc)
    assert [p.slot for p in t.messages[0].parts] == ["content[]", "tool_calls"]
    out = CODEC.encode(without_part(t, 0, 1))
    assert out[0]["data"]["additional_kwargs"] == {}
    assert [p.slot for p in CODEC.decode(out).messages[0].parts] == ["content[]"]


def test_dropping_a_chunk_call_drops_its_tool_call_chunk() -> None:
    chunks = [{"name": "f", "args": "{}", "id": "c1", "index": 0, "type": "tool_call_chunk"}]
    doc = [
        {
            "type": "AIMessageChunk",
            "data": {"content": "x", "tool_calls": [call("c1", "f")], "tool_call_chunks": chunks},
        }
    ]
    out = CODEC.encode(without_part(CODEC.decode(doc), 0, 1))
    assert out == [
        {
            "type": "AIMessageChunk",
            "data": {"content": "x", "tool_calls": [], "tool_call_chunks": []},
        }
    ]


def test_chunks_that_copy_no_call_are_kept() -> None:
    chunks = [
        {"name": "f", "args": "{}", "id": "c1", "index": 0, "type": "tool_call_chunk"},
        {"name": None, "args": "}", "id": None, "index": 0, "type": "tool_call_chunk"},
    ]
    doc = [
        {
            "type": "AIMessageChunk",
            "data": {"content": "x", "tool_calls": [call("c1", "f")], "tool_call_chunks": chunks},
        }
    ]
    t = CODEC.decode(doc)
    out = CODEC.encode(
        with_parts(t, 0, TextPart(text="y", native="x", slot="content"), t.messages[0].parts[1])
    )
    assert out[0]["data"]["tool_call_chunks"] == chunks
    out = CODEC.encode(with_parts(t, 0, t.messages[0].parts[0]))
    assert out[0]["data"]["tool_call_chunks"] == chunks[1:]


def test_results_held_with_other_content_go_before_it() -> None:
    """An Anthropic-style user turn (results, then text) becomes tool messages, then the
    human message, so each result stays right after its call."""
    t = CODEC.decode([item("ai", tool_calls=[call("a"), call("b")])])
    turn = Message(
        role="user",
        parts=(
            ToolResultPart(call_id="a", content="1"),
            ToolResultPart(call_id="b", content={"n": 2}),
            TextPart(text="and now?"),
        ),
    )
    out = CODEC.encode(t.evolve(messages=(*t.messages, turn)))
    assert [m["type"] for m in out] == ["ai", "tool", "tool", "human"]
    assert out[2]["data"]["content"] == '{"n":2}'  # tool content is a string or a list
    assert out[3]["data"]["content"] == "and now?"


def test_dropping_a_result_drops_its_tool_message() -> None:
    doc = _anthropic_doc()
    out = CODEC.encode(without_part(CODEC.decode(doc), 2, 0))
    assert len(out) == 2 and out[0] is doc[0] and out[1] is doc[1]


@pytest.mark.parametrize("form", ["dict", "dumpd"])
def test_inserting_a_synthesized_result(form: str) -> None:
    doc = _anthropic_doc()
    if form == "dumpd":
        doc = [lc("HumanMessage", content="Weather?", type="human"), *doc[1:]]
    t = CODEC.decode(doc)
    result = ToolResultPart(
        call_id="toolu_r",
        content="interrupted",
        is_error=True,
        metadata={"histnorm.synthesized": True},
    )
    messages = (*t.messages[:3], Message(role="tool", parts=(result,)))
    out = CODEC.encode(t.evolve(messages=messages))
    if form == "dict":
        assert out[3] == item("tool", content="interrupted", tool_call_id="toolu_r", status="error")
        assert list(out[3]["data"]) == list(doc[2]["data"])
    else:
        assert out[3] == lc(
            "ToolMessage",
            content="interrupted",
            type="tool",
            tool_call_id="toolu_r",
            status="error",
        )
    again = CODEC.decode(out)
    assert again.messages[3].parts[0].is_error  # type: ignore[union-attr]
    assert not pair_transcript(again).unmatched_calls


def test_a_function_result_without_id_becomes_a_function_message() -> None:
    t = CODEC.decode([item("human", content="x")])
    result = ToolResultPart(call_id=None, name="lookup", content="r", tool_type="function")
    out = CODEC.encode(t.evolve(messages=(*t.messages, Message(role="tool", parts=(result,)))))
    assert out[1] == {
        "type": "function",
        "data": {
            "content": "r",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "function",
            "name": "lookup",
            "id": None,
        },
    }


def test_a_message_holding_two_results_becomes_two_tool_messages() -> None:
    doc = [
        item("tool", content="a", tool_call_id="c1", artifact=[1]),
        item("tool", content="b", tool_call_id="c2", id="t2"),
    ]
    t = CODEC.decode(doc)
    merged = Message(role="tool", parts=(*t.messages[0].parts, *t.messages[1].parts))
    out = CODEC.encode(t.evolve(messages=(merged,)))
    assert dump(out) == dump(
        [
            {"type": "tool", "data": {**doc[0]["data"]}},
            doc[1],
        ]
    )
    assert out[1] is doc[1]


def test_moving_a_message_keeps_it_identical() -> None:
    doc = [*_anthropic_doc(), item("human", content="and Milan?")]
    t = CODEC.decode(doc)
    m = t.messages
    out = CODEC.encode(t.evolve(messages=(m[0], m[1], m[3], m[2])))
    assert [id(x) for x in out] == [id(doc[0]), id(doc[1]), id(doc[3]), id(doc[2])]


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (item("human", content="hi"), item("human", content="")),
        (item("ai", content=[{"type": "text", "text": "x"}]), item("ai", content=[])),
        (item("ai", tool_calls=[call("c")]), item("ai")),
        (
            item("tool", content="r", tool_call_id="c", id="t1"),
            {
                "type": "chat",
                "data": {
                    "content": "",
                    "additional_kwargs": {},
                    "response_metadata": {},
                    "type": "chat",
                    "name": None,
                    "id": "t1",
                    "role": "tool",
                },
            },
        ),
        (
            {"type": "remove", "data": {"content": "", "type": "remove", "id": "m0"}},
            {"type": "chat", "data": {"content": "", "type": "chat", "id": "m0", "role": "remove"}},
        ),
    ],
    ids=["human", "ai-list", "ai-calls", "tool", "remove"],
)
def test_a_message_emptied_of_parts_reads_back_empty(doc: Any, expected: Any) -> None:
    t = CODEC.decode([doc])
    out = CODEC.encode(with_parts(t, 0))
    assert dump(out) == dump([expected])
    again = CODEC.decode(out)
    assert again.messages[0].parts == () and again.messages[0].role == t.messages[0].role
    assert dump(CODEC.encode(again)) == dump(out)


def test_new_parts_are_written_in_native_shape() -> None:
    t = CODEC.decode([item("ai", id="run-9")])
    out = CODEC.encode(
        with_parts(
            t,
            0,
            TextPart(text="Done."),
            ToolCallPart(call_id="c1", name="f", arguments='{"a": [1, true]}'),
            ToolCallPart(call_id="c2", name="g", arguments="not json"),
            ToolCallPart(
                call_id="w1", name="web_search", arguments={"q": 1}, family=ToolFamily.HOSTED
            ),
            UsagePart(details={"inputTokenCount": 3, "outputTokenCount": 4}),
        )
    )
    data = out[0]["data"]
    assert data["content"] == [
        {"type": "text", "text": "Done."},
        {"type": "server_tool_call", "id": "w1", "name": "web_search", "args": {"q": 1}},
    ]
    assert data["tool_calls"] == [call("c1", "f", a=[1, True])]
    assert data["invalid_tool_calls"] == [
        {"type": "invalid_tool_call", "name": "g", "args": "not json", "id": "c2", "error": None}
    ]
    assert data["usage_metadata"] == {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7}
    assert data["id"] == "run-9"


def test_edits_keep_unknown_keys_in_order() -> None:
    doc = [
        {
            "x_first": 1,
            "type": "human",
            "data": {"x_a": [1], "content": "old", "name": None, "x_b": True, "type": "human"},
        }
    ]
    t = CODEC.decode(doc)
    out = CODEC.encode(with_parts(t, 0, TextPart(text="new", native="old", slot="content")))
    assert dump(out) == dump(
        [
            {
                "x_first": 1,
                "type": "human",
                "data": {"x_a": [1], "content": "new", "name": None, "x_b": True, "type": "human"},
            }
        ]
    )


def test_metadata_is_response_metadata_and_errors_are_status() -> None:
    doc = [lc("ToolMessage", content="r", type="tool", tool_call_id="c")]
    t = CODEC.decode(doc)
    (result,) = t.messages[0].parts
    marked = t.messages[0].evolve(parts=(result.evolve(is_error=True),), metadata={"k": 1})
    out = CODEC.encode(with_message(t, 0, marked))
    assert out[0]["kwargs"] == {
        "content": "r",
        "type": "tool",
        "tool_call_id": "c",
        "status": "error",
        "response_metadata": {"k": 1},
    }
    cleared = CODEC.decode(out).messages[0]
    out = CODEC.encode(
        with_message(
            t, 0, cleared.evolve(parts=(cleared.parts[0].evolve(is_error=False),), metadata={})
        )
    )
    assert out[0]["kwargs"] == {
        "content": "r",
        "type": "tool",
        "tool_call_id": "c",
        "status": "success",
        "response_metadata": {},
    }


def test_usage_without_token_counts_cannot_be_written() -> None:
    t = CODEC.decode([item("ai")])
    with pytest.raises(HistnormError, match="cannot"):
        CODEC.encode(with_parts(t, 0, UsagePart(details={"cost": 1})))


def test_approvals_cannot_be_written() -> None:
    t = CODEC.decode([item("ai")])
    edited = with_parts(t, 0, ApprovalRequestPart(request_id="r", tool_call=None))
    with pytest.raises(HistnormError, match="approval_request"):
        CODEC.encode(edited)


def test_unknown_part_without_native_cannot_be_written() -> None:
    t = CODEC.decode([item("human")])
    with pytest.raises(HistnormError, match="unknown"):
        CODEC.encode(with_parts(t, 0, UnknownPart(type="x")))


# --- through the public API -----------------------------------------------------------


def test_lint_and_fix_an_orphan_call_with_its_copies() -> None:
    doc = [*_anthropic_doc(), item("human", content="Skip Rome.")]
    diagnostics = histnorm.lint(doc, format="langchain")
    assert [(d.code, d.location.pointer) for d in diagnostics] == [
        ("HN001", "/1/data/tool_calls/1")
    ]
    fixed = histnorm.encode(histnorm.fix(doc, format="langchain").transcript)
    assert [b["id"] for b in fixed[1]["data"]["content"][1:]] == ["toolu_p"]
    assert histnorm.lint(fixed, format="langchain") == ()


def test_synthesize_policy_writes_a_tool_message() -> None:
    doc = [*_anthropic_doc(), item("human", content="Skip Rome.")]
    result = histnorm.fix(doc, format="langchain", orphan_tool_call="synthesize")
    out = histnorm.encode(result.transcript)
    assert out[3]["type"] == "tool" and out[3]["data"]["tool_call_id"] == "toolu_r"
    assert out[3]["data"]["status"] == "error"


# --- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ("text", ""),
        (None, ""),
        ({"conversation": []}, ""),
        ({"messages": "x"}, "/messages"),
        ([item("human"), 5], "/1"),
        ([{"data": {"content": "x"}}], "/0/type"),
        ([{"type": 3, "data": {}}], "/0/type"),
        ([{"type": "human"}], "/0/data"),
        ([{"type": "human", "data": "x"}], "/0/data"),
        ([{"lc": 1, "type": "secret", "id": ["K"]}], "/0/type"),
        ([{"lc": 1, "type": "constructor", "id": "AIMessage", "kwargs": {}}], "/0/id"),
        ([{"lc": 1, "type": "constructor", "id": [], "kwargs": {}}], "/0/id"),
        ([{"lc": 1, "type": "constructor", "id": ["AIMessage"]}], "/0/kwargs"),
        ({"messages": [item("human", content=5)]}, "/messages/0/data/content"),
        ([item("human", name=1)], "/0/data/name"),
        ([item("human", id=[1])], "/0/data/id"),
        ([item("human", response_metadata=[])], "/0/data/response_metadata"),
        ([{"type": "chat", "data": {"content": "x"}}], "/0/data/role"),
        ([item("chat", role=None)], "/0/data/role"),
        ([{"type": "tool", "data": {"content": "x"}}], "/0/data/tool_call_id"),
        ([item("tool", tool_call_id=7)], "/0/data/tool_call_id"),
        ([item("tool", content={"a": 1}, tool_call_id="c")], "/0/data/content"),
        ([item("ai", tool_calls={"id": "c"})], "/0/data/tool_calls"),
        ([item("ai", tool_calls=["c"])], "/0/data/tool_calls/0"),
        ([item("ai", tool_calls=[call("a"), {"name": "f", "id": 3}])], "/0/data/tool_calls/1/id"),
        ([item("ai", tool_calls=[{"name": 1, "id": "c"}])], "/0/data/tool_calls/0/name"),
        ([item("ai", invalid_tool_calls=[None])], "/0/data/invalid_tool_calls/0"),
        ([item("ai", additional_kwargs=[])], "/0/data/additional_kwargs"),
        ([item("ai", usage_metadata=5)], "/0/data/usage_metadata"),
        (
            [lc("AIMessage", content="", tool_calls=[{"id": 1}])],
            "/0/kwargs/tool_calls/0/id",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as info:
        CODEC.decode(doc)
    assert info.value.pointer == pointer


# --- fixtures (their round trip and detection: test_codec_contract.py) ------------------


def load(name: str) -> Transcript:
    return CODEC.decode(jsonio.loads((FIXTURES / name).read_bytes()))


def test_fixture_contents() -> None:
    anthropic = load("anthropic-tool-use.json")
    calls = [p for p in anthropic.messages[2].parts if isinstance(p, ToolCallPart)]
    assert [c.slot for c in calls] == ["tool_calls", "tool_calls"]  # tool_use blocks are copies
    assert not pair_transcript(anthropic).unmatched_calls

    openai = load("openai-additional-kwargs.json")
    assert [p.slot for p in openai.messages[1].parts] == ["tool_calls", "tool_calls"]

    legacy = load("legacy-function-call.json")
    assert pair_transcript(legacy).call_results == {(2, 0): (3, 0)}

    invalid = load("invalid-tool-call.json")
    assert pair_transcript(invalid).call_results == {(1, 0): (2, 0), (3, 0): (4, 0)}
    assert invalid.messages[2].parts[0].is_error  # type: ignore[union-attr]

    state = load("dumpd-state.json")
    assert isinstance(state.native, dict) and state.native["thread_id"] == "support-7"
    assert state.messages[3].author_name == "support_agent"

    chunks = load("chunks-and-chat.json")
    assert [m.role for m in chunks.messages] == [
        "editor",
        "user",
        "assistant",
        "tool",
        "assistant",
        "remove",
    ]

    v1 = load("v1-content-blocks.json")
    kinds = [(p.kind, getattr(p, "family", None)) for p in v1.messages[1].parts]
    assert kinds[1] == ("tool_call", ToolFamily.HOSTED) and kinds[2][0] == "tool_result"
    assert not pair_transcript(v1).unmatched_calls
