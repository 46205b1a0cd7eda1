"""The one representation test: a codec's outline equals the outline of what it decodes.

`codec.outline(v) == outline_of(codec.decode(v))` (`outline_helpers.check_outline`) for
every fixture, transcripts drawn by the benchmark corpus generator and odd values;
`tests/test_fast_path.py` holds it on fuzzed damage too. A value the fast reader takes
must decode; pairing the outline pairs exactly as the model does.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from outline_helpers import FAST, SAMPLES, check_outline, check_written, generated

import histnorm
from histnorm.analysis.outline import (
    EMPTY_TEXT,
    PARTIAL,
    TEXT,
    UNKNOWN_ROLE,
    Call,
    Other,
    Outline,
    Result,
    Step,
)
from histnorm.formats import CODECS, outline_of
from histnorm.model import Message, TextPart, ToolCallPart, ToolResultPart, Transcript
from histnorm.pairing import pair_transcript


@pytest.mark.parametrize(("fmt", "where", "value"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_outline_is_the_decoded_outline(fmt: str, where: str, value: Any) -> None:
    check_outline(fmt, where, value)


@pytest.mark.parametrize(
    "value",
    [
        [{"role": ["user"], "content": "hi"}],
        [{"role": "user", "content": "hi", "name": ["x"]}],
        [{"role": "user", "content": " \n"}, {"role": "assistant", "content": ""}],
        [{"role": "developer", "content": "x"}, {"role": "Tool", "content": "x"}],
        [{"role": "tool", "content": "x"}, {"role": "function", "content": "x"}],
        [{"role": "system", "content": ["x"]}, {"role": "model", "content": "x"}],
        [{"from": "human", "value": " "}, {"from": "GPT", "value": "x"}],
        [{"from": "bot", "value": "x"}, {"from": "system", "value": "", "weight": 0}],
        [{"role": "assistant", "tool_calls": [{"id": ["c"], "function": {}}]}],
        [["user", "hi"]],
        {"messages": None},
        None,
        42,
    ],
)
@pytest.mark.parametrize("fmt", sorted(CODECS))
def test_odd_values_outline_or_raise(fmt: str, value: Any) -> None:
    """Odd values give the decoded outline or a `HistnormError`, in every codec."""
    check_outline(fmt, f"{fmt}: {value!r}", value)


@pytest.mark.parametrize("fmt", FAST)
def test_the_fast_reader_takes_the_clean_corpus(fmt: str) -> None:
    """The lint hot path reads most clean generated transcripts without a model."""
    values = generated(fmt, 0.0, 3, 60)
    taken = [v for v in values if CODECS[fmt].read_outline(v) is not None]
    assert len(taken) >= 0.9 * len(values), f"{fmt}: only {len(taken)}/{len(values)}"


def test_outline_of_a_model() -> None:
    """Part indices are the model's; flags say what the parts do not show."""
    transcript = Transcript(
        messages=(
            Message(role="user", parts=(TextPart(text="hi"), TextPart(text=" "))),
            Message(
                role="Assistant",
                id="m1",
                parts=(ToolCallPart(call_id="c1", name="ls"),),
                metadata={"agent_framework.partial_response": True},
            ),
            Message(role="tool", parts=(ToolResultPart(call_id="c1"),)),
        )
    )
    found = outline_of(transcript)
    assert found.messages == (
        Step("user", (TEXT, Other("text", True))),
        Step("Assistant", (Call("c1", "ls"),), PARTIAL, "m1"),
        Step("tool", (Result("c1", None),)),
    )
    assert found.messages[1].is_partial and found.messages[1].role_is("assistant")
    assert found.all_flags() & EMPTY_TEXT and found.all_flags() & PARTIAL
    assert Call("c1", None) != Result("c1", None)  # kinds never compare equal


def test_a_copy_with_other_messages_gets_its_own_outline_and_pairing() -> None:
    call = ToolCallPart(call_id="c1", name="ls", arguments="{}")
    transcript = Transcript(
        format="openai-chat",
        messages=(
            Message(role="user", parts=(TextPart(text="list"),)),
            Message(role="assistant", parts=(call,)),
            Message(role="tool", parts=(ToolResultPart(call_id="c1", content="a b"),)),
            Message(role="user", parts=(TextPart(text="thanks"),)),
        ),
    )
    assert histnorm.lint(transcript) == ()  # the outline and the pairing are now kept
    dropped = transcript.model_copy(
        update={"messages": transcript.messages[:2] + transcript.messages[3:]}
    )
    assert [d.code for d in histnorm.lint(dropped)] == ["HN001"]
    assert pair_transcript(dropped).unmatched_calls
    assert outline_of(dropped) != outline_of(transcript)


MARKING = sorted(
    {"agent-framework", "anthropic", "bedrock-converse", "chat-template", "meai"}
    | {"codex", "openai-chat", "openai-responses", "pydantic-ai", "semantic-kernel"}
    | {"vercel-ai"}
)


@pytest.mark.parametrize("fmt", MARKING)
def test_the_writer_decodes_no_message_it_read(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A message a fix left alone is written as its native value without decoding it
    again: the reader marked it (`histnorm.formats.base.decoded`), and the writer's
    `reuse_native` answers from that mark."""
    from histnorm.formats import base

    samples = [value for f, _, value in SAMPLES if f == fmt]
    assert samples, fmt
    codec = CODECS[fmt]
    checked = 0
    asked: list[object] = []
    real = base.strict_equal
    for value in samples:
        try:
            transcript = codec.decode(value)
        except histnorm.HistnormError:
            continue
        asked.clear()
        monkeypatch.setattr(base, "strict_equal", lambda a, b: asked.append(b) or real(a, b))
        codec.encode(transcript)
        monkeypatch.setattr(base, "strict_equal", real)
        messages = {id(m) for m in transcript.messages}
        assert not [m for m in asked if id(m) in messages], "a read message was decoded again"
        checked += sum(m.native is not None for m in transcript.messages)
    assert checked


def _edited(fmt: str) -> Iterator[tuple[str, Transcript, Transcript]]:
    """For each sample of `fmt` that decodes: where it is from, the transcript, and two
    edits of it that keep some of its messages: what `fix` makes of it, and it without
    its first message."""
    from histnorm.engine import fix

    codec = CODECS[fmt]
    for where, value in [(w, v) for f, w, v in SAMPLES if f == fmt]:
        try:
            transcript = codec.decode(value)
        except histnorm.HistnormError:
            continue
        yield where, transcript, fix(transcript).transcript
        yield where, transcript, transcript.evolve(messages=transcript.messages[1:])


@pytest.mark.parametrize("fmt", MARKING)
def test_a_fixed_transcript_is_read_back_as_decoding_reads_it(fmt: str) -> None:
    """The conservation check reads a fixed transcript's encoding back with the messages
    the fix left alone at hand (`Codec.decode_written`): that equals decoding it, and
    takes the messages left alone as they are."""
    codec = CODECS[fmt]
    kept = 0
    for where, transcript, edited in _edited(fmt):
        check_written(codec, edited, where)
        try:
            again = codec.decode_written(codec.encode(edited), edited)
        except histnorm.HistnormError:
            continue
        read = {id(m) for m in transcript.messages}
        kept += sum(id(m) in read for m in again.messages)
    assert kept, "no message left alone was taken as it is"


def test_a_claude_code_line_written_as_read_is_not_decoded_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Claude Code's conservation check and read-back read a fixed session's lines with
    the session as read at hand (`Codec.decode_written`): that equals decoding them, the
    parts of a line the fix left alone are the very parts it was read as, a message whose
    lines and parts the fix left alone is the very message, and the tree of the lines is
    the one the writer read them as to check them, not worked out again."""
    import histnorm.formats.claude_code as claude_code

    codec = CODECS["claude-code"]
    kept = reused = whole = 0
    analysed: list[object] = []
    real = claude_code.analyse
    for where, transcript, edited in _edited("claude-code"):
        check_written(codec, edited, where)
        try:
            encoded = codec.encode(edited)
        except histnorm.HistnormError:
            continue
        monkeypatch.setattr(
            claude_code, "analyse", lambda lines: analysed.append(lines) or real(lines)
        )
        again = codec.decode_written(encoded, edited)
        monkeypatch.setattr(claude_code, "analyse", real)
        if claude_code._WRITTEN_SESSION in edited.__dict__:  # the writer read them back
            assert not analysed, f"{where}: the written lines were analysed again"
            reused += 1
        analysed.clear()
        read = {id(p) for m in transcript.messages for p in m.parts}
        kept += sum(id(p) in read for m in again.messages for p in m.parts)
        messages = {id(m) for m in transcript.messages}
        whole += sum(id(m) in messages for m in again.messages)
    assert kept, "no part of a line left alone was taken as it is"
    assert whole, "no message left alone was taken as it is"
    assert reused, "no written session was read as the writer read it"


@pytest.mark.parametrize("fmt", sorted({f for f, _, _ in SAMPLES}))
def test_a_step_kept_on_a_message_is_its_step(fmt: str) -> None:
    """The outline of an edited transcript takes the steps of the messages the edit left
    alone from those messages (`build_outline` keeps them), and equals the outline built
    afresh (of a deep copy, whose messages keep nothing that holds for them)."""
    codec = CODECS[fmt]
    shared = 0
    for where, transcript, edited in _edited(fmt):
        outline_of(transcript)
        fresh = codec.outline_of(edited.model_copy(deep=True))
        assert codec.outline_of(edited) == fresh, where
        shared += len({id(m) for m in transcript.messages} & {id(m) for m in edited.messages})
    assert shared


@pytest.mark.parametrize("fmt", sorted(FAST))
def test_the_steps_a_reader_read_are_kept_on_the_messages_decoded(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript decoded from a value its fast reader read takes that reader's steps
    as its messages' own (`seed_read`): the outline of a transcript an edit makes of it
    builds steps only for the messages the edit made, and equals the outline built
    afresh."""
    import histnorm.analysis.outline as outline_module
    from histnorm.formats import seed_read

    codec = CODECS[fmt]
    seeded = 0
    real = outline_module.outline_part
    built: list[object] = []
    monkeypatch.setattr(outline_module, "outline_part", lambda p: built.append(p) or real(p))
    for where, value in [(w, v) for f, w, v in SAMPLES if f == fmt]:
        read = codec.read_outline(value)
        if read is None:
            continue
        transcript = seed_read(codec.decode(value), read, value)
        if len(transcript.messages) < 2:
            continue
        edited = transcript.evolve(messages=transcript.messages[1:])
        built.clear()
        assert codec.outline_of(edited) == codec.outline_of(edited.model_copy(deep=True))
        assert len(built) == sum(len(m.parts) for m in edited.messages), where  # the copy's
        seeded += 1
    assert seeded


def test_a_sharegpt_turn_written_as_read_is_written_so_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """ShareGPT's writer marks a message it wrote as its own native turn, and answers from
    the mark when it writes that message again: every encoding of a fixed or shortened
    transcript equals the encoding of a deep copy (whose messages hold no mark), and a
    message left alone that was written as read is not encoded again (under the same tags
    and style)."""
    from histnorm.formats import sharegpt

    codec = CODECS["sharegpt"]
    again = 0
    real = sharegpt.encode_turns
    encoded: list[int] = []
    monkeypatch.setattr(
        sharegpt, "encode_turns", lambda m, *rest: encoded.append(id(m)) or real(m, *rest)
    )
    for where, transcript, edited in _edited("sharegpt"):
        codec.encode(transcript)
        encoded.clear()
        written = codec.encode(edited)
        assert written == codec.encode(edited.model_copy(deep=True)), where
        kept = {id(m) for m in transcript.messages} & {id(m) for m in edited.messages}
        left_alone = {
            id(m)
            for m in edited.messages
            if id(m) in kept and m.__dict__.get(sharegpt._AS_READ, (None,))[0] == id(m)
        }
        if sharegpt._tags_and_style(edited) == sharegpt._tags_and_style(transcript):
            assert not left_alone & set(encoded), where
        again += len(left_alone)
    assert again


def test_sharegpt_reads_its_codecs_roles() -> None:
    """The ShareGPT reader leaves the flags of a turn of another role to `all_flags`, by
    the roles its codec knows."""
    from histnorm.formats.sharegpt import outline

    assert CODECS["sharegpt"].known_roles == outline._ROLES


def test_the_flags_kept_for_one_set_of_roles_are_not_given_for_another() -> None:
    """`all_flags` keeps its answer for the roles it was asked with: a role outside
    them is `UNKNOWN_ROLE`, and asking with other roles (or none) works it out again."""
    found = Outline((Step("user", (TEXT,)), Step("narrator", (TEXT,))), "openai-chat")
    known = frozenset({"user", "assistant"})
    assert not found.all_flags() & UNKNOWN_ROLE
    assert found.all_flags(known) & UNKNOWN_ROLE
    assert found.all_flags(known) & UNKNOWN_ROLE  # the kept answer
    assert not found.all_flags() & UNKNOWN_ROLE
    assert found.all_flags(frozenset({"user", "narrator"})) == found.all_flags()


@pytest.mark.parametrize("fmt", ["chat-template", "sharegpt"])
def test_the_reader_gathers_tool_parts_and_flags_as_it_reads(fmt: str) -> None:
    """Asking for the tool parts or the flags of a fast outline walks it no more: the
    reader gathered them (the representation test holds them to a walk's)."""
    values = generated(fmt, 0.0, 7, 30)
    outlines = [o for o in map(CODECS[fmt].read_outline, values) if o is not None]
    assert any(o.tool_parts() for o in outlines)
    for found in outlines:
        assert found._tool_parts is not None
        assert found.seen is not None


def test_a_reader_that_sees_a_result_of_items_does_not_rule_images_out() -> None:
    """OpenAI Chat: text content rules images out, unless a tool message's content is a
    list of items, where the media checks look for images."""
    codec = CODECS["openai-chat"]
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    asked = [{"role": "user", "content": "hi"}, {"role": "assistant", "tool_calls": [call]}]
    text = codec.read_outline([*asked, {"role": "tool", "tool_call_id": "c1", "content": "x"}])
    items = [{"type": "text", "text": "x"}]
    listed = codec.read_outline([*asked, {"role": "tool", "tool_call_id": "c1", "content": items}])
    assert text is not None and text.imageless
    assert listed is not None and not listed.imageless
