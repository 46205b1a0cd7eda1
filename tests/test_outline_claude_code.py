"""The fast outline reader of Claude Code sessions (`histnorm.formats.claude_code.outline`).

Only a chain of plain lines, forked at most by parallel tool results, is read; real
branches, results that `decode` would move or drop, sidechains, meta lines, media and
blank text give None. Drawn sessions (with and without branches, damaged too, and with
parallel batches moved and re-pointed) hold the promises of `tests/test_fast_path.py`, and
whenever the reader reads a session `decode` reads every node, in file order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from outline_helpers import Step, summary
from strategies_claude_code import damaged_sessions, sessions
from test_fast_path import check_promises

from histnorm.engine import proven_clean
from histnorm.formats import outline_of
from histnorm.formats.claude_code import ClaudeCodeCodec
from histnorm.formats.claude_code.tree import analyse, check_lines

CODEC = ClaudeCodeCodec()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "formats" / "claude-code"
PROPERTY = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _line(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = extra.pop("mid", f"msg_{uuid}")
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "message": message, **extra}


def _session() -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"cmd": "ls"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.txt"}
    return [
        {"type": "summary", "summary": "Listing", "leafUuid": "u5"},
        _line("user", "u1", None, "List the files."),
        _line("assistant", "u2", "u1", [{"type": "thinking", "thinking": "ls"}], mid="m1"),
        _line("assistant", "u3", "u2", [call], mid="m1"),
        _line("user", "u4", "u3", [result], toolUseResult={"stdout": "a.txt"}),
        {"type": "system", "uuid": "s1", "parentUuid": "u4", "content": "hook ran"},
        _line("assistant", "u5", "s1", [{"type": "text", "text": "One file."}]),
    ]


def test_a_linear_session_is_plain() -> None:
    session = _session()
    assert summary(CODEC.read_outline(session)) == (
        Step("user", (), (), 1, 0),
        Step("assistant", ("toolu_1",), (), 1, 1),
        Step("user", (), ("toolu_1",), 0, 0),
        Step("assistant", (), (), 1, 0),
    )
    assert CODEC.read_outline(session) == outline_of(CODEC.decode(session))
    assert proven_clean(session, "claude-code")


def _branched(session: list[Any]) -> None:
    session.append(_line("user", "u6", "u4", "Again?"))  # a sibling of the system line


def _sidechain(session: list[Any]) -> None:
    session[3]["isSidechain"] = True


def _image(session: list[Any]) -> None:
    source = {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}
    session[1]["message"]["content"] = [{"type": "image", "source": source}]


def _blank(session: list[Any]) -> None:
    session[6]["message"]["content"] = [{"type": "text", "text": " "}]


def _meta(session: list[Any]) -> None:
    session[1]["isMeta"] = True


def _shadowed(session: list[Any]) -> None:
    session.append(dict(session[-1]))


def _handoff(session: list[Any]) -> None:
    session[3]["message"]["content"][0]["name"] = "handoff_to_billing"


def _empty_id(session: list[Any]) -> None:
    session[3]["message"]["content"][0]["id"] = ""


@pytest.mark.parametrize(
    "damage", [_branched, _sidechain, _image, _blank, _meta, _shadowed, _handoff, _empty_id]
)
def test_anything_but_plain_has_no_shape(damage: Any) -> None:
    session = _session()
    damage(session)
    assert CODEC.read_outline(session) is None


def test_fixtures_keep_the_promises() -> None:
    plain = []
    for path in sorted(FIXTURES.glob("*.json*")):
        data = path.read_bytes()
        if path.suffix == ".json":
            session = orjson.loads(data)
        else:
            session = [orjson.loads(line) for line in data.splitlines() if line.strip()]
        if check_promises("claude-code", path.name, session):
            plain.append(path.name)
    assert plain, "some fixture is plain"


IDS = st.sampled_from(["t1", "t2", "t3", ""])
BLOCKS = st.lists(
    st.sampled_from(
        [
            {"type": "text", "text": "ok"},
            {"type": "text", "text": ""},
            {"type": "thinking", "thinking": "hm", "signature": "s"},
            {"type": "redacted_thinking", "data": "d"},
            {"type": "image", "source": {"type": "url", "url": "https://a.b/c.png"}},
        ]
    )
    | st.builds(
        lambda i, n: {"type": "tool_use", "id": i, "name": n, "input": {}},
        IDS,
        st.sampled_from(["Bash", None, "handoff_to_x"]),
    )
    | st.builds(lambda i: {"type": "tool_result", "tool_use_id": i, "content": "x"}, IDS),
    min_size=1,
    max_size=3,
)


@st.composite
def chains(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Mostly linear sessions of mostly plain lines: merging by message id and by tool
    results, skipped lines, and now and then a fork, a meta line or a blank text."""
    lines: list[dict[str, Any]] = []
    uuids: list[str] = []
    for n in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["user", "assistant", "assistant", "system", "summary"]))
        if kind == "summary":
            lines.append({"type": "summary", "summary": "s", "leafUuid": "u0"})
            continue
        parent = uuids[-1] if uuids else None
        if uuids and draw(st.integers(0, 9)) == 0:
            parent = draw(st.sampled_from([None, *uuids]))
        line: dict[str, Any] = {"type": kind, "uuid": f"u{n}", "parentUuid": parent}
        if kind != "system":
            content = draw(BLOCKS | st.sampled_from(["Hi", " "]))
            line["message"] = {"role": kind, "content": content}
            if kind == "assistant":
                line["message"]["id"] = draw(st.sampled_from(["m1", "m2", None]))
            if draw(st.integers(0, 15)) == 0:
                line[draw(st.sampled_from(["isMeta", "isSidechain"]))] = True
        lines.append(line)
        uuids.append(line["uuid"])
    return lines


@PROPERTY
@given(data=st.data())
def test_drawn_sessions_keep_the_promises(data: st.DataObject) -> None:
    session = data.draw(chains() | sessions(branches=data.draw(st.booleans())) | damaged_sessions())
    check_promises("claude-code", "drawn session", session)


# --- parallel tool calls: the tree forks, decode splices the batch back ------------------


def _read(name: str) -> list[Any]:
    data = (FIXTURES / name).read_bytes()
    return [orjson.loads(line) for line in data.splitlines() if line.strip()]


def _file_order(session: list[Any]) -> bool:
    """Whether `decode` reads every node (line with a uuid) of `session`, in file order."""
    lines = check_lines(session)
    nodes = [i for i, line in enumerate(lines) if isinstance(line.get("uuid"), str)]
    return list(analyse(lines).sequence) == nodes


def _call(call_id: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": "Read", "input": {"path": call_id}}


def _result(call_id: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": "ok"}


def _parallel() -> list[dict[str, Any]]:
    """Three calls streamed on three lines, each result under its own call's line."""
    return [
        _line("user", "u1", None, "Read a, b and c."),
        _line("assistant", "a1", "u1", [_call("t1")], mid="m1"),
        _line("assistant", "a2", "a1", [_call("t2")], mid="m1"),
        _line("assistant", "a3", "a2", [_call("t3")], mid="m1"),
        _line("user", "r1", "a1", [_result("t1")]),
        _line("user", "r2", "a2", [_result("t2")]),
        _line("user", "r3", "a3", [_result("t3")]),
        _line("assistant", "a4", "r3", [{"type": "text", "text": "Done."}], mid="m2"),
    ]


def test_the_parallel_tools_fixture_is_plain() -> None:
    session = _read("parallel-tools.jsonl")
    assert len({line["parentUuid"] for line in session}) < len(session)  # the tree forks
    assert CODEC.read_outline(session) == outline_of(CODEC.decode(session))
    assert proven_clean(session, "claude-code")


def test_a_parallel_batch_is_plain() -> None:
    session = _parallel()
    assert summary(CODEC.read_outline(session)) == (
        Step("user", (), (), 1, 0),
        Step("assistant", ("t1", "t2", "t3"), (), 0, 0),
        Step("user", (), ("t1", "t2", "t3"), 0, 0),
        Step("assistant", (), (), 1, 0),
    )
    assert CODEC.read_outline(session) == outline_of(CODEC.decode(session))
    assert proven_clean(session, "claude-code")


def _one_line_batch(session: list[Any]) -> None:
    """Every call on one line, every result under it (the first one linked anyway)."""
    session[1]["message"]["content"] = [_call("t1"), _call("t2"), _call("t3")]
    del session[2:4]
    for line in session[2:5]:
        line["parentUuid"] = "a1"


def _results_in_any_order(session: list[Any]) -> None:
    session[4:7] = [session[5], session[6], session[4]]  # r2 (linked to a3), r3, r1
    session[-1]["parentUuid"] = "r1"


def _linked_after_the_last_fork(session: list[Any]) -> None:
    session[6]["parentUuid"] = "r2"  # r3 follows the chain; the walk skips only r1


@pytest.mark.parametrize(
    "layout", [_one_line_batch, _results_in_any_order, _linked_after_the_last_fork]
)
def test_parallel_layouts_decode_keeps_in_file_order_are_plain(layout: Any) -> None:
    session = _parallel()
    layout(session)
    assert _file_order(session)
    assert CODEC.read_outline(session) == outline_of(CODEC.decode(session))
    assert proven_clean(session, "claude-code")


def _rewound(session: list[Any]) -> None:
    """/rewind: a second prompt under the first reply's parent."""
    session.append(_line("user", "u2", "u1", "No, read d."))


def _retried(session: list[Any]) -> None:
    """A regenerated reply under the same prompt, written after the first one."""
    session.append(_line("assistant", "a5", "u1", [{"type": "text", "text": "Hm."}], mid="m3"))


def _prompt_forks(session: list[Any]) -> None:
    """A prompt (not a tool result) under one line of the batch."""
    session.append(_line("user", "u2", "a2", "And d?"))


def _result_off_another_reply(session: list[Any]) -> None:
    """A result under a line of an earlier reply, not of the batch before it."""
    session[1:1] = [_line("assistant", "a0", "u1", [{"type": "text", "text": "Ok."}], mid="m0")]
    session[2]["parentUuid"] = "a0"
    session[5]["parentUuid"] = "a0"


def _result_of_a_missing_call(session: list[Any]) -> None:
    session[5]["parentUuid"] = "a9"  # no such line (say, the call's line was deleted)


def _call_moves_after_a_result(session: list[Any]) -> None:
    """r1 written before the next call's line: decode moves it after the whole reply."""
    session[2:5] = [session[4], session[2], session[3]]


def _linked_result_before_a_fork(session: list[Any]) -> None:
    """r2 chained to r1, then r3 forks: the walk skips r2, which decode cannot find."""
    session[5]["parentUuid"] = "r1"


def _reply_id_reused(session: list[Any]) -> None:
    """A later reply with the batch's message.id: decode splices the batch after it."""
    session[-1]["message"]["id"] = "m1"
    session.append(_line("user", "u2", "a4", "Thanks."))


def _system_line_in_the_batch(session: list[Any]) -> None:
    session[4:4] = [{"type": "system", "uuid": "s1", "parentUuid": "a3", "content": "hook"}]


def _resumed_under_a_call(session: list[Any]) -> None:
    """The next reply under a call's line, not under the last result (never plain)."""
    session[-1]["parentUuid"] = "a3"


def _result_points_at_itself(session: list[Any]) -> None:
    session[5]["parentUuid"] = "r2"


def _forked_reply_line(session: list[Any]) -> None:
    """A streamed line under an earlier line of its reply (a retried block)."""
    session[3]["parentUuid"] = "a1"


@pytest.mark.parametrize(
    "damage",
    [
        _rewound,
        _retried,
        _prompt_forks,
        _result_off_another_reply,
        _result_of_a_missing_call,
        _call_moves_after_a_result,
        _linked_result_before_a_fork,
        _reply_id_reused,
        _system_line_in_the_batch,
        _resumed_under_a_call,
        _result_points_at_itself,
        _forked_reply_line,
    ],
)
def test_anything_but_a_parallel_fork_has_no_shape(damage: Any) -> None:
    session = _parallel()
    damage(session)
    assert CODEC.read_outline(session) is None


@pytest.mark.parametrize(
    "damage",
    [
        _rewound,
        _retried,
        _result_of_a_missing_call,
        _call_moves_after_a_result,
        _linked_result_before_a_fork,
        _reply_id_reused,
    ],
)
def test_those_forks_are_read_out_of_file_order(damage: Any) -> None:
    """The None is needed: decode drops a node or moves one."""
    session = _parallel()
    damage(session)
    assert not _file_order(session)


def test_an_unanswered_parallel_call_has_a_shape_that_is_not_plain() -> None:
    session = _parallel()
    del session[5]  # no result for t2
    assert _file_order(session)
    assert CODEC.read_outline(session) == outline_of(CODEC.decode(session))
    assert not proven_clean(session, "claude-code")


@st.composite
def parallel_sessions(draw: st.DrawFn, moved: bool = True) -> list[dict[str, Any]]:
    """Plain sessions laid out as Claude Code writes parallel calls: each reply streamed one
    block per line or written on one line, its results chained or each under its call's
    line, in any order. With `moved`, now and then lines are swapped, re-pointed, or given
    a reused message.id, a system line or a prompt."""
    lines: list[dict[str, Any]] = []
    count = 0

    def add(kind: str, content: Any, parent: str | None, mid: str = "") -> str:
        nonlocal count
        count += 1
        extra = {"mid": mid or f"msg_{count}"} if kind == "assistant" else {}
        lines.append(_line(kind, f"n{count}", parent, content, **extra))
        return f"n{count}"

    tip = None
    for turn in range(draw(st.integers(1, 3))):
        tip = add("user", f"Task {turn}", tip)
        for _ in range(draw(st.integers(0, 2))):
            blocks: list[dict[str, Any]] = []
            if draw(st.booleans()):
                blocks.append({"type": "thinking", "thinking": "hm", "signature": "s"})
            if draw(st.booleans()):
                blocks.append({"type": "text", "text": "Reading."})
            blocks += [_call(f"t{count}_{k}") for k in range(draw(st.integers(1, 4)))]
            mid = f"msg_{count}_{turn}"
            if moved and draw(st.integers(0, 3)) == 0:
                mid = "msg_same"
            where: dict[str, str] = {}
            chunks = [[b] for b in blocks] if draw(st.booleans()) else [blocks]
            for chunk in chunks:
                tip = add("assistant", chunk, tip, mid)
                where |= {b["id"]: tip for b in chunk if b["type"] == "tool_use"}
            parallel = draw(st.booleans())
            for call_id in draw(st.permutations(sorted(where))):
                tip = add("user", [_result(call_id)], where[call_id] if parallel else tip)
        tip = add("assistant", [{"type": "text", "text": "Done."}], tip)
    for _ in range(draw(st.integers(0, 2)) if moved else 0):
        i = draw(st.integers(0, len(lines) - 1))
        how = draw(st.sampled_from(["swap", "parent", "parent", "system", "prompt", "mid"]))
        uuids = [line["uuid"] for line in lines]
        if how == "swap" and i + 1 < len(lines):
            lines[i : i + 2] = [lines[i + 1], lines[i]]
        elif how == "parent":
            lines[i]["parentUuid"] = draw(st.sampled_from([None, "gone", *uuids]))
        elif how in ("system", "prompt"):
            parent = draw(st.sampled_from(uuids))
            extra = {"type": "system", "uuid": "s", "parentUuid": parent, "content": "hook"}
            if how == "prompt":
                extra = _line("user", "p", parent, "Wait.")
            lines.insert(i, extra)
        elif lines[i]["type"] == "assistant":
            lines[i]["message"]["id"] = "msg_same"
    return lines


def _keeps_file_order(session: list[Any]) -> bool:
    """Both promises hold, and a shape means decode reads every node in file order."""
    plain = check_promises("claude-code", "drawn parallel session", session)
    assert CODEC.read_outline(session) is None or _file_order(session)
    return plain


@PROPERTY
@given(session=parallel_sessions())
def test_drawn_parallel_sessions_keep_the_promises(session: list[Any]) -> None:
    _keeps_file_order(session)


@PROPERTY
@given(session=parallel_sessions(moved=False))
def test_drawn_parallel_layouts_are_plain(session: list[Any]) -> None:
    assert _keeps_file_order(session)


def _plain_blocks(kind: str, blocks: Any) -> list[Any]:
    """The plain blocks of a line's content: tool blocks given an id and a plain name, and
    text, thinking (assistant lines) or tool results (user lines) kept as they are."""
    kept: list[Any] = []
    for block in blocks if isinstance(blocks, list) else ():
        if type(block) is not dict:
            continue
        block, what = dict(block), block.get("type")
        if what == "tool_use" or what == "tool_result":
            key = "id" if what == "tool_use" else "tool_use_id"
            block[key] = block.get(key) or "toolu_x"
            block["name"] = "Bash"
        elif what == "text":
            text = block.get("text")
            if not isinstance(text, str) or not text.strip():
                continue
        elif kind == "user" or what not in ("thinking", "redacted_thinking"):
            continue
        kept.append(block)
    return kept


def _plainer(session: list[Any]) -> list[Any]:
    """The drawn session with only plain content left on its message lines (its tree and
    every other key as drawn): what the scanner reads, so that its forks are tested."""
    for line in session:
        body = line.get("message") if isinstance(line, dict) else None
        if line.get("type") in ("user", "assistant") and isinstance(body, dict):
            line.pop("isMeta", None)
            line.pop("isApiErrorMessage", None)
            blocks = _plain_blocks(line["type"], body.get("content"))
            if line["type"] == "user":
                results = [b for b in blocks if b["type"] == "tool_result"]
                blocks = results or blocks
            body["content"] = blocks or "Go on."
    return session


@PROPERTY
@given(session=(sessions(branches=False) | sessions()).map(_plainer))
def test_generated_sessions_with_forks_keep_the_promises(session: list[Any]) -> None:
    _keeps_file_order(session)
