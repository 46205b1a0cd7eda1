"""The Agent Framework adapter, against the real package: repair a message list, a history
provider that repairs what it loads, and a chat middleware, each in a real `Agent` run
whose chat client is a fake that records what it receives."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("agent_framework")

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatMiddlewareLayer,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    HistoryProvider,
    Message,
    ResponseStream,
    tool,
)

from histnorm.integrations.agent_framework import (
    RepairChatMiddleware,
    RepairHistoryProvider,
    repair_messages,
)


def _call(call_id: str) -> Content:
    return Content.from_function_call(call_id=call_id, name="tide", arguments={"place": "harbour"})


def _result(call_id: str) -> Content:
    return Content.from_function_result(call_id=call_id, result="12:40")


def _broken() -> list[Message]:
    """A stored history with a result whose call is gone and a call never answered."""
    return [
        Message(role="tool", contents=[_result("call_0")]),
        Message(role="user", contents=["When is high tide?"]),
        Message(role="assistant", contents=["Let me look.", _call("call_1")]),
        Message(role="user", contents=["Still there?"]),
        Message(role="assistant", contents=["Yes."]),
    ]


def _clean() -> list[Message]:
    return [
        Message(role="user", contents=["When is high tide?"]),
        Message(role="assistant", contents=[_call("call_1")]),
        Message(role="tool", contents=[_result("call_1")]),
        Message(role="assistant", contents=["At 12:40."]),
    ]


def _unanswered(messages: Sequence[Message]) -> list[str]:
    """Call ids with no result after them."""
    results = {c.call_id for m in messages for c in m.contents if c.type == "function_result"}
    return [
        c.call_id or ""
        for m in messages
        for c in m.contents
        if c.type == "function_call" and c.call_id not in results
    ]


def _orphan_results(messages: Sequence[Message]) -> list[str]:
    """Result ids whose call is not before them."""
    called: set[str | None] = set()
    found = []
    for m in messages:
        for c in m.contents:
            if c.type == "function_call":
                called.add(c.call_id)
            elif c.type == "function_result" and c.call_id not in called:
                found.append(c.call_id or "")
    return found


def _texts(messages: Sequence[Message]) -> list[str]:
    return [m.text for m in messages]


class RecordingClient(FunctionInvocationLayer[Any], ChatMiddlewareLayer[Any], BaseChatClient[Any]):
    """A fake chat client, layered as the framework's own clients are, that keeps the
    messages of each model call and answers with the next of `replies`."""

    def __init__(self, *replies: Message, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        default = Message(role="assistant", contents=["Low tide is at 18:55."])
        self.replies = list(replies) or [default]
        self.seen: list[list[Message]] = []

    async def _reply(self, messages: Sequence[Message]) -> ChatResponse:
        self.seen.append(list(messages))
        return ChatResponse(messages=[self.replies.pop(0)])

    def _inner_get_response(  # type: ignore[override]
        self, *, messages: Sequence[Message], stream: bool, options: Any, **kwargs: Any
    ) -> Any:
        if not stream:
            return self._reply(messages)

        async def updates() -> Any:
            response = await self._reply(messages)
            for update in response.to_updates():
                yield update

        return ResponseStream(updates(), finalizer=ChatResponse.from_updates)


def _session(history: list[Message], source_id: str = "in_memory") -> AgentSession:
    session = AgentSession()
    session.state[source_id] = {"messages": list(history)}
    return session


def _run(agent: Agent[Any], session: AgentSession, text: str = "And low tide?") -> Any:
    return asyncio.run(agent.run(text, session=session))


def test_an_orphan_call_and_an_orphan_result_are_dropped_the_rest_kept() -> None:
    messages = _broken()
    repaired = repair_messages(messages)
    assert _unanswered(repaired) == [] and _orphan_results(repaired) == []
    assert _texts(repaired) == ["When is high tide?", "Let me look.", "Still there?", "Yes."]
    assert isinstance(repaired[1], Message) and repaired[1] is not messages[2]
    assert repaired[0] is messages[1]
    assert repaired[2] is messages[3] and repaired[3] is messages[4]
    assert [c.type for c in messages[2].contents] == ["text", "function_call"]  # input kept


def test_an_orphan_call_can_be_answered_instead() -> None:
    repaired = repair_messages(_broken(), orphan_tool_call="synthesize")
    assert _unanswered(repaired) == []
    answers = [c for m in repaired for c in m.contents if c.type == "function_result"]
    assert [c.call_id for c in answers] == ["call_1"]


def test_a_clean_history_comes_back_as_the_same_objects() -> None:
    messages = _clean()
    repaired = repair_messages(messages)
    assert len(repaired) == len(messages)
    assert all(a is b for a, b in zip(repaired, messages, strict=True))


def test_repair_is_idempotent() -> None:
    once = repair_messages(_broken())
    twice = repair_messages(once)
    assert len(twice) == len(once) and all(a is b for a, b in zip(twice, once, strict=True))


@pytest.mark.parametrize("odd", ["not a message", object(), {"role": "user"}])
def test_an_unreadable_history_is_returned_unchanged(odd: Any) -> None:
    messages: list[Any] = [*_broken(), odd]
    repaired = repair_messages(messages)
    assert len(repaired) == len(messages)
    assert all(a is b for a, b in zip(repaired, messages, strict=True))


def test_an_unknown_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="orphan_call"):
        repair_messages(_broken(), orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairHistoryProvider(orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairChatMiddleware(orphan_call="drop")


def test_without_the_adapters_the_client_sees_the_broken_history() -> None:
    client = RecordingClient()
    _run(Agent(client=client), _session(_broken()))
    assert _unanswered(client.seen[0]) == ["call_1"]
    assert _orphan_results(client.seen[0]) == ["call_0"]


def test_the_history_provider_repairs_what_reaches_the_client() -> None:
    client = RecordingClient()
    session = _session(_broken())
    agent = Agent(client=client, context_providers=[RepairHistoryProvider()])
    response = _run(agent, session)
    assert response.text == "Low tide is at 18:55."
    seen = client.seen[0]
    assert _unanswered(seen) == [] and _orphan_results(seen) == []
    assert _texts(seen) == [
        "When is high tide?",
        "Let me look.",
        "Still there?",
        "Yes.",
        "And low tide?",
    ]
    stored = session.state["in_memory"]["messages"]
    assert _orphan_results(stored) == ["call_0"]  # the stored history is not rewritten
    assert _texts(stored[-2:]) == ["And low tide?", "Low tide is at 18:55."]


def test_the_history_provider_repairs_on_get_messages() -> None:
    provider = RepairHistoryProvider()
    state = {"messages": _broken()}
    loaded = asyncio.run(provider.get_messages(None, state=state))
    assert _unanswered(loaded) == [] and _orphan_results(loaded) == []
    assert loaded[0] is state["messages"][1]


class DictHistory(HistoryProvider):
    """A history provider of the user's own, keyed by session id."""

    def __init__(self, stored: dict[str, list[Message]]) -> None:
        super().__init__("dict_history")
        self.stored = stored

    async def get_messages(self, session_id: str | None, **kwargs: Any) -> list[Message]:
        return list(self.stored.get(session_id or "", []))

    async def save_messages(
        self, session_id: str | None, messages: Sequence[Message], **kwargs: Any
    ) -> None:
        self.stored.setdefault(session_id or "", []).extend(messages)


def test_the_history_provider_wraps_any_provider() -> None:
    session = AgentSession()
    stored = {session.session_id: _broken()}
    client = RecordingClient()
    agent = Agent(client=client, context_providers=[RepairHistoryProvider(DictHistory(stored))])
    _run(agent, session)
    assert _unanswered(client.seen[0]) == [] and _orphan_results(client.seen[0]) == []
    assert len(stored[session.session_id]) == 7  # the wrapped provider stored the run


def _open_at_the_end() -> list[Message]:
    return [Message(role="user", contents=["hi"]), Message(role="assistant", contents=[_call("c")])]


def test_the_history_provider_keeps_a_call_left_open_at_the_end() -> None:
    """The next input may answer it; the chat middleware closes it at the model call."""
    history = _open_at_the_end()
    state = {"messages": history}
    loaded = asyncio.run(RepairHistoryProvider().get_messages(None, state=state))
    assert all(a is b for a, b in zip(loaded, history, strict=True))
    closed = asyncio.run(RepairHistoryProvider(tail="close").get_messages(None, state=state))
    assert _texts(closed) == ["hi"]


def test_the_chat_middleware_repairs_what_reaches_the_client() -> None:
    client = RecordingClient()
    session = _session(_broken())
    agent = Agent(client=client, middleware=[RepairChatMiddleware()])
    _run(agent, session)
    seen = client.seen[0]
    assert _unanswered(seen) == [] and _orphan_results(seen) == []
    assert _texts(seen)[-1] == "And low tide?"


def test_a_streamed_run_is_repaired_too() -> None:
    client = RecordingClient()
    agent = Agent(
        client=client,
        context_providers=[RepairHistoryProvider()],
        middleware=[RepairChatMiddleware()],
    )

    async def streamed() -> str:
        stream = agent.run("And low tide?", session=_session(_broken()), stream=True)
        async for _ in stream:
            pass
        return (await stream.get_final_response()).text

    assert asyncio.run(streamed()) == "Low tide is at 18:55."
    assert _unanswered(client.seen[0]) == [] and _orphan_results(client.seen[0]) == []


def test_a_repaired_message_keeps_its_other_fields() -> None:
    messages = [
        Message(role="user", contents=["hi"]),
        Message(
            role="assistant",
            contents=["Let me look.", _call("c1")],
            message_id="m1",
            author_name="tides",
            additional_properties={"trace": "t-1"},
        ),
        Message(role="user", contents=["again"]),
    ]
    repaired = repair_messages(messages)[1]
    assert [c.type for c in repaired.contents] == ["text"]
    assert (repaired.message_id, repaired.author_name) == ("m1", "tides")
    assert repaired.additional_properties == {"trace": "t-1"}


def test_the_chat_middleware_closes_a_call_left_open_before_the_input() -> None:
    history = _open_at_the_end()
    client = RecordingClient()
    agent = Agent(
        client=client,
        context_providers=[RepairHistoryProvider()],
        middleware=[RepairChatMiddleware()],
    )
    _run(agent, _session(history))
    assert _texts(client.seen[0]) == ["hi", "And low tide?"]


@tool
def tide(place: str) -> str:
    """The time of the next high tide at `place`."""
    return "12:40"


def test_the_chat_middleware_leaves_a_tool_round_alone() -> None:
    """Each model call of the tool loop passes through the middleware; a call and its
    result, made in this run, reach the client untouched."""
    client = RecordingClient(
        Message(role="assistant", contents=[_call("call_9")]),
        Message(role="assistant", contents=["High tide is at 12:40."]),
    )
    agent = Agent(client=client, tools=[tide], middleware=[RepairChatMiddleware()])
    response = _run(agent, _session([]), "When is high tide?")
    assert response.text == "High tide is at 12:40."
    assert len(client.seen) == 2
    assert [c.type for m in client.seen[1] for c in m.contents] == [
        "text",
        "function_call",
        "function_result",
    ]


def test_the_chat_middleware_changes_nothing_in_a_clean_history() -> None:
    client = RecordingClient()
    session = _session(_clean())
    _run(Agent(client=client, middleware=[RepairChatMiddleware()]), session)
    assert _texts(client.seen[0])[:-1] == _texts(_clean())
    assert [m.role for m in client.seen[0]] == ["user", "assistant", "tool", "assistant", "user"]


def _process(middleware: RepairChatMiddleware, messages: list[Message]) -> Any:
    """`context.messages` once the middleware has run, as the pipeline calls it."""
    from agent_framework import ChatContext

    context = ChatContext(client=RecordingClient(), messages=messages, options={})
    reached: list[Any] = []

    async def call_next() -> None:
        reached.append(context.messages)

    asyncio.run(middleware.process(context, call_next))
    assert reached == [context.messages]
    return context.messages


def test_the_chat_middleware_leaves_clean_messages_as_the_same_list() -> None:
    messages = _clean()
    assert _process(RepairChatMiddleware(), messages) is messages


def test_the_chat_middleware_keeps_the_untouched_messages_as_they_were() -> None:
    messages = _broken()
    out = _process(RepairChatMiddleware(), messages)
    assert out is not messages and len(out) == 4
    assert out[0] is messages[1] and out[2] is messages[3] and out[3] is messages[4]
