"""The results of one call turn spread over several messages.

## What it does
Under profiles whose target counts calls and responses per turn (`gemini`, `gemini-3`,
`vertex`, `portable`), finds results that answer one message's calls but sit in more than
one message. The Gemini API merges consecutive contents of one role into one turn
(profile `merges_same_role`), so under `gemini` and `gemini-3` results in consecutive
messages are one response turn; only results with another message between them are
reported there. Vertex AI rejects the split itself.

## Why it breaks a replay
Gemini: `Please ensure that the number of function response parts is equal to the number
of function call parts of the function call turn.` Histories converted from OpenAI Chat,
where each result is its own `tool` message, have this shape: Vertex AI rejects them
(docker/docker-agent#2959), the Gemini API answered 200 to gemini-2.5 (Oaklight/llm-rosetta#300).

## Example
One assistant turn with two calls, answered by two separate tool messages.

## Fix
Merge the consecutive result messages of the turn into the first of them. Formats that
keep each result in a message of its own (OpenAI Chat, chat templates, ShareGPT,
LangChain, TRL, Responses and Codex items) cannot hold the merge: there the split is
reported without a fix; convert the history to the target's format and fix it there.

## Fix safety
Safe: the results are kept, in order; only the message boundaries change.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `equal_call_counts`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import APPROVALS, RESULTS
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyTranscript, rewrite, turn_end
from histnorm.formats import CODECS
from histnorm.pairing import Position, pair_transcript
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript


def _turns(transcript: AnyTranscript, merged: bool) -> list[tuple[int, list[int]]]:
    """(call message, result messages after it) for turns answered by several messages;
    when the target merges consecutive messages of one role (`merged`), only for results
    with another message between them."""
    pairing = pair_transcript(transcript)
    holders: dict[int, set[int]] = {}
    for result, call in pairing.result_calls.items():
        if result[0] != call[0]:
            holders.setdefault(call[0], set()).add(result[0])
    found = []
    for call_message, results in sorted(holders.items()):
        end = turn_end(transcript, call_message)
        block = [i for i in range(call_message + 1, end + 1) if i in results]
        if len(block) > 1 and not (merged and block[-1] - block[0] == len(block) - 1):
            found.append((call_message, block))
    return found


def check(context: Context) -> Iterable[Diagnostic]:
    """Report turns whose results are split over several messages."""
    outline = context.outline
    codec = CODECS.get(outline.format or "")
    apart = codec is not None and codec.one_result_per_message
    for call_message, block in _turns(outline, context.profile.merges_same_role):
        why = (
            f"; {outline.format} keeps each result in a message of its own, so they cannot "
            "be merged here: convert the history to the target's format and fix it there"
            if apart
            else ""
        )
        yield RULE.diagnostic(
            f"the results of the calls in {nth(outline, call_message)} are spread over "
            f"{len(block)} messages; the target expects one response turn{why}",
            message_index=block[1],
            fix_title=None if apart else f"merge them into {nth(outline, block[0])}",
            data=block,
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Merge each turn's result messages into its first one."""
    replace: dict[Position, Sequence[Part]] = {}
    drop: list[int] = []
    for d in diagnostics:
        first, *rest = d.data
        message: Message = transcript.messages[first]
        merged = list(message.parts) + [p for i in rest for p in transcript.messages[i].parts]
        replace[(first, 0)] = merged
        replace.update({(first, pi): () for pi in range(1, len(message.parts))})
        drop.extend(rest)
    return rewrite(transcript, replace=replace, drop_messages=drop)


_CALLS = [
    {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{}"}},
    {"id": "c2", "type": "function", "function": {"name": "time", "arguments": "{}"}},
]
_BAD: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather and time?"}]},
    {
        "role": "assistant",
        "contents": [
            {"$type": "functionCall", "callId": "c1", "name": "weather", "arguments": {}},
            {"$type": "functionCall", "callId": "c2", "name": "time", "arguments": {}},
        ],
    },
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c1", "result": "4 C"}]},
    {"role": "tool", "contents": [{"$type": "functionResult", "callId": "c2", "result": "9:00"}]},
]

RULE = Rule(
    code="HN102",
    name="split-result-turn",
    summary="one turn's tool results are spread over several messages (profiles: gemini, "
    "gemini-3, vertex, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    applies=lambda profile: profile.equal_call_counts,
    needs=RESULTS | APPROVALS,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[
                *_BAD[:2],
                {"role": "tool", "contents": [_BAD[2]["contents"][0], _BAD[3]["contents"][0]]},
            ],
            format="meai",
            settings=Settings(profile="vertex"),
            title="two tool messages become one response turn",
        ),
    ),
)
