"""A long damaged Codex rollout held as text (`histnorm.held_lines`).

A rollout not proven clean as it is read is checked with its lines held as their text:
each parsed when something asks for it, its messages built unread from their lines. What
lint and fix give is what they give with every line parsed at once (the codec's
`held_items` unset), diagnostics, fixes and bytes; and a fix parses only the lines of
what it touches.
"""

from __future__ import annotations

import itertools
from array import array

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from outline_helpers import generated
from session_helpers import FIXTURES, session
from strategies_codex import damaged_rollouts, rollouts

import histnorm.document.streamed as streamed
import histnorm.held_lines as held_lines
from histnorm import model
from histnorm.document import fix_document, lint_document
from histnorm.formats.codex import CodexCodec
from histnorm.formats.openai_responses.items import decode_item
from histnorm.held_lines import EditedLines, HeldLines
from histnorm.model_terms import HELD, UNREAD


def _bytes(lines: list[object]) -> bytes:
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


def _line(kind: str, payload: dict[str, object]) -> dict[str, object]:
    return {"timestamp": "2026-01-01T00:00:00.000Z", "type": kind, "payload": payload}


def _call(call_id: str, name: str = "run") -> dict[str, object]:
    return _line(
        "response_item",
        {"type": "function_call", "call_id": call_id, "name": name, "arguments": "{}"},
    )


def _output(call_id: str, text: str = "ok") -> dict[str, object]:
    item = {"type": "function_call_output", "call_id": call_id, "output": text}
    return _line("response_item", item)


def _user(text: str) -> dict[str, object]:
    return _line(
        "response_item",
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]},
    )


def _hostile() -> list[tuple[str, bytes]]:
    """Rollouts whose damage touches what the held reading must get right."""
    meta = _line("session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.1"})
    event = _line("event_msg", {"type": "exec_command_end", "call_id": "call 1", "stdout": "x"})
    base = [meta, _user("hi"), _call("call 1"), event, _output("call 1"), _user("next 🚀")]
    found = [
        ("orphan call and duplicate output", [*base, _call("c2"), _output("call 1", "again")]),
        ("an output before its call", [meta, _output("c3"), _user("x"), _call("c3"), _user("y")]),
        ("an id a fix renames, cited by an event", [*base, _call("c" * 80), _output("c" * 80)]),
        ("an orphan output alone", [meta, _user("a"), _output("nobody"), _user("b")]),
    ]
    out = [(name, _bytes(lines)) for name, lines in found]
    text = out[0][1]
    out.append(("blank lines and CRLF", text.replace(b"\n", b"\r\n\r\n", 3)))
    out.append(("no ending at the end", text.rstrip(b"\n")))
    out.append(("a byte order mark", b"\xef\xbb\xbf" + text))
    repeated = text.replace(b'"output":"again"', b'"output":"x","output":"again"')
    out.append(("a repeated key in a dropped line", repeated))
    spelled = text.replace(b'"cwd":"/w"', b'"cwd":"\\/w","n":1.50')
    out.append(("spellings beside the damage", spelled))
    long = text.replace(b'"cli_version":"0.1"', b'"cli_version":"0.1","big":1180591620717411303424')
    out.append(("an integer beyond 64 bits (read whole)", long))
    return out


def _rollouts() -> list[tuple[str, bytes]]:
    found = [("codex damaged", session("codex", True))]
    for path in sorted((FIXTURES / "formats" / "codex").glob("*.jsonl")):
        found.append((path.name, path.read_bytes()))
        found.append((f"{path.name}, damaged", session("codex", True, path.stem)))
    for n, lines in enumerate(generated("codex", 0.5, 17, 12)):
        found.append((f"corpus codex #{n}", _bytes(lines)))
    run = list(itertools.chain.from_iterable(generated("codex", 0.3, 5, 8)))
    joined = [run[0], *(line for line in run[1:] if line["type"] != "session_meta")]
    found.append(("corpus codex, eight joined", _bytes(joined)))
    return found + _hostile()


ROLLOUTS = _rollouts()
ITEMS = ("response_item", "payload")
SETTINGS = [{}, {"profile": "portable"}, {"profile": "anthropic", "tail": "close"}]


def _checked(data: bytes, options: dict[str, object]) -> tuple[object, ...]:
    lint = lint_document(data, path_hint="r.jsonl", **options)
    fix = fix_document(data, path_hint="r.jsonl", **options)
    return (
        [repr(d) for d in lint.diagnostics],
        [repr(d) for d in fix.diagnostics],
        [repr(d) for d in fix.fixes],
        dict(fix.applied),
        fix.output,
    )


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> list[HeldLines]:
    """Every `HeldLines` made while the test runs, of sessions of every size."""
    monkeypatch.setattr(streamed, "STREAMED_FROM", 0)
    found: list[HeldLines] = []
    real = HeldLines.__init__

    def spy(self: HeldLines, *args: object) -> None:
        real(self, *args)  # type: ignore[arg-type]
        found.append(self)

    monkeypatch.setattr(HeldLines, "__init__", spy)
    return found


@pytest.mark.parametrize("options", SETTINGS, ids=["default", "portable", "anthropic-close"])
def test_held_lines_give_what_every_line_parsed_gives(options, made, monkeypatch):
    """Lint and fix of each rollout give the same diagnostics, fixes and bytes with its
    lines held as text as with every line parsed at once."""
    held = 0
    for where, data in ROLLOUTS:
        made.clear()
        found = _checked(data, options)
        held += bool(made)
        with monkeypatch.context() as patch:
            patch.setattr(CodexCodec, "held_items", None)
            assert found == _checked(data, options), where
    assert held > len(ROLLOUTS) // 3, "too few rollouts were held to show anything"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(rollouts(), damaged_rollouts()), st.sampled_from(SETTINGS))
def test_any_rollout_held_gives_what_it_gives_parsed(made, monkeypatch, lines, options):
    """The same, for rollouts Hypothesis draws (and damages: a value anywhere replaced),
    with an output no call answers in the middle, so that a fix has work."""
    if not isinstance(lines, list):
        return  # no rollout: no lines to hold
    lines = [*lines[: len(lines) // 2], _output("gone"), *lines[len(lines) // 2 :]]
    data = _bytes(lines)
    found = _checked(data, options)
    with monkeypatch.context() as patch:
        patch.setattr(CodexCodec, "held_items", None)
        assert found == _checked(data, options)


def _sparse(stretches: int) -> bytes:
    """A long rollout whose one damage (an orphan call) is in the middle."""
    lines = [_line("session_meta", {"id": "s", "cwd": "/w", "cli_version": "0.1"})]
    for n in range(stretches):
        lines += [_user(f"ask {n}"), _call(f"c{n}"), _output(f"c{n}", "done " * 20)]
        if n == stretches // 2:
            lines.append(_call("orphan"))
    return _bytes(lines)


@pytest.mark.parametrize("mode", ["lint", "fix"])
def test_a_damaged_rollout_parses_only_the_lines_it_touches(mode, made):
    """Lint or fix of a 600-line rollout with one orphan call parses a handful of its
    lines (the call, its neighbours), and writes the rest as read."""
    data = _sparse(200)
    check = lint_document if mode == "lint" else fix_document
    result = check(data, path_hint="r.jsonl")
    assert [d.code for d in result.diagnostics or result.fixes] == ["HN001"]
    (lines,) = made
    assert len(lines) == 602
    assert 0 < len(lines.parsed_lines()) <= 6, lines.parsed_lines()
    if mode == "fix":  # the call dropped with its line, every other line as read
        assert result.output == data.replace(_bytes([_call("orphan")]), b"", 1)


def _arrays(spans: list[tuple[int, int]]) -> tuple[array[int], array[int]]:
    return array("q", (a for a, _ in spans)), array("q", (b for _, b in spans))


def test_a_line_is_one_object_however_often_it_is_asked_for():
    body = _bytes([_user("a"), _call("c1")]) + b'{"type":"x","n":1180591620717411303424}'
    spans = [(0, body.index(b"\n")), (body.index(b"\n") + 1, body.rindex(b"\n"))]
    spans.append((body.rindex(b"\n") + 1, len(body)))
    lines = HeldLines(body, _arrays(spans), ["response_item", "response_item", "x"], ITEMS)
    assert lines.parsed_lines() == []
    peeked = lines.peek(1)
    assert lines.parsed_lines() == []  # a peek keeps nothing
    assert lines[1] is lines[1] and lines[1] == peeked and lines[1] is not peeked
    assert lines[2]["n"] == 2**70  # read exactly
    assert lines[-1] is lines[2]
    assert lines.native_of(1) is lines[1]["payload"]
    assert lines.pointer_of(1) == "/1/payload"
    assert lines[0]["type"] is lines[1]["type"]  # short strings shared between lines
    assert list(lines) == [orjson.loads(body[a:b]) | {} for a, b in spans[:2]] + [lines[2]]
    edited = EditedLines(lines, [0, {"type": "new"}, 2])
    assert edited[0] is lines[0] and edited[1] == {"type": "new"}
    assert edited.where(2) == 2 and edited.where(1) is None
    assert edited.kinds() == ["response_item", "new", "x"]
    assert held_lines.indices_of(edited, "response_item") == [0]


def test_a_message_built_from_a_held_line_reads_its_line_when_asked():
    body = _bytes([_call("c1")])
    lines = HeldLines(body, _arrays([(0, len(body) - 1)]), ["response_item"], ITEMS)
    message = model.unread_held((decode_item, None, lines, True), 0)
    assert lines.parsed_lines() == []
    assert held_lines.held_line(message) == (lines, 0)
    assert message.native is lines[0]["payload"]
    assert model.unread(message)  # its native asked for: not read yet
    assert message == decode_item(lines[0]["payload"], "/0/payload")
    assert not model.unread(message)
    assert HELD not in message.__dict__ and UNREAD not in message.__dict__
    assert held_lines.held_line(message) is None
