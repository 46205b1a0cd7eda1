"""The plain shape of Claude Code sessions (`histnorm.formats._claude_code_shape`).

Only one linear chain of plain lines has a shape; branches, sidechains, meta lines,
media and blank text give None. Drawn sessions (with and without branches, damaged
too) hold the promises of `tests/test_shape.py`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_claude_code import damaged_sessions, sessions
from test_shape import check_promises

from histnorm.engine import proven_clean
from histnorm.formats.claude_code import ClaudeCodeCodec
from histnorm.shape import Step, shape_of

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
    assert CODEC.shape(session) == (
        Step("user", (), (), 1, 0),
        Step("assistant", ("toolu_1",), (), 1, 1),
        Step("user", (), ("toolu_1",), 0, 0),
        Step("assistant", (), (), 1, 0),
    )
    assert CODEC.shape(session) == shape_of(CODEC.decode(session))
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
    assert CODEC.shape(session) is None


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
