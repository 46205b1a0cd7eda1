"""Two consecutive messages with the same role, where the target wants alternation.

## What it does
Under profiles whose target rejects consecutive same-role messages (`bedrock-converse`,
`vllm`, `portable`), finds a message with the same role as the one before it. Messages
that hold only tool results are a turn of their own and are not counted; system messages
are skipped, and so is a message of content histnorm does not model alone (nothing is
merged across it).

## Why it breaks a replay
Bedrock and older Anthropic versions: `messages: roles must alternate between "user" and
"assistant", but found multiple "user" roles in a row`; vLLM and Mistral templates:
`After the optional system message, conversation roles must alternate
user/assistant/user/assistant/...`

## Example
A user message sent twice in a row after a failed request.

## Fix
Merge the later message into the one before it: its parts are appended, in order (a
message whose own merge is refused stays, and the next one merges into it). A merge
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
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyMessage, AnyTranscript, is_result_only, rewrite
from histnorm.errors import HistnormError
from histnorm.pairing import Position
from histnorm.rule import Example, Rule
from histnorm.rules._common import nth
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript


def _apart(message: AnyMessage) -> bool:
    """Whether `message` stands outside any run: a system message, one of tool results
    alone, or one of content histnorm does not model alone (a Responses `item_reference`
    or `compaction` item), which nothing is merged into, across or out of."""
    return (
        message.role_is("system", "developer")
        or is_result_only(message)
        or (bool(message.parts) and all(p.kind == "unknown" for p in message.parts))
    )


def _runs(transcript: AnyTranscript) -> list[list[int]]:
    """Runs of two or more adjacent messages that share a role."""
    runs: list[list[int]] = []
    previous: int | None = None
    messages: Sequence[AnyMessage] = transcript.messages
    for mi, message in enumerate(messages):
        if _apart(message):
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
    for run in _runs(outline):
        for mi in run[1:]:
            yield RULE.diagnostic(
                f"{nth(outline, mi)} has the same role ({outline.messages[mi].role}) as the "
                "message before it",
                message_index=mi,
                fix_title="merge it into the message before it",
                data=run[0],
                owns=(),  # only the boundary goes: every value of both is carried
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Append each reported message's parts to the message before it, or to the one that
    message is merged into: a run's messages are adjacent, so no merge reaches past a
    message that stays (its own merge refused or not wanted). A merge of two speakers'
    messages (`author_name`) raises: it would change who said the words."""
    messages = transcript.messages
    target: dict[int, int] = {}
    into: dict[int, list[int]] = {}
    for mi in sorted({d.location.message_index or 0 for d in diagnostics}):
        first = target.get(mi - 1, mi - 1)
        speakers = messages[first].author_name, messages[mi].author_name
        if speakers[0] != speakers[1]:  # the value may stand elsewhere: `conserve` may miss it
            raise HistnormError(
                f"would put the words of {speakers[1]!r} in a message of {speakers[0]!r}"
            )
        target[mi] = first
        into.setdefault(first, []).append(mi)
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
    applies=lambda profile: profile.alternating_roles,
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
