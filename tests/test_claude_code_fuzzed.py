"""Claude Code session files the mutation fuzzer (tests/fuzzing) found `fix` failing on.

`fix` reaches its fixpoint in one run: fixing the written file again changes nothing,
even when the fix drops a whole branch and the file's reader then follows another one.
A session ending in several torn lines is fixed, and the torn lines are kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.files import STDIN
from histnorm_cli.job import Job
from histnorm_cli.per_file import run_file

import histnorm
from histnorm.settings import Settings, TailMode

SID = "5e0c3b7a-6d1f-4c2e-9a83-2f4b6c8d0e17"
CLOSE = Settings(tail=TailMode.CLOSE, unsafe_fixes=True)


def uid(n: int) -> str:
    return f"00000000-0000-4000-8000-{n:012d}"


def line(n: int, parent: str | None, kind: str, content: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message = {"id": f"msg_{n}", "type": "message", **message}
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "sessionId": SID,
        "type": kind,
        "message": message,
        "uuid": uid(n),
        "timestamp": f"2026-07-14T09:12:{n:02d}.000Z",
    }


CALL = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}}
SESSION = [
    line(1, None, "user", "List the files."),
    line(2, uid(1), "assistant", [CALL]),  # never answered
    line(3, uid(99), "assistant", [{"type": "text", "text": ""}]),  # parent not in the file
]
"""The newest leaf (line 3) names a parent the file lacks: the branch is that line alone,
an empty reply. Dropping it leaves lines 1-2 as the newest branch, with an open call."""


def fixed(data: bytes, tmp_path: Path) -> bytes:
    path = tmp_path / "session.jsonl"
    path.write_bytes(data)
    outcome = run_file(str(path), Job(mode="fix", settings=CLOSE, write=True, output=STDIN))
    assert outcome.error is None and outcome.stdout is not None
    return outcome.stdout


def test_a_second_fix_of_a_fixed_session_file_changes_nothing(tmp_path: Path) -> None:
    once = fixed(b"".join(orjson.dumps(x) + b"\n" for x in SESSION), tmp_path)
    assert fixed(once, tmp_path) == once


def test_fix_settles_the_branch_the_written_session_is_read_as() -> None:
    result = histnorm.fix(SESSION, CLOSE)
    again = histnorm.fix(histnorm.encode(result.transcript), CLOSE)
    assert not again.changed, dict(again.applied)
    first = result.transcript.messages[0]
    assert first.role == "user" and first.parts[0].text == "List the files."  # type: ignore[union-attr]


def test_fix_peels_one_dropped_branch_after_another_in_one_run() -> None:
    """Every line its own root (one names a parent the file lacks, so the session has
    links): each fix drops the newest leaf, an open call, and reveals the line before,
    more times than the fix order has passes (`MAX_PASSES`)."""
    calls = [
        line(n, uid(99) if n == 2 else None, "assistant", [{**CALL, "id": f"toolu_{n:02d}"}])
        for n in range(2, 14)
    ]
    session = [line(1, None, "user", "List the files."), *calls]
    result = histnorm.fix(session, CLOSE)
    assert [m.role for m in result.transcript.messages] == ["user"]
    assert not histnorm.fix(histnorm.encode(result.transcript), CLOSE).changed


def test_a_session_ending_in_two_torn_lines_is_fixed_and_keeps_them(tmp_path: Path) -> None:
    """The repeated-key check before a rewrite reads the whole lines only: the torn ones
    are no JSON (a string cut short in one runs on into the next)."""
    whole = orjson.dumps(line(1, None, "user", "List the files.")) + b"\n"
    whole += orjson.dumps(line(2, uid(1), "assistant", [CALL])) + b"\n"
    torn = b'{"type":"queue-operation","sessi\n{"type":"queue-operation","sessi'
    once = fixed(whole + torn, tmp_path)
    assert once.endswith(b"\n" + torn)
    assert b"toolu_01" not in once  # the open call was dropped
    assert fixed(once, tmp_path) == once


# --- lines that share a uuid, and a branch whose first line changes -------------------


def _texts(lines: list[Any]) -> list[str]:
    return [orjson.dumps(x).decode() for x in lines]


def _shared(kind: str, first: Any, live: Any, parents: tuple[Any, Any]) -> list[Any]:
    """Two lines with one uuid: an earlier version (`first`) the live one shadows."""
    return [
        {**line(7, parents[0], kind, first), "uuid": uid(7)},
        {**line(7, parents[1], kind, live), "uuid": uid(7)},
    ]


SHARED = {
    # seed 3 case 1444: a user line emptied after a copy of it was written
    "user": [*_shared("user", "Run the unit tests", "", (None, None))],
    # seed 3 cases 987, 1473 and seed 2 case 148: an assistant reply under a user line
    "assistant": [
        line(1, None, "user", "Run the unit tests"),
        *_shared("assistant", [{"type": "text", "text": "I'll run them."}], [], (uid(1), uid(1))),
    ],
    # seed 1 case 470: the copies name different parents, one not in the file
    "parents": [
        *_shared(
            "assistant",
            [{"type": "text", "text": "Continuing with refunds.py."}],
            [{"type": "text", "text": ""}],
            (uid(98), None),
        ),
    ],
    # seed 1 case 771: a session without links
    "unlinked": [
        line(1, None, "user", "Deploy it"),
        *_shared(
            "assistant",
            [{"type": "text", "text": "All 4 pass. Deploying."}],
            [{"type": "text", "text": ""}],
            (None, None),
        ),
    ],
    # seed 2 case 1323: a sub-agent file, the live copy of a result line emptied
    "sidechain": [
        {**x, "isSidechain": True}
        for x in _shared(
            "user",
            [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "Found 2 files"}],
            [],
            (uid(98), uid(98)),
        )
    ],
}


@pytest.mark.parametrize("name", sorted(SHARED))
def test_a_fix_of_a_line_that_shadows_an_earlier_copy_is_held_back(
    name: str, tmp_path: Path
) -> None:
    """Reading keeps the last line of a uuid; dropping it would either bring the earlier
    copy back or drop it too. histnorm cannot tell which, so the fix is held back, in lint
    as in fix, and the file is left as it was."""
    session = SHARED[name]
    found = histnorm.lint(session, CLOSE)
    held = [d for d in found if "shares its uuid" in d.message]
    assert held and all(d.fix is None for d in held), [(d.code, d.message) for d in found]
    result = histnorm.fix(session, CLOSE)
    assert not any("not fixed" in d.message for d in result.remaining)
    data = b"".join(orjson.dumps(x) + b"\n" for x in session)
    assert fixed(data, tmp_path) == data


def test_a_line_whose_identical_copy_it_shadows_is_still_fixed() -> None:
    """Two copies of one line (the same JSON): dropping both keeps every value."""
    copy = line(2, uid(1), "assistant", [{"type": "text", "text": ""}])
    session = [line(1, None, "user", "Run the unit tests"), copy, dict(copy)]
    result = histnorm.fix(session, CLOSE)
    assert result.changed and result.refused is None
    assert histnorm.encode(result.transcript) == session[:1]


def test_a_dropped_first_line_leaves_the_next_its_own_missing_parent() -> None:
    """Seed 3 case 2347: a streamed reply whose last line (the newest leaf, its parent not
    in the file) is read first, its sibling lines after it. Dropping that empty line
    leaves the siblings as they were: the first keeps the parent it names, though the
    file does not hold it either."""
    reply = [
        line(2, uid(97), "assistant", [{"type": "text", "text": "Reading the frame."}]),
        line(3, uid(2), "assistant", [{"type": "text", "text": "Frame Checkout"}]),
        line(4, uid(98), "assistant", [{"type": "text", "text": ""}]),
    ]
    for x in reply:
        x["message"]["id"] = "msg_01"
    result = histnorm.fix(reply, CLOSE)
    assert result.refused is None, result.refused
    assert _texts(histnorm.encode(result.transcript)) == _texts(reply[:2])


def test_a_line_under_a_dropped_line_with_a_missing_parent_is_not_rewritten() -> None:
    """Seed 3 case 2347, a step before: the branch root (its parent not in the file) is
    an empty reply that is dropped. The line under it names a uuid the file no longer
    holds either way: it keeps its own parent, and stays the very line it was, so a
    later fix dropping it drops only what that line held."""
    session = [
        line(2, uid(97), "assistant", [{"type": "text", "text": ""}]),
        line(3, uid(2), "user", "Run the unit tests"),
    ]
    result = histnorm.fix(session, CLOSE)
    assert result.refused is None, result.refused
    assert _texts(histnorm.encode(result.transcript)) == _texts(session[1:])


def test_a_reply_rooted_by_a_dropped_line_takes_the_old_roots_parent() -> None:
    """Seed 8 case 895: a streamed reply read from its middle line (the newest leaf, its
    parent not in the file): an orphan result there, then its first line, whose parent is
    the last, an empty text that is the root. Both are dropped in turn; the line left
    takes the parent of the branch's old first line, as the dropped lines held it."""
    reply = [
        line(2, uid(4), "assistant", [{"type": "redacted_thinking", "data": "EuYBCkQ"}]),
        line(
            3,
            uid(97),
            "assistant",
            [{"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}],
        ),
        line(4, None, "assistant", [{"type": "text", "text": ""}]),
    ]
    for x in reply:
        x["message"]["id"] = "msg_01"
    result = histnorm.fix(reply, CLOSE)
    assert result.refused is None, result.refused
    assert histnorm.encode(result.transcript) == [{**reply[0], "parentUuid": uid(97)}]


@pytest.mark.parametrize("side", [False, True])
def test_an_orphan_result_and_an_empty_reply_under_it_are_both_dropped(side: bool) -> None:
    """Seed 10 cases 2825 and 1399 (a sub-agent file): the first fix drops an orphan
    result whose parent the file lacks; the empty reply under it, left alone by that fix,
    is dropped by the next with nothing else lost."""
    result_line = [{"type": "tool_result", "tool_use_id": "toolu_01", "content": "ok"}]
    session = [
        line(2, uid(97), "user", result_line),
        line(3, uid(2), "assistant", [{"type": "text", "text": ""}]),
    ]
    session = [{**x, "isSidechain": side} for x in session]
    result = histnorm.fix(session, CLOSE)
    assert result.refused is None, result.refused
    assert result.applied


def test_a_result_moved_out_of_a_streamed_reply_hangs_off_its_first_line() -> None:
    """Seed 9 case 1981: a reply streamed as two call lines, read from the second (its
    parent not in the file; the first, its parent missing too, is put after it), then a
    reply holding the result of the first call. Moved into a user line of its own, the
    result hangs off the reply's line the branch is read from, so the first call line
    keeps the parent it names (the unanswered second call is dropped)."""
    calls = [
        line(2, uid(97), "assistant", [{**CALL, "id": "toolu_01"}]),
        line(3, uid(98), "assistant", [{**CALL, "id": "toolu_02"}]),
    ]
    for x in calls:
        x["message"]["id"] = "msg_01"
    result_block = {"type": "tool_result", "tool_use_id": "toolu_01", "content": "a.py"}
    answer = line(4, uid(3), "assistant", [result_block, {"type": "text", "text": "Found it."}])
    result = histnorm.fix([*calls, answer], CLOSE)
    assert result.refused is None, result.refused
    written = histnorm.encode(result.transcript)
    assert _texts(written[:1]) == _texts(calls[:1])  # the first call line, as it was


def test_a_shadowed_copy_of_a_dropped_call_line_cuts_off_no_call(tmp_path: Path) -> None:
    """Seed 8 case 2933: a reply read from its empty last line (its parent not in the
    file), with a call line written twice (the same JSON) and the call's result. The call
    comes after its result, so it is dropped, and both copies of its line with it: the
    earlier copy, which Claude Code never reads, is no call cut off by a missing parent
    (HN002 keeps such a result), so the orphan result goes in the same run."""
    call = {**CALL, "type": "mcp_tool_use", "server_name": "figma"}
    result_block = {"type": "mcp_tool_result", "tool_use_id": "toolu_01", "content": "ok"}
    session = [
        line(1, None, "user", "Look at the frame"),
        line(2, uid(96), "assistant", [call]),
        line(3, uid(2), "assistant", [result_block]),
        line(4, uid(98), "assistant", [{"type": "text", "text": ""}]),
    ]
    session.append(dict(session[1]))
    for x in session[1:]:
        x["message"]["id"] = "msg_01"
    once = fixed(b"".join(orjson.dumps(x) + b"\n" for x in session), tmp_path)
    assert fixed(once, tmp_path) == once


def test_an_edit_that_needs_a_missing_parent_link_re_pointed_writes_a_line_last() -> None:
    """Seed 3 case 2347: a streamed reply of four lines, three of which name parents the
    file does not hold; the empty last line (the newest leaf) is dropped. Linking the
    others one after another would rewrite the link a call line names, which no rule
    owns; writing the reply's first line last keeps every link and reads back as
    planned. (Before that layout existed the writer refused.)"""
    hosted = {"type": "mcp_tool_use", "id": "mcptoolu_01", "name": "frame", "input": {}}
    answer = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "content": []}
    reply = [
        line(2, uid(97), "assistant", [{"type": "redacted_thinking", "data": "EuYBCkQ"}]),
        line(3, uid(98), "assistant", [hosted]),
        line(4, uid(3), "assistant", [answer]),
        line(5, uid(99), "assistant", [{"type": "text", "text": ""}]),
    ]
    for x in reply:
        x["message"]["id"] = "msg_01"
    result = histnorm.fix(reply, CLOSE)
    assert result.refused is None, result.refused
    written = histnorm.encode(result.transcript)
    assert written == [reply[1], reply[2], reply[0]]
    assert not histnorm.fix(written, CLOSE).changed


def test_a_first_layout_that_re_points_a_missing_parent_link_is_not_taken() -> None:
    """Seed 0 case 52890: a streamed reply whose first line names a parent the file lacks;
    moving a result out of its last line (HN015) is written, in the layouts tried first,
    by re-pointing that first line. The writer tries the next layout instead and, when
    every one would, refuses with the line it would rewrite."""
    reply = [
        line(2, uid(97), "assistant", [{"type": "thinking", "thinking": "", "signature": "Eq"}]),
        line(3, None, "assistant", [CALL, {**CALL, "name": "Read"}]),
        line(
            4,
            uid(3),
            "assistant",
            [
                {**CALL, "id": "toolu_02"},
                {"type": "tool_result", "tool_use_id": "toolu_02", "content": "ok"},
            ],
        ),
    ]
    for x in reply:
        x["message"]["id"] = "msg_01"
    result = histnorm.fix(reply, CLOSE)
    assert result.refused is not None
    assert f"the line {uid(2)!r} names a parent the session does not hold" in result.refused
    assert histnorm.encode(result.transcript) == reply


def test_a_link_left_dangling_by_a_dropped_line_is_kept_as_named() -> None:
    """Seed 1 case 6741: a streamed reply read from its newest leaf, an empty root line,
    with its other lines after it. One fix drops an orphan result (its line's parent is
    not in the file, so the next line keeps the uuid it names); the next drops the empty
    leaf. No layout may re-point that line: the one that keeps every link writes the
    reply's first line last, so reading finds the reply in the planned order."""
    orphan = {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_01", "content": []}
    hosted = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    found = {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": []}
    reply = [
        line(2, uid(97), "assistant", [{"type": "redacted_thinking", "data": "EuYBCkQ"}]),
        line(3, uid(98), "assistant", [orphan]),
        line(4, uid(3), "assistant", [hosted]),
        line(5, uid(4), "assistant", [found]),
        line(6, None, "assistant", [{"type": "text", "text": ""}]),
    ]
    for x in reply:
        x["message"]["id"] = "msg_01"
    result = histnorm.fix(reply, CLOSE)
    assert result.refused is None, result.refused
    assert set(result.applied) == {"HN002", "HN004"}, dict(result.applied)
    written = histnorm.encode(result.transcript)
    assert [x["uuid"] for x in written] == [uid(4), uid(5), uid(2)]
    assert [x["parentUuid"] for x in written] == [uid(3), uid(4), uid(97)]
    assert not histnorm.fix(written, CLOSE).changed


def test_a_line_re_linked_into_a_copy_of_the_line_it_shadowed_is_fixed_in_the_same_run(
    tmp_path: Path,
) -> None:
    """Seed 1 cases 171080 and 182056: a call line shadows an earlier line of its uuid
    under another parent, so a fix of it is held back. Dropping the unanswered call line
    between re-links it under the same parent as the earlier line: the two are now copies,
    which a fix reaches. The same run fixes them, so a second run changes nothing."""
    later = {**CALL, "id": "toolu_02"}
    first, copy = line(3, uid(1), "assistant", [later]), line(3, uid(2), "assistant", [later])
    session = [
        line(1, None, "user", "List the files."),
        line(2, uid(1), "assistant", [CALL]),  # never answered: dropped
        first,
        copy,  # shadows `first`; once line 2 is gone, its copy
    ]
    once = fixed(b"".join(orjson.dumps(x) + b"\n" for x in session), tmp_path)
    assert fixed(once, tmp_path) == once
    assert b"toolu_01" not in once and b"toolu_02" not in once
