"""Detection by signature (`histnorm.formats.signature`): the codecs it leaves out of
`claims` are never ones that would have claimed the document.

Each test compares `claims(data)` with every codec's own `sniff` on the same value: the
scores must be the same, in the same order. The values are every fixture (whole, and each
JSONL line), every format's generated and damaged documents, and JSON built from the
keys the formats use, which reaches the shapes in between.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies_native import DOCUMENTS
from test_codec_contract import DAMAGED

from benchmarks import corpus
from histnorm.formats import CODECS, claims
from histnorm.formats.signature import candidates

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def every_claim(data: Any) -> dict[str, float]:
    """The claims of every codec on `data`, as detection made them before signatures."""
    found = {}
    for name, codec in CODECS.items():
        score = codec.sniff(data)
        if score > 0:
            found[name] = score
    return found


def agree(data: Any) -> None:
    want = every_claim(data)
    assert set(want) <= candidates(data), (sorted(want), sorted(candidates(data)))
    assert list(claims(data).items()) == list(want.items())


def _values(path: Path) -> list[Any]:
    data = path.read_bytes()
    if path.suffix == ".json":
        try:
            return [orjson.loads(data)]
        except orjson.JSONDecodeError:
            return []
    lines = []
    for raw in data.splitlines():
        try:
            lines.append(orjson.loads(raw))
        except orjson.JSONDecodeError:
            continue
    return [lines, *lines]


FIXTURE_FILES = sorted(p for p in FIXTURES.rglob("*") if p.suffix in (".json", ".jsonl"))


def test_the_fixtures_are_many() -> None:
    assert len(FIXTURE_FILES) > 300


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_signature_agrees_with_every_codec_on_the_fixtures(path: Path) -> None:
    for value in _values(path):
        agree(value)
        if isinstance(value, list):
            agree({"messages": value})


PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("fmt", list(CODECS))
def test_signature_agrees_on_generated_and_damaged_documents(fmt: str) -> None:
    @PROPERTY
    @given(st.one_of(DOCUMENTS[fmt], DAMAGED[fmt]))
    def check(doc: Any) -> None:
        agree(doc)
        if isinstance(doc, list):
            agree({"messages": doc})
            agree(doc[1:])
        elif isinstance(doc, dict):
            agree([doc])

    check()


KEYS = [
    "role", "content", "parts", "id", "items", "blocks", "type", "data", "lc", "kwargs",
    "contents", "kind", "part_kind", "from", "value", "messages", "input", "conversations",
    "chosen", "rejected", "prompt", "completion", "class_name", "store", "payload", "uuid",
    "parentUuid", "sessionId", "message", "tool_calls", "tool_call_id", "text", "toolUse",
    "system", "model", "Role", "$type", "content_type", "block_type", "additional_kwargs",
    "functionCall", "inferenceConfig", "timestamp",
]  # fmt: skip
LEAVES = st.sampled_from(
    [
        None, True, 1, "x", "user", "assistant", "model", "tool", "system", "human", "gpt",
        "message", "request", "response", "text", "function_call", "session_meta",
        "response_item", "constructor", "chat_message", "SimpleChatStore", [], {},
    ]
)  # fmt: skip
JSON = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner),
    max_leaves=12,
)


PARTS = st.lists(st.dictionaries(st.sampled_from(KEYS), LEAVES, max_size=3), max_size=2)
MESSAGES = st.lists(
    st.dictionaries(st.sampled_from(KEYS), LEAVES | PARTS, max_size=5), min_size=1, max_size=4
)
ENVELOPES = st.sampled_from(["messages", "contents", "input", "conversations"])


@settings(max_examples=1500, deadline=None)
@given(JSON)
def test_signature_agrees_on_json_made_of_the_formats_keys(value: Any) -> None:
    agree(value)


@settings(max_examples=1500, deadline=None)
@given(MESSAGES, ENVELOPES)
@example([{"role": "user"}, {"role": "model", "parts": [{"text": "x"}]}], "contents")
def test_signature_agrees_on_lists_of_messages(messages: list[Any], key: str) -> None:
    """A message list bare and in an envelope: a later message may be the one that marks
    a format (a Gemini list's first item may lack `parts`)."""
    agree(messages)
    agree({key: messages})


CALLS = st.lists(
    st.one_of(
        st.builds(
            lambda args: {
                "id": "c1",
                "type": "function",
                "function": {"name": "f", "arguments": args},
            },
            st.sampled_from(['{"a": 1}', {"a": 1}, None, []]),
        ),
        st.builds(lambda args: {"name": "f", "arguments": args}, st.sampled_from(["{}", {}])),
        st.sampled_from([None, "x", {"function": "f"}]),
    ),
    max_size=2,
)
ITEMS = st.sampled_from(
    [
        *({"type": kind} for kind in ("text", "image", "image_url", "input_text", "file")),
        *({"type": kind} for kind in ("tool_use", "tool_result", "web_search_tool_result")),
        {"type": "tool_use", "value": "x"}, {"type": "output_text", "text": "x"}, {"text": "x"},
        {"type": 1}, "x", None,
    ]
)  # fmt: skip
"""Content items of Chat, chat-template, Anthropic and Responses, and untyped ones."""
CHAT_MESSAGES = st.lists(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant", "system", "tool", "Tool", "TOOL", None, 1])},
        optional={
            "content": st.sampled_from(
                [
                    None,
                    "",
                    "x",
                    [],
                    [{"type": "text", "text": "x"}],
                    [{"type": "text", "value": "x"}],
                ]
            )
            | st.lists(ITEMS, min_size=1, max_size=2),
            "tool_call_id": st.just("c1"),
            "tool_calls": CALLS | st.sampled_from([None, {}, "x"]),
            "name": st.just("f"),
            "refusal": st.just("no"),
            "type": st.just("message"),
            "parts": st.just([]),
        },
    ),
    min_size=1,
    max_size=5,
)


@settings(max_examples=1500, deadline=None)
@given(CHAT_MESSAGES)
@example([{"role": "tool", "tool_call_id": "c1", "content": "x"}, {"role": "Tool", "content": "y"}])
@example(
    [
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "{}"}}]},
        {"role": "assistant", "tool_calls": [{"name": "f", "arguments": {}}]},
    ]
)
def test_signature_agrees_on_chat_tool_calls_and_results(messages: list[Any]) -> None:
    """OpenAI Chat and chat-template messages with tool calls (string, object or flat
    arguments), tool results with and without an id in any role casing, and content
    items of several formats: the marks the signature reads to leave a format out."""
    agree(messages)
    agree({"messages": messages})


def test_session_line_types_are_no_responses_item_types() -> None:
    """What lets a session or rollout skip Responses' sniff: its line types are none of
    the item types that sniff scores."""
    from histnorm.formats.openai_responses.items import ITEM_TYPES
    from histnorm.formats.signature import _LINE_TYPES

    assert _LINE_TYPES.isdisjoint(ITEM_TYPES)


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
def test_a_session_is_asked_of_the_session_codecs_only(fmt: str) -> None:
    """A session or rollout whose lines are of the types its format writes, none with a
    `role`, is not asked of Responses' sniff (a line of another type may be its item)."""
    from histnorm.formats.signature import _LINE_TYPES

    @PROPERTY
    @given(DOCUMENTS[fmt])
    def check(doc: Any) -> None:
        agree(doc)
        window = [line for line in doc[:50] if isinstance(line, dict)]
        types = {line.get("type") for line in window}
        if types <= _LINE_TYPES and not any("role" in line for line in window):
            assert "openai-responses" not in candidates(doc)

    check()
    bench = next(corpus.transcripts(fmt))[1]
    assert candidates(bench) == {"claude-code", "codex"}
