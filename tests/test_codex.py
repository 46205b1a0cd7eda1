"""Tests for the `codex` codec: Codex CLI rollouts, fixed one `response_item` line at a time.

Documents are the lists of a rollout file's parsed lines. The fixtures under
fixtures/formats/codex/ are ours, in the shapes Codex writes: the line envelope of
codex-rs/protocol/src/protocol.rs (`RolloutLine`, `RolloutItem`, `SessionMetaLine`,
`TurnContextItem`, `CompactedItem`, `EventMsg` payloads such as `token_count`,
`patch_apply_end`, `turn_aborted`) and the items of codex-rs/protocol/src/models.rs
(`ResponseItem`: `message` with `phase`, `reasoning`, `function_call`,
`function_call_output`, `local_shell_call`, `custom_tool_call(_output)`,
`web_search_call`, `ghost_snapshot`). interrupted.jsonl is the shape of openai/codex#29773
(an `apply_patch` `function_call` persisted without its output). What a fix writes for an
orphan call follows Codex's own resume normalisation (`ensure_call_outputs_present`,
codex-rs/core/src/context_manager/normalize.rs).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from codec_helpers import PROPERTY_SETTINGS, dump, fixture_files, resolve, with_messages
from hypothesis import given
from hypothesis import strategies as st
from strategies_codex import rollouts

import histnorm
from histnorm.document import fix_document, lint_document, read_json, read_jsonl, write
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, detect_format
from histnorm.formats.codex import CodexCodec
from histnorm.formats.codex.lines import is_item_line
from histnorm.formats.codex.write import synthetic_output_id
from histnorm.model import Message, TextPart, ToolResultPart

CODEC = CodexCodec()
ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "formats" / "codex"
PROPERTY = PROPERTY_SETTINGS["codex"]
STAMP = "2026-07-14T09:50:02.000Z"


def line(kind: str, payload: Any, stamp: str = STAMP) -> dict[str, Any]:
    return {"timestamp": stamp, "type": kind, "payload": payload}


def item(payload: Any, stamp: str = STAMP) -> dict[str, Any]:
    return line("response_item", payload, stamp)


def user(text: str) -> dict[str, Any]:
    return item(
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}
    )


def said(text: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text}]
    return item({"type": "message", "role": "assistant", "content": content})


def call(call_id: str, name: str = "shell_command", item_id: str | None = None) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "function_call"}
    if item_id is not None:
        payload["id"] = item_id
    payload |= {"name": name, "arguments": '{"command":"ls"}', "call_id": call_id}
    return item(payload)


def output(call_id: str, text: str = "Exit code: 0") -> dict[str, Any]:
    return item({"type": "function_call_output", "call_id": call_id, "output": text})


META = line("session_meta", {"id": "0199a3c4", "cwd": "/home/dev/shop", "cli_version": "0.142.0"})
TURN = line("turn_context", {"turn_id": "t1", "cwd": "/home/dev/shop", "model": "gpt-5.4"})


def event(kind: str, **fields: Any) -> dict[str, Any]:
    return line("event_msg", {"type": kind, **fields})


def jsonl(lines: list[Any]) -> bytes:
    return b"".join(orjson.dumps(x) + b"\n" for x in lines)


def fixed(lines: list[Any], **options: Any) -> list[Any]:
    result = fix_document(jsonl(lines), path_hint="rollout.jsonl", **options)
    assert result.output is not None
    return [orjson.loads(x) for x in result.output.splitlines()]


def kept_bytes(before: bytes, after: bytes) -> set[bytes]:
    return set(before.splitlines()) & set(after.splitlines())


# --- round trip and byte identity -----------------------------------------------------


def fixture_doc(path: Path) -> list[Any]:
    data = path.read_bytes()
    if path.suffix == ".json":
        return orjson.loads(data)  # type: ignore[no-any-return]
    return [orjson.loads(x) for x in data.splitlines() if x.strip()]


@pytest.mark.parametrize("path", fixture_files("codex"), ids=lambda p: p.name)
def test_fixture_reads_as_codex_and_encodes_to_the_very_lines(path: Path) -> None:
    data = path.read_bytes()
    document = read_jsonl(data) if path.suffix == ".jsonl" else read_json(data)
    assert document.layout.value == ("jsonl-messages" if path.suffix == ".jsonl" else "json")
    (record,) = document.records
    transcript = record.transcript
    assert transcript is not None and transcript.format == "codex"
    encoded = CODEC.encode(transcript)
    assert isinstance(encoded, list) and isinstance(transcript.native, list)
    assert all(a is b for a, b in zip(encoded, transcript.native, strict=True))
    assert write(document, [transcript.evolve(messages=transcript.messages)]) == data


@given(rollouts())
@PROPERTY
def test_decode_encode_gives_the_very_lines(doc: list[Any]) -> None:
    transcript = CODEC.decode(doc)
    out = CODEC.encode(transcript)
    assert isinstance(out, list) and len(out) == len(doc)
    assert all(a is b for a, b in zip(out, doc, strict=True))
    assert len(transcript.messages) == sum(1 for x in doc if x.get("type") == "response_item")


@given(rollouts(), st.data())
@PROPERTY
def test_dropping_a_message_drops_its_line_only(doc: list[Any], data: st.DataObject) -> None:
    transcript = CODEC.decode(doc)
    if not transcript.messages:
        return
    gone = data.draw(st.integers(0, len(transcript.messages) - 1))
    messages = [m for i, m in enumerate(transcript.messages) if i != gone]
    out = CODEC.encode(with_messages(transcript, *messages))
    target = transcript.messages[gone].native
    expected = [
        x for x in doc if x.get("payload") is not target or x.get("type") != "response_item"
    ]
    assert isinstance(out, list)
    assert [id(x) for x in out] == [id(x) for x in expected]


@given(rollouts())
@PROPERTY
def test_pointers_resolve_to_what_each_part_was_read_from(doc: list[Any]) -> None:
    transcript = CODEC.decode(doc)
    for mi, message in enumerate(transcript.messages):
        assert resolve(doc, CODEC.message_pointer(transcript, mi)) is message.native
        for pi, part in enumerate(message.parts):
            found = resolve(doc, CODEC.part_pointer(transcript, mi, pi))
            assert found is part.native or (isinstance(found, str) and found == part.native)


def test_a_fixed_file_keeps_every_untouched_line_byte_for_byte() -> None:
    data = (FIXTURES / "interrupted.jsonl").read_bytes()
    result = fix_document(data, path_hint="interrupted.jsonl")
    assert result.output is not None
    before, after = data.splitlines(), result.output.splitlines()
    assert len(after) == len(before) - 1
    assert after == [x for x in before if b'"type":"function_call"' not in x]


# --- detection -------------------------------------------------------------------------


@pytest.mark.parametrize("path", fixture_files("codex"), ids=lambda p: p.name)
def test_fixtures_are_detected_as_codex_and_claimed_by_no_other_codec(path: Path) -> None:
    doc = fixture_doc(path)
    assert detect_format(doc) == "codex"
    assert CODEC.sniff(doc) == 0.95
    assert [n for n, c in CODECS.items() if n != "codex" and c.sniff(doc) > 0] == []


@pytest.mark.parametrize(
    ("doc", "score"),
    [
        ([], 0.0),
        ([META], 0.95),
        ([user("hi")], 0.95),
        ([TURN, event("token_count", info=None)], 0.6),
        ([line("world_state", {})], 0.0),
        ([user("hi"), {"role": "user", "content": "hi"}], 0.0),  # a chat message beside it
        ([{"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}}], 0.0),
        ([{"type": "message", "role": "user", "content": "hi"}], 0.0),  # a bare Responses item
        ([user("hi"), 3], 0.0),
    ],
)
def test_sniff_scores(doc: Any, score: float) -> None:
    assert CODEC.sniff(doc) == score


def test_other_formats_message_lines_are_not_read_as_a_rollout() -> None:
    for fmt in ("claude-code", "openai-responses"):
        for path in fixture_files(fmt):
            data = path.read_bytes()
            docs = [fixture_doc(path)]
            if path.suffix == ".jsonl":
                docs += [orjson.loads(x) for x in data.splitlines() if x.strip()]
            for doc in docs:
                assert CODEC.sniff(doc) == 0, path


def test_a_rollout_file_is_read_one_event_a_line_without_being_told() -> None:
    lines = [META, user("hi"), said("hello")]
    document = read_jsonl(jsonl(lines))
    assert document.layout.value == "jsonl-messages"
    (record,) = document.records
    assert record.transcript is not None and record.transcript.format == "codex"


# --- the defects, found and fixed -------------------------------------------------------


ORPHAN = [META, TURN, user("rename it"), call("call_a", "apply_patch", "fc_call_a")]
ORPHAN += [event("turn_aborted", turn_id="t1", reason="interrupted"), user("try again"), said("ok")]


def test_an_orphan_call_is_reported_at_its_line() -> None:
    result = lint_document(jsonl(ORPHAN), path_hint="rollout.jsonl")
    (found,) = result.diagnostics
    assert (found.code, found.location.line, found.location.pointer) == ("HN001", 4, "/payload")


def test_dropping_an_orphan_call_removes_its_line_and_nothing_else() -> None:
    data = jsonl(ORPHAN)
    result = fix_document(data, path_hint="rollout.jsonl")
    assert result.output is not None and result.applied == {"HN001": 1}
    assert result.output.splitlines() == [x for i, x in enumerate(data.splitlines()) if i != 3]


def test_a_synthesized_output_is_the_one_codex_adds_right_after_the_call() -> None:
    out = fixed(ORPHAN, orphan_tool_call="synthesize")
    assert out[:4] == ORPHAN[:4] and out[5:] == ORPHAN[4:]
    namespace = uuid.UUID("90d38d3e-6a5b-4d52-bfe2-2f1e634bfac4")
    assert out[4] == {
        "timestamp": STAMP,
        "type": "response_item",
        "payload": {
            "type": "function_call_output",
            "id": f"fco_{uuid.uuid5(namespace, 'fco:fc_call_a')}",
            "call_id": "call_a",
            "output": histnorm.Settings().synthetic_result_text,
        },
    }
    assert histnorm.lint(out, format="codex") == ()


def test_the_synthetic_id_is_codex_own_and_absent_without_a_call_item_id() -> None:
    assert synthetic_output_id("function_call_output", {"id": "fc_1"}) == (
        "fco_" + str(uuid.uuid5(uuid.UUID("90d38d3e-6a5b-4d52-bfe2-2f1e634bfac4"), "fco:fc_1"))
    )
    assert synthetic_output_id("custom_tool_call_output", {"id": "ctc_1"}).startswith("ctco_")  # type: ignore[union-attr]
    assert synthetic_output_id("function_call_output", {"call_id": "c"}) is None
    out = fixed([user("x"), call("call_b"), user("y")], orphan_tool_call="synthesize")
    assert "id" not in out[2]["payload"]


def test_a_local_shell_call_is_answered_by_a_function_call_output_as_in_codex() -> None:
    shell = item(
        {
            "type": "local_shell_call",
            "call_id": "call_sh",
            "status": "completed",
            "action": {"type": "exec", "command": ["ls"], "timeout_ms": None},
        }
    )
    answered = [user("x"), shell, output("call_sh"), said("done")]
    assert histnorm.lint(answered, format="codex") == ()
    out = fixed([user("x"), shell, user("y")], orphan_tool_call="synthesize")
    assert out[2]["payload"]["type"] == "function_call_output"
    assert out[2]["payload"]["call_id"] == "call_sh"


def test_a_custom_tool_call_is_answered_by_a_custom_tool_call_output() -> None:
    patch = {"type": "custom_tool_call", "status": "completed", "call_id": "call_p"}
    patch |= {"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}
    out = fixed([user("x"), item(patch), user("y")], orphan_tool_call="synthesize")
    assert out[2]["payload"] == {
        "type": "custom_tool_call_output",
        "call_id": "call_p",
        "output": histnorm.Settings().synthetic_result_text,
    }


def test_an_orphan_output_is_dropped_as_codex_drops_it() -> None:
    lines = [META, user("x"), event("token_count", info=None), output("call_gone"), said("ok")]
    data = jsonl(lines)
    result = fix_document(data, path_hint="rollout.jsonl")
    assert [d.code for d in lint_document(data, path_hint="r.jsonl").diagnostics] == ["HN002"]
    assert result.output is not None
    assert result.output.splitlines() == [x for i, x in enumerate(data.splitlines()) if i != 3]


def test_a_duplicated_output_line_is_dropped_and_the_first_kept() -> None:
    lines = [user("x"), call("call_d"), output("call_d", "first"), output("call_d", "first")]
    lines += [said("ok")]
    data = jsonl(lines)
    codes = [d.code for d in lint_document(data, path_hint="r.jsonl").diagnostics]
    assert codes == ["HN010"]
    assert fixed(lines) == [*lines[:3], lines[4]]
    lines[3] = output("call_d", "second")  # differing copies: choosing one is unsafe
    assert fix_document(jsonl(lines), path_hint="r.jsonl").output is None
    assert fixed(lines, unsafe_fixes=True) == [*lines[:3], lines[4]]


def test_a_fix_is_its_own_fixpoint() -> None:
    once = fix_document(jsonl(ORPHAN), path_hint="r.jsonl", orphan_tool_call="synthesize")
    assert once.output is not None
    again = fix_document(once.output, path_hint="r.jsonl", orphan_tool_call="synthesize")
    assert again.output is None and again.diagnostics == ()


# --- what the codec does not model ------------------------------------------------------


def test_unknown_line_types_are_kept_in_place_and_never_read() -> None:
    odd = line("world_state", {"type": "function_call", "call_id": "hidden"})
    bare = {"record_type": "state"}
    lines = [META, odd, user("x"), bare, call("call_u"), user("y")]
    transcript = CODEC.decode(lines)
    assert [m.role for m in transcript.messages] == ["user", "assistant", "user"]
    out = fixed(lines)
    assert out == [META, odd, user("x"), bare, user("y")]


def test_a_ghost_snapshot_is_kept_verbatim_without_a_warning() -> None:
    ghost = item({"type": "ghost_snapshot", "ghost_commit": {"id": "4f2c", "parent": None}})
    assert histnorm.lint([user("x"), ghost, said("ok")], format="codex") == ()
    unknown = item({"type": "function_call_v2", "call_id": "c", "content": []})
    (found,) = histnorm.lint([user("x"), unknown, said("ok")], format="codex")
    assert found.code == "HN013"


def test_a_compacted_line_and_its_replacement_history_are_not_read() -> None:
    compacted = line("compacted", {"message": "m", "replacement_history": [call("c")["payload"]]})
    lines = [user("x"), compacted, said("ok")]
    assert len(CODEC.decode(lines).messages) == 2
    assert histnorm.lint(lines, format="codex") == ()


# --- edits, pointers, errors ------------------------------------------------------------


def test_a_new_message_is_a_new_line_after_the_line_before_it() -> None:
    lines = [META, user("x"), event("token_count", info=None), said("ok")]
    transcript = CODEC.decode(lines)
    note = Message(role="user", parts=(TextPart(text="more"),))
    out = CODEC.encode(
        with_messages(transcript, transcript.messages[0], note, *transcript.messages[1:])
    )
    assert out == [META, lines[1], user("more"), lines[2], lines[3]]
    assert out[0] is META and out[3] is lines[2]


def test_moved_messages_take_the_places_of_item_lines_and_other_lines_stay() -> None:
    lines = [META, user("a"), TURN, said("b")]
    transcript = CODEC.decode(lines)
    out = CODEC.encode(with_messages(transcript, *reversed(transcript.messages)))
    assert isinstance(out, list)
    assert [id(x) for x in out] == [id(META), id(lines[3]), id(TURN), id(lines[1])]


def test_an_edited_message_rewrites_only_its_payload() -> None:
    extra = {**said("ok"), "x_extra": 1}
    transcript = CODEC.decode([user("x"), extra])
    message = transcript.messages[1]
    edited = message.evolve(parts=(TextPart(text="changed", native=None),))
    out = CODEC.encode(with_messages(transcript, transcript.messages[0], edited))
    assert isinstance(out, list)
    assert out[1]["x_extra"] == 1 and out[1]["timestamp"] == STAMP
    assert out[1]["payload"]["content"] == [
        {"type": "output_text", "text": "changed", "annotations": []}
    ]


def test_a_transcript_from_another_format_is_written_as_item_lines() -> None:
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    native = histnorm.encode(histnorm.load(chat, format="openai-chat"), "codex")
    assert isinstance(native, list) and [x["type"] for x in native] == ["response_item"] * 2
    assert native[1]["payload"]["content"] == [{"type": "output_text", "text": "hello"}]
    assert native[0]["payload"]["content"] == [{"type": "input_text", "text": "hi"}]
    assert [m.role for m in histnorm.load(native, format="codex").messages] == ["user", "assistant"]


def test_a_bad_payload_is_reported_with_its_line_and_pointer() -> None:
    bad = jsonl([META, user("x"), item({"type": "function_call", "name": "ls"})])
    (record,) = read_jsonl(bad).records
    assert record.error is not None
    assert (record.error.line, record.error.pointer) == (3, "/payload/call_id")


@pytest.mark.parametrize(
    ("doc", "pointer"),
    [
        ({"type": "session_meta"}, ""),
        ([META, "x"], "/1"),
        ([META, {"timestamp": STAMP, "type": "response_item", "payload": []}], "/1/payload"),
    ],
)
def test_bad_documents_raise_histnorm_error_at_the_pointer(doc: Any, pointer: str) -> None:
    with pytest.raises(HistnormError) as raised:
        CODEC.decode(doc)
    assert raised.value.pointer == pointer


def test_new_results_keep_their_content_as_codex_can_read_it() -> None:
    transcript = CODEC.decode([user("x"), call("call_j"), user("y")])
    result = ToolResultPart(call_id="call_j", content={"rows": 2})
    messages = [
        *transcript.messages[:2],
        Message(role="tool", parts=(result,)),
        transcript.messages[2],
    ]
    out = CODEC.encode(with_messages(transcript, *messages))
    assert isinstance(out, list)
    assert out[2]["payload"] == {
        "type": "function_call_output",
        "call_id": "call_j",
        "output": '{"rows":2}',
    }
    assert dump(out[0]) == dump(user("x"))


# --- broken lines ----------------------------------------------------------------------


def test_a_torn_last_line_is_reported_kept_and_the_rest_fixed() -> None:
    torn = b'{"timestamp":"2026-07-14T09:50:05.000Z","type":"response_item","payload":{"ty'
    data = jsonl(ORPHAN) + torn
    result = fix_document(data, path_hint="rollout.jsonl")
    assert result.output is not None and result.applied == {"HN001": 1}
    assert result.output.endswith(b"\n" + torn)
    (note,) = result.diagnostics
    assert (note.code, note.severity.value) == ("HN000", "warning")
    assert "as Codex skips it" in note.message and note.location.line == len(ORPHAN)


def test_a_broken_line_between_whole_ones_is_linted_but_never_fixed() -> None:
    lines = jsonl(ORPHAN).splitlines(keepends=True)
    data = b"".join([*lines[:2], b"{not json\n", *lines[2:]])
    codes = sorted(d.code for d in lint_document(data, path_hint="rollout.jsonl").diagnostics)
    assert codes == ["HN000", "HN001"]
    assert fix_document(data, path_hint="rollout.jsonl").output is None


def test_the_type_check_compares_each_kept_item_with_its_own_written_line() -> None:
    """Dropping a line shifts the others: a kept string `output` is not compared with the
    list `output` of the line that now sits at its old index."""
    listed = item({"type": "function_call_output", "call_id": "c3", "output": []})
    listed["payload"]["output"] = [{"type": "input_text", "text": "ok"}]
    lines = [user("x"), call("c1"), call("c2"), call("c3"), output("c2", "ok"), listed, user("y")]
    assert fixed(lines) == [lines[0], *lines[2:]]


@given(rollouts())
@PROPERTY
def test_a_fix_keeps_every_other_line_byte_for_byte_and_in_order(doc: list[Any]) -> None:
    data = jsonl(doc)
    options = {"orphan_tool_call": "synthesize", "unsafe_fixes": True}
    result = fix_document(data, path_hint="rollout.jsonl", **options)
    if result.output is None:
        return
    others = [raw for raw, x in zip(data.splitlines(), doc, strict=True) if not is_item_line(x)]
    after = result.output.splitlines()
    assert [raw for raw in after if not is_item_line(orjson.loads(raw))] == others
