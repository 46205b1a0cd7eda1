"""The byte layer keeps what no rule changed and reads every legal JSON text.

Odd number spellings (`-0`, `1E2`, `1e-400`, `1.50`, long decimals, integers beyond 64
bits) and lone surrogate escapes (`"\\ud800"`) are legal JSON: a fix keeps their bytes
wherever it did not change the value, in every layout, and writes new text that parses.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import invoke
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import histnorm
from histnorm import jsonio
from histnorm.document import read_json, read_jsonl, write
from histnorm.engine import fix
from histnorm.formats.langchain import LangChainCodec
from histnorm.settings import Settings

ODD = (
    b'{"a":-0,"b":1e-400,"c":1E2,"d":0.1000000000000000055511151231257827,'
    b'"e":3.141592653589793238462643383279,"f":1.50,"g":123456789012345678901,'
    b'"s":"\\ud800","t":"x\\udfffy"}'
)
"""Untouched values whose bytes a rewrite must keep."""

CALL = b'{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}'


def _assistant(extra: bytes = b"") -> bytes:
    """An assistant message whose call has no result (HN001: the fix drops the call)."""
    return b'{"role":"assistant","content":"ok","tool_calls":[' + CALL + b"]" + extra + b"}"


def _messages(meta: bytes = ODD) -> list[bytes]:
    return [
        b'{"role":"user","content":"hi","meta":' + meta + b"}",
        _assistant(b',"usage":' + meta),
        b'{"role":"user","content":"again"}',
    ]


def _transcript_line(meta: bytes = ODD) -> bytes:
    return b'{"messages":[' + b",".join(_messages(meta)) + b'],"meta":' + meta + b"}"


pytestmark = pytest.mark.usefixtures("cli_workdir")


def _fixed(name: str, data: bytes) -> bytes:
    Path(name).write_bytes(data)
    result = invoke("fix", name)
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    return Path(name).read_bytes()


def _meta_count(out: bytes, meta: bytes = ODD) -> int:
    return out.count(meta)


# --- item 1: number spellings, every layout ----------------------------------------------


def test_transcript_per_line_keeps_number_spellings_outside_and_inside_rewritten_messages():
    out = _fixed("t.jsonl", _transcript_line() + b"\n")
    assert b"tool_calls" not in out  # the fix ran
    assert _meta_count(out) == 3  # the envelope, the untouched message, the changed one
    assert jsonio.loads(out)["meta"]["g"] == 123456789012345678901
    assert _fixed("t.jsonl", out) == out


def test_message_per_line_keeps_number_spellings_in_a_rewritten_message():
    out = _fixed("m.jsonl", b"\n".join(_messages()) + b"\n")
    assert b"tool_calls" not in out
    assert _meta_count(out) == 2
    assert out.splitlines()[0] == _messages()[0]
    assert _fixed("m.jsonl", out) == out


def test_json_array_of_transcripts_keeps_number_spellings():
    data = b"[" + _transcript_line() + b",\n " + _transcript_line() + b"]\n"
    out = _fixed("a.json", data)
    assert b"tool_calls" not in out
    assert _meta_count(out) == 6
    assert _fixed("a.json", out) == out


def test_json_document_keeps_number_spellings_in_a_rewritten_message():
    out = _fixed("d.json", _transcript_line() + b"\n")
    assert b"tool_calls" not in out
    assert _meta_count(out) == 3


def test_library_write_of_a_jsonl_line_splices_the_changed_message():
    data = _transcript_line() + b"\n"
    document = read_jsonl(data)
    (record,) = document.records
    assert record.transcript is not None
    result = fix(record.transcript, Settings())
    assert result.changed
    out = write(document, [result.transcript])
    assert out.count(ODD) == 3
    assert out.startswith(b'{"messages":[' + _messages()[0] + b",")


# --- item 2: blank lines ------------------------------------------------------------------


def test_message_per_line_keeps_its_blank_lines():
    lines = [b'{"role":"user","content":"hi"}', _assistant(), b'{"role":"user","content":"again"}']
    data = lines[0] + b"\n\n" + lines[1] + b"\n\n\r\n" + lines[2] + b"\n\n"
    out = _fixed("m.jsonl", data)
    fixed_assistant = b'{"role":"assistant","content":"ok"}'
    assert out == lines[0] + b"\n\n" + fixed_assistant + b"\n\n\r\n" + lines[2] + b"\n\n"


def test_message_per_line_drops_a_removed_message_line_and_keeps_every_blank_line():
    """Only the removed message's own line goes: the blank lines around it are the
    file's, not the message's (#28: three blank lines between two kept lines stay three)."""
    lines = [
        b'{"role":"user","content":"hi"}',
        b'{"role":"assistant","content":null,"tool_calls":[' + CALL + b"]}",
        b'{"role":"user","content":"again"}',
    ]
    out = _fixed("m.jsonl", lines[0] + b"\n\n" + lines[1] + b"\n\n" + lines[2] + b"\n")
    assert out == lines[0] + b"\n\n\n" + lines[2] + b"\n"


# --- item 3: lone surrogates and big integers ----------------------------------------------


@pytest.mark.parametrize(
    "meta",
    [
        b'{"s":"\\ud800"}',
        b'{"n":1234567890123456789012}',
        b'{"n":-' + b"9" * 400 + b"}",  # beyond a double: orjson refuses it
        b'{"id":"12345678901234567890"}',
    ],
)
def test_a_jsonl_line_with_a_lone_surrogate_or_big_integer_is_read_and_fixed(meta: bytes):
    good = b'{"messages":[{"role":"user","content":"fine"}]}'
    out = _fixed("t.jsonl", _transcript_line(meta) + b"\n" + good + b"\n")
    assert b"tool_calls" not in out
    assert out.count(meta) == 3
    assert out.endswith(b"\n" + good + b"\n")
    out.decode("utf-8")  # never invalid UTF-8


def test_lint_reads_a_lone_surrogate_line():
    Path("t.jsonl").write_bytes(_transcript_line(b'{"s":"\\ud800"}') + b"\n")
    result = invoke("lint", "t.jsonl")
    assert result.exit_code == 1, result.output
    assert "HN001" in result.output and "HN000" not in result.output


def test_lone_surrogate_json_document_is_read_not_unreadable():
    assert read_json(_transcript_line(b'"\\ud800"')).records[0].transcript is not None


def test_dump_writes_a_lone_surrogate_escaped():
    transcript = histnorm.load(b'[{"role":"user","content":"a\\ud800b"}]')
    out = histnorm.dump(transcript)
    assert out == b'[{"role":"user","content":"a\\ud800b"}]'
    pretty = histnorm.dump(transcript, style=jsonio.Style(indent=4))
    assert b"\\ud800" in pretty
    assert jsonio.loads(pretty) == jsonio.loads(out)


def test_dumps_escapes_lone_surrogates_in_keys_and_values_and_keeps_pairs():
    value = {"k\udc00": ["\ud800", "\U0001f600"], "n": 10**30}
    out = jsonio.dumps(value)
    out.decode("utf-8")
    assert b'"k\\udc00"' in out and b'"\\ud800"' in out and "\U0001f600".encode() in out
    assert jsonio.loads(out) == value


# --- item 4: LangChain ----------------------------------------------------------------------


def test_langchain_big_integer_in_a_content_list_of_a_rewritten_message():
    big = 123456789012345678901234
    doc = [
        {"type": "human", "data": {"content": "hi"}},
        {
            "type": "ai",
            "data": {
                "content": [{"type": "text", "text": "ok", "n": big}],
                "tool_calls": [{"name": "f", "args": {}, "id": "c1", "type": "tool_call"}],
            },
        },
        {"type": "human", "data": {"content": "again"}},
    ]
    codec = LangChainCodec()
    result = fix(codec.decode(doc), Settings())
    assert result.changed
    out = codec.encode(result.transcript)
    assert out[1]["data"]["content"][0]["n"] == big
    assert out[1]["data"]["tool_calls"] == []


# --- item 5: convert ------------------------------------------------------------------------


ANTHROPIC_BIG = (
    b'{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":'
    b'"tool_use","id":"t1","name":"f","input":{"n":123456789012345678901}}]},{"role":"user",'
    b'"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":'
    b'"x","n":123456789012345678902}]}]}]}'
)
MEAI_BIG = (
    b'[{"role":"user","contents":[{"$type":"text","text":"hi"}]},{"role":"assistant",'
    b'"contents":[{"$type":"functionCall","callId":"t1","name":"f","arguments":{"n":1}}]},'
    b'{"role":"tool","contents":[{"$type":"functionResult","callId":"t1",'
    b'"result":{"n":123456789012345678902}}]}]'
)


@pytest.mark.parametrize("source", [ANTHROPIC_BIG, MEAI_BIG], ids=["anthropic", "meai"])
@pytest.mark.parametrize(
    "target", ["openai-chat", "openai-responses", "sharegpt", "chat-template", "langchain"]
)
def test_convert_keeps_big_integers(source: bytes, target: str):
    Path("t.json").write_bytes(source)
    result = invoke("convert", "t.json", "--to", target)
    assert result.exit_code == 0, (result.exception, result.output)
    assert b"123456789012345678902" in result.stdout_bytes


def test_convert_into_a_missing_folder_names_the_path_and_exits_2():
    Path("t.json").write_bytes(b'[{"role":"user","content":"hi"}]')
    target = os.path.join("nowhere", "out.json")
    result = invoke("convert", "t.json", "--to", "anthropic", "-o", target)
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit)
    assert target in result.stderr
    assert not Path("nowhere").exists()


# --- property -------------------------------------------------------------------------------

ODD_NUMBERS = st.sampled_from(
    [b"-0", b"1E2", b"1e-400", b"1.50", b"-0.0", b"12345678901234567890", b"0e0", b"2E+3"]
)
ODD_STRINGS = st.sampled_from([b'"\\ud800"', b'"a\\udfffb"', b'"\\u00e9\\/"', b'"\\uDBFF"'])
ODD_SCALARS = ODD_NUMBERS | ODD_STRINGS | st.integers(10**19, 10**25).map(lambda n: str(n).encode())


@st.composite
def odd_values(draw: st.DrawFn, depth: int = 2) -> bytes:
    """A JSON text made of odd numbers and lone surrogates (objects, arrays, scalars)."""
    if depth == 0 or draw(st.booleans()):
        return draw(ODD_SCALARS)
    items = draw(st.lists(odd_values(depth - 1), min_size=1, max_size=3))
    if draw(st.booleans()):
        return b"[" + b",".join(items) + b"]"
    return b"{" + b",".join(b'"k%d":%s' % (i, v) for i, v in enumerate(items)) + b"}"


def _layout(kind: str, meta: bytes) -> tuple[str, bytes]:
    if kind == "lines":
        return "t.jsonl", _transcript_line(meta) + b"\n"
    if kind == "messages":
        return "m.jsonl", b"\n".join(_messages(meta)) + b"\n"
    return "a.json", b"[" + _transcript_line(meta) + b"]\n"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(meta=odd_values(), kind=st.sampled_from(["lines", "messages", "array"]))
def test_fix_keeps_odd_untouched_bytes_in_every_layout(meta: bytes, kind: str) -> None:
    name, data = _layout(kind, meta)
    out = _fixed(name, data)
    assert b"tool_calls" not in out
    expected = 2 if kind == "messages" else 3
    assert out.count(b'"meta":' + meta) + out.count(b'"usage":' + meta) == expected
    out.decode("utf-8")
    if kind == "messages":
        [jsonio.loads(line) for line in out.splitlines() if line]
    else:
        jsonio.loads(out.splitlines()[0] if kind == "lines" else out)
    assert _fixed(name, out) == out


def test_spellings_follow_a_value_that_moved_within_a_rewritten_message():
    # Dropping the call's tool_use block moves the text block after it from /content/2 to
    # /content/1: its odd bytes are still kept (the codec keeps the very same object).
    doc = (
        b'[{"type":"human","data":{"content":"hi"}},{"type":"ai","data":{"content":['
        b'{"type":"text","text":"a"},{"type":"tool_use","id":"c1","name":"f","input":{}},'
        b'{"type":"text","text":"b","extras":' + ODD + b'}],"tool_calls":[{"name":"f",'
        b'"args":{},"id":"c1","type":"tool_call"}]}},{"type":"human","data":{"content":"x"}}]'
    )
    out = _fixed("lc.json", doc)
    assert b"tool_use" not in out
    assert out.count(ODD) == 1


def test_a_split_session_line_keeps_its_spellings() -> None:
    # A tool_result stored in the assistant line is split into a new user line (HN015);
    # the assistant line, rewritten too, keeps the spelling of its untouched numbers.
    envelope = b'"meta":' + ODD + b',"sessionId":"s1","cwd":"/w",'
    use = b'{"type":"tool_use","id":"toolu_1","name":"Edit","input":{}}'
    result = b'{"type":"tool_result","tool_use_id":"toolu_1","content":"done"}'
    lines = [
        b'{"type":"user",' + envelope + b'"uuid":"u1","parentUuid":null,'
        b'"message":{"role":"user","content":"edit it"}}',
        b'{"type":"assistant",' + envelope + b'"uuid":"a1","parentUuid":"u1",'
        b'"message":{"id":"msg_1","type":"message","role":"assistant",'
        b'"content":[' + use + b"," + result + b"]}}",
        b'{"type":"assistant",' + envelope + b'"uuid":"a2","parentUuid":"a1",'
        b'"message":{"id":"msg_2","type":"message","role":"assistant",'
        b'"content":[{"type":"text","text":"Done."}]}}',
    ]
    Path("session.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    invoke("fix", "session.jsonl")
    out = Path("session.jsonl").read_bytes()
    assert out.count(b"\n") == 4  # one new line, with no copy of "meta"
    assert _meta_count(out) == 3
