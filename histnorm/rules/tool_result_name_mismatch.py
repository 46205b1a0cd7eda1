"""A tool result whose name is not the name of the call it answers.

## What it does
Finds results that carry a tool name (Gemini `functionResponse.name`, an OpenAI Chat or
chat-template tool message's `name`, Ollama's `tool_name`, LangChain's `ToolMessage.name`,
Pydantic AI's `tool_name`) other than the name of the call they are paired with. Under
`gemini` (result names `checked`) that is an error; under `ollama` and `portable`
(`paired`: the target pairs results with calls by name, as Ollama's tool messages carry
no call id) it is an error, and so is a result with neither a call id nor a name that
answers one of several parallel calls (the result of a lone call is paired by position).
Elsewhere the target ignores the name, and a mismatch is information: it breaks a replay
to a target that reads it. It reads only the outline's names and pairing.

## Why it breaks a replay
Vertex Gemini 3 answers a bare `400 INVALID_ARGUMENT` to a `functionResponse` whose
`name` is not the function that was called, and 200 once the name is the call's
(archestra-ai/archestra#7583); an empty one: `GenerateContentRequest.contents[3].parts[0]
.function_response.name: Name cannot be empty.` (langflow-ai/langflow#9437). Ollama
pairs a tool message with its call only by `tool_name`; without it, parallel results
cannot be matched to their calls (agentscope-ai/agentscope#2006).

## Example
A Gemini response named after another function than its call.

## Fix
Give the result its call's name. Safe when the result is paired with its call by call
id; unsafe when it is paired by position (no ids), where the name may be the right one
and the order wrong.

## Fix safety
Safe with a call id: the call names the tool that ran and the id ties the result to it,
so the result's name is a copy of the call's; nothing else changes, and fixing twice
gives the same result. Without ids the pairing itself is a guess, hence unsafe. A result
with no name and no id under `paired` has no fix: where the name would go (`tool_name` for
Ollama, `name` for chat templates) depends on the target, not on the history. Nor has a
result whose call's name is empty (HN111): its own name may be the only record of which
tool ran.

## References
- `histnorm/profile_evidence.py`: the evidence of each profile's `result_names`,
  listed below by profile.
- https://docs.ollama.com/capabilities/tool-calling (`{"role": "tool", "tool_name": …}`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import RESULTS, Call, Result
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyTranscript, rewrite
from histnorm.lazy import model
from histnorm.pairing import Position, pair_transcript
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe, nth, outline_part_at, part_at, reported
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript


def _calls_in(outline: AnyTranscript, index: int) -> int:
    """How many calls message `index` makes."""
    return sum(1 for p in outline.messages[index].parts if isinstance(p, Call))


def check(context: Context) -> Iterable[Diagnostic]:
    """Report results whose name is not their call's (and, where results pair by name,
    results with neither an id nor a name)."""
    outline = context.outline
    mode = context.profile.result_names
    by_name = mode == "paired"
    for _, part in outline.tool_parts():  # a result that names a tool, or one with neither
        if type(part) is Result and (  # id nor name where results pair by name: nothing
            part.name is not None or (by_name and part.call_id is None)  # else is reported
        ):
            break
    else:
        return
    severity = Severity.INFO if mode == "free" else Severity.ERROR
    for result_at, call_at in sorted(context.pairing.result_calls.items()):
        result = outline_part_at(outline, result_at)
        call = outline_part_at(outline, call_at)
        if not isinstance(result, Result) or not isinstance(call, Call) or call.name is None:
            continue
        if result.name is not None and result.name != call.name:
            by_id = result.call_id is not None and result.call_id == call.call_id
            # an empty call name is never written over the result's: it may be all that
            # records which tool ran (HN111 reports the call)
            title = f"name the result {call.name!r}" if call.name else None
            applicability = Applicability.SAFE if by_id else Applicability.UNSAFE
            yield RULE.diagnostic(
                f"{describe(result)} is named {result.name!r}, but answers the call "
                f"{call.name!r} in {nth(outline, call_at[0])}",
                message_index=result_at[0],
                part_index=result_at[1],
                fix_title=title,
                applicability=applicability,
                severity=severity,
            )
        elif (
            result.name is None
            and result.call_id is None
            and mode == "paired"
            and _calls_in(outline, call_at[0]) > 1
        ):
            yield RULE.diagnostic(
                f"tool result has neither a call id nor a tool name; {context.profile.name} "
                "pairs the results of parallel calls with their calls by name",
                message_index=result_at[0],
                part_index=result_at[1],
                severity=severity,
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Give each reported result the name of the call it is paired with."""
    result_calls = pair_transcript(transcript).result_calls
    replace: dict[Position, Sequence[Part]] = {}
    for position in reported(diagnostics):
        call_at = result_calls.get(position)
        if call_at is None:
            continue
        call = part_at(transcript, call_at)
        assert isinstance(call, model.ToolCallPart)
        replace[position] = (part_at(transcript, position).evolve(name=call.name),)
    return rewrite(transcript, replace=replace)


def _gemini(response_name: str) -> Any:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
            {
                "role": "model",
                "parts": [{"functionCall": {"id": "c1", "name": "get_weather", "args": {}}}],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": response_name,
                            "response": {"output": "4 C"},
                        }
                    }
                ],
            },
        ]
    }


RULE = Rule(
    code="HN112",
    name="tool-result-name-mismatch",
    summary="a tool result's name is not its call's (errors: gemini, ollama, portable)",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=RESULTS,
    fix=fix,
    other_severities=((Severity.INFO, "under profiles that ignore result names"),),
    examples=(
        Example(
            bad=_gemini("tool_result"),
            good=_gemini("get_weather"),
            format="gemini",
            title="a functionResponse named after a placeholder, not its call",
        ),
    ),
)
