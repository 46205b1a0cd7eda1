"""A tool call with no result while later messages follow.

## What it does
Finds tool calls (function, custom, MCP, hosted, handoff) that no later result answers,
pairing each result with the nearest preceding unanswered call of the same id and family.
A call still open at the very end of the transcript is a live state or a fine-tuning
target; it is reported as HN011 instead, unless `tail=close`.

## Why it breaks a replay
Every provider rejects a call without its result. OpenAI Chat Completions:
`An assistant message with 'tool_calls' must be followed by tool messages responding to
each 'tool_call_id'. The following tool_call_ids did not have response messages: call_…`;
Anthropic: `tool_use ids were found without tool_result blocks immediately after`;
Responses API: `No tool output found for function call call_…`; Gemini:
`Please ensure that the number of function response parts is equal to the number of
function call parts of the function call turn.`
The Vercel AI SDK refuses such a history before sending it:
`AI_MissingToolResultsError: Tool result is missing for tool call call_…`.

## Example
A streamed run was cancelled while `book_table` ran; the user then wrote again.

## Fix
Policy `orphan-tool-call`: `drop` (default) removes the call, and the message if nothing
else is left in it; `synthesize` inserts a result right after the call saying it was
interrupted, marked `histnorm.synthesized` where the format can carry it; `fail` reports
only.

## Fix safety
`drop` is safe: a call without its result can never be replayed, so nothing usable is
lost. `synthesize` invents content and applies only when chosen explicitly or with
unsafe fixes enabled.

## References
- `histnorm/pairing.py`: how calls and results pair (the nearest preceding unanswered
  call of the same id and family).
- `histnorm/behaviours/partial.py` (`sanitize_partial_response`, R-A3): unmatched calls
  are removed from a cancelled response; its cases in `tests/test_behaviour_partial.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import UNANSWERED
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import rewrite, turn_end
from histnorm.lazy import model
from histnorm.model_terms import SYNTHESIZED_KEY, ToolFamily
from histnorm.pairing import result_type_for
from histnorm.rule import Example, Rule
from histnorm.rules._common import unanswered
from histnorm.settings import OrphanCallPolicy, Settings

if TYPE_CHECKING:
    from histnorm.model import Message, ToolCallPart, ToolResultPart, Transcript


def check(context: Context) -> Iterable[Diagnostic]:
    """Report every unanswered call that is not a kept tail state."""
    settings = context.settings
    policy = settings.orphan_tool_call
    offered = {
        OrphanCallPolicy.DROP: ("remove the tool call", Applicability.SAFE),
        OrphanCallPolicy.SYNTHESIZE: ("add an 'interrupted' result", Applicability.UNSAFE),
        OrphanCallPolicy.FAIL: (None, None),
    }[policy]
    calls = context.pairing.unmatched_calls
    yield from unanswered(
        RULE,
        context,
        calls,
        missing="result",
        fix=offered,
        opted_in=policy is OrphanCallPolicy.SYNTHESIZE,
    )


def _result_type(call: ToolCallPart) -> str | None:
    if call.family in (ToolFamily.HOSTED, ToolFamily.MCP):
        return result_type_for(call.tool_type)
    return "function" if call.call_id is None else None


def synthetic_result(call: ToolCallPart, settings: Settings) -> ToolResultPart:
    """The result `synthesize` adds for `call`: an error saying it was interrupted."""
    return model.ToolResultPart(
        call_id=call.call_id,
        name=call.name if call.call_id is None else None,
        content=settings.synthetic_result_text,
        is_error=True,
        family=call.family,
        tool_type=_result_type(call),
        metadata={SYNTHESIZED_KEY: True},
    )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Drop the calls, or add a synthetic result after each call's result block."""
    positions = [(d.location.message_index or 0, d.location.part_index or 0) for d in diagnostics]
    if settings.orphan_tool_call is OrphanCallPolicy.DROP:
        return rewrite(transcript, remove=positions)
    inserts: dict[int, list[Message]] = {}
    by_message: dict[int, list[ToolResultPart]] = {}
    for mi, pi in positions:
        call = transcript.messages[mi].parts[pi]
        assert isinstance(call, model.ToolCallPart)
        by_message.setdefault(mi, []).append(synthetic_result(call, settings))
    for mi, results in by_message.items():
        end = turn_end(transcript, mi)
        inserts.setdefault(end, []).append(model.Message(role="tool", parts=tuple(results)))
    return rewrite(transcript, insert_after=inserts)


_CALLS = [
    {
        "id": "call_w",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
    },
    {
        "id": "call_b",
        "type": "function",
        "function": {"name": "book_table", "arguments": '{"time":"19:00"}'},
    },
]
_BAD: Any = [
    {"role": "user", "content": "Weather in Oslo, and book a table?"},
    {"role": "assistant", "content": None, "tool_calls": _CALLS},
    {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
    {"role": "user", "content": "Never mind the table."},
]
_MEAI_BAD: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather in Oslo?"}]},
    {
        "role": "assistant",
        "contents": [
            {"$type": "text", "text": "Let me check."},
            {
                "$type": "functionCall",
                "callId": "c1",
                "name": "get_weather",
                "arguments": {"city": "Oslo"},
            },
        ],
    },
    {"role": "user", "contents": [{"$type": "text", "text": "Hello?"}]},
]

RULE = Rule(
    code="HN001",
    name="orphan-tool-call",
    summary="a tool call has no result while later messages follow",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=UNANSWERED,
    fix=fix,
    examples=(
        Example(
            bad=_BAD,
            good=[_BAD[0], {**_BAD[1], "tool_calls": _CALLS[:1]}, _BAD[2], _BAD[3]],
            title="a cancelled parallel call is dropped",
        ),
        Example(
            bad=_BAD,
            good=[
                *_BAD[:3],
                {
                    "role": "tool",
                    "tool_call_id": "call_b",
                    "content": "Tool call was interrupted before it produced a result.",
                },
                _BAD[3],
            ],
            settings=Settings(orphan_tool_call=OrphanCallPolicy.SYNTHESIZE),
            title="policy synthesize adds a result instead",
        ),
        Example(
            bad=_MEAI_BAD,
            good=[
                _MEAI_BAD[0],
                {"role": "assistant", "contents": [{"$type": "text", "text": "Let me check."}]},
                _MEAI_BAD[2],
            ],
            format="meai",
            title="text streamed before the call is kept",
        ),
    ),
)
