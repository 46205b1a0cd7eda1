"""HN013 unknown-content and the guard: what histnorm cannot see is reported, never destroyed.

Issue #10, "What was seen" 2: an unknown part type, item type or role produced no
diagnostic, and `--format anthropic` on an OpenAI Chat file made `tool_calls` invisible,
so `fix` deleted the message as empty (HN005). Now the content is reported (HN013), and
no fix removes, moves or rewrites content where it could be a call or a result: such a
diagnostic says `fix held back: unknown content at <pointer>` and `fix` leaves it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from histnorm_cli.app import app
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies_native import DOCUMENTS
from typer.testing import CliRunner

import histnorm
from histnorm.engine import fix_allowed, outline_clean
from histnorm.formats import CODECS
from histnorm.model import Transcript, UnknownPart
from histnorm.profiles import PROFILES
from histnorm.settings import Settings

CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
OPENAI = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "assistant", "content": "It is sunny."},
]
"""A sound OpenAI Chat history; read as Anthropic, its call and result are invisible."""


def codes(diagnostics: Any) -> list[str]:
    return [d.code for d in diagnostics]


def unknown(diagnostics: Any) -> list[Any]:
    return [d for d in diagnostics if d.code == "HN013"]


def held(diagnostics: Any) -> list[Any]:
    return [d for d in diagnostics if "fix held back: unknown content at" in d.message]


# --- the forced-format case (library) ---------------------------------------------------


def test_tool_calls_read_as_anthropic_are_reported_where_they_are() -> None:
    found = histnorm.lint(OPENAI, format="anthropic")
    pointers = {d.location.pointer for d in unknown(found)}
    assert {"/1/tool_calls", "/2/tool_call_id"} <= pointers
    assert all(d.severity is histnorm.Severity.ERROR for d in unknown(found))
    assert "'tool_calls'" in unknown(found)[0].message


def test_fix_never_deletes_the_message_whose_calls_it_cannot_see() -> None:
    transcript = histnorm.load(OPENAI, format="anthropic")
    result = histnorm.fix(transcript)
    assert not result.changed
    assert histnorm.encode(result.transcript) == OPENAI
    # a message holding keys its reader does not read is unknown content, not empty (#23)
    assert codes(result.remaining) == ["HN013", "HN013"]
    assert "/1/tool_calls" in {d.location.pointer for d in result.remaining}


def test_held_back_even_when_hn013_is_ignored_or_not_selected() -> None:
    for options in ({"ignore": ("HN013",)}, {"select": ("HN005",)}):
        result = histnorm.fix(OPENAI, format="anthropic", **options)
        assert not result.changed, options
        assert codes(result.remaining) == []  # the message is unknown content, not empty
        emptied = [*OPENAI, {"role": "assistant", "content": []}]  # truly empty, same turn
        result = histnorm.fix(emptied, format="anthropic", **options)
        assert not result.changed, options
        assert codes(result.remaining) == ["HN005"]
        assert held(result.remaining)


@pytest.mark.parametrize("fmt", ["anthropic", "gemini", "meai", "openai-responses"])
def test_every_reader_that_ignores_tool_calls_reports_them(fmt: str) -> None:
    message = {"role": "assistant", "content": "Checking.", "tool_calls": [CALL]}
    if fmt == "gemini":
        message = {"role": "model", "parts": [{"text": "Checking."}], "toolCalls": [CALL]}
    if fmt == "meai":
        message = {"role": "assistant", "contents": [{"$type": "text", "text": "Hi"}]}
        message["tool_calls"] = [CALL]
    found = unknown(histnorm.lint([message], format=fmt))
    assert len(found) == 1
    assert (found[0].location.pointer or "").replace("_", "").casefold() == "/0/toolcalls"


def test_empty_or_read_call_keys_are_not_reported() -> None:
    assert not unknown(histnorm.lint(OPENAI))
    quiet = [{"role": "user", "content": "hi", "tool_calls": []}]
    assert not unknown(histnorm.lint(quiet, format="anthropic"))


# --- the forced-format case (command line) ----------------------------------------------


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_cli_fix_with_the_wrong_format_keeps_the_file_and_fails(workdir: Path) -> None:
    path = workdir / "chat.json"
    raw = orjson.dumps({"messages": OPENAI}, option=orjson.OPT_INDENT_2)
    path.write_bytes(raw)
    lint = CliRunner().invoke(app, ["lint", "--format", "anthropic", "chat.json"])
    assert lint.exit_code == 1
    assert "HN013" in lint.output and "/messages/1/tool_calls" in lint.output
    assert "HN005" not in lint.output  # unknown content, not an empty message (#23)
    assert "[*]" not in lint.output
    fixed = CliRunner().invoke(app, ["fix", "--format", "anthropic", "chat.json"])
    assert fixed.exit_code == 1
    assert path.read_bytes() == raw


# --- unknown roles ----------------------------------------------------------------------


def test_misspelt_role_is_an_error_at_its_pointer() -> None:
    history = [*OPENAI[:3], {"role": "assitant", "content": "It is sunny."}]
    (found,) = unknown(histnorm.lint(history))
    assert found.severity is histnorm.Severity.ERROR
    assert found.location.pointer == "/3/role"
    assert "'assitant'" in found.message


@pytest.mark.parametrize(
    ("fmt", "doc", "pointer"),
    [
        ("anthropic", [{"role": "bot", "content": "hi"}], "/0/role"),
        ("gemini", [{"role": "modle", "parts": [{"text": "hi"}]}], "/0/role"),
        ("meai", [{"role": "bot", "contents": [{"$type": "text", "text": "hi"}]}], "/0/role"),
        ("sharegpt", {"conversations": [{"from": "bing", "value": "hi"}]}, "/conversations/0/from"),
        ("chat-template", [{"role": "ipython", "content": "42"}], "/0/role"),
    ],
)
def test_unknown_roles_are_reported_in_every_format(fmt: str, doc: Any, pointer: str) -> None:
    (found,) = unknown(histnorm.lint(doc, format=fmt))
    assert found.location.pointer == pointer


def test_native_roles_of_each_format_are_known() -> None:
    gemini = [
        {"role": "user", "parts": [{"text": "hi"}]},
        {"role": "model", "parts": [{"text": "yo"}]},
    ]
    assert not unknown(histnorm.lint(gemini, format="gemini"))
    legacy = [{"role": "function", "name": "f", "content": "1"}]
    assert not unknown(histnorm.lint(legacy, format="openai-chat"))


@pytest.mark.parametrize(
    ("fmt", "role"), [("openai-chat", "model"), ("anthropic", "model"), ("meai", "model")]
)
def test_a_role_native_to_another_format_is_unknown_here(fmt: str, role: str) -> None:
    """Gemini's `model` in an OpenAI Chat file: the target rejects it, and histnorm does
    not read it as an assistant, so its calls would be invisible to pairing."""
    doc = [{"role": "user", "content": "hi"}, {"role": role, "content": "yo"}]
    if fmt == "meai":
        doc = [{"role": r, "contents": [{"$type": "text", "text": "x"}]} for r in ("user", role)]
    (found,) = unknown(histnorm.lint(doc, format=fmt))
    assert found.location.pointer == "/1/role"


def test_unknown_role_holds_back_the_fixes_of_its_turn() -> None:
    history = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "tool_response", "content": "sunny"},
    ]
    for options in ({}, {"tail": "close", "unsafe_fixes": True}):
        result = histnorm.fix(history, **options)
        assert not result.changed
        (call,) = held(result.remaining)
        assert call.code == "HN001" and call.message.endswith("unknown content at /2/role")


# --- unknown parts and items ------------------------------------------------------------


def test_call_like_unknown_part_is_an_error_and_saves_its_result() -> None:
    history = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_invocation", "payload": {"name": "w"}}]},
        {"role": "user", "content": "Thanks."},
        {"role": "tool", "tool_call_id": "t1", "content": "sunny"},
    ]
    found = histnorm.lint(history)
    (part,) = unknown(found)
    assert part.severity is histnorm.Severity.ERROR and part.location.pointer == "/1/content/0"
    (orphan,) = [d for d in found if d.code == "HN002"]
    assert orphan.fix is None and "/1/content/0" in orphan.message
    assert histnorm.encode(histnorm.fix(history).transcript) == history


def test_unknown_part_beside_calls_is_a_warning() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "w", "input": {}},
                {"type": "sparkle", "data": 1},
            ],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]},
    ]
    (found,) = unknown(histnorm.lint(history, format="anthropic"))
    assert found.severity is histnorm.Severity.WARNING
    assert found.location.pointer == "/1/content/1"


def test_unknown_parts_far_from_tools_stay_quiet() -> None:
    plain = [
        {"role": "user", "content": [{"type": "sparkle"}, {"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "hello"},
    ]
    assert histnorm.lint(plain, format="anthropic") == ()
    verbatim = [
        {"role": "user", "content": [{"type": "container_upload", "file_id": "f"}]},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "w", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
    ]
    assert not unknown(histnorm.lint(verbatim, format="anthropic"))
    hosted = [
        {"role": "user", "content": "search"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": "ok"},
    ]
    assert not unknown(histnorm.lint(hosted, format="openai-responses"))


def test_unknown_item_type_in_responses_is_reported() -> None:
    items = [
        {"role": "user", "content": "Weather?"},
        {"type": "delegated_call", "id": "dc_1", "name": "weather"},
        {"type": "function_call_output", "call_id": "dc_1", "output": "sunny"},
    ]
    found = histnorm.lint(items, format="openai-responses")
    assert [d.location.pointer for d in unknown(found)] == ["/1"]
    assert histnorm.encode(histnorm.fix(items, format="openai-responses").transcript) == items


def test_mostly_unknown_history_is_one_error_and_nothing_is_fixed() -> None:
    dump = [
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "hi"}]},
        {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "w"}]},
        {"parts": [{"part_kind": "text", "content": "x"}, {"functionCall": {"name": "w"}}]},
        {"role": "user", "parts": [{"text": "  "}]},
    ]
    found = histnorm.lint(dump, format="gemini")
    (whole,) = unknown(found)
    assert whole.severity is histnorm.Severity.ERROR
    assert "cannot read 3 of the 5 parts of this history" in whole.message
    assert whole.location.pointer == "/0/parts/0"
    result = histnorm.fix(dump, format="gemini", tail="close", unsafe_fixes=True)
    assert not result.changed
    assert all(d.fix is None for d in result.remaining)


def test_a_fix_elsewhere_still_applies() -> None:
    history = [
        {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": [{"type": "tool_call", "value": "{}"}]},
        {"role": "user", "content": "Thanks."},
        {"role": "assistant", "content": None, "tool_calls": [CALL]},
        {"role": "user", "content": "Bye."},
    ]
    result = histnorm.fix(history)
    assert result.applied == {"HN001": 1}
    assert histnorm.encode(result.transcript)[:3] == history[:3]


# --- the plain-shape fast path never calls unknown content plain ------------------------

SHAPE_CASES = [
    ("anthropic", [{"role": "assistant", "content": "Checking.", "tool_calls": [CALL]}]),
    ("anthropic", [{"role": "user", "content": "hi", "tool_call_id": "call_1"}]),
    ("anthropic", [{"role": "assitant", "content": "hi"}]),
    ("anthropic", [{"role": "user", "content": [{"type": "sparkle"}]}]),
    ("openai-chat", [{"role": "assitant", "content": "hi"}]),
    ("openai-chat", [{"role": "user", "content": [{"type": "sparkle"}]}]),
    ("openai-responses", [{"role": "assistant", "content": "Checking.", "tool_calls": [CALL]}]),
    ("openai-responses", [{"type": "message", "role": "assitant", "content": "hi"}]),
    ("openai-responses", [{"type": "delegated_call", "id": "x"}]),
    (
        "meai",
        [
            {
                "role": "assistant",
                "contents": [{"$type": "text", "text": "hi"}],
                "tool_calls": [CALL],
            }
        ],
    ),
    ("meai", [{"role": "assitant", "contents": [{"$type": "text", "text": "hi"}]}]),
    ("meai", [{"role": "user", "contents": [{"$type": "sparkle"}]}]),
]


@pytest.mark.parametrize(("fmt", "doc"), SHAPE_CASES)
def test_no_shape_claims_unknown_content_plain(fmt: str, doc: Any) -> None:
    codec = CODECS[fmt]
    outline = codec.outline(doc)
    assert not any(outline_clean(outline, Settings(profile=name)) for name in PROFILES)
    assert not histnorm.engine.proven_clean(doc, fmt)


def test_claude_code_shape_rejects_unknown_blocks() -> None:
    line = {
        "parentUuid": None,
        "isSidechain": False,
        "sessionId": "s",
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "tool_call", "value": "{}"}]},
        "uuid": "u1",
    }
    assert CODECS["claude-code"].read_outline([line]) is None


# --- the property: nothing is deleted where a fix is held back --------------------------

NATIVE = DOCUMENTS


def _identity(part: Any) -> bytes:
    """A part as the property tracks it: its kind and native value (a moved or renamed
    part keeps both)."""
    return orjson.dumps([part.kind, part.native], option=orjson.OPT_SORT_KEYS, default=repr)


def _inject(transcript: Transcript, index: int, how: int) -> Transcript:
    """Unknown content in message `index`: a call-like part, an odd part type beside the
    rest, or an unknown role."""
    messages = list(transcript.messages)
    target = messages[index]
    if how == 0:
        part = UnknownPart(type="delegated_tool_call", native={"type": "delegated_tool_call"})
        messages[index] = target.evolve(parts=(*target.parts, part))
    elif how == 1:
        part = UnknownPart(type="sparkle", native={"type": "sparkle"})
        messages[index] = target.evolve(parts=(part, *target.parts))
        messages[index] = messages[index].evolve(role="tool")
    else:
        messages[index] = target.evolve(role="assitant")
        if CODECS[transcript.format or ""].known_roles is None:
            part = UnknownPart(type="tool_call", native={"type": "tool_call"})
            messages[index] = messages[index].evolve(parts=(*target.parts, part))
    return transcript.evolve(messages=tuple(messages))


@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data(), fmt=st.sampled_from(sorted(NATIVE)))
def test_fix_deletes_nothing_it_holds_back(data: st.DataObject, fmt: str) -> None:
    document = data.draw(NATIVE[fmt], label="document")
    try:
        transcript = histnorm.load(orjson.dumps(document), format=fmt)
    except histnorm.HistnormError:
        assume(False)
        raise
    assume(transcript.messages)
    options = data.draw(
        st.sampled_from([{}, {"tail": "close", "unsafe_fixes": True}]), label="options"
    )
    config = histnorm.Settings(**options)
    damaged = [
        d.location.message_index
        for d in histnorm.lint(transcript, config)
        if d.fix is not None and d.location.message_index is not None
    ]
    near = sorted(
        {i for m in damaged for i in (m - 1, m, m + 1)} & set(range(len(transcript.messages)))
    )
    index = data.draw(st.sampled_from(near or list(range(len(transcript.messages)))), label="at")
    injected = _inject(transcript, index, data.draw(st.integers(0, 2), label="how"))
    found = histnorm.lint(injected, config)
    assume(held(found))
    moving = {
        (d.location.message_index, d.location.part_index) for d in found if fix_allowed(d, config)
    }
    result = histnorm.fix(injected, config)
    kept = Counter(_identity(p) for m in result.transcript.messages for p in m.parts)
    for mi, message in enumerate(injected.messages):
        for pi, part in enumerate(message.parts):
            if (mi, pi) in moving or (mi, None) in moving:
                continue
            assert kept[_identity(part)] > 0, f"part {mi}/{pi} ({part.kind}) was deleted"
            kept[_identity(part)] -= 1
    if not moving:
        assert result.transcript == injected
        assert len(result.transcript.messages) == len(injected.messages)
