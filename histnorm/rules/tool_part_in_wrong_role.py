"""A tool call or result in a message whose role cannot carry it.

## What it does
In formats whose roles decide what a message may hold, finds a client tool call (function,
custom or handoff) outside a message of the call role, and a client tool result outside a
message of the result role, including a result sitting in the very message of its call:

| Format | Calls in | Results in |
|---|---|---|
| `anthropic`, `claude-code` | `assistant` | `user` |
| `meai`, `agent-framework` | `assistant` | `tool` (or `user`) |
| `gemini` | `model` | `user` (or `tool`, `function`) |

A Microsoft.Extensions.AI result in a user message is not reported here: the Anthropic
client sends it as the `tool_result` it is (HN101 checks its place there), while the
OpenAI client drops it. Server-tool and MCP results, which follow their call inside the
assistant message, are not concerned; nor are messages of a role the format does not
define (HN013 reports those). Formats where a message's role follows from what it holds
(OpenAI Chat and Responses, LangChain, ShareGPT, chat templates) are not checked.

## Why it breaks a replay
Anthropic reads a `tool_result` only from the user message after the call:
`messages.N: tool_use ids were found without tool_result blocks immediately after:
toolu_…. Each tool_use block must have a corresponding tool_result block in the next
message.`, and a result elsewhere is `unexpected tool_use_id found in tool_result
blocks: toolu_…. Each tool_result block must have a corresponding tool_use block in the
previous message.` Microsoft.Extensions.AI's OpenAI client sends calls only from
assistant messages and results only from tool messages and silently drops the rest
("Unrecognized or non-processable content is ignored"), so the request fails with
`An assistant message with 'tool_calls' must be followed by tool messages responding to
each 'tool_call_id'.` or `messages with role 'tool' must be a response to a preceding
message with 'tool_calls'`. Gemini: `Please ensure that function response turn comes
immediately after a function call turn`.

## Example
An Anthropic assistant message holding a `tool_use` and then its own `tool_result`.

## Fix
A result whose call sits in a message of the call role is split out of its message into
a message of its own (`tool`, written as the format's result message), at the same place:
the parts before it stay in the message, the parts after it follow in a new message of
the original role (usage counts stay in the original message). The order of all parts is
kept, so a result in its call's message ends up right after the call; a result further
away is then moved to its call by HN008. A message that held nothing but such results
is replaced by the new one (its own message id, which named a reply, is not kept).
A misplaced call is reported only: a call in a user or tool message may be a whole
message stored under the wrong role, a pasted example or an echo, and histnorm cannot
tell whether the model made it, nor say who owns the content around it.

## Fix safety
Safe: nothing is added or removed; the results keep their order and their call, and only
the message boundaries around them change.

## References
- The readers of the formats whose roles decide what a message holds:
  `histnorm/formats/anthropic/`, `histnorm/formats/gemini/`,
  `histnorm/formats/meai/`; dotnet/extensions `OpenAIChatClient.ToOpenAIChatMessages`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import CALLS, RESULTS, Call, Outline, Result
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily
from histnorm.pairing import Position
from histnorm.rule import Example, Rule
from histnorm.rules._common import describe
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Message, Part, Transcript

PLACES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "anthropic": (("assistant",), ("user", "tool")),
    "claude-code": (("assistant",), ("user", "tool")),
    "meai": (("assistant",), ("tool", "user")),
    "agent-framework": (("assistant",), ("tool", "user")),
    "gemini": (("model", "assistant"), ("user", "tool", "function")),
}
"""Per format: the roles that carry client tool calls, and those that carry results
(casefolded; the first of each is the one named in messages)."""

_CLIENT = (ToolFamily.FUNCTION, ToolFamily.CUSTOM, ToolFamily.HANDOFF)


def _a(word: str) -> str:
    return ("an " if word[:1].casefold() in "aeio" else "a ") + word


def misplaced(transcript: Outline) -> list[tuple[Position, Call | Result]]:
    """Every client call or result in a message of a role that cannot carry it."""
    places = PLACES.get(transcript.format or "")
    if places is None:
        return []
    from histnorm.formats import CODECS

    codec = CODECS.get(transcript.format or "")
    known = codec.known_roles if codec is not None else None
    call_roles, result_roles = places
    found: list[tuple[Position, Call | Result]] = []
    for mi, message in enumerate(transcript.messages):
        role = message.role.casefold()
        if known is not None and role not in known:
            continue
        for pi, part in enumerate(message.parts):
            if not isinstance(part, Call | Result) or part.family not in _CLIENT:
                continue
            if role not in (call_roles if isinstance(part, Call) else result_roles):
                found.append(((mi, pi), part))
    return found


def check(context: Context) -> Iterable[Diagnostic]:
    """Report each misplaced call and result; offer the split for results whose call is
    in place."""
    outline = context.outline
    found = misplaced(outline)
    if not found:
        return
    call_roles, result_roles = PLACES[outline.format or ""]
    wrong = {position for position, _ in found}
    owners = context.pairing.result_calls
    for (mi, pi), part in found:
        role = outline.messages[mi].role
        if isinstance(part, Call):
            yield RULE.diagnostic(
                f"{describe(part)} is in {_a(role)} message; calls belong in "
                f"{_a(call_roles[0])} message",
                message_index=mi,
                part_index=pi,
            )
            continue
        call = owners.get((mi, pi))
        beside = call is not None and call[0] == mi
        fixable = call is not None and call not in wrong
        where = f"the same {role} message as its call" if beside else f"{_a(role)} message"
        yield RULE.diagnostic(
            f"{describe(part)} is in {where}; results belong in {_a(result_roles[0])} message",
            message_index=mi,
            part_index=pi,
            fix_title="move the result into a message of its own" if fixable else None,
        )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Split each reported result out of its message, keeping the order of all parts."""
    moving: dict[int, set[int]] = {}
    for d in diagnostics:
        if d.location.message_index is not None and d.location.part_index is not None:
            moving.setdefault(d.location.message_index, set()).add(d.location.part_index)
    out: list[Message] = []
    for mi, message in enumerate(transcript.messages):
        if mi not in moving:
            out.append(message)
            continue
        out.extend(_split(message, moving[mi]))
    result: Transcript = transcript.evolve(messages=tuple(out))
    return result


def _split(message: Message, moving: set[int]) -> list[Message]:
    """`message` cut into runs: the moved results in `tool` messages, the rest in the
    original (first run) or in new messages of its role. Usage counts, which have no
    place in the order, stay in the original message."""
    runs: list[tuple[bool, list[Part]]] = []
    usage: list[Part] = []
    for pi, part in enumerate(message.parts):
        moved = pi in moving
        if not moved and isinstance(part, model.UsagePart):
            usage.append(part)
        elif runs and runs[-1][0] == moved:
            runs[-1][1].append(part)
        else:
            runs.append((moved, [part]))
    if usage:
        kept = next((parts for moved, parts in runs if not moved), None)
        if kept is None:
            runs.append((False, usage))
        else:
            kept.extend(usage)
    out: list[Message] = []
    first = True
    for moved, parts in runs:
        if moved:
            out.append(model.Message(role="tool", parts=tuple(parts), metadata=message.metadata))
        elif first:
            out.append(message.evolve(parts=tuple(parts)))
            first = False
        else:
            out.append(
                model.Message(role=message.role, parts=tuple(parts), metadata=message.metadata)
            )
    return out


_USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}
_RESULT = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "4 C"}
_ANTHROPIC: Any = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": [_USE, _RESULT, {"type": "text", "text": "4 C in Oslo."}]},
]
_CALL = {"$type": "functionCall", "callId": "c1", "name": "get_weather", "arguments": {}}
_MEAI_RESULT = {"$type": "functionResult", "callId": "c1", "result": "4 C"}
_MEAI: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather in Oslo?"}]},
    {"role": "assistant", "contents": [_CALL, _MEAI_RESULT]},
]
_MEAI_CALL: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather in Oslo?"}]},
    {"role": "tool", "contents": [_CALL]},
    {"role": "tool", "contents": [_MEAI_RESULT]},
]

RULE = Rule(
    code="HN015",
    name="tool-part-in-wrong-role",
    summary="a tool call or result sits in a message whose role cannot carry it",
    severity=Severity.ERROR,
    applicability=Applicability.SAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=CALLS | RESULTS,
    fix=fix,
    examples=(
        Example(
            bad=_ANTHROPIC,
            good=[
                _ANTHROPIC[0],
                {"role": "assistant", "content": [_USE]},
                {"role": "user", "content": [_RESULT]},
                {"role": "assistant", "content": [{"type": "text", "text": "4 C in Oslo."}]},
            ],
            format="anthropic",
            title="a result stored in the assistant message of its call",
        ),
        Example(
            bad=_MEAI,
            good=[
                _MEAI[0],
                {"role": "assistant", "contents": [_CALL]},
                {"role": "tool", "contents": [_MEAI_RESULT]},
            ],
            format="meai",
            title="a function result in the assistant message of its call",
        ),
        Example(
            bad=_MEAI_CALL,
            good=None,
            format="meai",
            title="a function call in a tool message is reported only",
        ),
    ),
)
