"""Detection in the walk that reads the outline (`histnorm.formats.detect_reading`,
`histnorm.document.read.pick_reading`).

OpenAI Chat's fast reader tells, in the walk that reads a history's outline, whether the
history is this format beyond doubt (`histnorm.formats.openai_chat.outline.read`); then
detection asks no signature and no sniff. Each test holds that answer to `detect_format`
on the same value: whenever the reader is sure, detection gives "openai-chat", and
`detect_reading` gives what `detect_format` and the format's `read_outline` give
(or raises as `detect_format` does). The values are every fixture (whole, and each JSONL
line), every format's generated and damaged documents, and histories built from the
keys the formats use.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from strategies_native import DOCUMENTS
from test_codec_contract import DAMAGED
from test_signature import CHAT_MESSAGES, FIXTURE_FILES, FIXTURES, JSON, MESSAGES, PROPERTY, _values

import histnorm
import histnorm.formats as formats
from benchmarks.library_calls import clean_history, damaged_history
from histnorm.document.layout import UNREAD
from histnorm.document.read import pick_format, pick_reading
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, detect_format, detect_reading
from histnorm.formats.openai_chat.outline import read, read_outline

SCORED = ("chat-template", "sharegpt")
"""The formats whose reader tells its `sniff` score (`Codec.read_scored`)."""


def scored_agrees(data: Any) -> None:
    """Each reader that tells its codec's `sniff` score gives that score whenever it reads
    `data`; `pick_reading` picks as `pick_format` does, with the outline the format's
    reader reads."""
    for name in SCORED:
        codec = CODECS[name]
        scored = codec.read_scored(data)
        if scored is not None:
            assert scored == (codec.read_outline(data), codec.sniff(data))
    for likely in (None, "openai-chat", *SCORED, "anthropic"):
        for detect in ("file", "per-line"):
            want = pick_format(data, None, likely, detect)
            found, outline = pick_reading(data, None, likely, detect)
            assert found == want
            if outline is not UNREAD:
                assert outline == CODECS[found].read_outline(data)


def agree(data: Any) -> bool:
    """Check `read` and `detect_reading` against `detect_format` on `data`; whether the
    reader was sure."""
    scored_agrees(data)
    outline, sure = read(data)
    assert outline == read_outline(data)
    try:
        want = detect_format(data)
    except HistnormError as error:
        assert not sure
        with pytest.raises(type(error)) as raised:
            detect_reading(data)
        assert raised.value.message == error.message
        return False
    if sure:
        assert outline is not None
        assert want == "openai-chat"
    assert detect_reading(data) == (want, CODECS[want].read_outline(data))
    return sure


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_the_reader_is_sure_only_of_what_detection_reads_as_openai_chat(path: Path) -> None:
    for value in _values(path):
        agree(value)
        if isinstance(value, list):
            agree({"messages": value})
            agree({"messages": value, "model": "m", "tools": []})


def test_the_reader_is_sure_of_the_usual_openai_chat_fixtures() -> None:
    """Not a vacuous agreement: the fixtures hold histories the reader proves."""
    sure = [p for p in FIXTURE_FILES if any(read(v)[1] for v in _values(p))]
    assert len(sure) >= 10, sure


@pytest.mark.parametrize("fmt", list(CODECS))
def test_the_reader_agrees_on_generated_and_damaged_documents(fmt: str) -> None:
    @PROPERTY
    @given(st.one_of(DOCUMENTS[fmt], DAMAGED[fmt]))
    def check(doc: Any) -> None:
        agree(doc)
        if isinstance(doc, list):
            agree({"messages": doc})
            agree(doc[1:])

    check()


@settings(max_examples=500, deadline=None)
@given(JSON)
def test_the_reader_agrees_on_json_made_of_the_formats_keys(value: Any) -> None:
    agree(value)


@settings(max_examples=500, deadline=None)
@given(MESSAGES)
def test_the_reader_agrees_on_lists_of_messages(messages: list[Any]) -> None:
    agree(messages)
    agree({"messages": messages})


@settings(max_examples=1000, deadline=None)
@given(CHAT_MESSAGES)
def test_the_reader_agrees_on_chat_tool_calls_and_results(messages: list[Any]) -> None:
    agree(messages)
    agree({"messages": messages})


_CALL = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
_USUAL = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "What is the weather?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    {"role": "assistant", "content": "Sunny."},
]
_FOREIGN_KEYS = ["type", "parts", "contents", "items", "blocks", "id", "from", "lc", "kind"]
_MARKS = st.sampled_from(
    [
        ("name", "f"), ("refusal", None), ("audio", None), ("function_call", None),
        ("annotations", []), ("weight", 0), ("tool_calls", []), ("content", []),
        ("content", [{"type": "text", "value": "x"}]), ("content", [{"type": "text", "text": "x"}]),
        ("content", [{"type": "text", "text": "x", "value": "y"}]), ("reasoning_content", "x"),
        ("reasoning_content", [{"type": "text"}]), ("content", [{"type": "image_url"}]),
    ]
    + [(key, "x") for key in _FOREIGN_KEYS]
)  # fmt: skip
_BODY = st.dictionaries(
    st.sampled_from(
        [
            *("model", "tools", "temperature", "system", "input", "contents", "conversations"),
            *("stop_sequences", "inferenceConfig", "prompt", "completion", "chosen", "metadata"),
            *("store", "class_name", "thinking", "rejected"),
        ]
    ),
    st.sampled_from(["x", [], {}, None]),
    max_size=2,
)


@st.composite
def _near_usual(draw: st.DrawFn) -> Any:
    """The usual history with a key added to some of its messages (ones that keep the
    format and ones of other formats), some of them cut, in a list or a body."""
    messages = [dict(m) for m in draw(st.lists(st.sampled_from(_USUAL), min_size=1))]
    for message in messages:
        if draw(st.booleans()):
            key, value = draw(_MARKS)
            message[key] = value
    if draw(st.booleans()):
        return messages
    return {"messages": messages, **draw(_BODY)}


@settings(max_examples=1500, deadline=None)
@given(_near_usual())
@example({"messages": _USUAL, "system": "x"})
@example({"messages": _USUAL, "contents": []})
def test_the_reader_agrees_near_the_usual_history(value: Any) -> None:
    agree(value)


def _history(*messages: dict[str, Any]) -> list[dict[str, Any]]:
    return [*_USUAL[:2], *messages, *_USUAL[2:]]


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(_history({"role": "user", "content": "x", "type": "message"}), id="key"),
        pytest.param(
            _history({"role": "user", "content": [{"type": "text", "text": "x", "id": "1"}]}),
            id="array-item-key",
        ),
        pytest.param(
            _history({"role": "user", "content": [{"type": "image_url", "image_url": {}}]}),
            id="array-image",
        ),
        pytest.param(
            [*_USUAL[:3], {**_USUAL[3], "content": [{"type": "text", "text": "x", "v": 1}]}],
            id="array-result-item-key",
        ),
        pytest.param(
            [
                *_USUAL[:2],
                {"role": "assistant", "tool_calls": [{**_CALL, "function": {"arguments": {}}}]},
                *_USUAL[3:],
            ],
            id="object-arguments",
        ),
        pytest.param(
            [*_USUAL[:3], {**_USUAL[3], "content": [{"type": "text", "value": "x"}]}],
            id="array-result",
        ),  # chat-template's text item: detection reads it as chat-template
        pytest.param({"messages": _USUAL, "system": "x"}, id="anthropic-body"),
        pytest.param([*_USUAL[:2]] * 30 + _USUAL[2:], id="call-after-50"),
        pytest.param([_USUAL[2], _USUAL[3]], id="no-string-content"),
        pytest.param([*_USUAL[:2], _USUAL[4]], id="no-call"),
    ],
)
def test_the_reader_leaves_detection_to_detect_format_without_plain_marks(value: Any) -> None:
    """Each mark the reader needs, missing: it proves nothing, and detection answers."""
    assert read(_USUAL)[1]
    assert not read(value)[1]
    agree(value)


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(
            _history({"role": "user", "content": [{"type": "text", "text": "x"}]}), id="array"
        ),
        pytest.param(
            [*_USUAL[:3], {**_USUAL[3], "content": [{"type": "text", "text": "x"}]}],
            id="array-result",
        ),
        pytest.param(
            _history({"role": "assistant", "content": "x", "reasoning_content": "y"}),
            id="reasoning",
        ),
        pytest.param({"messages": _USUAL, "model": "m", "tools": [], "store": False}, id="body"),
    ],
)
def test_the_reader_proves_openai_chat_with_its_own_marks(value: Any) -> None:
    """Text items, a reasoning string and request keys are this format's: the reader is
    sure, and detection agrees."""
    assert read(value)[1]
    agree(value)


@pytest.mark.parametrize(("fmt", "want"), [("chat-template", {0.3, 0.95}), ("sharegpt", {0.95})])
def test_the_readers_score_the_dense_records_as_their_sniffs(fmt: str, want: set[float]) -> None:
    """Not a vacuous agreement: each reader reads and scores the records of each kind the
    dense corpus holds (chat-template: plain chat at 0.3, object arguments at 0.95)."""
    from benchmarks import dense

    scores = set()
    for _, record in itertools.islice(dense.records(fmt), 60):
        scored = CODECS[fmt].read_scored(record)
        assert scored is not None
        scored_agrees(record)
        scores.add(scored[1])
    assert scores == want


@pytest.mark.parametrize(
    ("value", "score"),
    [
        ({"conversations": []}, 0.6),
        ([], 0.0),
        ([{"from": "human", "value": "x"}], 0.8),
        ({"conversations": [{"from": "human", "value": "x", "content": "y"}]}, 0.0),
        ({"conversations": [{"from": "human", "value": "x", "role": "user"}]}, 0.0),
    ],
)
def test_the_sharegpt_reader_scores_empty_and_foreign_turns_as_its_sniff(
    value: Any, score: float
) -> None:
    scored = CODECS["sharegpt"].read_scored(value)
    assert scored is not None and scored[1] == score
    scored_agrees(value)


def test_a_proven_history_is_repaired_without_the_signature_or_the_sniffs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`repair()` and `lint()` of the usual history detect it in the walk that reads it;
    a damaged one is then repaired as with the format given."""
    clean, damaged = clean_history(), damaged_history()
    want = histnorm.repair(damaged, format="openai-chat")

    def refuse(data: Any) -> Any:
        raise AssertionError("detection asked the signature")

    monkeypatch.setattr(formats, "candidates", refuse)
    assert histnorm.repair(clean).value is clean
    assert histnorm.repair(clean).format == "openai-chat"
    assert histnorm.lint(clean) == ()
    got = histnorm.repair(damaged)
    assert (got.value, got.applied, got.remaining) == (want.value, want.applied, want.remaining)
    assert got.format == "openai-chat"
