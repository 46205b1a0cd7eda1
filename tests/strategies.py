"""Hypothesis strategies for whole transcripts with the defects histnorm's rules look for.

`canonical_transcripts` builds a `histnorm.model.Transcript` turn by turn and mixes
defects in: interleaved calls and results, dropped results, results with no call,
pending ids repeated under the same or a different name (and argument-less
re-emissions), ids reused after their result (the empty string included), results
displaced behind trailing user messages, duplicate results (identical or not), empty and
whitespace-only text, empty messages, handoff calls, legacy `function_call` pairs
(OpenAI Chat) and, in MEAI only, approval requests with and without responses and hosted
calls (MCP, code interpreter, web search, image generation) with or without their result
in the same message.

`transcripts` encodes such a transcript to native `openai-chat` or `meai` JSON with
`histnorm.encode` and reads it back with `histnorm.load`, so the properties run on
decoded transcripts exactly like the ones users load. `hypothesis.target` pushes the
search toward longer transcripts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import strategies as st
from hypothesis import target

import histnorm
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    Message,
    Part,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
)

FORMATS = ("openai-chat", "meai")

ID_POOL = ("call_1", "call_2", "", "get_weather")
"""Ids shared between calls on purpose, so that they collide (`""` is a real id)."""
FUNCTION_NAMES = ("get_weather", "search", "book_table")
HANDOFF_NAMES = ("handoff_to_billing", "handoff_to_sales")
TEXTS = st.sampled_from(
    ["hi", "Weather in Oslo?", "  keep my spaces  ", "Never mind.", "Thanks!", "ok"]
)
EMPTY_TEXTS = st.sampled_from(["", " ", "\n", "\n\n", " \t\n"])
RESULTS = st.sampled_from(["4 C", "ok", "", "Tool call invocation rejected.", "found"])

STEPS = (
    "user",
    "user",
    "system",
    "assistant",
    "calls",
    "calls",
    "calls",
    "results",
    "results",
    "results",
    "orphan",
    "duplicate",
    "empty",
    "legacy",
    "approval",
    "approval",
    "response",
    "response",
    "mcp",
    "hosted",
)
OPENAI_ONLY = {"legacy"}
MEAI_ONLY = {"approval", "response", "mcp", "hosted"}
HOSTED_KINDS = ("codeInterpreterTool", "webSearchTool", "imageGenerationTool")


@dataclass
class _State:
    """What the builder knows while it draws: open calls, answers, open approvals."""

    format: str
    messages: list[Message] = field(default_factory=list)
    pending: list[ToolCallPart] = field(default_factory=list)
    answered: list[tuple[ToolCallPart, ToolResultPart]] = field(default_factory=list)
    requests: list[ApprovalRequestPart] = field(default_factory=list)
    counter: int = 0

    @property
    def meai(self) -> bool:
        return self.format == "meai"

    def fresh_id(self) -> str:
        self.counter += 1
        return f"call_{self.counter:02d}"


def _family(name: str | None) -> ToolFamily:
    return ToolFamily.HANDOFF if name and name.startswith("handoff_to_") else ToolFamily.FUNCTION


def _arguments(draw: st.DrawFn, state: _State) -> Any:
    choice = draw(st.sampled_from(["object", "object", "empty", "missing"]))
    if choice == "missing":
        return None if state.meai else ""
    value = {} if choice == "empty" else {"q": draw(st.integers(0, 3))}
    return value if state.meai else orjson.dumps(value).decode()


def _call(draw: st.DrawFn, state: _State, *, call_id: str, name: str) -> ToolCallPart:
    return ToolCallPart(
        call_id=call_id, name=name, arguments=_arguments(draw, state), family=_family(name)
    )


def _result(call: ToolCallPart, content: str) -> ToolResultPart:
    return ToolResultPart(call_id=call.call_id, content=content, family=call.family)


def _text(draw: st.DrawFn, *, empty_chance: bool = True) -> TextPart:
    if empty_chance and draw(st.integers(0, 5)) == 0:
        return TextPart(text=draw(EMPTY_TEXTS))
    return TextPart(text=draw(TEXTS))


@st.composite
def _new_call(draw: st.DrawFn, state: _State) -> ToolCallPart:
    """A call under a fresh id, a shared id, a pending id or an answered id."""
    name = draw(st.sampled_from(FUNCTION_NAMES + HANDOFF_NAMES))
    how = draw(st.sampled_from(["fresh", "fresh", "pool", "pending", "pending", "reused"]))
    if how == "pending" and state.pending:
        first = draw(st.sampled_from(state.pending))
        same = draw(st.booleans())
        name = first.name if same and first.name else name
        return _call(draw, state, call_id=first.call_id or "", name=name)
    if how == "reused" and state.answered:
        first, _ = draw(st.sampled_from(state.answered))
        return _call(draw, state, call_id=first.call_id or "", name=first.name or name)
    if how == "pool":
        return _call(draw, state, call_id=draw(st.sampled_from(ID_POOL)), name=name)
    return _call(draw, state, call_id=state.fresh_id(), name=name)


def _answer(draw: st.DrawFn, state: _State, calls: list[ToolCallPart]) -> list[ToolResultPart]:
    """Results for `calls` (removed from pending), in the order drawn."""
    results = []
    for call in calls:
        result = _result(call, draw(RESULTS))
        results.append(result)
        state.answered.append((call, result))
        state.pending.remove(call)
    return results


def _result_messages(
    draw: st.DrawFn, state: _State, results: list[ToolResultPart]
) -> list[Message]:
    """Tool messages for `results`: one per result, or (MEAI) several in one message."""
    if not results:
        return []
    if state.meai and draw(st.booleans()):
        return [Message(role="tool", parts=tuple(results))]
    return [Message(role="tool", parts=(result,)) for result in results]


@st.composite
def _step(draw: st.DrawFn, state: _State, kind: str) -> list[Message]:
    if kind == "user":
        parts = [_text(draw)]
        if draw(st.integers(0, 4)) == 0:
            parts.append(_text(draw))
        return [Message(role="user", parts=tuple(parts))]
    if kind == "system":
        return [Message(role="system", parts=(_text(draw, empty_chance=False),))]
    if kind == "assistant":
        return [Message(role="assistant", parts=(_text(draw),))]
    if kind == "empty":
        return [Message(role=draw(st.sampled_from(["assistant", "user"])))]
    if kind == "calls":
        calls = []
        for _ in range(draw(st.integers(1, 3))):  # a later call may repeat an earlier one
            calls.append(draw(_new_call(state)))
            state.pending.append(calls[-1])
        lead = [_text(draw)] if draw(st.integers(0, 2)) == 0 else []
        out = [Message(role="assistant", parts=(*lead, *calls))]
        if draw(st.booleans()):  # answer some of them right away
            answered = draw(st.lists(st.sampled_from(calls), unique_by=id))
            out += _result_messages(draw, state, _answer(draw, state, answered))
        return out
    if kind == "results":
        chosen = draw(st.lists(st.sampled_from(state.pending), unique_by=id, min_size=1))
        return _result_messages(draw, state, _answer(draw, state, chosen))
    if kind == "orphan":
        call_id = draw(st.sampled_from(("call_gone", *ID_POOL)))
        result = ToolResultPart(call_id=call_id, content=draw(RESULTS))
        return [Message(role="tool", parts=(result,))]
    if kind == "duplicate":
        call, first = draw(st.sampled_from(state.answered))
        content = first.content if draw(st.booleans()) else draw(RESULTS)
        return [Message(role="tool", parts=(_result(call, content),))]
    if kind == "legacy":
        name = draw(st.sampled_from(FUNCTION_NAMES))
        call = ToolCallPart(
            call_id=None,
            name=name,
            arguments='{"q": 1}',
            tool_type="function_call",
            slot="function_call",
        )
        out = [Message(role="assistant", parts=(call,))]
        for _ in range(draw(st.sampled_from([0, 1, 1, 1, 2]))):
            result = ToolResultPart(
                call_id=None,
                name=name,
                content=draw(RESULTS),
                tool_type="function",
                slot="function",
            )
            out.append(Message(role="function", parts=(result,)))
        return out
    if kind == "approval":
        parts: list[Part] = []
        for _ in range(draw(st.integers(1, 2))):
            if state.requests and draw(st.integers(0, 3)) == 0:  # repeat a pending request id
                first = draw(st.sampled_from(state.requests))
                same = draw(st.booleans())
                wrapped = first.tool_call if same else draw(_new_call(state))
                parts.append(ApprovalRequestPart(request_id=first.request_id, tool_call=wrapped))
                continue
            call = _call(
                draw, state, call_id=state.fresh_id(), name=draw(st.sampled_from(FUNCTION_NAMES))
            )
            request = ApprovalRequestPart(request_id=f"ficc_{call.call_id}", tool_call=call)
            state.requests.append(request)
            parts.append(request)
        if draw(st.integers(0, 3)) == 0:
            parts.insert(0, _text(draw))
        return [Message(role="assistant", parts=tuple(parts))]
    if kind == "response":
        if not state.requests or draw(st.integers(0, 4)) == 0:  # a response to nothing
            lone = ApprovalResponsePart(request_id="ficc_unknown", approved=True)
            return [Message(role="user", parts=(lone,))]
        chosen = draw(st.lists(st.sampled_from(state.requests), unique_by=id, min_size=1))
        responses = []
        rebuilt: list[ToolCallPart] = []
        for request in chosen:
            state.requests.remove(request)
            approved = draw(st.booleans())
            responses.append(
                ApprovalResponsePart(
                    request_id=request.request_id, approved=approved, tool_call=request.tool_call
                )
            )
            if request.tool_call is not None:
                rebuilt.append(request.tool_call.evolve(informational=True))
        out = [Message(role="user", parts=tuple(responses))]
        if rebuilt and draw(st.booleans()):  # FICC's rebuilt calls and their results
            state.pending.extend(rebuilt)
            out.append(Message(role="assistant", parts=tuple(rebuilt)))
            if draw(st.booleans()):
                out += _result_messages(draw, state, _answer(draw, state, rebuilt))
        return out
    if kind == "hosted":  # a service-side tool; its result, if any, is in the same message
        hosted = draw(st.sampled_from(HOSTED_KINDS))
        call = ToolCallPart(
            call_id=f"ht_{state.fresh_id()}",
            family=ToolFamily.HOSTED,
            tool_type=hosted + "Call",
        )
        parts = [call]
        if draw(st.integers(0, 2)):
            result = ToolResultPart(
                call_id=call.call_id, family=ToolFamily.HOSTED, tool_type=hosted + "Result"
            )
            parts.append(result)
        else:
            state.pending.append(call)
        return [Message(role="assistant", parts=tuple(parts))]
    assert kind == "mcp"
    call = ToolCallPart(
        call_id=f"mcp_{state.fresh_id()}",
        name="search_repositories",
        arguments={"query": "histnorm"},
        family=ToolFamily.MCP,
        tool_type="mcpServerToolCall",
    )
    parts = [call]
    if draw(st.integers(0, 3)):
        parts.append(
            ToolResultPart(
                call_id=call.call_id,
                content=[{"$type": "text", "text": "[]"}],
                family=ToolFamily.MCP,
                tool_type="mcpServerToolResult",
            )
        )
    else:
        state.pending.append(call)
    if draw(st.booleans()):
        parts.append(_text(draw))
    return [Message(role="assistant", parts=tuple(parts))]


def _possible(kind: str, state: _State) -> bool:
    if kind in OPENAI_ONLY and state.meai:
        return False
    if kind in MEAI_ONLY and not state.meai:
        return False
    if kind == "results":
        return bool(state.pending)
    if kind == "duplicate":
        return bool(state.answered)
    return True


@st.composite
def canonical_transcripts(
    draw: st.DrawFn, formats: tuple[str, ...] = FORMATS, max_steps: int = 14
) -> Transcript:
    """A transcript built in the canonical model, written to be encoded as its `format`."""
    state = _State(format=draw(st.sampled_from(formats)))
    for _ in range(draw(st.integers(1, max_steps))):
        kind = draw(st.sampled_from([k for k in STEPS if _possible(k, state)]))
        state.messages.extend(draw(_step(state, kind)))
    target(float(len(state.messages)), label=f"messages ({state.format})")
    return Transcript(messages=tuple(state.messages), format=state.format)


@st.composite
def documents(
    draw: st.DrawFn, formats: tuple[str, ...] = FORMATS, max_steps: int = 14
) -> tuple[Any, str]:
    """A native document (the encoded canonical transcript) and its format."""
    built = draw(canonical_transcripts(formats, max_steps))
    assert built.format is not None
    return histnorm.encode(built), built.format


@st.composite
def transcripts(
    draw: st.DrawFn, formats: tuple[str, ...] = FORMATS, max_steps: int = 14
) -> Transcript:
    """A transcript as `histnorm.load` reads it from the native JSON of a generated one."""
    document, fmt = draw(documents(formats, max_steps))
    return histnorm.load(orjson.dumps(document), format=fmt)


@st.composite
def fix_settings(draw: st.DrawFn) -> histnorm.Settings:
    """Any combination of the settings that change what `fix` does."""
    return histnorm.Settings(
        unsafe_fixes=draw(st.booleans()),
        orphan_tool_call=draw(st.sampled_from(["drop", "synthesize", "fail"])),
        pending_approval=draw(st.sampled_from(["drop", "deny", "fail"])),
        whitespace_is_empty=draw(st.booleans()),
        tail=draw(st.sampled_from(["keep", "close"])),
        scope=draw(st.sampled_from(["all", "all", "tail", "marked"])),
    )


@st.composite
def closing_settings(draw: st.DrawFn) -> histnorm.Settings:
    """Settings under which `fix` must leave a transcript with nothing open or invalid."""
    return histnorm.Settings(
        unsafe_fixes=True,
        tail="close",
        orphan_tool_call=draw(st.sampled_from(["drop", "synthesize"])),
        pending_approval=draw(st.sampled_from(["drop", "deny"])),
        whitespace_is_empty=draw(st.booleans()),
    )
