"""Tests for the `claude-code` codec: the active branch, parts, pointers, line-level edits.

Documents are the lists of a session file's parsed lines. Byte comparisons go through
`orjson.dumps` (Python's `==` treats `1`, `1.0` and `True` as equal); "unchanged" lines
are checked by object identity too, since the file layer copies the bytes of a line only
when `encode` gives back the very object it read.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from codec_helpers import (
    PROPERTY_SETTINGS,
    check_damaged,
    dump,
    fixture_files,
    resolve,
    with_messages,
)
from hypothesis import given
from hypothesis import strategies as st
from strategies_claude_code import damaged_sessions, sessions

import histnorm
import histnorm.formats
import histnorm.rules
from histnorm.document import read_json, read_jsonl, write
from histnorm.edit import rewrite
from histnorm.errors import HistnormError
from histnorm.formats.claude_code import ClaudeCodeCodec
from histnorm.formats.claude_code.splice import NAMESPACE
from histnorm.model import (
    ApprovalRequestPart,
    MediaPart,
    Message,
    Part,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)
from histnorm.pairing import group, pair_transcript

CODEC = ClaudeCodeCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "claude-code"
FIXTURE_FILES = fixture_files("claude-code")
RULE_FIXTURES = sorted(
    path
    for path in (ROOT / "fixtures" / "rules").glob("*/*.claude-code.json")
    if not path.name.startswith("ok-") and histnorm.rules.resolve(path.parent.name).fix
)
"""The positive rule fixtures of rules that have a fix (negative ones are `ok-*`)."""
PROPERTY = PROPERTY_SETTINGS["claude-code"]
SID = "5e0c3b7a-6d1f-4c2e-9a83-2f4b6c8d0e17"


def line(kind: str, uid: str, parent: str | None, content: Any = None, **extra: Any) -> dict:
    """A session line in Claude Code's key order (`message.id` from `mid=`)."""
    out: dict[str, Any] = {"parentUuid": parent, "isSidechain": False, "sessionId": SID}
    out["type"] = kind
    mid = extra.pop("mid", None)
    if kind in ("user", "assistant"):
        body: dict[str, Any] = {"id": mid} if mid else {}
        out["message"] = {**body, "role": kind, "content": content}
    out["uuid"] = uid
    out |= extra
    return out


def call(ident: str, name: str = "Bash") -> dict:
    return {"type": "tool_use", "id": ident, "name": name, "input": {"command": "ls"}}


def result(ident: str, content: Any = "ok", **extra: Any) -> dict:
    return {"tool_use_id": ident, "type": "tool_result", "content": content, **extra}


def jsonl(lines: list[Any]) -> bytes:
    return b"".join(orjson.dumps(item) + b"\n" for item in lines)


def tree_is_valid(lines: list[Any]) -> bool:
    """Every parentUuid names a uuid of the file, or is null."""
    uuids = {item.get("uuid") for item in lines if isinstance(item.get("uuid"), str)}
    return all(item.get("parentUuid") in uuids | {None} for item in lines)


def semantic(transcript: Transcript) -> list[Any]:
    """Each part with the line type of its message, without natives and what the format
    cannot hold; tool types are compared by pairing group."""
    out = []
    for message in transcript.messages:
        kind = "assistant" if message.role_is("assistant") else "user"
        for part in message.parts:
            data = part.model_dump(
                mode="json", exclude={"native", "slot", "metadata", "tool_type", "informational"}
            )
            if isinstance(part, ToolCallPart | ToolResultPart):
                data["group"] = group(part)
            out.append((kind, data))
    return out


def synthesized(call_id: str) -> Message:
    part = ToolResultPart(
        call_id=call_id,
        content="Tool call was interrupted before it produced a result.",
        is_error=True,
        metadata={"histnorm.synthesized": True},
    )
    return Message(role="tool", parts=(part,))


@pytest.fixture(autouse=True)
def registered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the codec (until `histnorm.formats` does) for the file layer and the engine."""
    codecs = {**histnorm.formats.CODECS, "claude-code": CODEC}
    monkeypatch.setattr(histnorm.formats, "CODECS", MappingProxyType(codecs))


# --- properties (the codec contract is checked in test_codec_contract.py) -----------------


@PROPERTY
@given(sessions())
def test_sniff_is_sure_of_sessions_with_messages(doc: list[Any]) -> None:
    if any(item.get("type") in ("user", "assistant") for item in doc):
        assert CODEC.sniff(doc) > 0.9


@PROPERTY
@given(sessions())
def test_pointers_resolve_to_what_each_part_was_read_from(doc: list[Any]) -> None:
    transcript = CODEC.decode(doc)
    for i, message in enumerate(transcript.messages):
        at = CODEC.message_pointer(transcript, i)
        assert resolve(doc, at) is message.native
        for j, part in enumerate(message.parts):
            pointer = CODEC.part_pointer(transcript, i, j)
            assert pointer.split("/")[2:4] == ["message", "content"]
            assert dump(resolve(doc, pointer)) == dump(part.native)


def _written_in_full(transcript: Transcript) -> list[Any]:
    """What the session writer itself makes of `transcript`, without the shortcut `encode`
    takes for a transcript as decoded."""
    from histnorm.formats.claude_code import _as_read
    from histnorm.formats.claude_code.encode import encode_session

    lines, session, parts = _as_read(transcript)
    return encode_session(transcript.messages, lines, session, parts)[0]


def _writes_its_very_lines(doc: list[Any]) -> None:
    try:
        transcript = CODEC.decode(doc)
        full = _written_in_full(transcript)
    except HistnormError:
        return  # nothing to write: the shortcut never runs either
    assert len(full) == len(doc) and all(a is b for a, b in zip(full, doc, strict=True))
    assert CODEC.encode(transcript) == full
    again = CODEC.decode_written(CODEC.encode(transcript), transcript)
    assert again == transcript


@PROPERTY
@given(st.one_of(sessions(), damaged_sessions()))
def test_an_untouched_transcript_is_written_as_its_very_lines(doc: list[Any]) -> None:
    """`encode` writes a transcript as `decode` read it as the lines it was read from,
    without running the writer: the writer itself gives those very lines."""
    _writes_its_very_lines(doc)


def test_every_fixture_session_is_written_as_its_very_lines() -> None:
    from histnorm.document.run import read_document

    found = 0
    for path in sorted(ROOT.joinpath("fixtures").rglob("*.json*")):
        try:
            document = read_document(path.read_bytes(), path_hint=path.name)
        except HistnormError:
            continue  # not a document of records (the malformed fixtures)
        for record in document.records:
            if record.transcript is not None and record.transcript.format == "claude-code":
                found += 1
                _writes_its_very_lines(record.transcript.native)
    assert found >= 10


def test_a_fix_in_a_session_without_links_keeps_a_sidechain_line_as_it_was() -> None:
    """In a session whose branch lines name no parent, a sidechain line that does name one
    is no line of the branch: a fix of the branch writes it as it was (the writer used to
    clear its `parentUuid` with every other line's)."""
    side = line("assistant", "s2", "s1", [{"type": "text", "text": "ok"}], isSidechain=True)
    doc = [
        line("user", "u1", None, "List the files."),
        line("assistant", "a1", None, [call("toolu_1")], mid="msg_1"),
        line("user", "s1", None, "Find the config", isSidechain=True),
        side,
        line("user", "u2", None, "Thanks."),
    ]
    data = jsonl(doc)
    fixed = histnorm.document.fix_document(data, path_hint="s.jsonl")
    assert fixed.output is not None and fixed.applied  # the open call was answered
    out = [orjson.loads(text) for text in fixed.output.splitlines()]
    assert side in out and orjson.dumps(side) in fixed.output.splitlines()


def test_an_edited_transcript_is_not_written_as_its_lines() -> None:
    """The shortcut holds only for the transcript `decode` made: an edit runs the writer."""
    doc = [line("user", "u1", None, "hi"), line("assistant", "a1", "u1", "Hello.")]
    transcript = CODEC.decode(doc)
    edited = transcript.evolve(messages=transcript.messages[:1])
    out = CODEC.encode(edited)
    assert len(out) == 1 and out[0] is doc[0]


@pytest.mark.parametrize(
    "doc",
    [
        [line("user", "u", None, [{"type": [], "text": ""}])],
        [{**line("user", "u", None, "hi"), "isSidechain": []}],
    ],
)
def test_odd_line_values_raise_only_histnorm_error_at_a_real_location(doc: list[Any]) -> None:
    check_damaged(CODEC, doc)


@st.composite
def edited(draw: st.DrawFn) -> tuple[list[Any], Transcript]:
    """A session and its transcript after a few random fixes-like edits."""
    doc = draw(sessions())
    transcript = CODEC.decode(doc)
    messages = list(transcript.messages)
    for _ in range(draw(st.integers(1, 3))):
        if not messages:
            break
        i = draw(st.integers(0, len(messages) - 1))
        edit = draw(st.sampled_from(["remove", "drop", "move", "insert", "empty"]))
        if edit == "remove" and messages[i].parts:
            j = draw(st.integers(0, len(messages[i].parts) - 1))
            parts = messages[i].parts[:j] + messages[i].parts[j + 1 :]
            messages[i : i + 1] = [messages[i].evolve(parts=parts)] if parts else []
        elif edit == "drop":
            del messages[i]
        elif edit == "move":
            moved = messages.pop(i)
            messages.insert(draw(st.integers(0, len(messages))), moved)
        elif edit == "insert":
            messages.insert(i + 1, synthesized(draw(st.sampled_from(["toolu_01A", "x"]))))
        else:
            messages[i] = messages[i].evolve(parts=())
    return doc, with_messages(transcript, *messages)


@PROPERTY
@given(edited())
def test_edits_read_back_as_edited_with_a_valid_tree(case: tuple[list[Any], Transcript]) -> None:
    doc, transcript = case
    before = dump(doc)
    out = CODEC.encode(transcript)
    assert dump(doc) == before
    assert tree_is_valid(out) or not tree_is_valid(doc)
    if transcript.messages:  # with nothing left, an older branch may be read back
        assert semantic(CODEC.decode(out)) == semantic(transcript)


def detached(transcript: Transcript) -> Transcript:
    """The transcript as another format would hand it over: no natives, no slots (parts
    whose content the model does not hold keep their native block)."""

    def part(p: Part) -> Part:
        keeps = isinstance(p, UnknownPart | MediaPart)
        return p.evolve(slot=None) if keeps else p.evolve(native=None, slot=None)

    messages = tuple(
        m.evolve(native=None, parts=tuple(part(p) for p in m.parts)) for m in transcript.messages
    )
    return Transcript(messages=messages, format="claude-code")


@PROPERTY
@given(sessions(branches=False))
def test_a_transcript_without_natives_is_written_as_a_fresh_session(doc: list[Any]) -> None:
    transcript = detached(CODEC.decode(doc))
    out = CODEC.encode(transcript)
    assert len(out) == len(transcript.messages)
    assert [item["parentUuid"] for item in out] == [None, *[item["uuid"] for item in out]][
        : len(out)
    ]
    assert semantic(CODEC.decode(out)) == semantic(transcript)
    assert dump(CODEC.encode(transcript)) == dump(out)  # deterministic


# --- fixtures (their round trip and detection: test_codec_contract.py) --------------------


def load_fixture(name: str) -> tuple[bytes, list[Any], Transcript]:
    data = (FIXTURES / name).read_bytes()
    if name.endswith(".json"):
        lines = orjson.loads(data)
    else:
        lines = [orjson.loads(raw) for raw in data.splitlines() if raw.strip()]
    return data, lines, CODEC.decode(lines)


def test_fixture_set_has_a_session_kept_as_one_json_array() -> None:
    assert any(path.suffix == ".json" for path in FIXTURE_FILES)


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_is_sniffed_with_confidence(path: Path) -> None:
    _, lines, _ = load_fixture(path.name)
    assert CODEC.sniff(lines) > 0.9


def test_fixture_simple_streamed_reply_is_one_message() -> None:
    _, lines, transcript = load_fixture("simple.jsonl")
    user, reply = transcript.messages
    assert user.parts == (
        TextPart(
            text=lines[2]["message"]["content"],
            native=lines[2]["message"]["content"],
            slot=f"{lines[2]['uuid']}/content",
        ),
    )
    assert (reply.role, reply.id) == ("assistant", "msg_01HkQ2vT9dNw3r")
    thinking, text = reply.parts
    assert (
        isinstance(thinking, ReasoningPart)
        and thinking.opaque == lines[3]["message"]["content"][0]["signature"]
    )
    assert thinking.slot == f"{lines[3]['uuid']}/content/0"
    assert isinstance(text, TextPart) and text.slot == f"{lines[4]['uuid']}/content/0"
    assert CODEC.message_pointer(transcript, 1) == "/3"
    assert CODEC.part_pointer(transcript, 1, 1) == "/4/message/content/0"
    assert CODEC.part_pointer(transcript, 0, 0) == "/2/message/content"


def test_fixture_parallel_tools_recovers_the_sibling_result() -> None:
    _, _lines, transcript = load_fixture("parallel-tools.jsonl")
    assert [m.role for m in transcript.messages] == ["user", "assistant", "user", "assistant"]
    results = transcript.messages[2]
    assert [p.call_id for p in results.parts] == ["toolu_01Rd1", "toolu_01Rd2"]  # type: ignore[union-attr]
    assert [CODEC.part_pointer(transcript, 2, j) for j in range(2)] == [
        "/4/message/content/0",
        "/5/message/content/0",
    ]
    pairing = pair_transcript(transcript)
    assert not pairing.unmatched_calls and not pairing.orphan_results


def test_fixture_rewind_branch_reads_the_newest_branch_only() -> None:
    _, _lines, transcript = load_fixture("rewind-branch.jsonl")
    texts = [p.text for m in transcript.messages for p in m.parts if isinstance(p, TextPart)]
    assert "an amount in cents" in texts and "percent" not in texts
    calls = [p.call_id for m in transcript.messages for p in m.parts if isinstance(p, ToolCallPart)]
    assert calls == ["toolu_01Ed2"]


def test_fixture_compacted_starts_at_the_boundary() -> None:
    _, lines, transcript = load_fixture("compacted.jsonl")
    first = transcript.messages[0]
    assert first.native is lines[3] and first.native["isCompactSummary"] is True
    assert len(transcript.messages) == 2


def test_fixture_interrupted_skips_hook_feedback_and_api_errors() -> None:
    _, _lines, transcript = load_fixture("interrupted.jsonl")
    natives = [m.native for m in transcript.messages]
    assert not any(n.get("isMeta") or n.get("isApiErrorMessage") for n in natives)
    rejected = transcript.messages[2].parts[0]
    assert isinstance(rejected, ToolResultPart) and rejected.is_error
    assert transcript.messages[2].native["toolUseResult"].startswith("Error:")


def test_fixture_sidechain_agent_file_is_read() -> None:
    _, lines, transcript = load_fixture("sidechain-agent.jsonl")
    assert all(item["isSidechain"] for item in lines)
    assert len(transcript.messages) == 4


def test_fixture_blocks_maps_every_kind_and_pairs_hosted_and_mcp_tools() -> None:
    _, lines, transcript = load_fixture("blocks.jsonl")
    user, reply = transcript.messages
    assert [p.kind for p in user.parts] == ["text", "media"]
    assert user.parts[1] == MediaPart(
        media_type="image/png",
        native=lines[0]["message"]["content"][1],
        slot=f"{lines[0]['uuid']}/content/1",
    )
    kinds = [(p.kind, getattr(p, "family", None)) for p in reply.parts]
    assert kinds == [
        ("reasoning", None),
        ("tool_call", ToolFamily.MCP),
        ("tool_result", ToolFamily.MCP),
        ("tool_call", ToolFamily.HOSTED),
        ("tool_result", ToolFamily.HOSTED),
        ("text", None),
    ]
    redacted = reply.parts[0]
    assert isinstance(redacted, ReasoningPart) and redacted.text is None and redacted.opaque
    pairing = pair_transcript(transcript)
    assert len(pairing.call_results) == 2 and not pairing.unmatched_calls


# --- decoding ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "expected"),
    [
        ({"type": "text", "text": "hi"}, TextPart(text="hi")),
        ({"type": "text", "text": 3}, UnknownPart(type="text")),
        (
            {"type": "thinking", "thinking": "t", "signature": "s"},
            ReasoningPart(text="t", opaque="s"),
        ),
        ({"type": "thinking", "thinking": "t"}, ReasoningPart(text="t")),
        ({"type": "redacted_thinking", "data": "d"}, ReasoningPart(opaque="d")),
        (
            {"type": "tool_use", "id": "", "name": "Read", "input": {"a": 1}},
            ToolCallPart(call_id="", name="Read", arguments={"a": 1}, tool_type="tool_use"),
        ),
        (
            {"type": "tool_use", "id": "t", "name": "handoff_to_billing", "input": {}},
            ToolCallPart(
                call_id="t",
                name="handoff_to_billing",
                arguments={},
                family=ToolFamily.HANDOFF,
                tool_type="tool_use",
            ),
        ),
        (
            {"type": "mcp_tool_use", "id": "m", "name": "q", "server_name": "db", "input": {}},
            ToolCallPart(
                call_id="m", name="q", arguments={}, family=ToolFamily.MCP, tool_type="mcp_tool_use"
            ),
        ),
        (
            {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}},
            ToolCallPart(
                call_id="s",
                name="web_search",
                arguments={},
                family=ToolFamily.HOSTED,
                tool_type="server_tool_use",
            ),
        ),
        (
            {"type": "tool_result", "tool_use_id": "t", "content": "x", "is_error": True},
            ToolResultPart(call_id="t", content="x", is_error=True, tool_type="tool_result"),
        ),
        (
            {"type": "tool_result", "tool_use_id": "t", "is_error": "yes"},
            ToolResultPart(call_id="t", tool_type="tool_result"),
        ),
        (
            {"type": "mcp_tool_result", "tool_use_id": "m", "content": []},
            ToolResultPart(
                call_id="m", content=[], family=ToolFamily.MCP, tool_type="mcp_tool_result"
            ),
        ),
        (
            {"type": "code_execution_tool_result", "tool_use_id": "s", "content": {}},
            ToolResultPart(
                call_id="s",
                name="code_execution",
                content={},
                family=ToolFamily.HOSTED,
                tool_type="server_tool_use_result",
            ),
        ),
        (
            {"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}},
            MediaPart(uri="https://e.x/a.png"),
        ),
        (
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf"}},
            MediaPart(media_type="application/pdf"),
        ),
        ({"type": "container_upload", "file_id": "f"}, UnknownPart(type="container_upload")),
        ({"no": "type"}, UnknownPart()),
        ("loose", UnknownPart()),
    ],
)
def test_each_block_kind_decodes(block: Any, expected: Part) -> None:
    doc = [line("assistant", "a", None, [block], mid="m")]
    (message,) = CODEC.decode(doc).messages
    (part,) = message.parts
    assert part == expected.evolve(native=block, slot="a/content/0")


def test_string_and_null_content() -> None:
    doc = [line("user", "u", None, "hi"), line("assistant", "a", "u", None, mid="m")]
    first, second = CODEC.decode(doc).messages
    assert first.parts == (TextPart(text="hi", native="hi", slot="u/content"),)
    assert second.parts == () and second.id == "m"


def test_the_active_branch_ends_at_the_last_line_without_children() -> None:
    doc = [
        line("user", "u1", None, "first"),
        line("assistant", "a1", "u1", [{"type": "text", "text": "A"}], mid="m1"),
        line("user", "u2", "a1", "old edit"),
        line("user", "u3", "a1", "new edit"),
        line("system", "s1", "u3", subtype="turn_duration"),
        {"type": "summary", "summary": "s", "leafUuid": "u2"},
    ]
    transcript = CODEC.decode(doc)
    assert [m.native["uuid"] for m in transcript.messages] == ["u1", "a1", "u3"]
    doc[4] = {**doc[4], "parentUuid": "u2"}  # now the newest leaf is under the old edit
    assert [m.native["uuid"] for m in CODEC.decode(doc).messages] == ["u1", "a1", "u2"]


def test_inline_sidechain_lines_and_shadowed_uuids_are_not_messages() -> None:
    side = line("user", "x1", None, "sub-task", isSidechain=True)
    side["isSidechain"] = True
    doc = [
        line("user", "u1", None, "old text"),
        side,
        line("user", "u1", None, "replayed text"),
        line("assistant", "a1", "u1", [{"type": "text", "text": "ok"}], mid="m"),
    ]
    transcript = CODEC.decode(doc)
    assert [m.native for m in transcript.messages] == [doc[2], doc[3]]


def test_a_parent_loop_is_read_without_hanging() -> None:
    doc = [line("user", "u1", "a1", "hi"), line("assistant", "a1", "u1", [], mid="m")]
    transcript = CODEC.decode(doc)
    assert [m.native["uuid"] for m in transcript.messages] == ["u1", "a1"]
    assert CODEC.encode(transcript) == doc
    encoded = CODEC.encode(rewrite(transcript, drop_messages=[0]))
    assert [m.native["uuid"] for m in CODEC.decode(encoded).messages] == ["a1"]


def test_consecutive_results_merge_but_a_result_with_text_stands_alone() -> None:
    doc = [
        line("assistant", "a", None, [call("t1"), call("t2"), call("t3")], mid="m"),
        line("user", "r1", "a", [result("t1")]),
        line("user", "r2", "r1", [result("t2")]),
        line("user", "r3", "r2", [result("t3"), {"type": "text", "text": "also this"}]),
    ]
    messages = CODEC.decode(doc).messages
    assert [len(m.parts) for m in messages] == [3, 2, 2]


# --- edits -------------------------------------------------------------------------------

ORPHAN = [
    line("user", "u1", None, "Weather and a table?"),
    line(
        "assistant",
        "a1",
        "u1",
        [{"type": "text", "text": "On it."}, call("toolu_w", "get_weather"), call("toolu_b")],
        mid="m1",
    ),
    line("user", "r1", "a1", [result("toolu_w", "4 C")], toolUseResult={"stdout": "4 C"}),
    line("user", "u2", "r1", "Never mind the table."),
    {"type": "file-history-snapshot", "messageId": "u2", "snapshot": {}},
    line("assistant", "a2", "u2", [{"type": "text", "text": "OK."}], mid="m2"),
]


def edit_file(data: bytes, change: Any) -> tuple[list[bytes], list[bytes], list[Any], list[Any]]:
    """Read `data` as a session, apply `change` to its transcript, write it back; returns the
    old and new lines (bytes) and the old and new line values."""
    document = read_jsonl(data, format="claude-code", mode="message")
    (record,) = document.records
    assert record.transcript is not None
    edited = change(record.transcript)
    out = write(document, [edited])
    values = [value for *_, value in document.lines]
    return data.splitlines(), out.splitlines(), values, CODEC.encode(edited)


def test_dropping_an_orphan_call_rewrites_exactly_one_line() -> None:
    data = jsonl(ORPHAN)
    old, new, values, encoded = edit_file(data, lambda t: rewrite(t, remove=[(1, 2)]))
    assert len(new) == len(old)
    changed = [i for i in range(len(old)) if old[i] != new[i]]
    assert changed == [1]
    assert [encoded[i] is values[i] for i in range(len(values))] == [
        True, False, True, True, True, True,
    ]  # fmt: skip
    assert orjson.loads(new[1]) == {
        **ORPHAN[1],
        "message": {**ORPHAN[1]["message"], "content": ORPHAN[1]["message"]["content"][:2]},
    }
    assert list(orjson.loads(new[1])) == list(ORPHAN[1])


def test_a_line_left_empty_is_dropped_and_its_child_re_pointed() -> None:
    doc = [
        line("user", "u1", None, "go"),
        line("assistant", "a1", "u1", [{"type": "text", "text": "Two calls."}], mid="m"),
        line("assistant", "a2", "a1", [call("t1")], mid="m"),
        line("assistant", "a3", "a2", [call("t2")], mid="m"),
        line("user", "r2", "a3", [result("t2")]),
        line("user", "r1", "a2", [result("t1")]),
    ]
    transcript = CODEC.decode(doc)
    assert [len(m.parts) for m in transcript.messages] == [1, 3, 2]
    old, new, _values, encoded = edit_file(
        jsonl(doc), lambda t: rewrite(t, remove=[(1, 1), (2, 1)])
    )
    assert len(new) == len(old) - 2
    assert [orjson.loads(raw)["uuid"] for raw in new] == ["u1", "a1", "a3", "r2"]
    assert orjson.loads(new[2])["parentUuid"] == "a1"  # was a2, the dropped line
    assert [new[0], new[1], new[3]] == [old[0], old[1], old[4]]
    assert tree_is_valid(encoded)
    assert semantic(CODEC.decode(encoded)) == semantic(rewrite(transcript, remove=[(1, 1), (2, 1)]))


def test_inserting_a_synthesized_result_adds_one_line_and_re_points_one() -> None:
    data = jsonl(ORPHAN)

    def change(t: Transcript) -> Transcript:
        m = t.messages
        return with_messages(t, m[0], m[1], m[2], synthesized("toolu_b"), m[3], m[4])

    old, new, _values, encoded = edit_file(data, change)
    assert len(new) == len(old) + 1
    added = orjson.loads(new[3])
    expected_uuid = str(uuid.uuid5(NAMESPACE, "r1\x00toolu_b"))
    assert added == {
        "type": "user",
        "uuid": expected_uuid,
        "parentUuid": "r1",
        "isSidechain": False,  # copied from the line of the call it answers
        "sessionId": SID,
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "content": "Tool call was interrupted before it produced a result.",
                    "is_error": True,
                }
            ],
        },
    }
    assert orjson.loads(new[4]) == {**ORPHAN[3], "parentUuid": expected_uuid}
    assert new[:3] == old[:3] and new[5:] == old[4:]
    back = CODEC.decode(encoded)
    assert not pair_transcript(back).unmatched_calls
    assert [m.role for m in back.messages] == ["user", "assistant", "user", "user", "assistant"]


def test_moving_a_displaced_result_re_links_only_changed_parents() -> None:
    doc = [
        line("user", "u1", None, "Delete /tmp/x"),
        line("assistant", "a1", "u1", [call("t1", "rm")], mid="m1"),
        line("user", "u2", "a1", "By the way, keep it short."),
        line("system", "s1", "u2", subtype="turn_duration"),
        line("user", "r1", "s1", [result("t1")], toolUseResult={"ok": True}),
        line("assistant", "a2", "r1", [{"type": "text", "text": "Done."}], mid="m2"),
    ]
    transcript = CODEC.decode(doc)
    m = transcript.messages
    moved = with_messages(transcript, m[0], m[1], m[3], m[2], m[4])
    encoded = CODEC.encode(moved)
    parents = {item["uuid"]: item["parentUuid"] for item in encoded}
    assert parents == {"u1": None, "a1": "u1", "u2": "r1", "s1": "u2", "r1": "a1", "a2": "s1"}
    same = [a is b for a, b in zip(encoded, doc, strict=True)]
    assert same == [True, True, False, True, False, False]
    back = CODEC.decode(encoded)
    assert [x.native["uuid"] for x in back.messages] == ["u1", "a1", "r1", "u2", "a2"]


def test_a_message_emptied_of_parts_keeps_its_first_line_with_empty_content() -> None:
    doc = [
        line("user", "u1", None, "go"),
        line("assistant", "a1", "u1", [{"type": "text", "text": " "}], mid="m"),
        line("assistant", "a2", "a1", [{"type": "text", "text": "\n"}], mid="m"),
        line("user", "u2", "a2", "next"),
    ]
    transcript = CODEC.decode(doc)
    m = transcript.messages
    encoded = CODEC.encode(with_messages(transcript, m[0], m[1].evolve(parts=()), m[2]))
    assert [item["uuid"] for item in encoded] == ["u1", "a1", "u2"]
    assert encoded[1]["message"]["content"] == [] and encoded[2]["parentUuid"] == "a1"
    back = CODEC.decode(encoded)
    assert [len(x.parts) for x in back.messages] == [1, 0, 1]
    assert CODEC.encode(back) == encoded


def test_dropping_a_result_from_merged_results_drops_its_line() -> None:
    doc = [
        line("assistant", "a", None, [call("t1"), call("t2")], mid="m"),
        line("user", "r1", "a", [result("t1")]),
        line("user", "r2", "r1", [result("t2")], toolUseResult={"n": 2}),
        line("assistant", "b", "r2", [{"type": "text", "text": "ok"}], mid="n"),
    ]
    transcript = CODEC.decode(doc)
    encoded = CODEC.encode(rewrite(transcript, remove=[(1, 0)]))
    assert [item["uuid"] for item in encoded] == ["a", "r2", "b"]
    assert encoded[1] == {**doc[2], "parentUuid": "a"} and encoded[2] is doc[3]


def test_dropping_a_whole_streamed_message_re_points_to_its_parent() -> None:
    doc = [
        line("user", "u1", None, "go"),
        line(
            "assistant",
            "a1",
            "u1",
            [{"type": "thinking", "thinking": "", "signature": "s"}],
            mid="m",
        ),
        line("assistant", "a2", "a1", [{"type": "text", "text": ""}], mid="m"),
        line("progress", "p1", "a2", data={"type": "hook_progress"}),
        line("user", "u2", "p1", "hello?"),
    ]
    transcript = CODEC.decode(doc)
    encoded = CODEC.encode(rewrite(transcript, drop_messages=[1]))
    assert [item["uuid"] for item in encoded] == ["u1", "p1", "u2"]
    assert encoded[1] == {**doc[3], "parentUuid": "u1"} and encoded[2] is doc[4]


def test_a_new_part_joins_the_line_of_the_part_before_it() -> None:
    doc = [
        line("assistant", "a1", None, [{"type": "text", "text": "x"}], mid="m"),
        line("assistant", "a2", "a1", [call("t1")], mid="m"),
    ]
    transcript = CODEC.decode(doc)
    (message,) = transcript.messages
    extra = ToolCallPart(call_id="t2", name="Read", arguments='{"file_path": "/a"}')
    parts = (message.parts[0], extra, message.parts[1])
    encoded = CODEC.encode(with_messages(transcript, message.evolve(parts=parts)))
    assert encoded[0]["message"]["content"] == [
        {"type": "text", "text": "x"},
        {"type": "tool_use", "id": "t2", "name": "Read", "input": {"file_path": "/a"}},
    ]
    assert encoded[1] is doc[1]


def test_a_part_moved_out_of_its_message_takes_its_line_along() -> None:
    doc = [
        line("assistant", "a", None, [call("t1"), call("t2")], mid="m"),
        line("user", "r1", "a", [result("t1")]),
        line("user", "q", "r1", "queued question"),
        line("user", "r2", "q", [result("t2")], toolUseResult={"stdout": "two"}),
    ]
    transcript = CODEC.decode(doc)
    m = transcript.messages
    clone = Message(role="user", parts=m[3].parts)
    merged = m[1].evolve(parts=m[1].parts + clone.parts)
    encoded = CODEC.encode(with_messages(transcript, m[0], merged, m[2]))
    assert [item["uuid"] for item in encoded] == ["a", "r1", "q", "r2"]
    assert encoded[3] == {**doc[3], "parentUuid": "r1"} and encoded[2]["parentUuid"] == "r2"
    back = CODEC.decode(encoded)
    assert [len(x.parts) for x in back.messages] == [2, 2, 1]


def test_results_of_a_dropped_parallel_reply_are_linked_so_both_read_back() -> None:
    doc = [
        line("user", "u", None, "go"),
        line("assistant", "a1", "u", [call("t1")], mid="m"),
        line("assistant", "a2", "a1", [call("t2")], mid="m"),
        line("user", "r1", "a1", [result("t1")]),
        line("user", "r2", "a2", [result("t2")]),
    ]
    transcript = CODEC.decode(doc)
    assert len(transcript.messages[2].parts) == 2
    encoded = CODEC.encode(rewrite(transcript, drop_messages=[1]))
    assert [(item["uuid"], item["parentUuid"]) for item in encoded] == [
        ("u", None),
        ("r1", "u"),
        ("r2", "r1"),
    ]
    assert semantic(CODEC.decode(encoded)) == semantic(rewrite(transcript, drop_messages=[1]))


def test_a_recovered_line_that_opens_the_branch_does_not_pull_in_its_old_parent() -> None:
    doc = [
        line("user", "x", None, "another root"),
        line("assistant", "a1", "x", [{"type": "text", "text": "one"}], mid="m"),
        line("user", "y", "x", "a reply on the old branch"),  # keeps the file linked
        line("user", "u", None, "go"),
        line("assistant", "a2", "u", [{"type": "text", "text": "two"}], mid="m"),
    ]
    transcript = CODEC.decode(doc)  # a1 shares a2's message id: it is spliced in after a2
    assert [p.text for p in transcript.messages[1].parts] == ["two", "one"]  # type: ignore[union-attr]
    edited = with_messages(
        transcript, transcript.messages[1].evolve(parts=transcript.messages[1].parts[1:])
    )
    encoded = CODEC.encode(edited)
    assert semantic(CODEC.decode(encoded)) == semantic(edited)
    assert tree_is_valid(encoded)


def test_dropping_the_tip_under_an_older_branch_keeps_the_new_tip_newest() -> None:
    doc = [
        line("user", "u1", None, "Add a discount"),
        line("assistant", "a1", "u1", [{"type": "text", "text": "Percent or amount?"}], mid="m1"),
        line("user", "u2", "a1", "percent"),
        line("user", "u3", "a1", "amount"),
        line("assistant", "a3", "u3", [call("t9")], mid="m3"),
    ]
    transcript = CODEC.decode(doc)
    edited = rewrite(transcript, drop_messages=[2, 3])
    encoded = CODEC.encode(edited)
    assert [m.native["uuid"] for m in CODEC.decode(encoded).messages] == ["u1", "a1"]
    assert [item["uuid"] for item in encoded] == ["u1", "u2", "a1"]
    assert encoded[1]["parentUuid"] == "u1" and encoded[2] is doc[1]


def test_a_changed_block_is_rebuilt_in_place_with_its_unknown_keys() -> None:
    block = {"cache_control": {"type": "ephemeral"}, "type": "tool_use", "id": "t1", "name": "Bash"}
    block |= {"input": {"command": "ls"}, "caller": {"type": "direct"}}
    doc = [line("assistant", "a", None, [block], mid="m")]
    transcript = CODEC.decode(doc)
    (message,) = transcript.messages
    renamed = message.parts[0].evolve(call_id="call_1234")
    encoded = CODEC.encode(with_messages(transcript, message.evolve(parts=(renamed,))))
    (out,) = encoded[0]["message"]["content"]
    assert list(out) == list(block) and out["id"] == "call_1234"
    assert dump({**out, "id": "t1"}) == dump(block)


def test_new_messages_of_each_role_are_written_as_one_line_each() -> None:
    doc = [line("user", "u", None, "hi")]
    transcript = CODEC.decode(doc)
    reply = Message(
        role="assistant",
        id="msg_new",
        parts=(
            ReasoningPart(text="think", opaque="sig"),
            ReasoningPart(opaque="redacted"),
            TextPart(text="Hello"),
            ToolCallPart(call_id="c", name="f", arguments=None, family=ToolFamily.MCP),
            MediaPart(uri="data:image/gif;base64,R0lGOD"),
            MediaPart(uri="https://e.x/a.png"),
        ),
    )
    follow = Message(role="user", parts=(TextPart(text="thanks"),))
    encoded = CODEC.encode(with_messages(transcript, transcript.messages[0], reply, follow))
    assert encoded[0] is doc[0]
    assert encoded[1]["message"] == {
        "id": "msg_new",
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "think", "signature": "sig"},
            {"type": "redacted_thinking", "data": "redacted"},
            {"type": "text", "text": "Hello"},
            {"type": "mcp_tool_use", "id": "c", "name": "f", "input": {}},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/gif", "data": "R0lGOD"},
            },
            {"type": "image", "source": {"type": "url", "url": "https://e.x/a.png"}},
        ],
    }
    assert encoded[2]["message"] == {"role": "user", "content": "thanks"}
    assert [item["parentUuid"] for item in encoded] == [None, "u", encoded[1]["uuid"]]


def test_a_new_server_tool_result_takes_its_type_from_its_call() -> None:
    transcript = CODEC.decode([line("user", "u", None, "search")])
    reply = Message(
        role="assistant",
        parts=(
            ToolCallPart(call_id="s1", name="tool_search_tool_regex", family=ToolFamily.HOSTED),
            ToolResultPart(call_id="s1", content=[], family=ToolFamily.HOSTED),
            ToolCallPart(call_id="s2", family=ToolFamily.HOSTED),
        ),
    )
    blocks = CODEC.encode(with_messages(transcript, transcript.messages[0], reply))[1]
    assert [b["type"] for b in blocks["message"]["content"]] == [
        "server_tool_use",
        "tool_search_tool_result",
        "server_tool_use",
    ]
    orphan = ToolResultPart(call_id="s2", family=ToolFamily.HOSTED)
    with pytest.raises(HistnormError, match="without its tool name cannot"):
        CODEC.encode(with_messages(transcript, reply.evolve(parts=(*reply.parts, orphan))))


def test_a_server_tool_error_is_an_error_result() -> None:
    error = {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}
    block = {"type": "web_search_tool_result", "tool_use_id": "s", "content": error}
    (part,) = CODEC.decode([line("assistant", "a", None, [block], mid="m")]).messages[0].parts
    assert isinstance(part, ToolResultPart) and part.is_error and part.name == "web_search"


def test_a_fresh_session_gets_derived_ids() -> None:
    transcript = Transcript(
        messages=(Message(role="user", parts=(TextPart(text="hi"),)),), format="claude-code"
    )
    (out,) = CODEC.encode(transcript)
    assert out["parentUuid"] is None and out["sessionId"] != out["uuid"]
    assert uuid.UUID(out["uuid"]).version == 5 and uuid.UUID(out["sessionId"]).version == 5


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (Message(role="system", parts=(TextPart(text="Be terse."),)), "system message"),
        (Message(role="assistant", parts=(RefusalPart(text="no"),)), "refusal part"),
        (Message(role="assistant", parts=(UsagePart(details={}),)), "usage part"),
        (Message(role="user", parts=(ApprovalRequestPart(request_id="r"),)), "approval_request"),
        (Message(role="user", parts=(MediaPart(media_type="image/png"),)), "media part"),
        (Message(role="user", parts=(UnknownPart(type="x"),)), "unknown part"),
    ],
)
def test_what_a_session_cannot_hold_raises(message: Message, words: str) -> None:
    transcript = CODEC.decode([line("user", "u", None, "hi")])
    with pytest.raises(HistnormError, match=words):
        CODEC.encode(with_messages(transcript, transcript.messages[0], message))


# --- errors ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ({"messages": []}, ""),
        ([line("user", "u", None, "hi"), "x"], "/1"),
        ([{**line("user", "u", None, "hi"), "uuid": 7}], "/0/uuid"),
        (
            [line("user", "u", None, "hi"), {**line("user", "v", "u", "x"), "parentUuid": []}],
            "/1/parentUuid",
        ),
        ([{"type": "assistant", "parentUuid": None, "message": {"content": []}}], "/0/uuid"),
        ([{**line("user", "u", None, "hi"), "message": "hi"}], "/0/message"),
        ([{"type": "user", "uuid": "u"}], "/0/message"),
        ([line("user", "u", None, 5)], "/0/message/content"),
        (
            [line("assistant", "a", None, [{"type": "tool_use", "name": "x"}])],
            "/0/message/content/0/id",
        ),
        (
            [line("assistant", "a", None, [{"type": "tool_use", "id": "t", "name": 1}])],
            "/0/message/content/0/name",
        ),
        (
            [line("user", "u", None, [{"type": "tool_result", "tool_use_id": None}])],
            "/0/message/content/0/tool_use_id",
        ),
        (
            [line("assistant", "a", None, [{"type": "web_fetch_tool_result"}])],
            "/0/message/content/0/tool_use_id",
        ),
    ],
)
def test_bad_input_raises_histnorm_error_with_the_exact_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as caught:
        CODEC.decode(doc)
    assert caught.value.pointer == pointer


def test_off_branch_lines_are_not_checked_beyond_the_tree_keys() -> None:
    dead = {**line("user", "d", "r", "x"), "message": 42}
    doc = [line("user", "r", None, "hi"), dead, line("user", "u", "r", "hi again")]
    transcript = CODEC.decode(doc)
    assert [m.native["uuid"] for m in transcript.messages] == ["r", "u"]


def test_a_bad_line_in_a_session_file_is_reported_with_its_line_number() -> None:
    data = jsonl([line("user", "u", None, "hi"), line("user", "v", "u", {"no": "content"})])
    (record,) = read_jsonl(data, format="claude-code", mode="message").records
    assert record.error is not None
    assert (record.error.line, record.error.pointer) == (2, "/message/content")


# --- sniffing ----------------------------------------------------------------------------


def other_fixtures() -> list[Any]:
    docs: list[Any] = []
    for folder in sorted((ROOT / "fixtures" / "formats").iterdir()):
        if folder.name == "claude-code":
            continue
        for path in sorted(folder.iterdir()):
            data = path.read_bytes()
            if path.suffix == ".jsonl":
                docs.extend(orjson.loads(raw) for raw in data.splitlines() if raw.strip())
            else:
                docs.append(orjson.loads(data))
    return docs


def test_sniff_is_zero_on_the_message_lists_of_other_formats_fixtures() -> None:
    """Their whole documents: test_codec_contract.py; the lists inside envelopes here."""
    docs = other_fixtures()
    assert len(docs) >= 16
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("messages"), list):
            assert CODEC.sniff(doc["messages"]) == 0


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        ([], 0.0),
        ([{"type": "summary", "summary": "s", "leafUuid": "u"}], 0.6),
        ([{"type": "file-history-snapshot", "messageId": "m", "snapshot": {}}], 0.6),
        ([{"type": "custom-title", "customTitle": "t"}], 0.0),
        ([{"type": "user", "uuid": "u", "message": {"role": "user"}}, {"role": "user"}], 0.0),
        ([{"type": "message", "id": "fc_1"}], 0.0),
    ],
)
def test_sniff_scores(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


# --- with the rule engine ----------------------------------------------------------------


@pytest.mark.parametrize("path", RULE_FIXTURES, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_rule_fixture_is_reported_fixed_and_written_minimally(path: Path) -> None:
    settings_path = path.with_name(path.name.removesuffix(".json") + ".settings.json")
    options = orjson.loads(settings_path.read_bytes()) if settings_path.exists() else {}
    chosen = histnorm.Settings(**options)
    document = read_json(path.read_bytes())
    (record,) = document.records
    assert record.transcript is not None and record.transcript.format == "claude-code"
    assert path.parent.name in {d.code for d in histnorm.lint(record.transcript, chosen)}
    result = histnorm.fix(record.transcript, chosen)
    assert not result.remaining
    encoded = histnorm.encode(result.transcript)
    assert tree_is_valid(encoded)
    kept = sum(any(item is old for old in record.transcript.native) for item in encoded)
    assert kept >= len(encoded) - 3
    again = histnorm.fix(histnorm.dump(result.transcript), chosen, format="claude-code")
    assert dict(again.applied) == {}
    assert write(document, [result.transcript]) != path.read_bytes()


@pytest.mark.parametrize("lead", [[], [line("user", "u0", None, "List the files.")]])
def test_a_result_whose_link_is_broken_is_kept_not_deleted(lead: list[Any]) -> None:
    """The call's line comes first; its result's line names a parent no line has (HN014).
    Claude Code reads from the result on, so the result has no call there (HN002), but
    its call is earlier in the file: fix keeps the result and the call."""
    parent = "u0" if lead else None
    doc = [
        *lead,
        line("assistant", "u1", parent, [call("toolu_1")], mid="msg_1"),
        line("user", "u2", "gone", [result("toolu_1", "a.txt")]),
        line("assistant", "u3", "u2", [{"type": "text", "text": "Done."}], mid="msg_2"),
    ]
    data = jsonl(doc)
    linted = histnorm.lint_document(data, path_hint="s.jsonl")
    orphan = [d for d in linted.diagnostics if d.code == "HN002"]
    assert orphan and all(d.fix is None for d in orphan)
    assert f"on line {len(lead) + 1}," in orphan[0].message  # where its call is
    assert "HN014" in {d.code for d in linted.diagnostics}
    done = histnorm.fix_document(data, path_hint="s.jsonl")
    kept = [orjson.loads(x) for x in (done.output or data).splitlines()]
    assert [x["uuid"] for x in kept] == [x["uuid"] for x in doc]
    assert kept[-2]["message"]["content"] == [result("toolu_1", "a.txt")]


def _line(uuid: str, parent: str | None, kind: str, content: Any, mid: str = "") -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if mid:
        message = {"id": mid, "type": "message", **message}
    return {"parentUuid": parent, "sessionId": "s1", "type": kind, "message": message, "uuid": uuid}


def test_a_shadowed_earlier_line_keeps_its_parent_in_a_session_without_links() -> None:
    """Two lines share a uuid; the later one (under no parent) shadows the earlier one
    (under the user's line), so the session reads as one without links. Dropping the empty
    reply below them writes the session out again; the earlier line is never edited, so
    its parentUuid stays. Writing null into it made the two copies equal, and a second fix
    then dropped the call the first one held back (fuzz seed 35, case 6840)."""
    call = [{"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {"q": "x"}}]
    lines = [
        _line("u1", None, "user", "Find every call site"),
        _line("a1", "u1", "assistant", call, "msg_1"),
        _line("a1", None, "assistant", call, "msg_1"),
        _line("a2", "a1", "assistant", [{"type": "text", "text": ""}], "msg_2"),
    ]
    data = b"".join(orjson.dumps(line) + b"\n" for line in lines)
    options: dict[str, Any] = {"format": "claude-code", "tail": "close", "unsafe_fixes": True}
    first = histnorm.document.fix_document(data, path_hint="s.jsonl", **options)
    assert first.applied == {"HN004": 1}
    assert first.output is not None
    assert first.output.splitlines() == data.splitlines()[:3]  # only the reply's line went
    second = histnorm.document.fix_document(first.output, path_hint="s.jsonl", **options)
    assert (second.output, second.applied) == (None, {})
