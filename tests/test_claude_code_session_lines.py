"""Claude Code session structure beyond the parent chain: a `logicalParentUuid` that names
no line of the file (HN017), and a line longer than a resume loads (HN018)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

import histnorm
from histnorm.engine import proven_clean
from histnorm.formats import CODECS
from histnorm.settings import Settings

SID = "5b7e2c1a-9d4f-4e3b-8a6c-1f2e3d4c5b6a"


def _line(kind: str, n: int, parent: int | None, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{n:02d}", **message}
    return {
        "parentUuid": None if parent is None else _uuid(parent),
        "isSidechain": False,
        "sessionId": SID,
        "type": kind,
        "message": message,
        "uuid": _uuid(n),
        **extra,
    }


def _uuid(n: int) -> str:
    return f"8e3f1a2b-4c5d-4e6f-9a0b-1c2d3e4f50{n:02d}"


def _boundary(n: int, logical: str, tail: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"trigger": "manual", "preTokens": 182000}
    if tail is not None:
        metadata["preservedSegment"] = {"tailUuid": tail}
    return {
        "parentUuid": None,
        "logicalParentUuid": logical,
        "isSidechain": False,
        "sessionId": SID,
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": metadata,
        "uuid": _uuid(n),
    }


def _compacted(logical: str, tail: str | None = None) -> list[dict[str, Any]]:
    return [
        _line("user", 1, None, "Port the parser to the new API."),
        _line("assistant", 2, 1, [{"type": "text", "text": "Ported; 4 call sites changed."}]),
        _boundary(3, logical, tail),
        _line(
            "user",
            4,
            3,
            "This session is being continued from a previous conversation.",
            isCompactSummary=True,
        ),
        _line("assistant", 5, 4, [{"type": "text", "text": "Continuing with the tests."}]),
    ]


def _jsonl(lines: list[Any]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def _codes(data: Any, **options: Any) -> list[str]:
    return [d.code for d in histnorm.lint(data, format="claude-code", **options)]


# --------------------------------------------------------------------------- HN017


def test_a_dangling_logical_parent_after_earlier_lines_is_reported() -> None:
    lines = _compacted(_uuid(99))
    (found,) = [d for d in histnorm.lint(_jsonl(lines), format="claude-code") if d.code == "HN017"]
    assert found.severity.value == "warning"
    assert found.location.line == 3
    assert found.location.pointer == "/logicalParentUuid"
    assert _uuid(99) in found.message and "2 earlier" in found.message


def test_the_resolving_tail_is_named() -> None:
    lines = _compacted(_uuid(99), tail=_uuid(2))
    (found,) = [d for d in histnorm.lint(lines, format="claude-code") if d.code == "HN017"]
    assert "preservedSegment.tailUuid" in found.message and _uuid(2) in found.message


def test_a_resolving_logical_parent_is_clean() -> None:
    assert "HN017" not in _codes(_compacted(_uuid(2)))
    assert "HN017" not in _codes(_jsonl(_compacted(_uuid(2))))


def test_a_session_continued_from_another_file_is_clean() -> None:
    """The boundary opens the file: its logical parent is a line of the file it continues."""
    lines = _compacted(_uuid(99))[2:]
    assert "HN017" not in _codes(lines)
    assert "HN017" not in _codes(_jsonl(lines))


def test_the_fast_path_does_not_prove_a_dangling_stitch_clean() -> None:
    lines = _compacted(_uuid(99))
    assert CODECS["claude-code"].read_outline(lines) is None
    assert not proven_clean(lines, "claude-code", Settings())


def test_no_fix_touches_the_dangling_reference() -> None:
    lines = _compacted(_uuid(99))
    result = histnorm.fix(lines, format="claude-code")
    assert "HN017" not in result.applied
    assert histnorm.encode(result.transcript) == lines


# --------------------------------------------------------------------------- HN018


def _session(result_text: str) -> list[dict[str, Any]]:
    call = [
        {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "git diff"}}
    ]
    answer = [{"type": "tool_result", "tool_use_id": "toolu_01", "content": result_text}]
    return [
        _line("user", 1, None, "Show me the diff."),
        _line("assistant", 2, 1, call),
        _line("user", 3, 2, answer, toolUseResult={"stdout": result_text}),
        _line("assistant", 4, 3, [{"type": "text", "text": "The diff touches 3 files."}]),
    ]


def test_a_line_over_the_default_limit_is_reported_at_its_line() -> None:
    lines = _session("+" * 300_000)  # twice in the line: content and toolUseResult
    found = [d for d in histnorm.lint(_jsonl(lines), format="claude-code") if d.code == "HN018"]
    (diagnostic,) = found
    assert diagnostic.severity.value == "warning"
    assert diagnostic.location.line == 3
    size = len(orjson.dumps(lines[2]))
    assert f"{size:,}" in diagnostic.message and "524,288" in diagnostic.message


def test_lines_under_the_limit_are_clean_and_proven_on_the_fast_path() -> None:
    lines = _session("+" * 1000)
    assert "HN018" not in _codes(_jsonl(lines))
    assert proven_clean(lines, "claude-code", Settings())


def test_the_limit_is_a_setting() -> None:
    lines = _session("+" * 1000)
    assert "HN018" in _codes(lines, claude_code_line_limit=2000)
    assert "HN018" not in _codes(_session("+" * 300_000), claude_code_line_limit=1 << 20)
    with pytest.raises(ValueError, match="claude_code_line_limit"):
        Settings(claude_code_line_limit=0)


def test_a_file_is_measured_by_its_own_bytes() -> None:
    """Padding the file holds counts: the size is the line's bytes, not its re-encoding."""
    lines = _session("+" * 1000)
    padded = orjson.dumps(lines[2], option=orjson.OPT_INDENT_2).replace(b"\n", b" ")
    data = b"".join(
        (padded if i == 2 else orjson.dumps(line)) + b"\n" for i, line in enumerate(lines)
    )
    limit = len(orjson.dumps(lines[2])) + 10
    assert len(padded) > limit
    found = histnorm.lint(data, format="claude-code", claude_code_line_limit=limit)
    assert [(d.code, d.location.line) for d in found if d.code == "HN018"] == [("HN018", 3)]
    assert "HN018" not in _codes(lines, claude_code_line_limit=limit)


def test_a_long_line_takes_the_model_path_and_a_short_one_does_not() -> None:
    long_lines, short = _session("+" * 300_000), _session("+" * 10)
    assert not proven_clean(long_lines, "claude-code", Settings())
    assert proven_clean(short, "claude-code", Settings())
    assert not proven_clean(short, "claude-code", Settings(claude_code_line_limit=100))


def test_no_fix_shortens_a_line() -> None:
    lines = _session("+" * 300_000)
    result = histnorm.fix(lines, format="claude-code")
    assert "HN018" not in result.applied
    assert histnorm.encode(result.transcript) == lines


def test_other_formats_are_not_measured() -> None:
    chat = [{"role": "user", "content": "x" * 5000}]
    assert "HN018" not in _codes_of(chat, "openai-chat", claude_code_line_limit=100)


def _codes_of(data: Any, fmt: str, **options: Any) -> list[str]:
    return [d.code for d in histnorm.lint(data, format=fmt, **options)]


def test_the_limit_is_a_configuration_key(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from histnorm_cli.app import app
    from typer.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.jsonl").write_bytes(_jsonl(_session("+" * 1000)))
    runner = CliRunner()
    assert "HN018" not in runner.invoke(app, ["lint", "s.jsonl"]).output
    (tmp_path / "histnorm.toml").write_text("claude-code-line-limit = 2000\n")
    assert "s.jsonl:3:" in runner.invoke(app, ["lint", "s.jsonl"]).output


# --- a repeated key, in a line a fix writes as read or rewrites -------------------------


def _with_repeat(lines: list[dict[str, Any]], index: int) -> bytes:
    """The session's JSONL with `sessionId` written twice in line `index`."""
    rows = [orjson.dumps(line) for line in lines]
    twice = f'"sessionId":"{SID}","sessionId":"{SID}"'.encode()
    rows[index] = rows[index].replace(f'"sessionId":"{SID}"'.encode(), twice)
    assert rows[index].count(b'"sessionId"') == 2
    return b"".join(row + b"\n" for row in rows)


_ORPHANED = [
    _line("user", 1, None, "List the files."),
    _line("assistant", 2, 1, [{"type": "text", "text": "Which folder?"}]),
    _line("user", 3, 2, "This one."),
    _line("user", 4, 3, [{"type": "tool_result", "tool_use_id": "toolu_gone", "content": "x"}]),
    _line("assistant", 5, 4, [{"type": "text", "text": "Done."}]),
]
"""Line 4 holds a result no call precedes: the fix drops it and re-links line 5."""


@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_repeated_key_in_a_line_written_as_read_does_not_stop_the_fix(index: int) -> None:
    data = _with_repeat(_ORPHANED, index)
    result = histnorm.fix_document(data, path_hint="s.jsonl")
    assert result.applied == {"HN002": 1}
    assert result.output is not None
    rows = data.splitlines(keepends=True)
    assert result.output.splitlines(keepends=True)[index] == rows[index]  # repeat and all
    assert b"toolu_gone" not in result.output


def test_a_repeated_key_in_a_line_the_fix_rewrites_refuses_it_at_that_line() -> None:
    data = _with_repeat(_ORPHANED, 4)  # line 5 is re-linked to line 3
    result = histnorm.fix_document(data, path_hint="s.jsonl")
    assert result.output is None
    refusal = result.diagnostics[0]
    assert refusal.code == "HN000"
    assert (refusal.location.line, refusal.location.pointer) == (5, "/sessionId")
    assert refusal.message.startswith("the key at /sessionId appears twice in one object")


def test_a_number_beyond_64_bits_in_a_rewritten_line_keeps_every_digit() -> None:
    """The fast path reads numbers the quick way; a session it does not prove clean is
    decoded from lines read exactly, so a line the fix rewrites keeps each digit."""
    big = b'{"costMicros":12345678901234567890123,'
    rows = [orjson.dumps(line) for line in _ORPHANED]
    rows[4] = big + rows[4][1:]  # more digits than orjson writes or reads exactly
    data = b"".join(row + b"\n" for row in rows)
    result = histnorm.fix_document(data, path_hint="s.jsonl")
    assert result.applied == {"HN002": 1} and result.output is not None
    last = result.output.splitlines()[-1]
    assert last != rows[4]  # re-linked: rewritten
    assert last.startswith(big)


def test_a_line_rewritten_beside_compact_lines_is_spelled_as_respelling_would(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A session written as compact JSON (each line what `jsonio.dumps` writes of it)
    spells every scalar as a line written afresh does: its rewritten lines are not
    respelled (`keep_spellings` is not asked, nor the lines scanned for repeated keys),
    and the file is what respelling would give. A line spelled otherwise is respelled."""
    import importlib

    write = importlib.import_module("histnorm.document.write")  # the package has a `write`
    data = b"".join(orjson.dumps(line) + b"\n" for line in _ORPHANED)
    asked: list[bytes] = []
    real = write.keep_spellings

    def spy(new: bytes, old: bytes, moves: Any = None) -> bytes:
        asked.append(old)
        return real(new, old, moves)

    monkeypatch.setattr(write, "keep_spellings", spy)
    monkeypatch.setattr(write, "duplicate_keys", lambda text: pytest.fail("scanned"))
    result = histnorm.fix_document(data, path_hint="s.jsonl")
    assert result.applied == {"HN002": 1} and result.output is not None
    assert asked == []
    monkeypatch.setattr(write, "_as_written", lambda value, text: False)
    monkeypatch.setattr(
        write, "duplicate_keys", importlib.import_module("histnorm.linemap").duplicate_keys
    )
    respelled = histnorm.fix_document(data, path_hint="s.jsonl")
    assert asked and respelled.output == result.output


def test_the_type_check_of_a_fix_passes_over_the_lines_written_as_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`check_fixed`'s type check (`changed_type`) compares a kept message with what it
    is written as; a message whose line is written as read (the very object) is passed
    over without working out where it stands, so only the re-linked line is looked up."""
    from histnorm.engine import fix
    from histnorm.formats._fixed_types import changed_type

    codec = CODECS["claude-code"]
    original = codec.decode([orjson.loads(orjson.dumps(line)) for line in _ORPHANED])
    fixed = fix(original).transcript
    assert len(fixed.messages) < len(original.messages)
    looked: list[int] = []
    real = type(codec).message_pointer
    monkeypatch.setattr(
        type(codec), "message_pointer", lambda self, t, i: looked.append(i) or real(self, t, i)
    )
    written = codec.written(fixed)
    assert changed_type(codec, original, fixed) is None
    rewritten = [i for i, m in enumerate(fixed.messages) if all(m.native is not w for w in written)]
    assert looked == rewritten and rewritten
