"""Integers wider than 64 bits and lone surrogates in tool results and call ids, in every
format: fix (and `repair`) never raise; what cannot be written is a diagnostic with its
pointer, and the input is left as it was.

Python's JSON reader takes both (`2**70`, `"\\ud800"`), and so do the JSON readers of
many languages; orjson, which writes histnorm's output, takes neither.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from codec_helpers import FORMAT_FIXTURES, fixture_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from histnorm import jsonio, repair
from histnorm.analysis.outline import Outline
from histnorm.diagnostic import Diagnostic
from histnorm.document import fix_document, lint_document
from histnorm.formats import CODECS
from histnorm.formats.base import MessageListCodec
from histnorm.model import Transcript, unread

FILES = [(name, path) for name in CODECS for path in fixture_files(name)]
ID_KEYS = frozenset(
    {"id", "call_id", "callId", "CallId", "toolCallId", "tool_call_id", "tool_use_id"}
)
RESULT_KEYS = frozenset({"content", "output", "result", "Result", "response", "text"})
BIG = [2**64, -(2**70), 10**30]
LONE = ["\ud800", "x\udfffy", "call_\udc80"]


def _slots(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], str]]:
    """Where an id or a result value sits: (path, "id" | "result")."""
    out: list[tuple[tuple[Any, ...], str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ID_KEYS and isinstance(item, str):
                out.append(((*at, key), "id"))
            elif key in RESULT_KEYS:
                out.append(((*at, key), "result"))
            out.extend(_slots(item, (*at, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out.extend(_slots(item, (*at, i)))
    return out


def _put(doc: Any, path: tuple[Any, ...], new: Any) -> None:
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = new


def _read(path: Path) -> tuple[bool, Any]:
    raw = path.read_bytes()
    if path.suffix == ".jsonl":
        return True, [jsonio.loads(line) for line in raw.splitlines() if line.strip()]
    return False, jsonio.loads(raw)


def _dump(lines: bool, doc: Any) -> bytes:
    if lines:
        return b"".join(json.dumps(line).encode() + b"\n" for line in doc)
    return json.dumps(doc).encode()


@st.composite
def hostile(draw: st.DrawFn) -> tuple[str, str, bytes, Any]:
    name, path = draw(st.sampled_from(FILES))
    lines, doc = _read(path)
    slots = _slots(doc)
    chosen = draw(st.lists(st.sampled_from(slots), min_size=1, max_size=4)) if slots else []
    for where, kind in chosen:
        if kind == "id":
            value: Any = draw(st.sampled_from(LONE))
        else:
            big = draw(st.sampled_from(BIG))
            value = draw(st.sampled_from([big, {"n": big}, [big], *LONE]))
        try:
            _put(doc, where, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier choice replaced what held it
    suffix = ".jsonl" if lines else ".json"
    return name, f"f{suffix}", _dump(lines, doc), (None if lines else doc)


def _checked(diagnostics: tuple[Diagnostic, ...]) -> None:
    for diagnostic in diagnostics:
        assert isinstance(diagnostic, Diagnostic)
        if diagnostic.code == "HN000":
            assert diagnostic.location.pointer is not None, diagnostic


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=hostile(), profile=st.sampled_from(["mistral", "portable", "anthropic", None]))
def test_big_integers_and_lone_surrogates_never_crash_a_fix(
    case: tuple[str, str, bytes, Any], profile: str | None
) -> None:
    name, hint, data, value = case
    options: dict[str, Any] = {} if profile is None else {"profile": profile}
    linted = lint_document(data, path_hint=hint, format=name, **options)
    _checked(linted.diagnostics)
    done = fix_document(data, path_hint=hint, format=name, tail="close", **options)
    _checked(done.diagnostics)
    if value is not None:
        repaired = repair(value, format=name, tail="close", **options)
        _checked(repaired.remaining)


def test_fixtures_are_found() -> None:
    assert FORMAT_FIXTURES.is_dir() and len({name for name, _ in FILES}) == len(CODECS)


_TWO_USAGES: list[Any] = [
    {"type": "human", "data": {"type": "human", "content": "Hi."}},
    {
        "type": "ai",
        "data": {
            "type": "ai",
            "content": "Hello.",
            "usage_metadata": {"input_tokens": 3, "output_tokens": 2, "total_tokens": 5},
        },
    },
    {
        "type": "ai",
        "data": {
            "type": "ai",
            "content": "How can I help?",
            "usage_metadata": {"input_tokens": 5, "output_tokens": 4, "total_tokens": 9},
        },
    },
]


def test_a_fix_whose_result_cannot_be_written_is_refused_not_raised() -> None:
    """A fix (here HN107's merge of two AI messages that both hold usage) whose transcript
    the codec cannot write: the input is left as it was and the diagnostics say why."""
    data = json.dumps(_TWO_USAGES, indent=2).encode()
    done = fix_document(data, path_hint="h.json", format="langchain", profile="portable")
    assert done.output is None and not done.applied
    refused = [d for d in done.diagnostics if "cannot be written" in d.message]
    assert refused and all(d.fix is None for d in refused)
    assert all(d.location.pointer is not None and d.location.line for d in refused)
    repaired = repair(_TWO_USAGES, format="langchain", profile="portable")
    assert repaired.value is _TWO_USAGES and not repaired.applied
    assert any("cannot be written" in d.message for d in repaired.remaining)


@pytest.mark.parametrize(
    ("text", "inexact"),
    [
        (b'{"id": "fc_1234567890123456789"}', False),  # a long run of digits in a string
        (b'{"n": 12345678901234567890123}', True),  # an integer beyond 64 bits
        (b'{"n": 18446744073709551615}', False),  # the widest integer orjson reads exactly
        (b'{"n": 1.5, "id": "1234567890123456789"}', True),  # a float: read exactly to be sure
        (b'{"n": [1.5]}', False),  # no long run at all
    ],
)
def test_a_value_is_read_again_only_where_it_may_have_lost_an_integer(
    text: bytes, inexact: bool
) -> None:
    value = jsonio.loads_typed(text)
    assert jsonio.read_inexactly(value, text) is inexact
    if not inexact:  # the fast reading is the exact one
        assert repr(value) == repr(jsonio.loads(text))


@pytest.mark.parametrize("big", [False, True])
def test_a_session_line_with_a_long_digit_run_keeps_its_numbers_and_its_fast_reading(
    big: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A message line whose id holds 19 digits is read as the fast reader read it (its
    messages built unread); one holding an integer beyond 64 bits is read exactly (every
    message decoded from the exact values), and written back so."""
    made: list[Transcript] = []
    real = MessageListCodec.decode_read

    def spy(self: MessageListCodec, data: Any, outline: Outline | None) -> Transcript:
        made.append(real(self, data, outline))
        return made[-1]

    monkeypatch.setattr(MessageListCodec, "decode_read", spy)
    number = 2**70 if big else 7
    lines = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1234567890123456789",
                    "type": "function",
                    "function": {"name": "w", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1234567890123456789", "content": "4 C", "n": number},
        {"role": "tool", "tool_call_id": "call_gone", "content": "ok"},
    ]
    data = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    done = fix_document(data, path_hint="history.jsonl", jsonl_mode="message")
    assert dict(done.applied) == {"HN002": 1}
    assert done.output == data[: data.rindex(b"{")]  # the last line dropped, the rest as read
    assert str(number).encode() in done.output
    assert [unread(m) for m in made[0].messages] == ([False] * 4 if big else [True] * 3 + [False])
