"""A long session proven clean a line at a time (`histnorm.document.streamed`).

What the streamed reading proves is what the whole-file fast path proves: detection on
the first `LIST_WINDOW` lines gives the format detection gives the whole list, the
reader read a line at a time gives the outline it gives the list, and the checks give
the same verdict without the lines held. Where it proves nothing, the file is read whole,
as before.
"""

from __future__ import annotations

import itertools
import math

import orjson
import pytest
from outline_helpers import SAMPLES, generated
from session_helpers import FIXTURES, session

import histnorm.document.streamed as streamed
from histnorm.analysis.context import Context, Unheld
from histnorm.document import fix_document, lint_document
from histnorm.document.read import parse_message_lines, pick_reading
from histnorm.document.run import _proven_clean
from histnorm.formats import CODECS
from histnorm.formats.base import LIST_WINDOW
from histnorm.last_answer import ReadLines
from histnorm.settings import Settings

TAILS = {
    "junk": [1, "x", None, []],
    "chat message": [{"role": "user", "content": "hi"}],
    "claude-code line": [{"type": "user", "uuid": "u", "sessionId": "s", "message": {}}],
    "codex line": [{"type": "session_meta", "payload": {}}],
    "responses item": [{"type": "message", "role": "user", "content": []}],
}
"""Items after the window, each of which would change what detection finds if read."""


def _window_filled(value: list[object]) -> list[object]:
    """`value` repeated to fill the detection window exactly."""
    return (value * math.ceil(LIST_WINDOW / len(value)))[:LIST_WINDOW]


SESSION_FORMATS = ("claude-code", "codex")


def _lists() -> list[tuple[str, list[object]]]:
    found = [(where, v) for _, where, v in SAMPLES if isinstance(v, list) and v]
    for fmt in SESSION_FORMATS:
        for path in sorted((FIXTURES / "formats" / fmt).glob("**/*.jsonl")):
            lines = parse_message_lines(path.read_bytes(), exact=False)
            if lines.values and not lines.broken:
                found.append((str(path), list(lines.values)))
        found += [(f"corpus {fmt}", v) for v in generated(fmt, 0.4, 3, 40)]
    return found


@pytest.mark.parametrize("tail", list(TAILS))
def test_detection_of_a_session_reads_no_line_past_the_window(tail):
    """A list whose first `LIST_WINDOW` items detection reads as a session is detected
    so whatever follows them."""
    checked = 0
    for where, value in _lists():
        head = _window_filled(value)
        alone = pick_reading(head)[0]
        if alone in SESSION_FORMATS:
            assert pick_reading(head + TAILS[tail])[0] == alone, where
            checked += 1
    assert checked > 50, "too few sessions are detected to show anything"


def _session_bytes(lines: list[object]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def _sessions() -> list[tuple[str, bytes]]:
    found = [
        (f"{fmt} {damaged}", session(fmt, damaged))
        for fmt in ("claude-code", "codex")
        for damaged in (False, True)
    ]
    for n, lines in enumerate(generated("claude-code", 0.3, 11, 60)):
        found.append((f"corpus claude-code #{n}", _session_bytes(lines)))
        if n < 20:  # "image" spelled with an escape in its first text, and an arrow
            escaped = _session_bytes(lines).replace(b'"text":"', b'"text":"\\u0069mage \\u2192', 1)
            found.append((f"corpus claude-code #{n}, escaped", escaped))
    for n, lines in enumerate(generated("codex", 0.3, 11, 10)):
        found.append((f"corpus codex #{n}", _session_bytes(lines)))
    return found


SESSIONS = _sessions()


@pytest.mark.parametrize("profile", [None, "anthropic", "portable"])
def test_the_streamed_verdict_is_the_whole_files(profile, monkeypatch):
    """Read a line at a time (every size, here), a session is proven clean exactly when
    its parsed lines are, and then lint finds nothing."""
    monkeypatch.setattr(streamed, "STREAMED_FROM", 0)
    settings = Settings(profile=profile)
    proven = 0
    for where, data in SESSIONS:
        values = parse_message_lines(data, exact=False).values
        whole = _proven_clean(values, data, None, settings)
        found = streamed.streamed_clean(data, None, settings)
        assert found == (whole[0] and whole[1] in SESSION_FORMATS), where
        if found:
            proven += 1
            assert lint_document(data, path_hint="s.jsonl", profile=profile).diagnostics == ()
    if profile is None:  # under the others, few of these sessions are clean
        assert proven > 10, "too few sessions are proven clean to show anything"


def test_a_long_clean_session_is_not_read_whole(monkeypatch):
    """Over `STREAMED_FROM`, a clean session is checked without its parsed lines."""
    data = b"".join(itertools.repeat(session("claude-code", False), 1))
    monkeypatch.setattr(streamed, "STREAMED_FROM", len(data) // 2)

    def whole(*args, **kwargs):
        raise AssertionError("read whole")

    monkeypatch.setattr("histnorm.document.run.parse_message_lines", whole)
    assert lint_document(data, path_hint="s.jsonl").diagnostics == ()
    assert fix_document(data, path_hint="s.jsonl").output is None


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data + b"not json\n",  # a torn line: read whole, which says where
        lambda data: data + session("claude-code", True).splitlines(keepends=True)[-1],
    ],
)
def test_what_is_not_proven_is_read_whole(change, monkeypatch):
    data = change(session("claude-code", False))
    monkeypatch.setattr(streamed, "STREAMED_FROM", 0)
    assert not streamed.streamed_clean(data, None, Settings())
    assert lint_document(data, path_hint="s.jsonl").diagnostics != ()


def test_an_image_spelled_with_escapes_is_found_in_the_lines(monkeypatch):
    """Where a line's text has a `\\u` escape, its JSON is searched for "image" as
    written again: an escape can spell it."""
    monkeypatch.setattr(streamed, "STREAMED_FROM", 0)
    data = _padded("IMAGE and ARROW ", 2).replace(b"IMAGE", b"\\u0069mage")
    data = data.replace(b"ARROW", b"\\u2192")
    settings = Settings(profile="anthropic")
    assert b"image" not in data
    values = parse_message_lines(data, exact=False).values
    assert not _proven_clean(values, data, None, settings)[0]  # the sides are measured
    assert not streamed.streamed_clean(data, None, settings)
    plain = _padded("A and ARROW ", 2).replace(b"ARROW", b"\\u2192")
    assert _proven_clean(parse_message_lines(plain, exact=False).values, plain, None, settings)[0]
    assert streamed.streamed_clean(plain, None, settings)


def test_a_format_read_whole_is_not_streamed(monkeypatch):
    """A format whose reader reads no list a line at a time is read whole."""
    monkeypatch.setattr(streamed, "STREAMED_FROM", 0)
    data = session("claude-code", False)
    monkeypatch.setattr(CODECS["claude-code"], "read_streamed", lambda lines, sizes: None)
    assert not streamed.streamed_clean(data, None, Settings())
    assert lint_document(data, path_hint="s.jsonl").diagnostics == ()


def _padded(text: str, count: int = 20) -> bytes:
    """A Claude Code session of `count` user and assistant lines of 300 KB of `text` (each
    under the line limit of HN018), then a tool call and its result (where an image may
    be); 20 lines: 6 MB, longer than the 5 MiB image limit of the default profile, under
    its 32 MB request limit."""
    call = {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "done"}
    said = [("assistant" if n % 2 else "user", text * (300_000 // len(text))) for n in range(count)]
    lines: list[dict[str, object]] = []
    for n, (kind, content) in enumerate([*said, ("assistant", [call]), ("user", [result])]):
        message = {"role": kind, "content": content}
        if kind == "assistant":
            message = {"id": f"msg_{n}", "type": "message", **message}
        parent = lines[-1]["uuid"] if lines else None
        line = {"parentUuid": parent, "sessionId": "s", "type": kind}
        lines.append({**line, "uuid": f"00000000-0000-4000-8000-{n:012d}", "message": message})
    return _session_bytes(lines)


def test_a_session_over_the_image_limit_with_no_image_is_proven_clean():
    """The image limit bounds images: where none can be, a file longer than it is ruled
    out by the string and request limits alone (HN113's fast path)."""
    data = _padded("plain words ")
    values = parse_message_lines(data, exact=False).values
    assert _proven_clean(values, data, None, Settings())[0]
    assert streamed.streamed_clean(data, None, Settings())  # over `STREAMED_FROM`
    assert lint_document(data, path_hint="s.jsonl").diagnostics == ()


def test_a_session_over_the_image_limit_that_may_hold_one_is_measured():
    """Where "image" is in the text, the sizes are measured on the model; it is clean."""
    data = _padded("an image here ")
    values = parse_message_lines(data, exact=False).values
    assert not _proven_clean(values, data, None, Settings())[0]
    assert not streamed.streamed_clean(data, None, Settings())
    assert lint_document(data, path_hint="s.jsonl").diagnostics == ()


def test_a_session_over_the_string_limit_whose_lines_are_not_is_proven_clean():
    """No string spans two lines: the longest line bounds every string of a session, so
    12 MB of 300 KB lines is under OpenAI's 10 MiB string limit (`Context.item_size`)."""
    data = _padded("plain words ", 40)
    settings = Settings(profile="openai-chat")
    values = parse_message_lines(data, exact=False).values
    assert _proven_clean(values, data, None, settings)[0]
    assert streamed.streamed_clean(data, None, settings)
    assert lint_document(data, path_hint="s.jsonl", profile="openai-chat").diagnostics == ()


def test_the_longest_line_bounds_strings_only_for_the_lines_of_the_text_given():
    outline = CODECS["claude-code"].outline([])
    lines = ReadLines([{"a": "x" * 10}, {"b": 1}], (19, 7))
    raw = b'{"a":"xxxxxxxxxx"}\n{"b":1}\n'
    assert Context(outline, Settings(), native=lines, raw=raw).item_size == 19
    assert Context(outline, Settings(), native=Unheld((19, 7), False), raw=raw).item_size == 19
    assert Context(outline, Settings(), native=list(lines), raw=raw).item_size == len(raw)
    whole = len(orjson.dumps(list(lines)))  # no text given: the JSON of it all
    assert Context(outline, Settings(), native=lines).item_size == whole
    short = ReadLines([{"a": "x" * 10}, {"b": 1}], (19,))  # sizes of other lines
    assert Context(outline, Settings(), native=short, raw=raw).item_size == len(raw)


@pytest.mark.parametrize("profile", [None, "anthropic"])
def test_lint_and_fix_give_what_they_give_read_whole(profile, monkeypatch):
    """Reading a line at a time first changes no result: a clean session is reported
    clean, and a damaged one is checked with the format and outline that reading found."""
    for where, data in SESSIONS:
        results = []
        for start in (0, math.inf):
            monkeypatch.setattr(streamed, "STREAMED_FROM", start)
            linted = lint_document(data, path_hint="s.jsonl", profile=profile)
            fixed = fix_document(data, path_hint="s.jsonl", profile=profile)
            results.append((linted, fixed))
        assert results[0] == results[1], where
