"""File-level reading and writing: byte identity for everything no rule changed."""

from __future__ import annotations

import json

import pytest

from histnorm.document import Layout, read_json, read_jsonl, split_lines, write
from histnorm.model import Message, TextPart

CHAT = (
    b'[{"role": "user", "content": "hi"},\n'
    b' {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",'
    b' "function": {"name": "f", "arguments": "{}"}}]},\n'
    b' {"role": "tool", "tool_call_id": "c1", "content": "ok"}]\n'
)


def _unchanged(document):
    return write(document, [r.transcript for r in document.records])


@pytest.mark.parametrize(
    "data",
    [
        CHAT,
        CHAT.replace(b"\n", b"\r\n"),
        b"\xef\xbb\xbf" + CHAT,
        b'{"messages":[{"role":"user","content":"x"}],"tools":[],"model":"m"}',
        b'{\n    "messages": [\n        {"role": "user", "content": "x"}\n    ]\n}',
        b'[[{"role":"user","content":"a"}], {"messages": [{"role":"user","content":"b"}]}]',
    ],
)
def test_json_untouched_is_byte_identical(data):
    document = read_json(data)
    assert all(r.error is None for r in document.records)
    assert _unchanged(document) == data


JSONL = (
    b'{"messages":[{"role":"user","content":"a"}]}\n'
    b"\n"
    b'{"messages": [{"role": "user", "content": "b"}], "weight": 1}\r\n'
    b'{"messages":[{"role":"user","content":"c"}]}'
)


def test_jsonl_untouched_is_byte_identical():
    document = read_jsonl(JSONL)
    assert document.layout is Layout.JSONL
    assert [r.line for r in document.records] == [1, 3, 4]
    assert _unchanged(document) == JSONL


def _append_text(transcript, text):
    message = Message(role="assistant", parts=(TextPart(text=text),))
    return transcript.evolve(messages=(*transcript.messages, message))


def test_jsonl_only_changed_lines_are_rewritten():
    document = read_jsonl(JSONL)
    transcripts = [r.transcript for r in document.records]
    transcripts[1] = _append_text(transcripts[1], "B")
    out = write(document, transcripts)
    lines = out.split(b"\n")
    assert lines[0] == b'{"messages":[{"role":"user","content":"a"}]}'
    assert lines[1] == b""
    assert lines[2] == (  # the new message spliced in, in the line's own spacing
        b'{"messages": [{"role": "user", "content": "b"}, {"role": "assistant", "content": "B"}],'
        b' "weight": 1}\r'
    )
    assert lines[3] == b'{"messages":[{"role":"user","content":"c"}]}'


def test_json_rewrite_keeps_layout_style():
    data = b'{\n  "messages": [\n    {"role": "user", "content": "x"}\n  ]\n}\n'
    document = read_json(data)
    out = write(document, [_append_text(document.records[0].transcript, "y")])
    assert out == (
        b'{\n  "messages": [\n    {"role": "user", "content": "x"},\n'
        b'    {"role": "assistant", "content": "y"}\n  ]\n}\n'
    )


def test_json_rewrite_keeps_untouched_messages_byte_for_byte():
    data = (
        b'{"model": "m",\n "messages": [\n'
        b'   {"role": "user",   "content": "hi"},\n'
        b'   {\n     "role": "assistant",\n     "content": "\\n"\n   },\n'
        b'   {"role": "user", "content": "again"}\n ]}'
    )
    document = read_json(data)
    transcript = document.records[0].transcript
    edited = transcript.evolve(messages=(transcript.messages[0], transcript.messages[2]))
    assert write(document, [edited]) == (
        b'{"model": "m",\n "messages": [\n'
        b'   {"role": "user",   "content": "hi"},\n'
        b'   {"role": "user", "content": "again"}\n ]}'
    )


def test_json_array_rewrites_only_changed_transcripts():
    data = b'[[{"role":"user","content":"a"}],[{"role":"user","content":"b"}]]'
    document = read_json(data)
    assert document.layout is Layout.JSON_ARRAY
    transcripts = [r.transcript for r in document.records]
    transcripts[1] = _append_text(transcripts[1], "B")
    out = write(document, transcripts)
    assert out == (
        b'[[{"role":"user","content":"a"}],'
        b'[{"role":"user","content":"b"},{"role":"assistant","content":"B"}]]'
    )


MESSAGE_LINES = (
    b'{"role": "user", "contents": [{"$type": "text", "text": "hi"}]}\n'
    b'{"role":"assistant","contents":[{"$type":"text","text":""},{"$type":"text","text":"yo"}]}\n'
    b'{"role": "user", "contents": [{"$type": "text", "text": "bye"}]}\n'
)


def test_message_per_line_jsonl_keeps_untouched_lines():
    document = read_jsonl(MESSAGE_LINES)
    assert document.layout is Layout.JSONL_MESSAGES
    transcript = document.records[0].transcript
    assert transcript.format == "meai"
    assert _unchanged(document) == MESSAGE_LINES
    middle = transcript.messages[1]
    edited = transcript.evolve(
        messages=(
            transcript.messages[0],
            middle.evolve(parts=middle.parts[1:]),
            transcript.messages[2],
        )
    )
    out = write(document, [edited]).split(b"\n")
    assert out[0] == MESSAGE_LINES.split(b"\n")[0]
    assert out[1] == b'{"role":"assistant","contents":[{"$type":"text","text":"yo"}]}'
    assert out[2] == MESSAGE_LINES.split(b"\n")[2]
    assert out[3] == b""


def test_bad_jsonl_line_is_located_and_others_still_read():
    data = (
        b'{"messages":[{"role":"user","content":"a"}]}\n'
        b'{"messages": [\n'
        b'{"messages":[{"content":"x"}]}\n'
    )
    document = read_jsonl(data)
    first, second, third = document.records
    assert first.transcript is not None
    assert second.transcript is None and second.error.line == 2
    assert "not valid JSON" in second.error.message
    assert third.error.line == 3 and third.error.pointer == "/messages/0/role"
    assert _unchanged(document) == data


def test_invalid_utf8_line_is_an_error_not_a_crash():
    document = read_jsonl(b'{"messages":[{"role":"user","content":"\xff"}]}\n')
    assert document.records[0].error is not None
    assert document.records[0].error.line == 1


def test_json_syntax_error_has_line_and_column():
    record = read_json(b'[\n  {"role": "user",\n  "content": }\n]').records[0]
    assert record.transcript is None
    assert (record.error.line, record.error.column) == (3, 14)


def test_message_per_line_shape_error_names_the_line():
    data = MESSAGE_LINES + b'{"role": "tool", "contents": [{"$type": "functionResult"}]}\n'
    record = read_jsonl(data).records[0]
    assert record.error.line == 4
    assert record.error.pointer == "/contents/0/callId"


def test_big_integers_survive_a_rewrite():
    data = b'{"messages":[{"role":"user","content":"a"}],"seed":123456789012345678901234567890}'
    document = read_json(data)
    out = write(document, [_append_text(document.records[0].transcript, "b")])
    assert b'"seed":123456789012345678901234567890' in out


def test_split_lines_keeps_endings():
    assert list(split_lines(b"a\r\nb\nc")) == [(1, b"a", b"\r\n"), (2, b"b", b"\n"), (3, b"c", b"")]


def test_write_needs_one_transcript_per_record():
    with pytest.raises(ValueError, match="one transcript"):
        write(read_jsonl(JSONL), [])


def test_deeply_nested_values_are_written_without_recursion_errors():
    from histnorm import jsonio

    for depth in (300, 900, 1020):
        raw = b'{"a":[1,{"b":[]}],"deep":' + b"[" * depth + b"]" * depth + b"}"
        assert jsonio.dumps(jsonio.loads(raw)) == raw
        pretty = jsonio.dumps(jsonio.loads(raw), jsonio.Style(indent=2, key_separator=": "))
        assert jsonio.dumps(jsonio.loads(pretty)) == raw


def test_deep_values_compare_without_recursion_errors():
    from histnorm.formats.base import strict_equal

    deep = [[]]
    for _ in range(5000):
        deep = [deep]
    assert strict_equal(deep, deep)
    assert not strict_equal([1], [True])
    assert not strict_equal({"a": 1.0}, {"a": 1})


def test_a_lone_carriage_return_in_a_message_line_does_not_move_the_lines_after_it() -> None:
    """Only `\\n` ends a line, as the reader and the torn-line notes count them: a `\\r`
    between the tokens of a message line is whitespace inside that line, and the blank
    line after it is line 2."""
    from histnorm.document import lint_document

    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    lines = [
        b'{"role":"user",\r"content":"hi"}',
        b"",
        b'{"role":"assistant","content":null,"tool_calls":[' + json.dumps(call).encode() + b"]}",
        b'{"role":"user","content":"next"}',
    ]
    result = lint_document(b"\n".join(lines) + b"\n", path_hint="history.jsonl")
    assert [(d.code, d.location.line, d.location.pointer) for d in result.diagnostics] == [
        ("HN001", 3, "/tool_calls/0")
    ]
