"""A tool result separated from its call by other messages.

## What it does
Finds a tool result that answers a call in an earlier message, with a message between
them that is not a tool result: typically an approval-resumed result that was appended
after the user's next message. Results are paired by ordered occurrence, so a displaced
result is not an orphan.

## Why it breaks a replay
OpenAI Chat Completions needs every tool message directly after the assistant message
with the calls: `An assistant message with 'tool_calls' must be followed by tool
messages responding to each 'tool_call_id'.`; Anthropic needs the results at the start of
the very next message (`tool_use ids were found without tool_result blocks immediately
after`); Gemini needs the response turn right after the call turn. The OpenAI Responses
API pairs by call id anywhere, so there it is only a matter of style (a warning), and
system or developer messages between a call and its output (Codex's approval notices)
are no displacement at all (profile `instructions_between_results`). Anthropic and
Gemini merge consecutive messages of one role (profile `merges_same_role`): there calls
in back-to-back assistant messages answered together by the message after them are in
place, and are not reported.

## Example
`assistant(call) → user("By the way…") → tool(result)`, the shape Microsoft.Extensions.AI
stored before dotnet/extensions#7617.

## Fix
Move the result (its whole message when it holds nothing else) to just before the
trailing messages: directly after the message with the call and after any results
already there. The trailing messages keep their order. The landing place is found once
the moved results are taken out, so results of calls in one batch (parallel Responses
items, sequential calls whose results all came late) land together, in call order, and
none is lost.

## Fix safety
Safe: nothing is added or deleted; only the order changes.

## References
- `histnorm/behaviours/approvals.py` (`reslot_approval_results`): approval-resumed
  results go before the caller's trailing messages; its cases in
  `tests/test_behaviour_approvals.py`.
- `histnorm/profile_evidence.py`: why HN008 is a warning under `openai-responses`, and
  the evidence of `merges_same_role`, listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from histnorm.analysis.context import Context
from histnorm.analysis.outline import APPROVALS, RESULTS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyTranscript, is_result_only, rewrite, turn_end, turn_ends
from histnorm.lazy import model
from histnorm.pairing import Position, pair_transcript
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, nth, outline_part_at
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript


def displaced(transcript: AnyTranscript) -> list[tuple[Position, Position]]:
    """(result, call) pairs with a message between them that is not a result message.

    A result in the message right after its call's block is in place, even when that
    message also holds other content (Anthropic results live in user messages)."""
    pairs = pair_transcript(transcript).result_calls.items()
    apart = [(result, call) for result, call in pairs if result[0] - 1 > call[0]]
    if not apart:  # every result is in the message right after its call's
        return []
    end = turn_ends(transcript)
    return sorted((result, call) for result, call in apart if result[0] - 1 > end(call[0]))


def _run_end(transcript: AnyTranscript, index: int) -> int:
    """The last message of the run of same-role messages that message `index` is in."""
    messages, end = transcript.messages, index
    while end + 1 < len(messages) and messages[end + 1].role_is(messages[index].role):
        end += 1
    return end


def merged_in_place(transcript: AnyTranscript, result: Position, call: Position) -> bool:
    """Whether `result` sits in the message after its call once same-role neighbours are
    merged into one message, as Anthropic and Gemini do: in the run of messages right
    after the call's run, with only result messages before it in that run."""
    messages = transcript.messages
    start = _run_end(transcript, call[0]) + 1
    if start >= len(messages) or not start <= result[0] <= _run_end(transcript, start):
        return False
    return all(is_result_only(messages[i]) for i in range(start, result[0]))


def only_instructions_between(transcript: AnyTranscript, result: Position, call: Position) -> bool:
    """Whether only system or developer messages (and results) sit between the call's
    block and `result`."""
    messages = transcript.messages
    return all(
        messages[i].role_is("system", "developer") or is_result_only(messages[i])
        for i in range(turn_end(transcript, call[0]) + 1, result[0])
    )


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every result that does not sit in the result block after its call."""
    outline = context.outline
    merges = context.profile.merges_same_role
    instructions = context.profile.instructions_between_results
    for result, call in displaced(outline):
        if merges and merged_in_place(outline, result, call):
            continue
        if instructions and only_instructions_between(outline, result, call):
            continue
        between = result[0] - turn_end(outline, call[0]) - 1
        yield RULE.diagnostic(
            f"{describe(outline_part_at(outline, result))} answers a call in "
            f"{nth(outline, call[0])}, "
            f"but {between} other message{'s come' if between != 1 else ' comes'} between them",
            message_index=result[0],
            part_index=result[1],
            fix_title=f"move the result to just after {nth(outline, call[0])}",
            data=call,
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Move each displaced result into the result block after its call.

    The block is found in what stays once the moved results are taken out, so a result
    that itself moves never serves as the landing place of another, and calls of one
    batch that share a block receive their results together, in call order."""
    targets: dict[Position, int] = {
        (d.location.message_index or 0, d.location.part_index or 0): d.data[0] for d in diagnostics
    }
    moved: dict[int, list[Message]] = {}
    staying: list[Message] = []
    origin: dict[int, int] = {}
    """Original index of each message that stays (position in `staying` → index)."""
    named: dict[int, dict[int, int]] = {}  # the targets of each message's parts that move
    for (mi, pi), target in targets.items():
        named.setdefault(mi, {})[pi] = target
    for mi, message in enumerate(transcript.messages):
        mine = named.get(mi)
        if mine is None:  # nothing of it moves
            origin[len(staying)] = mi
            staying.append(message)
            continue
        goes = {pi: mine[pi] for pi in range(len(message.parts)) if pi in mine}
        if len(goes) == len(message.parts) and len(set(goes.values())) == 1:
            moved.setdefault(next(iter(goes.values())), []).append(message)
            continue
        by_target: dict[int, list[Part]] = {}
        for pi, target in goes.items():
            by_target.setdefault(target, []).append(message.parts[pi])
        for target, parts in by_target.items():
            clone = model.Message(role=message.role, parts=tuple(parts), metadata=message.metadata)
            moved.setdefault(target, []).append(clone)
        rest = tuple(p for pi, p in enumerate(message.parts) if pi not in goes)
        if goes and not rest:
            continue
        origin[len(staying)] = mi
        staying.append(message if not goes else message.evolve(parts=rest))
    remaining = transcript.evolve(messages=tuple(staying))
    at = {mi: i for i, mi in origin.items()}
    inserts: dict[int, list[Message]] = {}
    for call in sorted(moved):
        inserts.setdefault(turn_end(remaining, at[call]), []).extend(moved[call])
    result: Transcript = rewrite(remaining, insert_after=inserts)
    return result


_BAD = [
    {"role": "user", "content": "Delete /tmp/x"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "rm", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "By the way, keep it short."},
    {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
]
_MEAI_BAD = [
    {"role": "user", "contents": [{"$type": "text", "text": "Delete /tmp/x"}]},
    {
        "role": "assistant",
        "contents": [
            {
                "$type": "functionCall",
                "callId": "call_1",
                "name": "rm",
                "arguments": {"path": "/tmp/x"},
            }
        ],
    },
    {"role": "user", "contents": [{"$type": "text", "text": "By the way, keep it short."}]},
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "call_1", "result": "ok"}]},
]

_RESPONSES_BAD = [
    {"type": "message", "role": "user", "content": "Weather in Oslo, and book a table?"},
    {"type": "function_call", "call_id": "call_w", "name": "get_weather", "arguments": "{}"},
    {"type": "function_call", "call_id": "call_b", "name": "book_table", "arguments": "{}"},
    {"type": "message", "role": "user", "content": "Any news?"},
    {"type": "function_call_output", "call_id": "call_w", "output": "4 C"},
    {"type": "function_call_output", "call_id": "call_b", "output": "booked, ref 7731"},
]

RULE = Rule(
    code="HN008",
    name="displaced-tool-result",
    summary="a tool result is separated from its call by other messages",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=RESULTS | APPROVALS,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], _BAD[1], _BAD[3], _BAD[2]],
            title="an approval-resumed result after a trailing message",
        ),
        Example(
            bad=_MEAI_BAD,
            good=[_MEAI_BAD[0], _MEAI_BAD[1], _MEAI_BAD[3], _MEAI_BAD[2]],
            format="meai",
            title="the same shape as Microsoft.Extensions.AI stored it",
        ),
        Example(
            bad=_RESPONSES_BAD,
            good=[*_RESPONSES_BAD[:3], *_RESPONSES_BAD[4:], _RESPONSES_BAD[3]],
            format="openai-responses",
            title="the outputs of parallel calls land together after the batch",
        ),
    ),
)
