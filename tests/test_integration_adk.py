"""The Google ADK adapter, against the real package: a session whose stored events hold a
long-running call never answered, a result posted back after later turns and an empty text
part is run by a real `LlmAgent` through a `Runner` over `InMemorySessionService`, on a fake
model that records each `LlmRequest`. The plugin, the synchronous callback and the
asynchronous one each send the model a valid history; the stored events are left alone."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("google.adk")

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.apps import App
from google.adk.events import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

import histnorm
from histnorm.integrations.adk import (
    RepairPlugin,
    async_repair_callback,
    repair_callback,
    repair_llm_request,
)
from histnorm.repair import Repair
from tests.adk_helpers import RecordingModel, content
from tests.adk_helpers import call as _call
from tests.adk_helpers import response as _response
from tests.adk_helpers import text as _text

APP, USER = "bistro", "ana"


PENDING = {"adk-b1", "adk-n1"}
STORED: list[tuple[str, str, list[types.Part], set[str] | None]] = [
    ("user", "user", [_text("Book a table for two at 8 and tell Bo.")], None),
    # an empty text part streamed before two long-running calls
    ("helper", "model", [_text(""), _call("book", "adk-b1"), _call("notify", "adk-n1")], PENDING),
    ("helper", "model", [_text("I asked the restaurant and will message Bo.")], None),
    ("user", "user", [_text("Thanks. Will it rain?")], None),
    ("helper", "model", [_text("No rain tonight.")], None),
    # the booking's result, posted back after later turns (displaced); notify never answered
    ("user", "user", [_response("book", "adk-b1", "confirmed")], None),
    ("helper", "model", [_text("Your table is confirmed.")], None),
]
"""A session as ADK stores it: `notify` is a long-running call still waiting, which ADK
keeps in every request, and the empty text part reaches the model too."""


def _session_events(service: InMemorySessionService, session_id: str) -> list[Event]:
    session = asyncio.run(service.get_session(app_name=APP, user_id=USER, session_id=session_id))
    assert session is not None
    return list(session.events)


def _stored_session(service: InMemorySessionService) -> str:
    async def fill() -> str:
        session = await service.create_session(app_name=APP, user_id=USER)
        for author, role, parts, pending in STORED:
            content = types.Content(role=role, parts=parts)
            event = Event(author=author, invocation_id="inv-0", content=content)
            event.long_running_tool_ids = pending
            await service.append_event(session, event)
        return session.id

    return asyncio.run(fill())


def _run(
    *,
    plugins: list[Any] | None = None,
    callback: Any = None,
    model: RecordingModel | None = None,
    tools: list[Any] | None = None,
    sync: bool = False,
) -> tuple[RecordingModel, list[Event], list[Event]]:
    """Run the agent once on the stored session with the user's next message; the model,
    the session's events before the run, and after it."""
    model = model or RecordingModel()
    agent = LlmAgent(
        name="helper",
        model=model,
        instruction="Answer briefly.",
        before_model_callback=callback,
        tools=tools or [],
    )
    service = InMemorySessionService()
    app = App(name=APP, root_agent=agent, plugins=plugins or [])
    runner = Runner(app=app, session_service=service)
    session_id = _stored_session(service)
    before = _session_events(service, session_id)
    message = types.Content(role="user", parts=[_text("Did Bo get the message?")])
    if sync:
        list(runner.run(user_id=USER, session_id=session_id, new_message=message))
    else:

        async def run() -> None:
            async for _ in runner.run_async(
                user_id=USER, session_id=session_id, new_message=message
            ):
                pass

        asyncio.run(run())
    return model, before, _session_events(service, session_id)


def _problems(contents: list[types.Content]) -> list[str]:
    """What Gemini or Vertex AI rejects in `contents`, checked here without histnorm: an
    empty text part, a call whose answer is not the next content, a response that does
    not follow its call, a content without parts."""
    found = []
    for k, item in enumerate(contents):
        parts = item.parts or []
        if not parts:
            found.append(f"content {k} has no parts")
        for part in parts:
            if part.text is not None and not part.text.strip() and not part.thought_signature:
                found.append(f"content {k} has an empty text part")
        calls = sorted(p.function_call.name or "" for p in parts if p.function_call)
        after = contents[k + 1].parts or [] if k + 1 < len(contents) else []
        answers = sorted(p.function_response.name or "" for p in after if p.function_response)
        if calls and calls != answers:
            found.append(f"calls {calls} in content {k} are answered by {answers}")
        before = contents[k - 1].parts or [] if k else []
        answered = sorted(p.function_call.name or "" for p in before if p.function_call)
        responses = sorted(p.function_response.name or "" for p in parts if p.function_response)
        if responses and responses != answered:
            found.append(f"responses {responses} in content {k} follow calls {answered}")
    return found


def _codes(contents: list[types.Content]) -> set[str]:
    dumped = [c.model_dump(mode="json", exclude_none=True) for c in contents]
    found = histnorm.lint(dumped, format="gemini", profile="vertex", tail="close")
    return {d.code for d in found if d.severity == "error"}


def _named_calls(contents: list[types.Content]) -> list[str]:
    return [p.function_call.name or "" for c in contents for p in c.parts or [] if p.function_call]


# what ADK itself sends


def test_without_histnorm_the_model_gets_the_open_call_and_the_empty_text() -> None:
    """ADK moves the posted-back result next to its call itself, but keeps a long-running
    call that is still waiting and sends the empty text part."""
    model, _, _ = _run()
    (contents,) = model.seen
    problems = _problems(contents)
    assert "content 1 has an empty text part" in problems
    assert "calls ['book', 'notify'] in content 1 are answered by ['book']" in problems
    assert _codes(contents) == {"HN001", "HN004"}
    assert contents[2].parts and contents[2].parts[0].function_response  # ADK moved it


# the plugin and the callbacks


def _adapters(reports: list[dict[str, int]]) -> dict[str, dict[str, Any]]:
    def record(context: CallbackContext, result: Repair[list[Any]]) -> None:
        assert context.agent_name == "helper"
        reports.append(dict(result.applied))

    return {
        "plugin": {"plugins": [RepairPlugin(on_repair=record)]},
        "callback": {"callback": repair_callback(on_repair=record)},
        "async callback": {"callback": async_repair_callback(on_repair=record)},
    }


@pytest.mark.parametrize("adapter", ["plugin", "callback", "async callback"])
def test_the_model_is_sent_a_valid_history(adapter: str) -> None:
    reports: list[dict[str, int]] = []
    model, before, after = _run(**_adapters(reports)[adapter])
    (contents,) = model.seen
    assert _problems(contents) == []
    assert _codes(contents) == set()
    assert _named_calls(contents) == ["book"]  # the waiting `notify` call is not sent
    book = contents[1].parts or []
    assert len(book) == 1 and book[0].function_call and book[0].function_call.name == "book"
    assert [c.parts for c in contents[-3:]] == [
        [_text("No rain tonight.")],
        [_text("Your table is confirmed.")],
        [_text("Did Bo get the message?")],
    ]
    assert reports == [{"HN001": 1, "HN004": 1}]
    # the request is repaired, not the stored session
    assert after[: len(before)] == before
    assert before[1].content and before[1].content.parts == STORED[1][2]


def test_the_synchronous_runner_runs_the_callback_too() -> None:
    model, before, after = _run(callback=repair_callback(), sync=True)
    (contents,) = model.seen
    assert _problems(contents) == []
    assert after[: len(before)] == before


def test_a_plugin_runs_for_every_agent_before_their_own_callbacks() -> None:
    seen_by_callback: list[list[str]] = []

    def own_callback(context: CallbackContext, llm_request: LlmRequest) -> None:
        seen_by_callback.append(_problems(list(llm_request.contents)))

    model, _, _ = _run(plugins=[RepairPlugin()], callback=own_callback)
    assert seen_by_callback == [[]]
    assert _problems(model.seen[0]) == []


def test_a_clean_tool_round_is_sent_as_adk_built_it() -> None:
    """The model calls a tool; ADK runs it and calls the model again. Both requests are
    clean, so the callback leaves them alone."""

    def weather(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"sky": "clear"}

    model = RecordingModel(replies=[content("model", _call("weather", None, city="Oslo"))])
    reports: list[dict[str, int]] = []
    service = InMemorySessionService()
    callback = repair_callback(on_repair=lambda c, r: reports.append(dict(r.applied)))
    agent = LlmAgent(name="helper", model=model, tools=[weather], before_model_callback=callback)
    runner = Runner(app=App(name=APP, root_agent=agent), session_service=service)

    async def run() -> None:
        session = await service.create_session(app_name=APP, user_id=USER)
        message = types.Content(role="user", parts=[_text("Weather in Oslo?")])
        async for _ in runner.run_async(user_id=USER, session_id=session.id, new_message=message):
            pass

    asyncio.run(run())
    assert len(model.seen) == 2
    assert _named_calls(model.seen[1]) == ["weather"]
    assert _problems(model.seen[1]) == []
    assert reports == []


# repair_llm_request and its settings


def _request() -> LlmRequest:
    contents = [types.Content(role=role, parts=list(parts)) for _, role, parts, _ in STORED]
    return LlmRequest(model="gemini-2.5-flash", contents=contents)


def test_the_contents_are_repaired_in_place_and_untouched_ones_kept() -> None:
    request = _request()
    listed = request.contents
    originals = list(listed)
    result = repair_llm_request(request)
    assert result is not None
    assert request.contents is listed
    assert all(isinstance(c, types.Content) for c in listed)
    assert listed[0] is originals[0] and listed[-1] is originals[-1]
    assert listed[1] is not originals[1]
    assert originals[1].parts == STORED[1][2]  # the objects ADK gave are never changed
    assert {f.code for f in result.fixes} >= {"HN004"}


def test_options_choose_what_happens() -> None:
    """Under the Gemini API's profile an empty text part beside calls is accepted; a
    waiting call can be answered instead of dropped."""
    request = _request()
    result = repair_llm_request(request, profile="gemini", orphan_tool_call="synthesize")
    assert result is not None and "HN004" not in result.applied
    assert _named_calls(request.contents) == ["book", "notify"]
    answered = [
        p.function_response.name or ""
        for c in request.contents
        for p in c.parts or []
        if p.function_response
    ]
    assert sorted(answered) == ["book", "notify"]


def test_a_clean_request_is_left_exactly_as_it_was() -> None:
    contents = [
        types.Content(role="user", parts=[_text("Table for two?")]),
        types.Content(role="model", parts=[_text("Booked.")]),
    ]
    request = LlmRequest(contents=list(contents))
    assert repair_llm_request(request) is None
    assert all(a is b for a, b in zip(request.contents, contents, strict=True))
    assert repair_llm_request(LlmRequest()) is None


def test_an_unknown_option_is_an_error() -> None:
    with pytest.raises(TypeError, match="orphan_call"):
        repair_callback(orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        RepairPlugin(orphan_call="drop")


def test_what_histnorm_cannot_read_is_left_alone() -> None:
    odd: Any = lambda: None  # noqa: E731
    request = LlmRequest(contents=[types.Content(role="user", parts=[_text("hi")])])
    request.contents.append(odd)
    assert repair_llm_request(request) is None
    assert request.contents[-1] is odd


# the README's recipe


def test_the_readme_recipe_runs_as_written() -> None:
    """The recipe of the README's ADK section, run in a fresh interpreter, prints what the
    README shows beneath it."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("Google ADK (`pip install histnorm google-adk`)", 1)[1]
    code, rest = section.split("```python\n", 1)[1].split("```\n", 1)
    shown = rest.split("```text\n", 1)[1].split("```", 1)[0]
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(root / "cli")])}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown
