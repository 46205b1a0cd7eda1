"""The Pydantic AI adapter, against the real package: `repair_history` on its own, and as
the history processor of an `Agent` running its own loop on a `FunctionModel` that records
the messages it is sent.

Pydantic AI 2.x has no `history_processors=` (`Agent(..., history_processors=...)` is a
TypeError); a history processor runs through `capabilities=[ProcessHistory(fn)]`. Pydantic
AI also cleans a history itself at the start of a run: it answers a dangling call with an
`interrupted` return and drops a return whose call is missing, but keeps a call stored
twice under one id and a return stored twice. The runs below show both.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("pydantic_ai")

from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from histnorm.integrations.pydantic_ai import repair_capability, repair_history

CALL = ToolCallPart("lookup", {"q": "tides"}, "call_1")
RESULT = ToolReturnPart("lookup", "12:40", "call_1")


def _orphan_call() -> list[ModelMessage]:
    """A run cancelled while `lookup` ran: its call has no return, the user went on."""
    return [
        ModelRequest(parts=[UserPromptPart("When is high tide?")]),
        ModelResponse(parts=[TextPart("Let me look."), CALL]),
        ModelRequest(parts=[UserPromptPart("Still there?")]),
        ModelResponse(parts=[TextPart("Yes.")]),
    ]


def _stored_twice() -> list[ModelMessage]:
    """A streamed call stored twice under its id, and its return written twice."""
    return [
        ModelRequest(parts=[UserPromptPart("When is high tide?")]),
        ModelResponse(parts=[CALL, CALL]),
        ModelRequest(parts=[RESULT]),
        ModelRequest(parts=[RESULT]),
        ModelResponse(parts=[TextPart("At 12:40.")]),
    ]


def _clean() -> list[ModelMessage]:
    return [
        ModelRequest(parts=[UserPromptPart("When is high tide?")]),
        ModelResponse(parts=[CALL]),
        ModelRequest(parts=[RESULT]),
        ModelResponse(parts=[TextPart("At 12:40.")]),
    ]


def _calls(messages: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolCallPart)]


def _returns(messages: list[ModelMessage]) -> list[str]:
    return [p.tool_call_id for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]


class Recorder:
    """A FunctionModel body that records each message list it is sent and answers."""

    def __init__(self) -> None:
        self.seen: list[list[ModelMessage]] = []

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        return ModelResponse(parts=[TextPart("High tide is at 12:40.")])


def _run(history: list[ModelMessage], capabilities: list[Any]) -> Recorder:
    recorder = Recorder()
    agent = Agent(FunctionModel(recorder), capabilities=capabilities)
    agent.run_sync("And tomorrow?", message_history=history)
    return recorder


def test_an_orphan_call_is_dropped_and_the_other_messages_are_the_very_objects() -> None:
    history = _orphan_call()
    repaired = repair_history(history)
    assert _calls(repaired) == []
    assert len(repaired) == 4
    assert repaired[1] is not history[1]
    assert isinstance(repaired[1], ModelResponse)
    assert [type(p) for p in repaired[1].parts] == [TextPart]
    for index in (0, 2, 3):
        assert repaired[index] is history[index]
    assert history[1].parts[1] is CALL  # the input is not changed


def test_an_orphan_call_can_be_answered_instead() -> None:
    repaired = repair_history(_orphan_call(), orphan_tool_call="synthesize")
    assert _calls(repaired) == ["call_1"] and _returns(repaired) == ["call_1"]
    assert repair_history(repaired, orphan_tool_call="synthesize") == repaired


def test_a_clean_history_comes_back_as_the_very_objects() -> None:
    history = _clean()
    repaired = repair_history(history)
    assert repaired == history and all(a is b for a, b in zip(repaired, history, strict=True))


def test_the_agent_sends_the_model_a_history_without_the_orphan_call() -> None:
    recorder = _run(_orphan_call(), [ProcessHistory(repair_history)])
    sent = recorder.seen[0]
    answered = set(_returns(sent))
    assert all(call in answered for call in _calls(sent))
    assert isinstance(sent[-1], ModelRequest)
    assert sent[-1].parts[-1].content == "And tomorrow?"  # type: ignore[union-attr]


def test_the_agent_repairs_what_pydantic_ai_itself_keeps() -> None:
    plain = _run(_stored_twice(), [])
    assert _calls(plain.seen[0]) == ["call_1", "call_1"]  # sent as stored: the defect reaches it
    recorder = _run(_stored_twice(), [ProcessHistory(repair_history)])
    sent = recorder.seen[0]
    assert _calls(sent) == ["call_1"] and _returns(sent) == ["call_1"]
    assert sent[0].parts[0].content == "When is high tide?"  # type: ignore[union-attr]


def test_the_processor_passes_a_clean_history_untouched() -> None:
    seen: list[tuple[list[ModelMessage], list[ModelMessage]]] = []

    def spy(messages: list[ModelMessage]) -> list[ModelMessage]:
        out = repair_history(messages)
        seen.append((messages, out))
        return out

    recorder = _run(_clean(), [ProcessHistory(spy)])
    given, returned = seen[0]
    assert len(given) == 5 and all(a is b for a, b in zip(given, returned, strict=True))
    dump = ModelMessagesTypeAdapter.dump_python
    assert dump(recorder.seen[0], mode="json") == dump(given, mode="json")


def test_the_capability_takes_settings() -> None:
    recorder = _run(_stored_twice(), [repair_capability(orphan_tool_call="synthesize")])
    assert _calls(recorder.seen[0]) == ["call_1"]
    with pytest.raises(TypeError, match="no_such_option"):
        repair_capability(no_such_option=1)


def test_what_histnorm_cannot_read_comes_back_unchanged() -> None:
    odd: list[Any] = [*_clean(), object()]
    assert repair_history(odd) == odd


def _repeated_call_one_return() -> list[ModelMessage]:
    """A call stored twice in one response under its id, answered once: Pydantic AI's own
    repair answers the second copy with a synthesized `interrupted` return."""
    return [
        ModelRequest(parts=[UserPromptPart("When is high tide?")]),
        ModelResponse(parts=[CALL, CALL]),
        ModelRequest(parts=[RESULT]),
        ModelResponse(parts=[TextPart("At 12:40.")]),
    ]


def test_a_return_pydantic_ai_synthesized_beside_the_real_one_is_dropped() -> None:
    """Pydantic AI synthesizes a return for the repeated call before histnorm runs; histnorm
    drops the repeated call, and the synthesized return with it (the call has a real one):
    the model gets one call and its real return, not one call and two returns."""
    plain = _run(_repeated_call_one_return(), [])
    assert _returns(plain.seen[0]) == ["call_1", "call_1"]  # what Pydantic AI sends alone
    recorder = _run(_repeated_call_one_return(), [repair_capability()])
    sent = recorder.seen[0]
    assert _calls(sent) == ["call_1"] and _returns(sent) == ["call_1"]
    kept = [p for m in sent for p in m.parts if isinstance(p, ToolReturnPart)]
    assert kept[0].content == "12:40" and not kept[0].metadata


def test_a_synthesized_return_that_is_the_only_answer_is_kept() -> None:
    """A synthesized return answering a call that has no real one is the only answer it
    has: it stays (here the call, re-used by a later response, is answered each time)."""
    history = [
        ModelRequest(parts=[UserPromptPart("When is high tide?")]),
        ModelResponse(parts=[CALL]),
        ModelRequest(parts=[RESULT]),
        ModelResponse(parts=[CALL]),
        ModelRequest(parts=[UserPromptPart("Still there?")]),
        ModelResponse(parts=[TextPart("Yes.")]),
    ]
    recorder = _run(history, [repair_capability()])
    sent = recorder.seen[0]
    assert _calls(sent) == ["call_1", "call_1"] and _returns(sent) == ["call_1", "call_1"]
    synthesized = [p for m in sent for p in m.parts if isinstance(p, ToolReturnPart)][1]
    assert synthesized.metadata == {"pydantic_ai_synthesized_tool_return": True}
