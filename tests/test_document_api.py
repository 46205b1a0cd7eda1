"""`histnorm.lint_document` / `fix_document`: what the command line does, from Python.

Bytes in, diagnostics (with lines and pointers) and bytes out: the layout (one JSON
transcript, an array of them, transcript-per-line JSONL, message-per-line JSONL) is
found as the CLI finds it, untouched bytes stay as they were, and `histnorm.lint` on
bytes holding several transcripts agrees with the CLI instead of saying HN000.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner

import histnorm
import histnorm.document.read as read_module
from benchmarks import sessions
from histnorm.document import Layout, fix_lines, lint_lines

ORPHAN = [
    {"role": "user", "content": "Weather in Oslo, and book a table?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_w",
                "type": "function",
                "function": {"name": "weather", "arguments": "{}"},
            },
            {"id": "call_b", "type": "function", "function": {"name": "book", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
    {"role": "user", "content": "Never mind the table."},
]
CLEAN = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats"
PRETTY = orjson.dumps(ORPHAN, option=orjson.OPT_INDENT_2) + b"\n"


def _cli(tmp_path: Path, name: str, data: bytes, *args: str) -> tuple[int, str, bytes]:
    path = tmp_path / name
    path.write_bytes(data)
    result = CliRunner().invoke(app, [*args, str(path)])
    return result.exit_code, result.stdout, path.read_bytes()


def test_an_array_of_two_transcripts_lints_as_the_cli_lints_it(tmp_path: Path) -> None:
    data = orjson.dumps([CLEAN, CLEAN], option=orjson.OPT_INDENT_2)
    code, out, _ = _cli(tmp_path, "two.json", data, "lint")
    assert code == 0 and "All checks passed!" in out
    result = histnorm.lint_document(data)
    assert result.layout is Layout.JSON_ARRAY
    assert result.diagnostics == () and result.transcripts == 2
    assert histnorm.lint(data) == ()


def test_an_array_with_a_damaged_transcript_gives_its_line_pointer_and_index() -> None:
    data = orjson.dumps([CLEAN, ORPHAN], option=orjson.OPT_INDENT_2)
    (found,) = histnorm.lint_document(data).diagnostics
    assert found.code == "HN001"
    assert found.location.transcript_index == 1
    assert found.location.pointer is not None and found.location.pointer.startswith("/1/")
    assert found.location.line is not None and found.location.line > 1
    assert [d.code for d in histnorm.lint(data)] == ["HN001"]


def test_transcript_per_line_jsonl_is_linted_line_by_line() -> None:
    data = orjson.dumps(CLEAN) + b"\n" + orjson.dumps(ORPHAN) + b"\n"
    result = histnorm.lint_document(data)
    assert result.layout is Layout.JSONL
    assert [(d.code, d.location.line) for d in result.diagnostics] == [("HN001", 2)]
    assert [(d.code, d.location.line) for d in histnorm.lint(data)] == [("HN001", 2)]


def test_the_path_hint_decides_jsonl_as_the_cli_does() -> None:
    data = orjson.dumps(ORPHAN) + b"\n"  # one line: valid JSON, and JSONL by its name
    assert histnorm.lint_document(data).layout is Layout.JSON
    assert histnorm.lint_document(data, path_hint="chat.jsonl").layout is Layout.JSONL


def test_fix_document_keeps_the_bytes_no_fix_touched(tmp_path: Path) -> None:
    result = histnorm.fix_document(PRETTY)
    assert result.output is not None and result.changed
    assert result.applied == {"HN001": 1}
    _, _, written = _cli(tmp_path, "orphan.json", PRETTY, "fix")
    assert result.output == written
    assert result.output.startswith(PRETTY[: PRETTY.index(b"tool_calls")])  # still indented
    assert len(result.output) > len(histnorm.dump(histnorm.fix(PRETTY).transcript))


def test_a_clean_document_is_unchanged() -> None:
    data = orjson.dumps(CLEAN, option=orjson.OPT_INDENT_2)
    result = histnorm.fix_document(data)
    assert result.output is None and not result.changed
    assert result.new_bytes(data) is data


def test_not_a_transcript_is_a_skip_and_unreadable_is_hn000() -> None:
    skipped = histnorm.lint_document(b'{"name": "settings"}')
    assert skipped.diagnostics == () and skipped.skipped_file and len(skipped.skipped) == 1
    broken = histnorm.lint_document(b'[{"role": "user", "content": "hi"}')
    assert [d.code for d in broken.diagnostics] == ["HN000"]
    assert broken.diagnostics[0].location.line == 1


def test_the_repeated_key_refusal_is_the_cli_s() -> None:
    data = PRETTY.replace(b'"content": null', b'"content": null, "content": null')
    result = histnorm.fix_document(data)
    assert result.output is None
    assert result.diagnostics[0].code == "HN000"
    assert "appears twice" in result.diagnostics[0].message


def test_the_streaming_variant_yields_each_line() -> None:
    lines = [orjson.dumps(CLEAN) + b"\n", b"\n", orjson.dumps(ORPHAN) + b"\r\n"]
    linted = list(lint_lines(lines))
    assert [r.number for r in linted] == [1, 2, 3]
    assert [d.code for r in linted for d in r.diagnostics] == ["HN001"]
    assert all(r.output is None for r in linted)
    fixed = list(fix_lines(lines))
    assert fixed[0].output is None and fixed[1].output is None
    assert fixed[2].output is not None and fixed[2].output.endswith(b"\r\n")
    assert dict(fixed[2].applied) == {"HN001": 1}
    assert (
        b"".join(r.new_bytes for r in fixed)
        == histnorm.fix_document(b"".join(lines), path_hint="x.jsonl").output
    )


def test_the_streaming_variant_reads_one_line_at_a_time() -> None:
    """Each line's result comes before the next line is read: memory stays bounded."""
    read: list[int] = []

    def lines() -> Iterator[bytes]:
        for n in range(1, 4):
            read.append(n)
            yield orjson.dumps(ORPHAN) + b"\n"

    results = lint_lines(lines())
    assert next(results).number == 1 and read == [1]
    assert next(results).number == 2 and read == [1, 2]


def test_a_claude_code_session_lints_as_the_cli_lints_it(tmp_path: Path) -> None:
    session = sorted((FIXTURES / "claude-code").glob("*.jsonl"))[0]
    data = session.read_bytes()
    result = histnorm.lint_document(data, path_hint=session.name)
    assert result.layout is Layout.JSONL_MESSAGES and result.transcripts == 1
    assert histnorm.lint(data) == result.diagnostics
    code, _, _ = _cli(tmp_path, session.name, data, "lint")
    assert code == (1 if result.diagnostics else 0)


def test_fix_of_several_transcripts_points_to_fix_document() -> None:
    with pytest.raises(histnorm.HistnormError, match="fix_document"):
        histnorm.fix(orjson.dumps(CLEAN) + b"\n" + orjson.dumps(CLEAN) + b"\n")


def test_lint_of_a_parsed_list_of_transcripts_points_to_lint_document() -> None:
    (found,) = histnorm.lint([CLEAN, ORPHAN])
    assert found.code == "HN000" and "lint_document" in found.message


def test_unknown_modes_are_refused_with_what_is_expected() -> None:
    with pytest.raises(histnorm.HistnormError, match="expected auto, transcript or message"):
        histnorm.lint_document(b"[]", jsonl_mode="lines")
    with pytest.raises(histnorm.HistnormError, match="expected file or per-line"):
        histnorm.lint_document(b"{}\n{}\n", detect="each")


def test_a_blank_first_line_does_not_hide_a_session(tmp_path: Path) -> None:
    """The first line that is not blank says whether lines are messages: a session whose
    file starts with a blank line is still one session (it was read line by line, each
    event a record that is no transcript)."""
    session = sorted((FIXTURES / "claude-code").glob("*.jsonl"))[0]
    data = b"\n" + session.read_bytes()
    result = histnorm.lint_document(data, path_hint=session.name)
    assert result.layout is Layout.JSONL_MESSAGES and not result.skipped
    code, out, _ = _cli(tmp_path, session.name, data, "lint")
    assert "skipped" not in out.lower()
    assert code == (1 if result.diagnostics else 0)


def test_the_document_functions_take_bytes_or_text_and_refuse_anything_else() -> None:
    data = b'[{"role":"user","content":"hi"}]'
    assert histnorm.lint_document(data.decode()) == histnorm.lint_document(data)
    with pytest.raises(TypeError, match="expected the file's bytes"):
        histnorm.lint_document(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="expected the file's bytes"):
        histnorm.fix_document([{"role": "user", "content": "hi"}])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "call",
    [histnorm.lint, histnorm.fix, histnorm.lint_document, histnorm.fix_document, histnorm.repair],
    ids=lambda f: f.__name__,
)
def test_an_unknown_setting_is_a_type_error_that_names_it(call) -> None:  # type: ignore[no-untyped-def]
    data = b'[{"role":"user","content":"hi"}]'
    with pytest.raises(TypeError, match=r"unexpected keyword argument 'selekt'.*select"):
        call(data, selekt=["HN001"])


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
@pytest.mark.parametrize("mode", ["lint", "fix"])
def test_a_checked_session_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, mode: str
) -> None:
    """Once a long session's check returns, none of its messages is still held: a run over
    a folder of sessions holds one at a time, not the last few (a module-level cache of
    turn ends held eight transcripts)."""
    path = tmp_path / "session.jsonl"
    sessions.write_session(path, fmt, 0.2)  # 10% of its stretches damaged
    held: list[weakref.ref[Any]] = []
    decode = read_module.decode_value

    def spy(*args: Any, **kwargs: Any) -> Any:
        transcript = decode(*args, **kwargs)
        held.extend(weakref.ref(message) for message in transcript.messages)
        return transcript

    monkeypatch.setattr(read_module, "decode_value", spy)
    check = histnorm.document.lint_document if mode == "lint" else histnorm.document.fix_document
    result = check(path.read_bytes(), path_hint=path.name)
    assert result.diagnostics or result.applied  # the damage took the model path
    assert held
    gc.collect()
    assert [ref() for ref in held if ref() is not None] == []


@pytest.mark.parametrize(
    "name",
    [
        "claude-code/parallel-tools.jsonl",
        "claude-code/simple.jsonl",
        "claude-code/tool-use.jsonl",
        "codex/compacted.jsonl",
        "codex/unknown-lines.jsonl",
    ],
)
def test_a_clean_session_file_is_proven_clean_without_models(
    monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A clean session, read from its file's bytes, is proven clean by its outline as the
    same lines parsed into a plain list are: no transcript is decoded (the document layer
    holds a file's lines in a list subclass that keeps their sizes for HN018)."""
    data = (FIXTURES / name).read_bytes()
    lines = [orjson.loads(line) for line in data.splitlines() if line.strip()]
    assert histnorm.engine.proven_clean(lines, name.split("/")[0])  # the session is clean

    def decoded(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a proven-clean session was decoded")

    monkeypatch.setattr(read_module, "decode_value", decoded)
    for check in (histnorm.document.lint_document, histnorm.document.fix_document):
        result = check(data, path_hint=name)
        assert (result.diagnostics, result.output) == ((), None)


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"\xef\xbb\xbf\n"])
def test_a_blank_file_read_a_message_a_line_holds_no_transcript(
    data: bytes, tmp_path: Path
) -> None:
    """A file with no line to read is no transcript in message-per-line mode either, as in
    the other modes (it used to stop on an internal error): nothing reported or written."""
    for mode in ("message", "auto"):
        linted = histnorm.lint_document(data, path_hint="s.jsonl", jsonl_mode=mode)
        fixed = histnorm.fix_document(data, path_hint="s.jsonl", jsonl_mode=mode)
        assert (linted.diagnostics, linted.transcripts, fixed.output) == ((), 0, None)
    path = tmp_path / "s.jsonl"
    path.write_bytes(data)
    for command in ("lint", "fix"):
        result = CliRunner().invoke(app, [command, "--jsonl-mode", "message", str(path)])
        assert result.exit_code == 0, result.output
        assert "internal error" not in result.output
    assert path.read_bytes() == data


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every text `jsonio` parses from now on (`loads` and `loads_typed`)."""
    import histnorm.jsonio as jsonio

    seen: list[bytes] = []
    depth = [0]  # `loads` calls `loads_typed`: one parse
    for name in ("loads", "loads_typed"):
        real = getattr(jsonio, name)

        def spy(data: Any, real: Any = real) -> Any:
            if not depth[0]:
                seen.append(bytes(data))
            depth[0] += 1
            try:
                return real(data)
            finally:
                depth[0] -= 1

        monkeypatch.setattr(jsonio, name, spy)
    return seen


@pytest.mark.parametrize("mode", ["lint", "fix"])
def test_a_damaged_session_file_is_parsed_once(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path's parse of a session that it does not prove clean is the one decoded:
    each line is parsed once (it used to be parsed again to be decoded)."""
    data = (FIXTURES / "claude-code" / "tool-use.jsonl").read_bytes()
    rows = [line for line in data.splitlines() if line.strip()]
    del rows[2]  # the call: its result answers nothing now
    damaged = b"\n".join(rows) + b"\n"
    assert histnorm.lint_document(damaged, path_hint="s.jsonl").diagnostics
    seen = _parses(monkeypatch)
    check = histnorm.lint_document if mode == "lint" else histnorm.fix_document
    result = check(damaged, path_hint="s.jsonl")
    assert result.diagnostics if mode == "lint" else result.applied
    assert [seen.count(row) for row in rows] == [1] * len(rows)


@pytest.mark.parametrize("hint", ["history.json", None])
def test_a_json_document_is_parsed_once(hint: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Clean or damaged, named or not (standard input: telling JSON from JSONL parses the
    document), a JSON document is parsed once."""
    data = orjson.dumps(ORPHAN, option=orjson.OPT_INDENT_2)
    clean = orjson.dumps(CLEAN, option=orjson.OPT_INDENT_2)
    seen = _parses(monkeypatch)
    result = histnorm.fix_document(data, path_hint=hint)
    assert result.applied and result.output is not None
    assert histnorm.lint_document(clean, path_hint=hint).diagnostics == ()
    assert (seen.count(data), seen.count(clean)) == (1, 1)


def _damaged(path: Path, at: int) -> bytes:
    """The session at `path` without its line `at` (among lines that are not blank)."""
    rows = [line for line in path.read_bytes().splitlines() if line.strip()]
    del rows[at]
    return b"\n".join(rows) + b"\n"


@pytest.mark.parametrize(
    ("name", "at"), [("claude-code/tool-use.jsonl", 2), ("codex/shell-tools.jsonl", 8)]
)
def test_a_fixed_session_is_joined_once_its_models_are_dropped(
    name: str, at: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`fix_document` of a session joins the text it writes once the session's models and
    parsed lines are gone (#28): the two are never held at once, and the written text is
    what the writer wrote."""
    import histnorm.document.run as run

    damaged = _damaged(FIXTURES / name, at)
    read_now: list[weakref.ref[Any]] = []
    alive: list[bool] = []
    real_read, real_joined = run.read_message_lines, run.joined

    def reading(*args: Any, **kwargs: Any) -> Any:
        document = real_read(*args, **kwargs)
        transcript = document.records[0].transcript
        read_now.extend([weakref.ref(transcript), weakref.ref(transcript.native)])
        return document

    def joining(chunks: Any) -> bytes:
        alive.extend(ref() is not None for ref in read_now)
        return real_joined(chunks)

    monkeypatch.setattr(run, "read_message_lines", reading)
    monkeypatch.setattr(run, "joined", joining)
    result = histnorm.fix_document(damaged, path_hint="s.jsonl")
    assert result.applied and result.output is not None
    assert alive == [False, False]
    monkeypatch.undo()
    again = histnorm.fix_document(damaged, path_hint="s.jsonl")
    assert again.output == result.output
    left = histnorm.lint_document(result.output, path_hint="s.jsonl").diagnostics
    assert not any(d.code in result.applied for d in left)


@pytest.mark.parametrize(
    ("name", "at"), [("claude-code/parallel-tools.jsonl", 4), ("codex/shell-tools.jsonl", 8)]
)
def test_a_fixed_session_can_be_handed_back_in_pieces(
    name: str, at: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`check_document(..., join=False)` (what the command line asks) never joins the text
    of a session it fixed clean: its pieces make the text `fix_document` writes, and most
    of them are views of the bytes given, not copies."""
    import histnorm.document.run as run

    damaged = _damaged(FIXTURES / name, at)
    whole = histnorm.fix_document(damaged, path_hint="s.jsonl")
    assert whole.output is not None and whole.pieces == ()
    monkeypatch.setattr(run, "joined", lambda chunks: pytest.fail("joined"))
    settings = histnorm.Settings()
    split = run.check_document(damaged, "fix", settings, path_hint="s.jsonl", join=False)
    assert split.output is None and split.changed
    assert b"".join(split.pieces) == split.new_bytes(damaged) == whole.output
    assert list(split.written(damaged)) == list(split.pieces)
    assert any(isinstance(piece, memoryview) for piece in split.pieces)
    assert split.diagnostics == whole.diagnostics == ()
    assert (split.applied, split.fixes) == (whole.applied, whole.fixes)


def test_a_fix_that_leaves_diagnostics_is_joined_to_place_them() -> None:
    """Remaining diagnostics are placed at their lines in the fixed text: it is joined."""
    import histnorm.document.run as run

    data = _damaged(FIXTURES / "claude-code/tool-use.jsonl", 2)  # a broken link stays (HN014)
    whole = histnorm.fix_document(data, path_hint="s.jsonl")
    assert whole.diagnostics and whole.output is not None
    split = run.check_document(data, "fix", histnorm.Settings(), path_hint="s.jsonl", join=False)
    assert split == whole and split.pieces == ()
    assert split.written(data) == (whole.output,)


@pytest.mark.parametrize(
    ("chunks", "same"),
    [
        ([b"ab", memoryview(b"cd")], True),
        ([b"abcd"], True),
        ([b"ab", b"c"], False),
        ([b"ab", b"cde"], False),
        ([memoryview(b"abce")], False),
        ([], False),
    ],
)
def test_pieces_are_compared_with_the_text_given_without_joining(
    chunks: list[Any], same: bool
) -> None:
    import histnorm.document.run as run

    assert run._same_text(chunks, b"abcd") is same


@pytest.mark.parametrize("target", ["in place", "-o", "stdout"])
def test_the_command_line_writes_a_fixed_session_in_pieces(
    target: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`histnorm fix` writes a session it fixed clean piece by piece (the text is never
    joined in memory beside the bytes read), to the file, to `-o` or to standard output,
    and the bytes are those `fix_document` gives."""
    import histnorm.document.run as run

    damaged = _damaged(FIXTURES / "codex/shell-tools.jsonl", 8)
    expected = histnorm.fix_document(damaged, path_hint="s.jsonl").output
    assert expected is not None
    monkeypatch.setattr(run, "joined", lambda chunks: pytest.fail("joined"))
    path = tmp_path / "s.jsonl"
    path.write_bytes(damaged)
    if target == "stdout":
        result = CliRunner().invoke(app, ["fix", "-"], input=damaged)
        assert result.exit_code == 0
        assert result.stdout_bytes == expected  # the report goes to standard error
        return
    extra = ["-o", str(tmp_path / "out.jsonl")] if target == "-o" else []
    result = CliRunner().invoke(app, ["fix", str(path), *extra])
    assert result.exit_code == 0, result.output
    written = tmp_path / "out.jsonl" if extra else path
    assert written.read_bytes() == expected
