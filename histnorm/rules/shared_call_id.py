"""One call id given to calls of different tools in the same message.

## What it does
Finds a message holding two or more client tool calls (function, custom) that share a
call id but name different tools (in OpenAI Responses, where each call is an item, one
run of call items; under profiles whose target merges consecutive messages of one role
into one turn, `anthropic`, `anthropic-thinking`, `gemini`, `gemini-3`, one run of
assistant messages): parallel calls from a model server that hands out one
constant id (llama.cpp's `call_0`), or the empty id some agents fall back to. It cannot
be a streamed re-emission of one request (different tools were asked for), so the history
is invalid for every provider. HN007 also warns about the later call (upstream keeps the
first); this rule is the replay error, and its fix keeps both calls.

## Why it breaks a replay
Every provider rejects the repeated id or binds the results to the wrong call: OpenAI Chat
Completions `Invalid parameter: Duplicate value for 'tool_call_id' of 'call_…'`,
Anthropic `messages.N.content.M: tool_use ids must be unique`, the Responses API
`Duplicate item found with id …. Remove duplicate items from your input and try again.`

## Example
`get_weather` and `get_time` both called as `call_0` in one assistant message.

## Fix
Give every call after the first its own id (`call_` and 24 hex digits of a hash of the
old id and its position) and carry each new id to the result that answers it. The
results under the shared id that follow the message are given to the calls by tool name
when every one of them names its tool and the names match one call each; otherwise in
order (the first result to the first call, and so on). A call left without a result is
then an ordinary unanswered call (HN001).

## Fix safety
Safe when the results name their tools (OpenAI Chat `name`, Gemini `functionResponse.name`):
every result keeps the call it names. Unsafe otherwise: giving the results to the calls
in order is the usual convention, but the history does not say so; it applies only with
unsafe fixes enabled, and without them the error stays reported.

## References
- `histnorm/pairing.py`: calls pair with results by id, so one id for two tools pairs
  them by position only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.context import Context
from histnorm.analysis.outline import REPEATED, Call
from histnorm.diagnostic import Applicability, Diagnostic, Severity
from histnorm.edit import AnyMessage, AnyTranscript, item_style, rewrite, turn_end
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily
from histnorm.pairing import Position, pair_transcript
from histnorm.rule import Example, Rule
from histnorm.rules._common import new_call_id, outline_part_at, part_at, profile, show_id
from histnorm.settings import Settings

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript

_CLIENT = (ToolFamily.FUNCTION, ToolFamily.CUSTOM)
_ASSISTANT = ("assistant", "model")


def _name(transcript: AnyTranscript, position: Position) -> str | None:
    part = outline_part_at(transcript, position)
    if part.kind == "tool_call" or part.kind == "tool_result":
        return part.name
    return None


def _calls_only(message: AnyMessage) -> bool:
    return all(p.kind == "tool_call" or p.kind == "reasoning" for p in message.parts)


def _run_starts(messages: Sequence[AnyMessage], inside: Callable[[AnyMessage], bool]) -> list[int]:
    """For each message, the first message of the run of messages `inside` accepts that
    ends with it; itself for a message `inside` refuses."""
    starts: list[int] = []
    start: int | None = None
    for index, message in enumerate(messages):
        if inside(message):
            start = index if start is None else start
            starts.append(start)
        else:
            start = None
            starts.append(index)
    return starts


def batch_starts(transcript: AnyTranscript, merged: bool = False) -> list[int]:
    """For each message, the first message of the batch it closes: in a format with one
    item per message, the first of the run of messages holding only calls (and
    reasoning) that ends with it; with `merged` (the target merges consecutive messages of
    one role, as Anthropic does), the first of its run of assistant messages, when that
    starts earlier; otherwise itself. Two calls are in one batch when the later one's
    message starts at or before the first one's (one walk over the messages, however many
    calls share an id)."""
    messages: Sequence[AnyMessage] = transcript.messages
    starts = list(range(len(messages)))
    if item_style(transcript):
        starts = _run_starts(messages, _calls_only)
    if merged:
        runs = _run_starts(messages, lambda m: m.role_is(*_ASSISTANT))
        starts = [min(a, b) for a, b in zip(starts, runs, strict=True)]
    return starts


def groups(transcript: AnyTranscript, merged: bool = False) -> dict[Position, list[Position]]:
    """The first call of each shared id (by position) and the calls after it in its
    message (or run of call items; `merged`: its run of assistant messages) that name
    another tool."""
    found: dict[Position, list[Position]] = {}
    names: dict[Position, set[str | None]] = {}
    starts: list[int] | None = None
    for repeat in pair_transcript(transcript).repeats:
        if repeat.kind != "tool_call":
            continue
        at, before = repeat.position[0], repeat.first[0]
        if at != before:
            starts = batch_starts(transcript, merged) if starts is None else starts
            if starts[at] > before:
                continue  # not one batch
        first = outline_part_at(transcript, repeat.first)
        later = outline_part_at(transcript, repeat.position)
        assert first.kind == "tool_call" and later.kind == "tool_call"
        if first.family not in _CLIENT or later.family not in _CLIENT:
            continue
        seen = names.setdefault(repeat.first, {first.name})
        if later.name not in seen:
            seen.add(later.name)
            found.setdefault(repeat.first, []).append(repeat.position)
    return found


def _results(transcript: AnyTranscript, first: Position, last: int) -> list[Position]:
    """The results under the shared id that answer its calls (the last in message
    `last`): the one the first call pairs with and its duplicates, in order, up to the
    end of the turn."""
    pairing = pair_transcript(transcript)
    answer = pairing.call_results.get(first)
    end = max(turn_end(transcript, last), last + 1)
    if answer is None or answer[0] > end:
        return []
    later = (d for d, original in pairing.duplicate_results if original == answer and d[0] <= end)
    return [answer, *sorted(later)]


def assign(
    transcript: AnyTranscript, first: Position, calls: Sequence[Position]
) -> tuple[dict[Position, Position], bool]:
    """Which result answers which call (call → result), and whether the tool names prove it."""
    everyone = [first, *calls]
    results = _results(transcript, first, max(c[0] for c in everyone))
    names = [_name(transcript, c) for c in everyone]
    named = [_name(transcript, r) for r in results]
    known = set(names)
    distinct = len(known) == len(names) and len(set(named)) == len(named)
    if results and distinct and all(n is not None and n in known for n in named):
        call_of = dict(zip(names, everyone, strict=True))
        return {call_of[n]: r for n, r in zip(named, results, strict=True)}, True
    return dict(zip(everyone, results, strict=False)), False


def check(context: Context) -> Iterable[Diagnostic]:
    """Report each call that shares the id of an earlier call to another tool in its message."""
    outline = context.outline
    for first, calls in sorted(groups(outline, context.profile.merges_same_role).items()):
        _, proven = assign(outline, first, calls)
        head = outline_part_at(outline, first)
        assert isinstance(head, Call)
        for position in calls:
            part = outline_part_at(outline, position)
            assert isinstance(part, Call)
            yield RULE.diagnostic(
                f"call id {show_id(part.call_id)} of {show_id(part.name)} is also the id of "
                f"{show_id(head.name)} in the same "
                + (
                    "message"
                    if position[0] == first[0] or item_style(outline)
                    else "turn (back-to-back messages)"
                ),
                message_index=position[0],
                part_index=position[1],
                fix_title="give the call its own id"
                + (" (its result names it)" if proven else " (results given in order)"),
                applicability=Applicability.SAFE if proven else Applicability.UNSAFE,
            )


def fix(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """Rename the reported calls and the results that answer them."""
    wanted = {(d.location.message_index, d.location.part_index) for d in diagnostics}
    replace: dict[Position, Sequence[Part]] = {}
    merged = profile(transcript, settings).merges_same_role
    for first, calls in groups(transcript, merged).items():
        answers, _ = assign(transcript, first, calls)
        answers.update(_co_located(transcript, [first, *calls]))
        for position in calls:
            if position not in wanted:
                continue
            call = part_at(transcript, position)
            assert isinstance(call, model.ToolCallPart)
            new = new_call_id(call.call_id, position)
            replace[position] = (call.evolve(call_id=new),)
            result = answers.get(position)
            if result is not None:
                answer = part_at(transcript, result)
                assert isinstance(answer, model.ToolResultPart)
                replace[result] = (answer.evolve(call_id=new),)
    return rewrite(transcript, replace=replace)


def _co_located(transcript: Transcript, calls: Sequence[Position]) -> dict[Position, Position]:
    """The result read from the very native value of each call, in the call's message (a
    Vercel AI tool part holds its call and its output): whatever the order says, that
    result is the call's, and the file keeps it with that call."""
    found: dict[Position, Position] = {}
    for mi, pi in calls:
        call = part_at(transcript, (mi, pi))
        if call.native is None:
            continue
        for k, part in enumerate(transcript.messages[mi].parts):
            if isinstance(part, model.ToolResultPart) and part.native is call.native:
                found[(mi, pi)] = (mi, k)
    return found


def _call(name: str) -> dict[str, Any]:
    return {"id": "call_0", "type": "function", "function": {"name": name, "arguments": "{}"}}


_BAD: Any = [
    {"role": "user", "content": "Weather and time in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("get_weather"), _call("get_time")]},
    {"role": "tool", "tool_call_id": "call_0", "name": "get_weather", "content": "4 C"},
    {"role": "tool", "tool_call_id": "call_0", "name": "get_time", "content": "17:42"},
]
_NEW = "call_ffde10cdbfa53a77548999c5"  # new_call_id("call_0", (1, 1)), as the fix writes it
_GOOD: Any = [
    _BAD[0],
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("get_weather"), {**_call("get_time"), "id": _NEW}],
    },
    _BAD[2],
    {**_BAD[3], "tool_call_id": _NEW},
]
_CALL: Any = {"$type": "functionCall", "callId": "call_0", "arguments": {}}
_MEAI: Any = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather and time in Oslo?"}]},
    {
        "role": "assistant",
        "contents": [{**_CALL, "name": "get_weather"}, {**_CALL, "name": "get_time"}],
    },
    {
        "role": "tool",
        "contents": [{"$type": "functionResult", "callId": "call_0", "result": "4 C"}],
    },
]

RULE = Rule(
    code="HN016",
    name="shared-call-id",
    summary="calls of different tools share one call id in the same message",
    severity=Severity.ERROR,
    applicability=Applicability.UNSAFE,
    doc=__doc__ or "",
    check_outline=check,
    needs=REPEATED,
    fix=fix,
    examples=(
        Example(bad=_BAD, good=_GOOD, title="the results name their tools"),
        Example(bad=_MEAI, good=None, format="meai", title="nameless results: reported"),
    ),
)
