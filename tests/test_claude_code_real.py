"""Claude Code sessions as real tools leave them: torn last lines, lines without parent
links, links to lines that are not in the file, and the lines `fix` adds.

Sessions are written here in the shape real Claude Code lines have (the envelope keys in
their order, `message` the full API message, `toolUseResult` on results), with our own
content; the files are run through the command line's reader, as a user runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.job import Job, Outcome
from histnorm_cli.per_file import run_file

import histnorm
from histnorm.diagnostic import Severity
from histnorm.document import read_jsonl
from histnorm.engine import proven_clean
from histnorm.settings import OrphanCallPolicy, Settings, TailMode

ROOT = Path(__file__).resolve().parent.parent
TORN = ROOT / "fixtures" / "formats" / "claude-code" / "torn"
FORMATS = ROOT / "fixtures" / "formats" / "claude-code"
SID = "7d1c9e2a-4b3f-4a6e-8c5d-2e9f0a1b3c4d"
ENVELOPE = {
    "isSidechain": False,
    "userType": "external",
    "cwd": "/home/dev/ledger",
    "sessionId": SID,
    "version": "2.0.37",
    "gitBranch": "main",
}
SYNTHESIZE = Settings(orphan_tool_call=OrphanCallPolicy.SYNTHESIZE, tail=TailMode.CLOSE)


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def user(n: int, parent: int | None, content: Any, **extra: Any) -> dict[str, Any]:
    """A user line in Claude Code's key order."""
    line: dict[str, Any] = {"parentUuid": None if parent is None else uid(parent), **ENVELOPE}
    line |= {"type": "user", "message": {"role": "user", "content": content}}
    line |= {"uuid": uid(n), "timestamp": f"2026-03-02T10:00:{n:02d}.000Z", **extra}
    return line


def assistant(n: int, parent: int | None, content: list[Any], mid: str) -> dict[str, Any]:
    """An assistant line in Claude Code's key order (the full API message)."""
    body = {"id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5"}
    body |= {"content": content, "stop_reason": None, "stop_sequence": None}
    body["usage"] = {"input_tokens": 4, "output_tokens": 12, "service_tier": "standard"}
    line: dict[str, Any] = {"parentUuid": None if parent is None else uid(parent), **ENVELOPE}
    line |= {"message": body, "requestId": f"req_{mid}", "type": "assistant"}
    return line | {"uuid": uid(n), "timestamp": f"2026-03-02T10:00:{n:02d}.000Z"}


def tool_use(ident: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": ident, "name": "Bash", "input": {"command": "make test"}}


def tool_result(ident: str, text: str = "4 passed") -> dict[str, Any]:
    return {"tool_use_id": ident, "type": "tool_result", "content": text, "is_error": False}


def session() -> list[dict[str, Any]]:
    """Prompt, a call and its result, a reply, then a call the user cancelled (no result)."""
    return [
        user(1, None, "Run the tests."),
        assistant(2, 1, [tool_use("toolu_01Aa")], "msg_01Aa"),
        user(3, 2, [tool_result("toolu_01Aa")], toolUseResult={"stdout": "4 passed"}),
        assistant(4, 3, [{"type": "text", "text": "All 4 pass. Deploying."}], "msg_01Bb"),
        assistant(5, 4, [tool_use("toolu_01Cc")], "msg_01Cc"),
    ]


def jsonl(lines: list[Any]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def outcome(path: Path, mode: str = "lint", settings: Settings = SYNTHESIZE, **job: Any) -> Outcome:
    return run_file(str(path), Job(mode=mode, settings=settings, write=True, **job))  # type: ignore[arg-type]


def found(result: Outcome) -> list[tuple[str, int | None]]:
    return [(d.code, d.location.line) for d in result.diagnostics]


# --- 1. a torn last line ---------------------------------------------------------------


TORN_TAIL = b'{"parentUuid":"00000000-0000-4000-8000-000000000005","isSidechain":false,"ty'


def test_torn_fixture_is_the_shape_a_killed_write_leaves() -> None:
    raw = (TORN / "killed-mid-write.jsonl").read_bytes()
    *whole, torn = raw.split(b"\n")
    assert all(orjson.loads(line) for line in whole)
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(torn)
    assert not raw.endswith(b"\n")


def test_a_torn_last_line_is_reported_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(session()) + TORN_TAIL)
    result = outcome(path, settings=Settings())
    assert result.error is None
    assert ("HN000", 6) in found(result)
    assert ("HN011", 5) in found(result)  # the cancelled call is still seen
    torn = next(d for d in result.diagnostics if d.code == "HN000")
    assert torn.severity is Severity.WARNING
    assert "skipped" in torn.message and "kept" in torn.message


def test_fix_answers_the_cancelled_call_and_keeps_the_torn_bytes(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    original = jsonl(session()) + TORN_TAIL
    path.write_bytes(original)
    result = outcome(path, mode="fix")
    assert result.error is None
    assert result.applied["HN001"] == 1 or result.applied["HN011"] == 1
    written = path.read_bytes()
    assert written.endswith(b"\n" + TORN_TAIL)  # the torn bytes, last, with no newline added
    head = written[: -len(TORN_TAIL)]
    assert head.startswith(jsonl(session()))  # every line before it kept byte for byte
    added = [orjson.loads(line) for line in head[len(jsonl(session())) :].splitlines()]
    assert [line["message"]["content"][0]["tool_use_id"] for line in added] == ["toolu_01Cc"]
    again = outcome(path, mode="fix")
    assert not again.applied and path.read_bytes() == written
    assert [code for code, _ in found(again)] == ["HN000"]


def test_the_torn_fixture_is_fixed_and_keeps_its_torn_line(tmp_path: Path) -> None:
    raw = (TORN / "killed-mid-write.jsonl").read_bytes()
    path = tmp_path / "killed.jsonl"
    path.write_bytes(raw)
    assert "HN011" in [code for code, _ in found(outcome(path, settings=Settings()))]
    outcome(path, mode="fix")
    assert path.read_bytes().endswith(raw.rsplit(b"\n", 1)[1])
    assert path.read_bytes() != raw


def test_a_torn_line_with_blank_lines_after_it_is_still_the_last_one(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(session()) + TORN_TAIL + b"\n\n")
    outcome(path, mode="fix")
    assert path.read_bytes().endswith(b"\n" + TORN_TAIL + b"\n\n")


def test_a_torn_line_in_the_middle_is_reported_and_nothing_is_fixed(tmp_path: Path) -> None:
    """Only a killed write leaves a torn line, and only at the end. A broken line between
    whole ones may have held a call, a result or the link the next line names: the
    session is linted without it, as Claude Code reads it, but `fix` never rewrites it."""
    lines = session()
    raw = jsonl(lines[:3]) + TORN_TAIL + b"\n" + jsonl(lines[3:])
    path = tmp_path / "s.jsonl"
    path.write_bytes(raw)
    linted = outcome(path, settings=Settings())
    assert ("HN000", 4) in found(linted)
    torn = next(d for d in linted.diagnostics if d.code == "HN000")
    assert torn.severity is Severity.ERROR and "not fixed" in torn.message
    assert ("HN011", 6) in found(linted)  # the lines after it are read too
    fixed = outcome(path, mode="fix")
    assert not fixed.applied and path.read_bytes() == raw
    assert ("HN000", 4) in found(fixed)


def test_a_torn_line_in_a_file_that_is_no_session_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(b'{"role":"user","content":"hi"}\n{"role":"assistant","con')
    assert found(outcome(path, settings=Settings())) == [("HN000", 2)]


def test_a_session_of_one_torn_line_is_unreadable(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(TORN_TAIL)
    assert found(outcome(path, settings=Settings())) == [("HN000", 1)]


def test_the_document_layer_keeps_the_torn_tail() -> None:
    data = jsonl(session()) + TORN_TAIL
    document = read_jsonl(data)
    (record,) = document.records
    assert record.transcript is not None and record.error is None
    assert [note.line for note in record.notes] == [6]
    assert not record.held


# --- 2. sessions without parent links --------------------------------------------------


def unlinked(keep_key: bool) -> list[dict[str, Any]]:
    """The session with no links: `parentUuid` null on every line, or no such key."""
    out = []
    for line in session():
        line = dict(line)
        if keep_key:
            line["parentUuid"] = None
        else:
            del line["parentUuid"]
        out.append(line)
    return out


@pytest.mark.parametrize("keep_key", [True, False], ids=["null-parents", "no-parent-key"])
def test_unlinked_lines_are_read_as_a_chain_in_file_order(keep_key: bool) -> None:
    transcript = histnorm.load(unlinked(keep_key), format="claude-code")
    roles = [m.role for m in transcript.messages]
    assert roles == ["user", "assistant", "user", "assistant", "assistant"]
    assert transcript.messages[2].parts[0].call_id == "toolu_01Aa"  # type: ignore[attr-defined]


@pytest.mark.parametrize("keep_key", [True, False], ids=["null-parents", "no-parent-key"])
def test_a_removed_tool_result_is_found_in_an_unlinked_session(keep_key: bool) -> None:
    lines = unlinked(keep_key)
    del lines[2]  # the result of toolu_01Aa
    codes = {d.code for d in histnorm.lint(lines, format="claude-code")}
    assert "HN001" in codes


@pytest.mark.parametrize("keep_key", [True, False], ids=["null-parents", "no-parent-key"])
def test_fixing_an_unlinked_session_adds_no_links(keep_key: bool) -> None:
    lines = unlinked(keep_key)
    result = histnorm.fix(lines, SYNTHESIZE, format="claude-code")
    assert result.applied
    written = histnorm.encode(result.transcript)
    assert written[:5] == lines
    assert [line.get("parentUuid") for line in written] == [None] * 6
    again = histnorm.load(written, format="claude-code")
    assert [m.role for m in again.messages][-1] == "user"
    assert not histnorm.fix(again, SYNTHESIZE).applied


def test_a_result_moved_in_an_unlinked_session_moves_its_line() -> None:
    """Without links the file order is the order: a displaced result's line is moved
    next to its call, and no line is rewritten."""
    lines = unlinked(True)[:3]
    lines.insert(2, user(9, None, "Wait, which tests?"))
    result = histnorm.fix(lines, format="claude-code")
    assert result.applied["HN008"] == 1
    written = histnorm.encode(result.transcript)
    assert [orjson.dumps(line) for line in written] == [
        orjson.dumps(lines[i]) for i in (0, 1, 3, 2)
    ]


def test_the_unlinked_fixture_is_read_whole() -> None:
    document = read_jsonl((FORMATS / "no-parents.jsonl").read_bytes())
    (record,) = document.records
    assert record.transcript is not None
    assert [m.role for m in record.transcript.messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "assistant",
    ]


def test_an_unlinked_session_has_no_plain_shape() -> None:
    """The plain shape proves chains by their links; an unlinked file is left to the rules."""
    lines = unlinked(True)
    lines.insert(2, lines[1] | {"uuid": uid(9)})
    assert not proven_clean(lines, "claude-code", Settings())


# --- 3. a parent that is not in the file -----------------------------------------------


def test_a_parent_missing_from_the_file_is_reported() -> None:
    lines = session()
    lines[3] = lines[3] | {"parentUuid": uid(77)}  # the line it named was removed
    diagnostics = [d for d in histnorm.lint(lines, format="claude-code") if d.code == "HN014"]
    (diagnostic,) = diagnostics
    assert uid(77) in diagnostic.message
    assert "3 earlier lines" in diagnostic.message
    assert diagnostic.location.message_index == 0
    assert not proven_clean(lines, "claude-code", Settings())


def test_one_line_left_behind_is_said_in_the_singular() -> None:
    lines = session()
    lines[1] = lines[1] | {"parentUuid": uid(77)}
    (diagnostic,) = [d for d in histnorm.lint(lines, format="claude-code") if d.code == "HN014"]
    assert "the 1 earlier line of the file is not part of it" in diagnostic.message


def test_a_parent_missing_from_the_file_is_reported_at_its_line(tmp_path: Path) -> None:
    lines = session()
    lines[3] = lines[3] | {"parentUuid": uid(77)}
    path = tmp_path / "s.jsonl"
    path.write_bytes(jsonl(lines))
    assert ("HN014", 4) in found(outcome(path, settings=Settings()))


def test_a_removed_line_is_found_through_the_link_it_leaves() -> None:
    lines = session()
    del lines[2]  # the result line; the reply after it still names it
    codes = [d.code for d in histnorm.lint(lines, format="claude-code")]
    assert "HN014" in codes


def continued() -> list[dict[str, Any]]:
    """A file that continues another session: its first line names the other file's last."""
    lines = session()
    lines[0] = lines[0] | {"parentUuid": uid(500)}
    return [{"type": "summary", "summary": "Tests", "leafUuid": uid(500)}, *lines]


def compacted() -> list[dict[str, Any]]:
    """A compacted session: the boundary has no parent and a logical one."""
    lines = session()[:4]
    boundary = {"parentUuid": None, "logicalParentUuid": uid(4), **ENVELOPE, "type": "system"}
    boundary |= {"subtype": "compact_boundary", "content": "Conversation compacted"}
    boundary |= {"uuid": uid(20), "timestamp": "2026-03-02T10:01:00.000Z", "level": "info"}
    summary = user(21, 20, "This session is being continued from a previous conversation.")
    return [*lines, boundary, summary | {"isCompactSummary": True}]


def leaked_summary() -> list[dict[str, Any]]:
    """A summary whose leafUuid names a line of another conversation."""
    return [{"type": "summary", "summary": "Old work", "leafUuid": uid(999)}, *session()]


def sidechain_file() -> list[dict[str, Any]]:
    """A sub-agent transcript: every line a sidechain, the first naming the main file's line."""
    lines = [line | {"isSidechain": True, "agentId": "a1b2c3d4"} for line in session()]
    lines[0]["parentUuid"] = uid(400)
    return lines


@pytest.mark.parametrize("make", [continued, compacted, leaked_summary, sidechain_file])
def test_legitimate_shapes_are_not_reported(make: Any) -> None:
    assert "HN014" not in {d.code for d in histnorm.lint(make(), format="claude-code")}


# --- 4. the lines fix adds are real session lines --------------------------------------


def synthesized_lines(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The lines `fix` adds (rewritten lines, say re-pointed ones, are not counted)."""
    written = histnorm.encode(histnorm.fix(lines, SYNTHESIZE, format="claude-code").transcript)
    known = {line["uuid"] for line in lines}
    return [line for line in written if line["uuid"] not in known]


def test_a_synthesized_result_carries_the_envelope_of_the_line_it_answers() -> None:
    lines = session()
    (added,) = synthesized_lines(lines)
    call = lines[4]
    for key in ("isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch"):
        assert added[key] == call[key], key
    assert added["timestamp"] == call["timestamp"]
    assert added["type"] == "user" and added["parentUuid"] == call["uuid"]
    assert list(added) == [
        "parentUuid",
        *ENVELOPE,
        "type",
        "message",
        "uuid",
        "timestamp",
    ]


def test_envelope_keys_a_line_lacks_are_not_invented() -> None:
    lines = session()
    for line in lines:
        del line["gitBranch"]
    lines[4] = lines[4] | {"agentId": "f00dcafe", "version": "1.0.31"}
    (added,) = synthesized_lines(lines)
    assert "gitBranch" not in added
    assert added["agentId"] == "f00dcafe" and added["version"] == "1.0.31"


def test_a_synthesized_result_answers_from_the_line_of_its_call() -> None:
    """Parallel calls, one answered: the new result copies the line of its own call."""
    lines = session()[:4]
    first = assistant(5, 4, [tool_use("toolu_01Dd")], "msg_01Dd")
    second = assistant(6, 5, [tool_use("toolu_01Ee")], "msg_01Dd") | {"cwd": "/srv/other"}
    answer = user(7, 5, [tool_result("toolu_01Dd")], toolUseResult={"stdout": ""})
    lines += [first, second, answer, user(8, 7, "Thanks")]
    (added,) = synthesized_lines(lines)
    assert added["message"]["content"][0]["tool_use_id"] == "toolu_01Ee"
    assert added["cwd"] == "/srv/other" and added["timestamp"] == second["timestamp"]


def test_a_synthesized_result_names_its_call_line_where_the_file_does() -> None:
    """Newer versions name the call's line in `sourceToolAssistantUUID` on every result."""
    lines = session()
    lines[2]["sourceToolAssistantUUID"] = lines[1]["uuid"]
    (added,) = synthesized_lines(lines)
    assert added["sourceToolAssistantUUID"] == lines[4]["uuid"]
    (older,) = synthesized_lines(session())
    assert "sourceToolAssistantUUID" not in older


def test_a_result_made_up_for_a_renamed_call_still_answers_from_its_line() -> None:
    """A profile renames the call (HN104, `mistral`: nine letters or digits); the new
    result line finds its call's line by the new id (found by the id as read, the line
    lost its envelope and `sourceToolAssistantUUID`, and the rename was refused)."""
    lines = session()
    lines[2]["sourceToolAssistantUUID"] = lines[1]["uuid"]
    lines[4]["cwd"] = "/srv/other"
    settings = SYNTHESIZE.model_copy(update={"profile": "mistral", "unsafe_fixes": True})
    done = histnorm.fix(lines, settings, format="claude-code")
    assert done.applied.get("HN104") == 2 and done.refused is None
    written = histnorm.encode(done.transcript)
    (added,) = [line for line in written if line["uuid"] not in {x["uuid"] for x in lines}]
    assert added["sourceToolAssistantUUID"] == lines[4]["uuid"]
    assert added["cwd"] == "/srv/other" and added["parentUuid"] == lines[4]["uuid"]


def test_synthesized_lines_are_the_same_on_every_run() -> None:
    assert synthesized_lines(session()) == synthesized_lines(session())
