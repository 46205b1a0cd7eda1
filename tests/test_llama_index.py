"""Tests for the `llama-index` codec (LlamaIndex `ChatMessage` dumps and `SimpleChatStore`
files).

The fixtures were written by llama-index-core 0.14.25 itself (`ChatMessage.model_dump()`,
and the JSON `SimpleChatStore.persist` writes). When llama-index-core is installed, every
fixed output is read back with its own loaders (`ChatMessage.model_validate`,
`SimpleChatStore.from_persist_path`); the rest of this file needs only histnorm. Byte
comparisons go through `orjson.dumps` because Python `==` treats `1`, `1.0` and `True` as
equal.
"""

from __future__ import annotations

import copy
import importlib.util
from pathlib import Path
from typing import Any

import orjson
import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, resolve
from hypothesis import given
from strategies_llama_index import transcripts

import histnorm
from histnorm.errors import HistnormError
from histnorm.formats import detect_format, get_codec
from histnorm.model import (
    MediaPart,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    UnknownPart,
)

CODEC = get_codec("llama-index")
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "llama-index"
PROPERTY = PROPERTY_SETTINGS["llama-index"]
HAS_LLAMA_INDEX = importlib.util.find_spec("llama_index") is not None
needs_llama_index = pytest.mark.skipif(
    not HAS_LLAMA_INDEX, reason="llama-index-core is not installed (test-only dependency)"
)


def _load(name: str) -> Any:
    return orjson.loads((FIXTURES / name).read_bytes())


def text(role: str, *texts: str, **kwargs: Any) -> dict[str, Any]:
    blocks = [{"block_type": "text", "text": t} for t in texts]
    return {"role": role, "additional_kwargs": kwargs, "blocks": blocks}


def call(call_id: str, name: str = "get_weather") -> dict[str, Any]:
    block = {"block_type": "tool_call", "tool_call_id": call_id, "tool_name": name}
    return {"role": "assistant", "additional_kwargs": {}, "blocks": [block | {"tool_kwargs": {}}]}


def result(call_id: str, answer: str = "18 C") -> dict[str, Any]:
    return text("tool", answer, tool_call_id=call_id)


def loads_in_llama_index(data: bytes) -> None:
    """Read `data` back with llama-index-core's own loaders (a store or a message dump)."""
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.storage.chat_store import SimpleChatStore

    value = orjson.loads(data)
    if isinstance(value, dict) and value.get("class_name") == "SimpleChatStore":
        store = SimpleChatStore.model_validate(value)
        assert set(store.store) == set(value["store"])
    else:
        messages = [ChatMessage.model_validate(m) for m in value]
        assert len(messages) == len(value)


# --- properties (the codec contract is checked in test_codec_contract.py) ---------------


@PROPERTY
@given(transcripts())
def test_pointers_resolve_to_what_each_message_and_part_was_read_from(doc: Any) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert dump(resolve(doc, at)) == dump(message.native)
        for j, part in enumerate(message.parts):
            found = resolve(doc, CODEC.part_pointer(transcript, i, j))
            assert dump(found) == dump(part.native)


# --- the fixtures: written by llama-index-core -----------------------------------------


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_fixtures_are_detected_and_fix_keeps_their_bytes(path: Path) -> None:
    data = path.read_bytes()
    assert detect_format(orjson.loads(data)) == "llama-index"
    found = histnorm.lint_document(data).diagnostics
    assert {d.code for d in found} <= {"HN004"}  # the OpenAI integration's empty text
    result = histnorm.fix_document(data)
    if not found:
        assert result.output is None
        return
    assert result.output is not None and result.diagnostics == ()
    before, after = orjson.loads(data), orjson.loads(result.output)
    empty = {"block_type": "text", "text": ""}
    messages = before["store"]["session-42"] if "store" in before else before
    fixed = after["store"]["session-42"] if "store" in after else after
    assert fixed == [{**m, "blocks": [b for b in m["blocks"] if b != empty]} for m in messages]


@needs_llama_index
@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.json")), ids=lambda p: p.name)
def test_fixtures_and_their_fixes_load_in_llama_index(path: Path, tmp_path: Path) -> None:
    from llama_index.core.storage.chat_store import SimpleChatStore

    data = path.read_bytes()
    loads_in_llama_index(data)
    fixed = histnorm.fix_document(data).output or data
    loads_in_llama_index(fixed)
    if path.name.startswith("chat-store"):
        (tmp_path / "chat_store.json").write_bytes(fixed)
        store = SimpleChatStore.from_persist_path(str(tmp_path / "chat_store.json"))
        assert list(store.store) == list(orjson.loads(data)["store"])


def test_blocks_decode_to_what_they_are() -> None:
    transcript = CODEC.decode(_load("weather-tool.json"))
    kinds = [[type(p) for p in m.parts] for m in transcript.messages]
    assert kinds == [[TextPart], [TextPart], [TextPart, ToolCallPart], [ToolResultPart], [TextPart]]
    tool_call = transcript.messages[2].parts[1]
    assert isinstance(tool_call, ToolCallPart)
    assert (tool_call.call_id, tool_call.name, tool_call.arguments) == (
        "call_1",
        "get_weather",
        {"city": "Paris"},
    )
    answer = transcript.messages[3].parts[0]
    assert isinstance(answer, ToolResultPart)
    assert (answer.call_id, answer.content) == ("call_1", "18 C, sunny")
    assert CODEC.part_pointer(transcript, 2, 1) == "/2/blocks/1"
    assert CODEC.part_pointer(transcript, 3, 0) == "/3/blocks"


def test_openai_tool_calls_in_additional_kwargs_are_calls() -> None:
    transcript = CODEC.decode(_load("openai-tool-calls.json"))
    calls = transcript.messages[1].parts[1:]
    assert [(p.call_id, p.name) for p in calls if isinstance(p, ToolCallPart)] == [
        ("call_a1", "get_weather"),
        ("call_a2", "get_weather"),
    ]
    assert CODEC.part_pointer(transcript, 1, 2) == "/1/additional_kwargs/tool_calls/1"
    results = [m.parts[0] for m in transcript.messages if m.role == "tool"]
    assert [(r.call_id, r.name) for r in results if isinstance(r, ToolResultPart)] == [
        ("call_a1", "get_weather"),
        ("call_a2", "get_weather"),
    ]


def test_media_thinking_and_citations_are_kept_without_a_report() -> None:
    media = CODEC.decode(_load("media-and-thinking.json"))
    assert [type(p) for p in media.messages[0].parts] == [TextPart, MediaPart, MediaPart]
    image = media.messages[0].parts[1]
    assert isinstance(image, MediaPart) and image.uri == "https://example.com/cat.png"
    thinking = media.messages[1].parts[0]
    assert isinstance(thinking, ReasoningPart) and thinking.opaque == {"signature": "c2lnbmF0dXJl"}
    cited = CODEC.decode(_load("citations.json"))
    assert [p.type for m in cited.messages for p in m.parts if isinstance(p, UnknownPart)] == [
        "cache",
        "citable",
        "citation",
    ]
    for name in ("media-and-thinking.json", "citations.json"):
        assert histnorm.lint(_load(name)) == ()


# --- the chat store: one conversation per key ------------------------------------------


def store(**keys: list[dict[str, Any]]) -> dict[str, Any]:
    return {"store": dict(keys), "class_name": "SimpleChatStore"}


def test_a_store_holds_one_conversation_per_key() -> None:
    transcript = CODEC.decode(_load("chat-store.json"))
    assert CODEC.conversations(transcript) == ((0, 1, 2, 3), (4, 5))
    assert CODEC.message_pointer(transcript, 4) == "/store/bob/0"
    assert CODEC.message_arrays(transcript) == ("/store/alice", "/store/bob")


def test_a_defect_in_one_key_is_reported_there_and_fixed_there_only() -> None:
    bob = [text("user", "Hi"), text("assistant", "Hello.")]
    doc = store(alice=[text("user", "Weather?"), call("c1"), text("user", "Thanks.")], bob=bob)
    (found,) = histnorm.lint(doc)
    assert (found.code, found.location.pointer) == ("HN001", "/store/alice/1/blocks/0")
    fixed = histnorm.encode(histnorm.fix(doc).transcript)
    assert fixed["store"]["alice"] == [doc["store"]["alice"][0], doc["store"]["alice"][2]]
    assert fixed["store"]["bob"] == bob and fixed["class_name"] == "SimpleChatStore"


def test_a_result_synthesized_in_a_later_key_stays_in_that_key() -> None:
    alice = [text("user", "Hi"), text("assistant", "Hello.")]
    doc = store(alice=alice, bob=[text("user", "Weather?"), call("c1"), text("user", "And?")])
    before = copy.deepcopy(doc)
    data = orjson.dumps(doc)
    result = histnorm.fix_document(data, orphan_tool_call="synthesize", unsafe_fixes=True)
    assert result.output is not None and result.diagnostics == ()
    after = orjson.loads(result.output)
    assert after["store"]["alice"] == alice
    bob = after["store"]["bob"]
    assert [m["role"] for m in bob] == ["user", "assistant", "tool", "user"]
    assert bob[2]["additional_kwargs"]["tool_call_id"] == "c1"
    assert doc == before
    assert histnorm.fix_document(result.output, orphan_tool_call="synthesize").output is None
    if HAS_LLAMA_INDEX:
        loads_in_llama_index(result.output)


def test_a_store_is_not_read_as_a_store_without_its_class_name() -> None:
    doc = {"store": {"a": [text("user", "hi")]}}
    assert CODEC.sniff(doc) == 0.0


# --- what histnorm does not model ------------------------------------------------------


def test_an_unknown_block_type_is_reported_and_its_turn_kept() -> None:
    unknown = {"block_type": "hologram", "data": {"x": 1}}
    doc = [
        text("user", "Weather?"),
        {"role": "assistant", "additional_kwargs": {}, "blocks": [unknown]},
        call("c1"),
        text("user", "Thanks."),
    ]
    found = histnorm.lint(doc)
    assert "HN013" in {d.code for d in found}
    assert [d.location.pointer for d in found if d.code == "HN013"] == ["/1/blocks/0"]
    assert histnorm.encode(histnorm.fix(doc).transcript)[1] == doc[1]


def test_tool_calls_of_another_shape_are_unknown_content() -> None:
    anthropic = {"id": "toolu_1", "input": {"city": "Paris"}, "name": "get_weather"}
    doc = [
        text("user", "Weather?"),
        {"role": "assistant", "additional_kwargs": {"tool_calls": [anthropic]}, "blocks": []},
        result("toolu_1"),
    ]
    found = histnorm.lint(doc)
    assert [d.location.pointer for d in found if d.code == "HN013"] == [
        "/1/additional_kwargs/tool_calls/0"
    ]
    assert histnorm.encode(histnorm.fix(doc).transcript) == doc


# --- writing ----------------------------------------------------------------------------


def test_dropping_a_call_keeps_every_other_key_and_object() -> None:
    doc = _load("openai-tool-calls.json")
    doc = doc[:3] + doc[4:]  # call_a2 has no result
    transcript = CODEC.decode(doc)
    fixed = CODEC.encode(histnorm.fix(transcript, select=("HN001",)).transcript)
    assert fixed[0] is doc[0] and fixed[2:] == doc[2:]
    kept = fixed[1]["additional_kwargs"]["tool_calls"]
    assert kept == [doc[1]["additional_kwargs"]["tool_calls"][0]]
    assert kept[0] is doc[1]["additional_kwargs"]["tool_calls"][0]
    assert fixed[1]["blocks"] is doc[1]["blocks"]


def test_a_new_result_is_a_tool_message_llama_index_reads() -> None:
    doc = [text("user", "Weather?"), call("c1"), text("user", "And?")]
    result = histnorm.fix(doc, orphan_tool_call="synthesize", unsafe_fixes=True)
    out = histnorm.encode(result.transcript)
    new = out[2]
    assert list(new) == ["role", "additional_kwargs", "blocks"]
    assert new["role"] == "tool" and new["additional_kwargs"]["tool_call_id"] == "c1"
    assert all(b["block_type"] == "text" for b in new["blocks"])
    if HAS_LLAMA_INDEX:
        loads_in_llama_index(orjson.dumps(out))


# --- bad input and detection -----------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        (
            [text("user", "hi"), {"role": "assistant", "blocks": {"block_type": "text"}}],
            "/1/blocks",
        ),
        ([{"role": 3, "blocks": []}], "/0/role"),
        ([text("tool", "x", tool_call_id=5)], "/0/additional_kwargs/tool_call_id"),
        (
            store(a=[text("user", "hi")], b=[{"role": "user", "additional_kwargs": []}]),
            "/store/b/0/additional_kwargs",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_with_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as raised:
        CODEC.decode(doc)
    assert raised.value.pointer == pointer


@pytest.mark.parametrize(
    "doc",
    [
        [{"role": "user", "content": "hi"}],  # OpenAI Chat
        [{"role": "user", "blocks": []}],  # no block anywhere
        [{"role": "user", "blocks": [{"type": "text", "text": "hi"}]}],  # untyped by LlamaIndex
        [text("user", "hi"), {"role": "assistant", "content": "x", "blocks": []}],
        {"store": {"a": [text("user", "hi")]}, "class_name": "OtherStore"},
    ],
)
def test_sniff_claims_only_llama_index_marks(doc: Any) -> None:
    assert CODEC.sniff(doc) == 0.0


def test_a_store_of_several_keys_does_not_convert_and_says_why() -> None:
    transcript = histnorm.load(_load("chat-store.json"))
    with pytest.raises(HistnormError) as raised:
        histnorm.encode(histnorm.convert(transcript, "openai-chat"), "openai-chat")
    assert "chat store of several keys" in raised.value.message
    one = histnorm.load(_load("chat-store-openai.json"))
    out = histnorm.encode(histnorm.convert(one, "openai-chat"), "openai-chat")
    assert [m["role"] for m in out["messages"]] == [
        "user",
        "assistant",
        "tool",
        "tool",
        "assistant",
    ]
