"""Properties of lint and fix on generated transcripts with defects mixed in.

Transcripts come from `tests/strategies.py`: built in the canonical model, written to
native `openai-chat` or `meai` JSON and read back, so every property runs on decoded
transcripts. Each example draws one transcript per format (drawing the format instead
leaves MEAI, with its approvals and hosted calls, badly under-sampled).
"""

from __future__ import annotations

import copy
from typing import Any

import orjson
from hypothesis import HealthCheck, example, given, settings
from strategies import closing_settings, fix_settings, transcripts

import histnorm
from histnorm.diagnostic import Severity
from histnorm.edit import block_end
from histnorm.engine import fix_allowed
from histnorm.model import ToolCallPart, ToolFamily, ToolResultPart, Transcript
from histnorm.pairing import group, pair_transcript

PROPERTY = settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
CHAT = transcripts(("openai-chat",))
MEAI = transcripts(("meai",))
HOSTED = (ToolFamily.HOSTED, ToolFamily.MCP)


# Counterexamples found by these properties (kept as explicit examples).
HELLO = histnorm.load([{"role": "user", "content": "hi"}], format="openai-chat")
HOSTED_SYNTHESIZE_CYCLE = histnorm.load(
    [
        {"role": "assistant", "contents": [{"$type": "codeInterpreterToolCall", "callId": "ci"}]},
        {"role": "user", "contents": [{"$type": "text", "text": "Never mind."}]},
    ],
    format="meai",
)
"""`orphan_tool_call="synthesize"` on a hosted call: `FixDidNotConverge` (a cycle)."""
SYNTHESIZE = histnorm.Settings(orphan_tool_call="synthesize")
SYNTHESIZE_CLOSED = histnorm.Settings(
    orphan_tool_call="synthesize", tail="close", unsafe_fixes=True
)


def dumps(value: Any) -> bytes:
    return orjson.dumps(value)


def semantic(transcript: Transcript) -> list[Any]:
    """What a transcript says, without native values, slots, or what its format cannot hold.

    Neither format has a place for `is_error`; tool types are compared by pairing group
    (the codec chooses the native type), and results by group only (a MEAI result has no
    name, so it cannot say it answers a handoff). OpenAI Chat also writes each tool result
    as its own message (role `tool`, or `function` for a legacy result) and has no place
    for part metadata or `informational`.
    """
    meai = transcript.format == "meai"
    out: list[Any] = []
    for message in transcript.messages:
        parts = []
        for part in message.parts:
            data = part.model_dump(mode="json", exclude={"native", "slot", "is_error"})
            if isinstance(part, ToolCallPart):
                data["tool_type"] = group(part)
            if isinstance(part, ToolResultPart):  # results have no name in MEAI: no handoff
                data["tool_type"] = group(part)
                data.pop("family")
                content = data["content"]
                if (  # MEAI hosted and MCP outputs are content lists: a text is wrapped
                    isinstance(content, list)
                    and len(content) == 1
                    and isinstance(content[0], dict)
                    and content[0].get("$type") == "text"
                    and set(content[0]) == {"$type", "text"}
                ):
                    data["content"] = content[0]["text"]
            if not meai:
                data.pop("metadata")
                data.pop("informational", None)
            parts.append(data)
        head: dict[str, Any] = {"role": message.role, "id": message.id}
        head["author"] = message.author_name
        if meai:
            head["metadata"] = message.metadata
        elif parts and all(p["kind"] == "tool_result" for p in parts):
            head["role"] = "tool or function"  # the codec picks it from the result
            out.extend({**head, "parts": [p]} for p in parts)
            continue
        out.append({**head, "parts": parts})
    return out


def is_subsequence(wanted: list[Any], sequence: list[Any]) -> bool:
    items = iter(sequence)
    return all(any(item == w for item in items) for w in wanted)


# --------------------------------------------------------------------------- checks


def check_fix_is_idempotent(transcript: Transcript, options: histnorm.Settings) -> None:
    once = histnorm.fix(transcript, options)
    twice = histnorm.fix(once.transcript, options)
    assert twice.transcript == once.transcript
    assert dict(twice.applied) == {}


def check_nothing_fixable_remains(transcript: Transcript, options: histnorm.Settings) -> None:
    fixed = histnorm.fix(transcript, options)
    if any("(not fixed: " in d.message for d in fixed.remaining):
        # The format's consumers could not load the repair: fix refused it whole and says so.
        assert fixed.transcript == transcript
        return
    left = [d for d in histnorm.lint(fixed.transcript, options) if fix_allowed(d, options)]
    assert left == []
    assert fixed.remaining == histnorm.lint(fixed.transcript, options)


def check_lint_is_deterministic(transcript: Transcript, options: histnorm.Settings) -> None:
    first = histnorm.lint(transcript, options)
    assert histnorm.lint(transcript, options) == first
    assert histnorm.lint(copy.deepcopy(transcript), options) == first
    reread = histnorm.load(histnorm.dump(transcript), format=transcript.format)
    assert histnorm.lint(reread, options) == first


def check_fixed_output_round_trips(transcript: Transcript, options: histnorm.Settings) -> None:
    fixed = histnorm.fix(transcript, options).transcript
    native = histnorm.encode(fixed)
    reread = histnorm.load(dumps(native), format=transcript.format)
    assert dumps(histnorm.encode(reread)) == dumps(native)
    assert semantic(reread) == semantic(fixed)


def check_clean_messages_are_kept(transcript: Transcript, options: histnorm.Settings) -> None:
    flagged = {d.location.message_index for d in histnorm.lint(transcript, options)}
    clean = [m for i, m in enumerate(transcript.messages) if i not in flagged]
    fixed = histnorm.fix(transcript, options).transcript
    assert is_subsequence(clean, list(fixed.messages))


def check_closed_transcript_is_valid(transcript: Transcript, options: histnorm.Settings) -> None:
    fixed = histnorm.fix(transcript, options).transcript
    serious = [
        d for d in histnorm.lint(fixed, options) if d.severity in (Severity.ERROR, Severity.WARNING)
    ]
    assert serious == []
    pairing = pair_transcript(fixed)
    assert not pairing.unmatched_calls
    assert not pairing.orphan_results
    assert not pairing.duplicate_results
    assert not pairing.repeats
    assert not pairing.pending_requests
    messages = fixed.messages
    for mi, message in enumerate(messages):
        for pi, part in enumerate(message.parts):
            if not isinstance(part, ToolCallPart):
                continue
            rmi, rpi = pairing.call_results[(mi, pi)]
            if part.family in HOSTED and rmi == mi:
                assert rpi > pi
            else:
                assert mi < rmi <= block_end(messages, mi), (mi, pi, rmi, rpi)


def check_input_is_not_mutated(transcript: Transcript, options: histnorm.Settings) -> None:
    before = copy.deepcopy(transcript)
    dumped = transcript.model_dump(mode="json")
    native = histnorm.encode(transcript)
    native_bytes = dumps(native)
    histnorm.lint(transcript, options)
    result = histnorm.fix(transcript, options)
    histnorm.encode(result.transcript)
    histnorm.fix(native, options, format=transcript.format)
    histnorm.lint(native, options, format=transcript.format)
    assert transcript == before
    assert transcript.model_dump(mode="json") == dumped
    assert dumps(native) == native_bytes


# --------------------------------------------------------------------------- properties


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE)
def test_fix_never_raises_and_is_idempotent(chat, meai, options):
    check_fix_is_idempotent(chat, options)
    check_fix_is_idempotent(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE)
def test_no_fixable_diagnostic_remains(chat, meai, options):
    check_nothing_fixable_remains(chat, options)
    check_nothing_fixable_remains(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
def test_lint_is_deterministic(chat, meai, options):
    check_lint_is_deterministic(chat, options)
    check_lint_is_deterministic(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE)
def test_fixed_output_re_encodes_and_re_decodes(chat, meai, options):
    check_fixed_output_round_trips(chat, options)
    check_fixed_output_round_trips(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE)
def test_messages_without_diagnostics_keep_content_and_order(chat, meai, options):
    check_clean_messages_are_kept(chat, options)
    check_clean_messages_are_kept(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=closing_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE_CLOSED)
def test_closed_tail_with_unsafe_fixes_leaves_every_call_answered_in_place(chat, meai, options):
    check_closed_transcript_is_valid(chat, options)
    check_closed_transcript_is_valid(meai, options)


@PROPERTY
@given(chat=CHAT, meai=MEAI, options=fix_settings())
@example(chat=HELLO, meai=HOSTED_SYNTHESIZE_CYCLE, options=SYNTHESIZE)
def test_input_is_never_mutated(chat, meai, options):
    check_input_is_not_mutated(chat, options)
    check_input_is_not_mutated(meai, options)
