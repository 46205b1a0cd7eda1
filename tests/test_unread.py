"""Messages built unread are what decoding them at once gives.

When a message-list codec's fast reader has read a history (or the Codex codec's, a
rollout), `Codec.decode_read` builds each message unread
(`histnorm.model.unread_message`): it holds its native value and is decoded the first
time anything else of it is asked for. A fix then builds the parts only of the messages
it looks into. These tests hold an unread message to the decoded one in every way it can
be looked at, hold lint, fix and `repair()` to what they give when every message is
decoded at once, and show that a fix leaves the messages it does not look into unread.
"""

from __future__ import annotations

import copy
import pickle

import orjson
import pytest
from outline_helpers import SAMPLES

import histnorm
from histnorm import model
from histnorm.analysis.outline import Outline
from histnorm.document import fix_document, lint_document
from histnorm.edit import dropped_answers
from histnorm.formats import CODECS, seed_read
from histnorm.formats.base import Codec, MessageListCodec, reads_as
from histnorm.formats.codex import CodexCodec
from histnorm.formats.openai_responses.items import decode_item
from histnorm.model import Transcript, unread
from histnorm.model_terms import REUSE
from histnorm.settings import Settings

FIELDS = tuple(model.Message.model_fields)
READERS = (MessageListCodec, CodexCodec)
"""The codecs that build messages unread (`Codec.decode_read`)."""


def _read_samples() -> list[tuple[str, str, object, Outline]]:
    found = []
    for fmt, where, value in SAMPLES:
        codec = CODECS[fmt]
        if not isinstance(codec, READERS):
            continue
        outline = codec.read_outline(value)
        if outline is not None:
            found.append((fmt, where, value, outline))
    return found


READ = _read_samples()


def _pair(fmt: str, value: object, outline: Outline) -> tuple[Transcript, Transcript]:
    codec = CODECS[fmt]
    return codec.decode_read(value, outline), codec.decode(value)


def _same_fields(message: model.Message, decoded: model.Message) -> bool:
    """Equal fields in the same order, each the same type (the `__dict__` as decoded)."""
    mine = [(k, v) for k, v in message.__dict__.items() if k in FIELDS]
    theirs = [(k, v) for k, v in decoded.__dict__.items() if k in FIELDS]
    return mine == theirs and message.__pydantic_fields_set__ == decoded.__pydantic_fields_set__


def test_every_codec_that_reads_unread_is_covered_by_the_samples() -> None:
    formats = {fmt for fmt, *_ in READ}
    readers = {
        name
        for name, codec in CODECS.items()
        if isinstance(codec, READERS) and type(codec).read_outline is not Codec.read_outline
    }
    assert formats == readers
    assert len(READ) > 200


def test_an_unread_transcript_is_the_decoded_one() -> None:
    for fmt, where, value, outline in READ:
        lazy, eager = _pair(fmt, value, outline)
        assert all(map(unread, lazy.messages)), where
        assert [m.native for m in lazy.messages] == [m.native for m in eager.messages]
        assert lazy == eager, where  # comparing reads every message
        for message, decoded in zip(lazy.messages, eager.messages, strict=True):
            assert not unread(message)
            assert _same_fields(message, decoded), where
            assert repr(message) == repr(decoded)
        assert lazy.model_dump_json() == eager.model_dump_json(), where


@pytest.mark.parametrize(
    "look",
    [
        pytest.param(lambda m: m.parts, id="a field"),
        pytest.param(lambda m: m.role_is("user"), id="a method"),
        pytest.param(lambda m: m.is_partial, id="a property"),
        pytest.param(lambda m: m.model_dump(), id="model_dump"),
        pytest.param(lambda m: m.model_dump_json(), id="model_dump_json"),
        pytest.param(lambda m: m.model_copy(update={"id": "x"}), id="model_copy"),
        pytest.param(lambda m: m.evolve(id="x"), id="evolve"),
        pytest.param(copy.copy, id="copy"),
        pytest.param(copy.deepcopy, id="deepcopy"),
        pytest.param(lambda m: pickle.loads(pickle.dumps(m)), id="pickle"),
        pytest.param(lambda m: dict(m), id="iter"),
        pytest.param(repr, id="repr"),
        pytest.param(lambda m: m.model_fields_set, id="model_fields_set"),
    ],
)
def test_each_way_of_looking_at_a_message_gives_what_the_decoded_one_gives(look) -> None:
    for fmt, where, value, outline in READ[:: max(1, len(READ) // 60)]:
        lazy, eager = _pair(fmt, value, outline)
        for message, decoded in zip(lazy.messages, eager.messages, strict=True):
            assert unread(message)
            mine, theirs = look(message), look(decoded)
            if isinstance(mine, model.Message):
                assert _same_fields(mine, theirs), where
                assert not unread(mine)
            else:
                assert mine == theirs, where
            assert not unread(message)
            assert _same_fields(message, decoded), where


def test_a_hash_is_asked_of_the_decoded_message() -> None:
    fmt, _, value, outline = READ[0]
    lazy, eager = _pair(fmt, value, outline)
    message, decoded = lazy.messages[0], eager.messages[0]
    with pytest.raises(TypeError):  # its metadata is a dict, as for the decoded one
        hash(decoded)
    with pytest.raises(TypeError):
        hash(message)
    assert not unread(message)


def test_a_transcript_dumps_and_pickles_its_unread_messages_read() -> None:
    fmt, _, value, outline = next(r for r in READ if len(r[3].messages) > 2)
    lazy, eager = _pair(fmt, value, outline)
    assert lazy.model_dump() == eager.model_dump()
    lazy, _ = _pair(fmt, value, outline)
    assert pickle.loads(pickle.dumps(lazy)) == eager
    assert not any(map(unread, lazy.messages))


SETTINGS = {
    "default": Settings(),
    "anthropic": Settings(profile="anthropic"),
    "portable, unsafe": Settings(profile="portable", unsafe_fixes=True),
}


def _results(value: object, fmt: str, settings: Settings) -> tuple[object, ...]:
    data = orjson.dumps(value)
    line = data + b"\n"
    found = (
        lint_document(data, format=fmt, settings=settings),
        fix_document(data, format=fmt, settings=settings),
        lint_document(line, path_hint="x.jsonl", settings=settings),
        fix_document(line, path_hint="x.jsonl", settings=settings),
        histnorm.repair(copy.deepcopy(value), format=fmt, settings=settings),
    )
    if not isinstance(value, list) or not value:
        return found
    lines = b"".join(orjson.dumps(item) + b"\n" for item in value)  # a message a line
    options = {"format": fmt, "jsonl_mode": "message", "path_hint": "x.jsonl"}
    return (
        *found,
        lint_document(lines, settings=settings, **options),
        fix_document(lines, settings=settings, **options),
    )


def _decoded_at_once(codec: Codec, data: object, outline: Outline | None) -> Transcript:
    return codec.decode(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(SETTINGS))
def test_lint_fix_and_repair_give_what_they_give_with_every_message_decoded(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = SETTINGS[name]
    third = list(SETTINGS).index(name)  # every fixture; a third of the corpus under each
    for i, (fmt, where, value, _) in enumerate(READ):
        if where.startswith("corpus") and i % 3 != third:
            continue
        monkeypatch.undo()
        found = _results(value, fmt, settings)
        for reader in READERS:
            monkeypatch.setattr(reader, "decode_read", _decoded_at_once)
        assert found == _results(value, fmt, settings), f"{where} ({fmt}, {name})"


def _damaged() -> list[dict[str, object]]:
    return [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Weather in Oslo and Paris?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "w", "arguments": "{}"}},
                {"id": "b", "type": "function", "function": {"name": "w", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "a", "content": "7 °C"},
        {"role": "tool", "tool_call_id": "a", "content": "7 °C"},
        {"role": "user", "content": "Thanks."},
    ]


def test_a_fix_reads_only_the_messages_it_looks_into(monkeypatch: pytest.MonkeyPatch) -> None:
    """The orphan call and the duplicate result are fixed; the system message and the
    user turns are never read."""
    made: list[Transcript] = []
    real = MessageListCodec.decode_read

    def spy(self: MessageListCodec, data: object, outline: Outline | None) -> Transcript:
        made.append(real(self, data, outline))  # type: ignore[arg-type]
        return made[-1]

    monkeypatch.setattr(MessageListCodec, "decode_read", spy)
    done = histnorm.repair(_damaged())
    assert done.applied == {"HN001": 1, "HN010": 1}
    assert len(made) == 1
    assert [unread(m) for m in made[0].messages] == [True, True, False, False, False, True]


def test_a_result_kept_in_an_unread_message_is_not_counted_dropped() -> None:
    value = _damaged()[:4]
    value[2]["tool_calls"] = value[2]["tool_calls"][:1]  # type: ignore[index]
    codec = CODECS["openai-chat"]
    outline = codec.read_outline(value)
    before = seed_read(codec.decode_read(value, outline), outline, value)
    after = before.model_copy(update={"messages": before.messages[:1] + before.messages[1:]})
    assert dropped_answers(before, after) == 0
    assert all(map(unread, before.messages))
    without = before.model_copy(update={"messages": before.messages[:3]})
    assert dropped_answers(before, without) == 1


@pytest.mark.parametrize(
    "value",
    [
        [{"role": "user", "content": "hi"}],
        [{"role": "user", "content": float("nan")}],  # written as null: not JSON data
        [{"role": "user", "content": 1e400}],  # inf, the same
        {"messages": [{"role": "user", "content": [1, 2.5, True, None]}]},
    ],
)
def test_plain_given_the_serialised_value_answers_as_without_it(value: object) -> None:
    """`repair()` hands `plain` the JSON it wrote of the value: the answer is the same."""
    from histnorm.jsonio import Compact
    from histnorm.plain import plain
    from histnorm.repair import _JSON_ONLY, _refuse

    raw = Compact(orjson.dumps(value, default=_refuse, option=_JSON_ONLY))
    given, alone = plain(value, raw), plain(value)
    assert repr(given[0]) == repr(alone[0])
    assert (given[0] is value) == (alone[0] is value)
    assert [repr(kept) for kept in given[1].values()] == [repr(kept) for kept in alone[1].values()]


def _rollout() -> list[dict[str, object]]:
    """A Codex rollout whose second call no output answers (HN001) and whose first output
    is written twice (HN010's duplicate), around an event that cites the first call."""

    def item(payload: dict[str, object]) -> dict[str, object]:
        return {
            "timestamp": "2026-07-14T09:50:02.000Z",
            "type": "response_item",
            "payload": payload,
        }

    def call(call_id: str) -> dict[str, object]:
        arguments = '{"command":"ls"}'
        return item(
            {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}
        )

    def text(role: str, kind: str, said: str) -> dict[str, object]:
        return item({"type": "message", "role": role, "content": [{"type": kind, "text": said}]})

    output = item({"type": "function_call_output", "call_id": "c1", "output": "a b"})
    return [
        {"timestamp": "2026-07-14T09:50:00.000Z", "type": "session_meta", "payload": {"id": "s"}},
        text("user", "input_text", "List the files, then the folders."),
        call("c1"),
        output,
        output,
        {
            "timestamp": "2026-07-14T09:50:03.000Z",
            "type": "event_msg",
            "payload": {"type": "exec_command_end", "call_id": "c1"},
        },
        call("c2"),
        text("user", "input_text", "Thanks."),
        text("assistant", "output_text", "You are welcome."),
    ]


def test_a_fix_of_a_rollout_reads_only_the_lines_it_looks_into(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The duplicate output and the orphan call are fixed; the user turns, the answer and
    the first call are never decoded, and their lines are written as read."""
    made: list[Transcript] = []
    real = CodexCodec.decode_read

    def spy(self: CodexCodec, data: object, outline: Outline | None) -> Transcript:
        made.append(real(self, data, outline))
        return made[-1]

    monkeypatch.setattr(CodexCodec, "decode_read", spy)
    lines = [orjson.dumps(line) for line in _rollout()]
    done = fix_document(b"\n".join(lines) + b"\n", path_hint="rollout.jsonl")
    assert dict(done.applied) == {"HN001": 1, "HN010": 1}
    assert len(made) == 1
    assert [unread(m) for m in made[0].messages] == [True, True, False, False, False, True, True]
    assert done.output is not None
    written = done.output.splitlines()
    assert written[:4] == lines[:4] and written[-2:] == lines[-2:]
    assert lines[6] not in written  # the orphan call's line, dropped


def test_an_unread_message_reads_as_its_decoder_with_no_mark_of_its_own() -> None:
    """An unread message is known to be what its decoder makes of its native value without
    a mark of its own (one dict less for each message of a long session); read, it is
    marked so, and a copy made of it is not."""
    fmt, where, value, outline = next(r for r in READ if r[0] == "openai-chat")
    codec = CODECS[fmt]
    assert isinstance(codec, MessageListCodec)
    decoder = codec.message_decoder
    message = codec.decode_read(value, outline).messages[0]
    assert REUSE not in message.__dict__, where
    assert reads_as(message, decoder) and not reads_as(message, decode_item)
    assert message.parts is not None and not unread(message)
    assert reads_as(message, decoder)
    assert message.__dict__[REUSE] == {decoder: (id(message), True)}
    assert not reads_as(message.model_copy(update={"id": "x"}), decoder)
