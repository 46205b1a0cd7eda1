"""Malformed input, through the library and the command line.

The corpus is `fixtures/malformed/` (see its README); the cases too large to commit
(10,000 levels of nesting, a 50 MB string) are generated here in `tmp_path`. For every
case, whatever histnorm cannot read is reported as HN000 (with the line for JSONL and
syntax errors, and a JSON Pointer when the document parsed), is never rewritten (a bad
JSONL line is copied byte for byte while the good lines around it are still fixed), and
never produces a traceback or exit code 2: bad data is exit 1, not a histnorm failure.
Valid JSON that is no transcript (`42`, `"hello"`, an object without messages) is
skipped instead: listed in the json report, never rewritten, no change to the exit code.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from cli_helpers import invoke
from typer.testing import Result

import histnorm
from histnorm.document import Document, Layout, read_json, read_jsonl, split_lines, write
from histnorm.errors import HistnormError, NotATranscript

ROOT = Path(__file__).resolve().parent.parent
MALFORMED = ROOT / "fixtures" / "malformed"
OLD_NS = 1_600_000_000_123_456_789
"""An mtime far in the past: any rewrite would move it to now."""

ORPHAN = "/messages/1/tool_calls/1"
"""Where the one defect of every fixable record in the corpus is: call `call_t` has no
result, but the user wrote again (HN001, safe fix: remove the call)."""

FIXABLE = (
    b'{"messages":[{"role":"user","content":"Weather and time?"},'
    b'{"role":"assistant","content":null,"tool_calls":['
    b'{"id":"call_w","type":"function","function":{"name":"weather","arguments":"{}"}},'
    b'{"id":"call_t","type":"function","function":{"name":"time","arguments":"{}"}}]},'
    b'{"role":"tool","tool_call_id":"call_w","content":"4 C"},'
    b'{"role":"user","content":"Never mind the time."}]}'
)
FIXED = FIXABLE.replace(
    b',{"id":"call_t","type":"function","function":{"name":"time","arguments":"{}"}}', b""
)
BIG = b"123456789012345678901234567890"


class _AnyLine:
    """Stands for a line the test does not pin (a shape error inside a parsed JSON
    document is located by its pointer; its line is a courtesy)."""

    def __eq__(self, other: object) -> bool:
        return other is None or isinstance(other, int)

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "ANY_LINE"


ANY_LINE: Any = _AnyLine()

SKIPPED = "skipped"
"""Stands in for a code: the record (or file) is valid JSON but no transcript."""


class _AnyPointer:
    """The pointer of a whole skipped file (none in the report, the root in the library)."""

    def __eq__(self, other: object) -> bool:
        return other is None or other == ""

    def __hash__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return "ANY_POINTER"


ROOT_OR_NONE: Any = _AnyPointer()

EXPECTED: dict[str, list[tuple[Any, str, str | None]]] = {
    # (line, code, pointer) of every diagnostic `histnorm lint` gives, in order.
    # no bytes: nothing that reads as a transcript (as a JSONC configuration file)
    "empty.json": [(ANY_LINE, SKIPPED, ROOT_OR_NONE)],
    "empty.jsonl": [],  # a JSONL file with no lines is a dataset of no transcripts
    "whitespace-only.json": [(ANY_LINE, SKIPPED, ROOT_OR_NONE)],
    "whitespace-only.jsonl": [],  # blank lines are skipped: no transcripts
    "bom.json": [(19, "HN001", ORPHAN)],
    "bom.jsonl": [(1, "HN001", ORPHAN)],
    "crlf.json": [(19, "HN001", ORPHAN)],
    "crlf.jsonl": [(1, "HN001", ORPHAN), (3, "HN000", None), (4, "HN001", ORPHAN)],
    "truncated-last-line.jsonl": [(1, "HN001", ORPHAN), (3, "HN000", None)],
    "invalid-utf8.json": [(1, "HN000", None)],
    "invalid-utf8.jsonl": [(1, "HN001", ORPHAN), (2, "HN000", None), (3, "HN001", ORPHAN)],
    "not-a-transcript-number.json": [(ANY_LINE, SKIPPED, ROOT_OR_NONE)],
    "not-a-transcript-string.json": [(ANY_LINE, SKIPPED, ROOT_OR_NONE)],
    "not-a-transcript-object.json": [(ANY_LINE, SKIPPED, ROOT_OR_NONE)],
    "not-a-transcript.jsonl": [
        (1, SKIPPED, ""),
        (2, SKIPPED, ""),
        (3, SKIPPED, ""),
        (4, SKIPPED, ""),
        (5, "HN001", ORPHAN),
    ],
    "missing-role.json": [(ANY_LINE, "HN000", "/messages/2/role")],
    "missing-role.jsonl": [(2, "HN000", "/messages/2/role"), (3, "HN001", ORPHAN)],
    "missing-role.session.jsonl": [(3, "HN000", "/role")],
    "non-string-id.json": [(ANY_LINE, "HN000", "/messages/1/tool_calls/1/id")],
    "non-string-ids.jsonl": [
        (1, "HN000", "/messages/1/tool_calls/1/id"),
        (2, "HN000", "/messages/2/tool_call_id"),
        (3, "HN000", "/messages/2/tool_call_id"),
        (4, "HN001", ORPHAN),
    ],
    "big-integers.json": [(21, "HN001", ORPHAN)],
    "big-integers.jsonl": [(2, "HN001", ORPHAN), (3, "HN001", ORPHAN)],
    "floats.jsonl": [
        (2, "HN001", ORPHAN),
        (3, "HN000", None),  # 1e400
        (4, "HN000", None),  # -1e400
        (5, "HN000", None),  # 1e400 beside an integer beyond 64 bits
        (6, "HN000", None),  # the same, on a line a fix would change
        (7, "HN001", ORPHAN),
    ],
    "duplicate-keys.json": [(20, "HN001", ORPHAN)],
    "duplicate-keys-changed.json": [(20, "HN001", ORPHAN)],
    "duplicate-keys-envelope.json": [(2, "HN001", ORPHAN)],
    "duplicate-keys.jsonl": [(2, "HN001", ORPHAN), (3, "HN001", ORPHAN)],
    "nan-infinity.json": [(1, "HN000", None)],
    "nan-infinity.jsonl": [
        (1, "HN000", None),
        (2, "HN000", None),
        (3, "HN000", None),
        (4, "HN000", None),
        (5, "HN001", ORPHAN),
    ],
    "mixed.jsonl": [
        (2, "HN001", ORPHAN),
        (3, "HN000", None),
        (5, SKIPPED, ""),
        (6, "HN000", "/messages/2/role"),
        (8, "HN001", ORPHAN),
    ],
}

BAD_MESSAGE: dict[str, str] = {
    # format -> pointer of the one bad value in fixtures/malformed/bad-message.<format>.json
    "openai-chat": "/2/tool_calls/0/id",
    "meai": "/2/contents/0/callId",
    "anthropic": "/messages/2/content/0/tool_use_id",
    "openai-responses": "/input/3/call_id",
    "gemini": "/contents/2/parts/0/functionResponse/id",
    "sharegpt": "/conversations/1/from",
    "chat-template": "/messages/2/tool_calls/0/function",
    "langchain": "/3/data/tool_call_id",
    "agent-framework": "/3/contents/0/call_id",
    "claude-code": "/1/message/content/0/id",
    "codex": "/2/payload/call_id",
    "pydantic-ai": "/2/parts/0/tool_call_id",
    "vercel-ai": "/1/parts/1/toolCallId",
    "trl": "/rejected/0/tool_calls/0/function",
    "bedrock-converse": "/messages/2/content/0/toolResult/toolUseId",
    "semantic-kernel": "/messages/3/items/0/id",
    "llama-index": "/2/blocks/1/tool_call_id",
}
for _format, _pointer in BAD_MESSAGE.items():
    EXPECTED[f"bad-message.{_format}.json"] = [(ANY_LINE, "HN000", _pointer)]

NAMES = sorted(EXPECTED)


pytestmark = pytest.mark.usefixtures("cli_workdir")


# --- helpers ----------------------------------------------------------------------------


def assert_clean_exit(result: Result) -> None:
    """Bad data is exit 1 at worst: no traceback, no internal error, never exit 2."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert "internal error" not in output, output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code in (0, 1), output


def put(name: str, data: bytes) -> Path:
    path = Path(name)
    path.write_bytes(data)
    os.utime(path, ns=(OLD_NS, OLD_NS))
    return path


def copy(name: str) -> Path:
    return put(name, (MALFORMED / name).read_bytes())


def records(result: Result) -> list[dict[str, Any]]:
    return list(orjson.loads(result.stdout))


def located(result: Result, name: str) -> list[tuple[Any, str, str | None]]:
    found = []
    for record in records(result):
        assert record["filename"] == name
        if "applied" in record:
            continue  # a fix `fix` applied, not a finding
        location = record["location"]
        code = SKIPPED if "skipped" in record else record["code"]
        found.append((location["line"], code, location["pointer"]))
    return found


def is_jsonl(name: str) -> bool:
    return name.endswith(".jsonl")


def read(name: str, data: bytes) -> Document:
    return read_jsonl(data) if is_jsonl(name) else read_json(data)


def library_lint(name: str, data: bytes) -> list[tuple[Any, str, str | None]]:
    """What the library reports, record by record, as (line, code, pointer)."""
    document = read(name, data)
    found: list[tuple[Any, str, str | None]] = []
    for record in document.records:
        if isinstance(record.error, NotATranscript):
            found.append((record.line, SKIPPED, record.error.pointer))
            if document.layout is Layout.JSONL:
                with pytest.raises(NotATranscript):
                    histnorm.lint(record.raw)
            continue
        if record.error is not None:
            assert record.transcript is None
            line = record.error.line if record.error.line is not None else record.line
            found.append((line, "HN000", record.error.pointer))
            if document.layout is Layout.JSONL:  # the top-level call agrees on the line
                (diagnostic,) = histnorm.lint(record.raw)
                assert (diagnostic.code, diagnostic.location.pointer) == (
                    "HN000",
                    record.error.pointer,
                )
            continue
        assert record.transcript is not None
        diagnostics = histnorm.lint(record.transcript)
        if document.layout is Layout.JSONL:
            assert histnorm.lint(record.raw) == diagnostics
        for d in diagnostics:
            found.append((record.line if is_jsonl(name) else ANY_LINE, d.code, d.location.pointer))
    return found


def library_fix(name: str, data: bytes) -> bytes:
    """Fix every readable record with `histnorm.fix` and write the document back."""
    document = read(name, data)
    transcripts = []
    for record in document.records:
        if record.transcript is None:
            if document.layout is Layout.JSONL:
                with pytest.raises(HistnormError):
                    histnorm.fix(record.raw)
            transcripts.append(None)
        else:
            transcripts.append(histnorm.fix(record.transcript).transcript)
    return write(document, transcripts)


def lines_of(data: bytes) -> dict[int, tuple[bytes, bytes]]:
    return {number: (line, end) for number, line, end in split_lines(data)}


REFUSED: dict[str, list[tuple[Any, str, str | None]]] = {
    # Records whose fix would re-serialise an object with a repeated key: parsers keep only
    # the last value, so the record keeps its bytes and `fix` reports HN000 instead.
    "duplicate-keys-changed.json": [(10, "HN000", "/messages/1/content")],
    "duplicate-keys-envelope.json": [(1, "HN000", "/messages")],
    "duplicate-keys.jsonl": [(2, "HN000", "/messages/1/content")],
}


def assert_fixed_as_expected(
    name: str,
    before: bytes,
    after: bytes,
    expected: list[tuple[Any, str, str | None]] | None = None,
) -> None:
    """Unreadable records keep their bytes; fixable ones change; clean ones do not."""
    expected = EXPECTED[name] if expected is None else expected
    bad = {line for line, code, _ in expected if code in ("HN000", SKIPPED)}
    refused = REFUSED.get(name, [])
    if refused and is_jsonl(name):
        bad |= {line for line, _, _ in refused}
    elif refused:
        bad |= {"whole file"}
    fixable = {line for line, code, _ in expected if code not in ("HN000", SKIPPED)}
    whole_file = not is_jsonl(name) or read_jsonl(before).layout is Layout.JSONL_MESSAGES
    if whole_file:
        if bad or not fixable:
            assert after == before
        else:
            assert after != before
            assert library_lint(name, after) == []
        return
    old, new = lines_of(before), lines_of(after)
    assert old.keys() == new.keys()
    for number, (line, end) in old.items():
        assert new[number][1] == end, f"line {number} lost its line ending"
        if number in bad or number not in fixable:
            assert new[number][0] == line, f"line {number} was rewritten"
        else:
            assert new[number][0] != line, f"line {number} was not fixed"
    kept = {line for line, _, _ in refused}
    assert [
        f for f in library_lint(name, after) if f[1] not in ("HN000", SKIPPED) and f[0] not in kept
    ] == []


# --- the corpus, file by file -----------------------------------------------------------


def test_the_readme_describes_every_file():
    readme = (MALFORMED / "README.md").read_text()
    files = sorted(p.name for p in MALFORMED.iterdir() if p.name != "README.md")
    assert [name for name in files if f"`{name}`" not in readme] == []
    assert sorted(files) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_library_lint(name):
    data = (MALFORMED / name).read_bytes()
    assert library_lint(name, data) == EXPECTED[name]


@pytest.mark.parametrize("name", [n for n in NAMES if not is_jsonl(n)])
def test_library_lint_and_fix_of_the_whole_document(name):
    data = (MALFORMED / name).read_bytes()
    data = data.removeprefix(b"\xef\xbb\xbf")  # the document reader's business; see below
    if name in ("empty.json", "whitespace-only.json"):
        # a file of no bytes is no transcript; bytes handed over as one are unreadable
        assert [d.code for d in histnorm.lint(data)] == ["HN000"]
        return
    if [code for _, code, _ in EXPECTED[name]] == [SKIPPED]:
        with pytest.raises(NotATranscript):
            histnorm.lint(data)
        with pytest.raises(NotATranscript):
            histnorm.fix(data)
        return
    found = [(d.code, d.location.pointer) for d in histnorm.lint(data)]
    assert found == [(code, pointer) for _, code, pointer in EXPECTED[name]]
    if any(code == "HN000" for _, code, _ in EXPECTED[name]):
        with pytest.raises(HistnormError):
            histnorm.fix(data)
    else:
        assert histnorm.fix(data).applied


@pytest.mark.parametrize("name", NAMES)
def test_library_fix(name):
    data = (MALFORMED / name).read_bytes()
    assert_fixed_as_expected(name, data, library_fix(name, data))


@pytest.mark.parametrize("name", NAMES)
def test_cli_lint(name):
    copy(name)
    result = invoke("lint", "--output-format", "json", name)
    assert_clean_exit(result)
    assert located(result, name) == EXPECTED[name]
    errors = [code for _, code, _ in EXPECTED[name] if code != SKIPPED]
    assert result.exit_code == (1 if errors else 0)
    text = invoke("lint", name)
    assert_clean_exit(text)
    if len(errors) < len(EXPECTED[name]):
        assert "skipped: not a transcript" in text.stdout
    for line, code, _ in EXPECTED[name]:
        if code == SKIPPED:
            continue
        where = f"{name}:{line}: " if isinstance(line, int) else f"{name}"
        assert any(row.startswith(where) and f" {code} " in row for row in text.stdout.splitlines())


@pytest.mark.parametrize("name", NAMES)
def test_cli_fix(name):
    before = copy(name).read_bytes()
    result = invoke("fix", "--output-format", "json", name)
    assert_clean_exit(result)
    after = Path(name).read_bytes()
    assert_fixed_as_expected(name, before, after)
    assert after == library_fix(name, before), "the CLI and the library disagree"
    unreadable = [(line, code, ptr) for line, code, ptr in EXPECTED[name] if code == "HN000"]
    unreadable = sorted(unreadable + REFUSED.get(name, []), key=lambda d: d[0])
    found = [d for d in located(result, name) if d[1] == "HN000"]
    assert found == unreadable
    assert result.exit_code == (1 if unreadable else 0)
    if after == before:
        assert Path(name).stat().st_mtime_ns == OLD_NS


def test_fix_check_and_diff_write_nothing():
    for name in NAMES:
        copy(name)
    before = {p.name: p.read_bytes() for p in Path(".").iterdir()}
    for flag in ("--check", "--diff"):
        result = invoke("fix", flag, ".")
        assert_clean_exit(result)
        assert result.exit_code == 1
    assert {p.name: p.read_bytes() for p in Path(".").iterdir()} == before


def test_one_run_over_the_whole_corpus_processes_every_file():
    for name in NAMES:
        copy(name)
    put("zz-dirty.json", FIXABLE)
    lint = invoke("lint", "--output-format", "json", ".")
    assert_clean_exit(lint)
    assert lint.exit_code == 1
    reported = {record["filename"] for record in records(lint)}
    assert reported == {name for name in NAMES if EXPECTED[name]} | {"zz-dirty.json"}
    fix = invoke("fix", ".")
    assert_clean_exit(fix)
    assert fix.exit_code == 1
    assert Path("zz-dirty.json").read_bytes() == FIXED
    for name in NAMES:
        assert_fixed_as_expected(name, (MALFORMED / name).read_bytes(), Path(name).read_bytes())


def test_fix_stdin_copies_bad_lines_and_fixes_good_ones():
    data = (MALFORMED / "mixed.jsonl").read_bytes()
    result = invoke("fix", "-", input=data)
    assert_clean_exit(result)
    assert result.exit_code == 1
    assert result.stdout_bytes == data.replace(FIXABLE, FIXED)
    assert "HN000" in result.stderr


# --- particular cases -------------------------------------------------------------------


def test_empty_and_blank_jsonl_hold_no_transcripts():
    for name in ("empty.jsonl", "whitespace-only.jsonl"):
        assert read_jsonl((MALFORMED / name).read_bytes()).records == ()
    assert [d.code for d in histnorm.lint(b"")] == ["HN000"]
    assert [d.code for d in histnorm.lint(b" \n\t ")] == ["HN000"]


def test_library_bom_is_read_like_the_file_reader_or_refused_cleanly():
    body = (MALFORMED / "bom.json").read_bytes()
    plain = body.removeprefix(b"\xef\xbb\xbf")
    assert read_json(body).records[0].transcript == read_json(plain).records[0].transcript
    found = [(d.code, d.message) for d in histnorm.lint(body)]
    expected = [(d.code, d.message) for d in histnorm.lint(plain)]
    assert found == expected or (
        len(found) == 1 and found[0][0] == "HN000" and "BOM" in found[0][1]
    )


def test_bom_and_crlf_survive_a_fix():
    for name in ("bom.json", "bom.jsonl", "crlf.json", "crlf.jsonl"):
        copy(name)
    assert_clean_exit(invoke("fix", "bom.json", "bom.jsonl", "crlf.json", "crlf.jsonl"))
    for name in ("bom.json", "bom.jsonl"):
        assert Path(name).read_bytes().startswith(b"\xef\xbb\xbf")
        assert Path(name).read_bytes().count(b"\xef\xbb\xbf") == 1
    for name in ("crlf.json", "crlf.jsonl"):
        fixed = Path(name).read_bytes()
        assert fixed != (MALFORMED / name).read_bytes()
        assert fixed.count(b"\n") == fixed.count(b"\r\n"), f"{name}: mixed line endings"


def test_big_integers_survive_a_rewrite():
    for name in ("big-integers.jsonl", "big-integers.json"):
        data = (MALFORMED / name).read_bytes()
        copy(name)
        assert_clean_exit(invoke("fix", name))
        for out in (Path(name).read_bytes(), library_fix(name, data)):
            assert out != data
            value = json.loads(out) if name.endswith(".json") else None
            if value is not None:
                assert value["messages"][0]["m"] == 18446744073709551616
                assert value["messages"][1]["n"] == -1180591620717411303424
                assert b'"m": 18446744073709551616' in out
                assert b'"n": -1180591620717411303424' in out
                continue
            first, second, third = out.splitlines()
            assert first == data.splitlines()[0]  # untouched line, byte for byte
            assert b'"seed":' + BIG in first
            for token in (b'"m":18446744073709551616', b'"n":-1180591620717411303424'):
                assert token in second
            assert second.endswith(b'"seed":' + BIG + b"}")
            assert json.loads(second)["seed"] == int(BIG)
            assert third == FIXED


def test_negative_zero_and_tiny_floats_on_untouched_lines_keep_their_bytes():
    """Lines 1, 2 and 7 of floats.jsonl (the 1e400 lines have their own test)."""
    lines = (MALFORMED / "floats.jsonl").read_bytes().split(b"\n")
    data = b"\n".join([lines[0], lines[1], lines[6], b""])
    put("floats.jsonl", data)
    result = invoke("fix", "floats.jsonl")
    assert_clean_exit(result)
    assert result.exit_code == 0
    for out in (Path("floats.jsonl").read_bytes(), library_fix("floats.jsonl", data)):
        first, second, third, _ = out.split(b"\n")
        assert first == lines[0]
        assert b'"a":-0.0,"b":1.5e-400,"c":1E+2,"d":0.10' in first
        # a fixed line is re-serialised, and -0.0 is still -0.0
        assert b'"b":-0.0' in second and b'"a":-0.0' in second
        assert math.copysign(1.0, orjson.loads(second)["messages"][1]["a"]) == -1.0
        assert third == FIXED


def test_an_overflowing_float_beside_a_big_integer_is_unreadable():
    """1e400 is rejected by the fast parser; the exact-integer parser must not let it
    through as infinity (which no rewrite can write back)."""
    line = FIXABLE[:-1] + b',"x":1e400,"seed":' + BIG + b"}"
    assert [d.code for d in histnorm.lint(line)] == ["HN000"]
    with pytest.raises(HistnormError):
        histnorm.fix(line)


def _dupes_kept_or_reported(name: str, needle: bytes, before: bytes, after: bytes) -> None:
    reported = [d for d in library_lint(name, before) if d[1] == "HN000"]
    if reported:
        assert after == before
    else:
        assert needle in after, f"{name}: a duplicate key's value was silently dropped"


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("duplicate-keys.json", b'"Weather?"'),
        ("duplicate-keys-changed.json", b'"first value"'),
        ("duplicate-keys-envelope.json", b'"hello"'),
        ("duplicate-keys.jsonl", b'"first value","content":"hello"'),
        ("duplicate-keys.jsonl", b'"first value","content":null'),
    ],
)
def test_duplicate_keys_are_reported_or_kept(name, needle):
    before = copy(name).read_bytes()
    result = invoke("fix", name)
    assert_clean_exit(result)
    _dupes_kept_or_reported(name, needle, before, Path(name).read_bytes())
    _dupes_kept_or_reported(name, needle, before, library_fix(name, before))


# --- deep nesting (generated) -----------------------------------------------------------


def nested(levels: int) -> str:
    """`levels` alternating objects and arrays: {"k":[{"k":[ ... 1 ... ]}]}."""
    half = levels // 2
    return '{"k":[' * half + "1" + "]}" * half


def deep_line(levels: int, extra: str = "") -> bytes:
    """An Anthropic transcript whose first tool call has `levels` of nesting in its input
    and whose second call is orphaned, so the fix rewrites the deep message."""
    return (
        '{"messages":[{"role":"user","content":"go"},{"role":"assistant","content":['
        '{"type":"tool_use","id":"a","name":"f","input":{"d":' + nested(levels) + "}},"
        '{"type":"tool_use","id":"b","name":"g","input":{}}]' + extra + "},"
        '{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"},'
        '{"type":"text","text":"thanks"}]}]}'
    ).encode()


def depth_of(value: Any) -> int:
    depth = 0
    while isinstance(value, dict | list):
        value = value["k"] if isinstance(value, dict) else value[0]
        depth += 1
    return depth


def check_deep_fix(out: bytes, levels: int) -> None:
    value = json.loads(out)
    content = value["messages"][1]["content"]
    assert [block["id"] for block in content] == ["a"]
    assert depth_of(content[0]["input"]["d"]) == levels


def test_deep_nesting_in_jsonl():
    deep_string = orjson.dumps(nested(10_000))  # one format per file: Anthropic throughout
    deep_text = b'{"type":"text","text":' + deep_string + b"},"
    with_text = deep_line(300).replace(
        b'"content":[{"type":"tool_use","id":"a"',
        b'"content":[' + deep_text + b'{"type":"tool_use","id":"a"',
    )
    lines = [
        deep_line(300),
        deep_line(900),
        deep_line(10_000),
        deep_line(900, ',"seed":' + BIG.decode()),
        deep_line(10_000, ',"seed":' + BIG.decode()),
        # 10,000 levels inside a string are just a string
        with_text,
    ]
    data = b"\n".join(lines) + b"\n"
    expected = [
        (1, "HN001", "/messages/1/content/1"),
        (2, "HN001", "/messages/1/content/1"),
        (3, "HN000", None),
        (4, "HN001", "/messages/1/content/1"),
        (5, "HN000", None),
        (6, "HN001", "/messages/1/content/2"),
    ]
    assert library_lint("deep.jsonl", data) == expected
    library_out = library_fix("deep.jsonl", data)
    assert_fixed_as_expected("deep.jsonl", data, library_out, expected)
    put("deep.jsonl", data)
    lint = invoke("lint", "--output-format", "json", "deep.jsonl")
    assert_clean_exit(lint)
    assert located(lint, "deep.jsonl") == expected
    fix = invoke("fix", "deep.jsonl")
    assert_clean_exit(fix)
    assert fix.exit_code == 1
    assert Path("deep.jsonl").read_bytes() == library_out
    out = library_out.split(b"\n")
    check_deep_fix(out[0], 300)
    check_deep_fix(out[1], 900)
    check_deep_fix(out[3], 900)
    assert b'"seed":' + BIG + b"}" in out[3]
    assert json.loads(out[3])["messages"][1]["seed"] == int(BIG)
    assert out[2] == lines[2] and out[4] == lines[4]
    assert out[5] == with_text.replace(b',{"type":"tool_use","id":"b","name":"g","input":{}}', b"")


@pytest.mark.parametrize("levels", [300, 900])
@pytest.mark.parametrize("pretty", [False, True], ids=["compact", "indented"])
def test_deep_nesting_in_json_lints_and_fixes(levels, pretty):
    data = deep_line(levels)
    if pretty:  # the usual indented layout around a deep value on one line
        shallow = orjson.loads(deep_line(1))
        shallow["messages"][1]["content"][0]["input"]["d"] = "@DEEP@"
        text = json.dumps(shallow, indent=2).replace('"@DEEP@"', nested(levels))
        data = text.encode() + b"\n"
    assert [d.code for d in histnorm.lint(data)] == ["HN001"]
    check_deep_fix(histnorm.dump(histnorm.fix(data).transcript), levels)
    library_out = write(read_json(data), [histnorm.fix(data).transcript])
    check_deep_fix(library_out, levels)
    put("deep.json", data)
    lint = invoke("lint", "deep.json")
    assert_clean_exit(lint)
    assert lint.exit_code == 1
    fix = invoke("fix", "deep.json")
    assert_clean_exit(fix)
    assert fix.exit_code == 0
    assert Path("deep.json").read_bytes() == library_out


def test_ten_thousand_levels_in_json_is_hn000_and_untouched():
    for name, data in (
        ("deep.json", deep_line(10_000)),
        ("deep-big.json", deep_line(10_000, ',"seed":' + BIG.decode())),
    ):
        (diagnostic,) = histnorm.lint(data)
        assert diagnostic.code == "HN000"
        assert diagnostic.location.line == 1
        with pytest.raises(HistnormError):
            histnorm.fix(data)
        assert write(read_json(data), [None]) == data
        put(name, data)
        result = invoke("fix", "--output-format", "json", name)
        assert_clean_exit(result)
        assert result.exit_code == 1
        assert located(result, name) == [(1, "HN000", None)]
        assert Path(name).read_bytes() == data


@pytest.mark.parametrize("levels", [300, 900])
def test_deep_nesting_as_a_parsed_value(levels):
    """The library also takes parsed JSON; deep values must not hit the recursion limit."""
    value = orjson.loads(deep_line(levels))
    assert [d.code for d in histnorm.lint(value)] == ["HN001"]
    check_deep_fix(histnorm.dump(histnorm.fix(value).transcript), levels)


# --- a 50 MB string (generated, once) ---------------------------------------------------

FIFTY_MB = 50 * 1024 * 1024
MEMORY_LIMIT = 3 * 1024**3
"""Address space for the child that handles the 50 MB files: a few times what the
input needs, far less than a per-character cost would."""

_BIG_STRING_CHILD = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path

    import histnorm
    from histnorm.document import read_json, write
    from histnorm_cli.app import app
    from typer.testing import CliRunner

    folder = Path(sys.argv[1])
    start = time.perf_counter()
    data = (folder / "big.json").read_bytes()
    document = read_json(data)
    transcript = document.records[0].transcript
    assert sorted(d.code for d in histnorm.lint(transcript)) == ["HN001", "HN113"]
    fixed = histnorm.fix(transcript, ignore=("HN113",)).transcript  # OpenAI's 10 MB limit
    (folder / "big.lib.json").write_bytes(write(document, [fixed]))
    del data, document, transcript, fixed
    library = time.perf_counter() - start
    paths = [str(folder / "big.json"), str(folder / "big.jsonl")]
    result = CliRunner().invoke(app, ["fix", "--ignore", "HN113", *paths])
    sys.stdout.write(result.stdout + result.stderr)
    sys.stdout.write(f"library {library:.1f}s, cli {time.perf_counter() - start - library:.1f}s")
    sys.exit(result.exit_code)
    """
)


def _limit_memory() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _chunks(path: Path, size: int = 1 << 20) -> Iterator[bytes]:
    with path.open("rb") as stream:
        while chunk := stream.read(size):
            yield chunk


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit is Linux-specific")
def test_a_fifty_megabyte_string(tmp_path):
    head = b'{"messages":[{"role":"user","content":"'
    tail = FIXABLE[len(b'{"messages":[{"role":"user","content":"Weather and time?') :]
    with Path("big.json").open("wb") as out:
        out.write(head)
        for _ in range(FIFTY_MB // (1 << 20)):
            out.write(b"x" * (1 << 20))
        out.write(tail)
    shutil.copyfile("big.json", "big.jsonl")
    with Path("big.jsonl").open("ab") as out:
        out.write(b"\n" + FIXABLE + b"\n")
    big_size = Path("big.json").stat().st_size
    child = subprocess.run(
        [sys.executable, "-c", _BIG_STRING_CHILD, str(tmp_path)],
        capture_output=True,
        timeout=120,
        preexec_fn=_limit_memory,
        cwd=tmp_path,
    )
    output = (child.stdout + child.stderr).decode(errors="replace")
    assert "Traceback" not in output and "internal error" not in output, output[-3000:]
    assert child.returncode == 0, output[-3000:]
    removed = len(FIXABLE) - len(FIXED)
    for name in ("big.json", "big.lib.json"):
        assert Path(name).stat().st_size == big_size - removed
    assert Path("big.jsonl").stat().st_size == big_size - removed + 1 + len(FIXED) + 1
    assert list(_chunks(Path("big.json"))) == list(_chunks(Path("big.lib.json")))
    with Path("big.jsonl").open("rb") as stream:
        first = stream.readline()
        assert first.startswith(head + b"x" * 1000) and first.endswith(FIXED[-200:] + b"\n")
        assert stream.read() == FIXED + b"\n"


# --- one bad message in an otherwise valid file of each format --------------------------


def test_every_registered_format_has_a_bad_message_fixture():
    missing = [name for name in histnorm.CODECS if name not in BAD_MESSAGE]
    assert missing == [], f"add fixtures/malformed/bad-message.<format>.json for {missing}"


@pytest.mark.parametrize("format", sorted(BAD_MESSAGE))
def test_a_bad_message_in_each_format(format):
    name = f"bad-message.{format}.json"
    data = (MALFORMED / name).read_bytes()
    pointer = BAD_MESSAGE[format]
    for forced in (None, format):
        (diagnostic,) = histnorm.lint(data, format=forced)
        assert (diagnostic.code, diagnostic.location.pointer) == ("HN000", pointer)
        with pytest.raises(HistnormError) as caught:
            histnorm.fix(data, format=forced)
        assert caught.value.pointer == pointer
    copy(name)
    for args in (("lint",), ("fix",), ("lint", "--format", format), ("fix", "--format", format)):
        result = invoke(*args, "--output-format", "json", name)
        assert_clean_exit(result)
        assert result.exit_code == 1
        assert [(r["code"], r["location"]["pointer"]) for r in records(result)] == [
            ("HN000", pointer)
        ]
    assert Path(name).read_bytes() == data
    assert Path(name).stat().st_mtime_ns == OLD_NS
