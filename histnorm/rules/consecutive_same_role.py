"""Two consecutive messages with the same role, where the target wants alternation.

## What it does
Under profiles whose target rejects consecutive same-role messages (`bedrock-converse`,
`vllm`, `portable`), finds a message with the same role as the one before it. Messages
that hold only tool results are a turn of their own and are not counted; system messages
are skipped.

## Why it breaks a replay
Bedrock and older Anthropic versions: `messages: roles must alternate between "user" and
"assistant", but found multiple "user" roles in a row`; vLLM and Mistral templates:
`After the optional system message, conversation roles must alternate
user/assistant/user/assistant/...`

## Example
A user message sent twice in a row after a failed request.

## Fix
Merge the later message into the earlier one: its parts are appended, in order. A merge
carries every key of both messages or is not offered: when the later message holds a
value the merged one cannot carry (another speaker's `name`, its own id, metadata,
`additional_kwargs`, a second usage count, a Pydantic AI request's `run_id` or
`instructions`, a Codex line's timestamp), the message stays reported, with no fix, and
the report names the value a merge would drop.

## Fix safety
Safe: all content is kept; only the message boundary goes. Each merge is tried before it
is offered (`histnorm.conserve`), in lint as in fix.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `alternating_roles`,
  listed below by profile.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyMessage, AnyTranscript, is_result_only, rewrite
from histnorm.model import Part, Transcript
from histnorm.pairing import Position
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth
from histnorm.settings import Settings


def _runs(transcript: AnyTranscript) -> list[list[int]]:
    """Runs of two or more adjacent messages that share a role."""
    runs: list[list[int]] = []
    previous: int | None = None
    messages: Sequence[AnyMessage] = transcript.messages
    for mi, message in enumerate(messages):
        if message.role_is("system", "developer") or is_result_only(message):
            previous = None
            continue
        if previous is not None and messages[previous].role_is(message.role):
            if runs and runs[-1][-1] == previous:
                runs[-1].append(mi)
            else:
                runs.append([previous, mi])
        previous = mi
    return runs


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every message that repeats the role of the one before it."""
    outline = context.outline
    if not context.profile.alternating_roles:
        return
    for run in _runs(outline):
        for mi in run[1:]:
            yield RULE.diagnostic(
                f"{nth(outline, mi)} has the same role ({outline.messages[mi].role}) as the "
                "message before it",
                message_index=mi,
                fix_title=f"merge it into {nth(outline, run[0])}",
                data=run[0],
                owns=(),  # only the boundary goes: every value of both is carried
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Append each reported message's parts to the first message of its run."""
    into: dict[int, list[int]] = {}
    for d in diagnostics:
        into.setdefault(d.data, []).append(d.location.message_index or 0)
    replace: dict[Position, Sequence[Part]] = {}
    for first, rest in into.items():
        message = transcript.messages[first]
        merged = list(message.parts) + [p for i in rest for p in transcript.messages[i].parts]
        replace[(first, 0)] = merged
        replace.update({(first, pi): () for pi in range(1, len(message.parts))})
    drop = [mi for rest in into.values() for mi in rest]
    return rewrite(transcript, replace=replace, drop_messages=drop)


_BAD: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Summarise this file."}]},
    {"role": "user", "contents": [{"$type": "text", "text": "Summarise this file, please."}]},
    {"role": "assistant", "contents": [{"$type": "text", "text": "It is a budget."}]},
]

RULE = Rule(
    code="HN107",
    name="consecutive-same-role",
    summary="two consecutive messages share a role (profiles: bedrock-converse, vllm, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    fix=fix,
    tried=True,
    examples=(
        Example(
            bad=_BAD,
            good=[
                {"role": "user", "contents": [_BAD[0]["contents"][0], _BAD[1]["contents"][0]]},
                _BAD[2],
            ],
            format="meai",
            settings=Settings(profile="bedrock-converse"),
            title="a request sent twice in a row",
        ),
    ),
)
