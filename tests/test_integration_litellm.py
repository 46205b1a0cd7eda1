"""The LiteLLM adapter, against the real package: the callback repairs what reaches the
model in `litellm.acompletion` and the Router (`mock_response` stands in for the
provider), its proxy hook repairs a request body called the way the proxy calls it, and
`repair_request` covers plain `litellm.completion`, which runs no hook that may change
the messages."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network for the model map
pytest.importorskip("litellm")

import litellm
from litellm.caching.dual_cache import DualCache
from litellm.integrations.custom_logger import CustomLogger
from litellm.proxy._types import UserAPIKeyAuth
from litellm.types.utils import CallTypes

from histnorm.integrations.litellm import (
    RepairLogger,
    profile_for_model,
    repair_request,
)


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "tide", "arguments": "{}"}}


def _orphan_call() -> list[dict[str, Any]]:
    """A tool call no result answers, then the user goes on."""
    return [
        {"role": "user", "content": "When is high tide?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "user", "content": "Still there?"},
    ]


def _clean() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "When is high tide?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_1")]},
        {"role": "tool", "tool_call_id": "call_1", "content": "12:40"},
        {"role": "user", "content": "And low tide?"},
    ]


def _dotted_id() -> list[dict[str, Any]]:
    """Clean for OpenAI and Bedrock; Anthropic rejects a `.` in a tool call id."""
    return [
        {"role": "user", "content": "When is high tide?"},
        {"role": "assistant", "content": None, "tool_calls": [_call("call.1")]},
        {"role": "tool", "tool_call_id": "call.1", "content": "12:40"},
        {"role": "user", "content": "And low tide?"},
    ]


def _unanswered(messages: list[dict[str, Any]]) -> list[str]:
    answered = {m.get("tool_call_id") for m in messages if m.get("role") == "tool"}
    return [c["id"] for m in messages for c in m.get("tool_calls") or () if c["id"] not in answered]


class Recorder(CustomLogger):
    """Keeps the messages of each model call, as LiteLLM logs them before the call."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[list[Any]] = []

    def log_pre_api_call(self, model: Any, messages: Any, kwargs: Any) -> None:
        self.seen.append(kwargs["input"])


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    """A recorder as the only callback (the test adds its own in front)."""
    found = Recorder()
    monkeypatch.setattr(litellm, "callbacks", [found])
    yield found


def _acompletion(model: str, messages: list[dict[str, Any]]) -> Any:
    return asyncio.run(litellm.acompletion(model=model, messages=messages, mock_response="ok"))


def test_without_the_callback_the_model_sees_the_orphan_call(recorder: Recorder) -> None:
    _acompletion("anthropic/claude-sonnet-4-5", _orphan_call())
    assert _unanswered(recorder.seen[0]) == ["call_1"]


def test_acompletion_sends_the_repaired_history(recorder: Recorder) -> None:
    litellm.callbacks.insert(0, RepairLogger())
    messages = _orphan_call()
    response = _acompletion("anthropic/claude-sonnet-4-5", messages)
    assert response.choices[0].message.content == "ok"
    seen = recorder.seen[0]
    assert _unanswered(seen) == []
    assert [m["content"] for m in seen] == ["When is high tide?", "Still there?"]
    assert seen == [messages[0], messages[2]]
    assert messages == _orphan_call()  # the caller's list is not changed


def test_the_hook_keeps_the_untouched_messages_as_they_were_passed() -> None:
    """LiteLLM copies the messages on their way to the model, so the objects are checked
    at the hook."""
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": _orphan_call()}
    out = asyncio.run(RepairLogger().async_pre_call_deployment_hook(kwargs, CallTypes.acompletion))
    assert out is not None and out is not kwargs
    assert out["messages"][0] is kwargs["messages"][0]
    assert out["messages"][1] is kwargs["messages"][2]


def test_a_streamed_call_is_repaired_too(recorder: Recorder) -> None:
    litellm.callbacks.insert(0, RepairLogger())

    async def streamed() -> None:
        model = "anthropic/claude-sonnet-4-5"
        chunks = await litellm.acompletion(
            model=model, messages=_orphan_call(), mock_response="ok", stream=True
        )
        async for _ in chunks:
            pass

    asyncio.run(streamed())
    assert _unanswered(recorder.seen[0]) == [] and len(recorder.seen[0]) == 2


def test_a_reply_appended_as_a_litellm_message_is_kept_as_it_is(recorder: Recorder) -> None:
    """The usual loop: `response.choices[0].message` goes back into the history."""
    messages: list[Any] = [{"role": "user", "content": "When is high tide?"}]
    reply = litellm.completion(model="gpt-4o", messages=messages, mock_response="At 12:40.")
    messages += [reply.choices[0].message, {"role": "user", "content": "And low tide?"}]
    assert repair_request({"model": "gpt-4o", "messages": messages})["messages"] is messages
    broken = [*messages, *_orphan_call()]
    out = repair_request({"model": "gpt-4o", "messages": broken})["messages"]
    assert len(out) == 5 and out[1] is messages[1] and _unanswered(out) == []


def test_a_clean_history_reaches_the_model_unchanged(recorder: Recorder) -> None:
    messages = _clean()
    _acompletion("anthropic/claude-sonnet-4-5", messages)
    litellm.callbacks.insert(0, RepairLogger())
    _acompletion("anthropic/claude-sonnet-4-5", messages)
    assert recorder.seen[1] == recorder.seen[0]  # what LiteLLM sends without the callback
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": messages}
    hook = RepairLogger().async_pre_call_deployment_hook
    assert asyncio.run(hook(kwargs, CallTypes.acompletion)) is None  # the request is left as is


@pytest.mark.parametrize(
    ("model", "rewritten"),
    [
        ("anthropic/claude-sonnet-4-5", True),
        ("vertex_ai/claude-sonnet-4-5", True),
        ("openai/gpt-4o", False),
        ("gpt-4o", False),
        ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", False),
        ("groq/llama-3.3-70b", False),
    ],
)
def test_the_profile_follows_the_provider(recorder: Recorder, model: str, rewritten: bool) -> None:
    litellm.callbacks.insert(0, RepairLogger())
    messages = _dotted_id()
    _acompletion(model, messages)
    ids = [c["id"] for m in recorder.seen[0] for c in m.get("tool_calls") or ()]
    assert (ids != ["call.1"]) is rewritten
    assert _unanswered(recorder.seen[0]) == []


def test_a_chosen_profile_applies_to_every_model(recorder: Recorder) -> None:
    litellm.callbacks.insert(0, RepairLogger(profile="anthropic"))
    _acompletion("openai/gpt-4o", _dotted_id())
    assert recorder.seen[0][1]["tool_calls"][0]["id"] != "call.1"


def test_the_router_repairs_under_the_deployment_model(recorder: Recorder) -> None:
    """The model group `tides` names no provider; the deployment's model does."""
    litellm.callbacks.insert(0, RepairLogger())
    router = litellm.Router(
        model_list=[
            {
                "model_name": "tides",
                "litellm_params": {"model": "anthropic/claude-sonnet-4-5", "mock_response": "ok"},
            }
        ]
    )
    asyncio.run(router.acompletion(model="tides", messages=_dotted_id()))
    assert recorder.seen[0][1]["tool_calls"][0]["id"] != "call.1"


def _as_the_proxy_calls(callback: CustomLogger, data: dict[str, Any], call_type: str) -> Any:
    """`ProxyLogging.pre_call_hook` (litellm/proxy/utils.py): it calls the hook only when
    the callback's own class defines it, and a dict it returns replaces the request."""
    if "async_pre_call_hook" not in vars(type(callback)):
        return data
    response = asyncio.run(
        callback.async_pre_call_hook(
            user_api_key_dict=UserAPIKeyAuth(),
            cache=DualCache(),
            data=data,
            call_type=call_type,
        )
    )
    return response if isinstance(response, dict) else data


def test_the_proxy_hook_repairs_the_request_body() -> None:
    data = {"model": "anthropic/claude-sonnet-4-5", "messages": _orphan_call(), "user": "u"}
    out = _as_the_proxy_calls(RepairLogger(), data, "acompletion")
    assert out is not data and out["user"] == "u"
    assert _unanswered(out["messages"]) == [] and len(out["messages"]) == 2
    assert data["messages"] == _orphan_call()


def test_the_proxy_hook_leaves_a_clean_request_alone() -> None:
    data = {"model": "claude", "messages": _clean()}
    assert _as_the_proxy_calls(RepairLogger(), data, "acompletion") is data


def test_a_subclass_keeps_the_proxy_hook() -> None:
    class Mine(RepairLogger):
        pass

    data = {"model": "gpt-4o", "messages": _orphan_call()}
    out = _as_the_proxy_calls(Mine(orphan_tool_call="synthesize"), data, "acompletion")
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "tool", "user"]


@pytest.mark.parametrize("call_type", ["aembedding", "aresponses", "atext_completion"])
def test_other_calls_are_not_touched(call_type: str) -> None:
    data = {"model": "gpt-4o", "messages": _orphan_call(), "input": "x"}
    assert _as_the_proxy_calls(RepairLogger(), data, call_type) is data


def _anthropic_orphan() -> list[dict[str, Any]]:
    """The orphan call of `_orphan_call`, as Anthropic Messages."""
    use = {"type": "tool_use", "id": "toolu_1", "name": "tide", "input": {}}
    return [
        {"role": "user", "content": "When is high tide?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Let me look."}, use]},
        {"role": "user", "content": "Still there?"},
    ]


def test_the_proxy_hook_repairs_an_anthropic_messages_request() -> None:
    """`/v1/messages` (call type `anthropic_messages`) carries Anthropic messages."""
    data = {"model": "claude", "max_tokens": 64, "messages": _anthropic_orphan()}
    out = _as_the_proxy_calls(RepairLogger(), data, "anthropic_messages")
    assert out["messages"][1]["content"] == [{"type": "text", "text": "Let me look."}]
    assert out["messages"][0] is data["messages"][0] and out["max_tokens"] == 64


def test_the_deployment_hook_repairs_litellm_anthropic_messages() -> None:
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": _anthropic_orphan()}
    hook = RepairLogger().async_pre_call_deployment_hook
    out = asyncio.run(hook(kwargs, CallTypes.anthropic_messages))
    assert out is not None and len(out["messages"][1]["content"]) == 1
    clean = {"model": "anthropic/claude-sonnet-4-5", "messages": _anthropic_orphan()[:1]}
    assert asyncio.run(hook(clean, CallTypes.anthropic_messages)) is None


def test_the_deployment_hook_takes_the_sdk_call_types() -> None:
    kwargs = {"model": "gpt-4o", "messages": _orphan_call()}
    hook = RepairLogger().async_pre_call_deployment_hook
    assert asyncio.run(hook(kwargs, CallTypes.acompletion)) is not None
    assert asyncio.run(hook(kwargs, CallTypes.aembedding)) is None
    assert (
        asyncio.run(hook({"model": "gpt-4o", "messages": _clean()}, CallTypes.acompletion)) is None
    )


def test_plain_completion_runs_no_hook_that_changes_the_messages(recorder: Recorder) -> None:
    """Why `repair_request` exists: the sync path ignores what the callback returns."""
    litellm.callbacks.insert(0, RepairLogger())
    litellm.completion(model="gpt-4o", messages=_orphan_call(), mock_response="ok")
    assert _unanswered(recorder.seen[0]) == ["call_1"]


def test_repair_request_repairs_a_plain_completion(recorder: Recorder) -> None:
    kwargs = {"model": "gpt-4o", "messages": _orphan_call(), "mock_response": "ok"}
    litellm.completion(**repair_request(kwargs))
    assert _unanswered(recorder.seen[0]) == []
    assert kwargs["messages"] == _orphan_call()


def test_repair_request_gives_back_a_clean_request_as_passed() -> None:
    kwargs = {"model": "anthropic/claude-sonnet-4-5", "messages": _clean()}
    assert repair_request(kwargs) is kwargs
    assert repair_request({"model": "gpt-4o"}) == {"model": "gpt-4o"}


def test_a_call_left_open_at_the_end_is_closed_unless_kept() -> None:
    kwargs = {"model": "gpt-4o", "messages": _orphan_call()[:2]}
    assert [m["role"] for m in repair_request(kwargs)["messages"]] == ["user"]
    assert repair_request(kwargs, tail="keep") is kwargs


def test_messages_histnorm_cannot_read_are_left_alone() -> None:
    kwargs = {"model": "gpt-4o", "messages": [{"role": "user", "content": object()}]}
    assert repair_request(kwargs) is kwargs
    kwargs = {"model": "gpt-4o", "messages": "not a list"}
    assert repair_request(kwargs) is kwargs


@pytest.mark.parametrize(
    ("model", "provider", "profile"),
    [
        ("anthropic/claude-sonnet-4-5", None, "anthropic"),
        ("bedrock/anthropic.claude-3", None, "bedrock-converse"),
        ("bedrock/converse/meta.llama3", None, "bedrock-converse"),
        ("gemini/gemini-2.0-flash", None, "gemini"),
        ("vertex_ai/gemini-2.0-flash", None, "gemini"),
        ("vertex_ai/claude-sonnet-4-5", None, "anthropic"),
        ("azure/my-deployment", None, "openai-chat"),
        ("claude-sonnet-4-5", None, "anthropic"),
        ("gpt-4o", None, "openai-chat"),
        ("claude-sonnet-4-5", "anthropic", "anthropic"),
        ("my-model", "bedrock", "bedrock-converse"),
        ("mistral/mistral-large", None, "mistral"),
        ("groq/llama-3.3-70b-versatile", None, "groq"),
        ("hosted_vllm/Qwen/Qwen3-8B", None, "vllm"),
        ("together_ai/meta-llama/Llama-3-8b", None, "openai-chat"),
        ("unknown-model", None, "openai-chat"),
        ("", None, "openai-chat"),
    ],
)
def test_profile_for_model(model: str, provider: str | None, profile: str) -> None:
    assert profile_for_model(model, provider) == profile


def test_the_provider_table_and_default_can_be_changed() -> None:
    assert profile_for_model("mistral/m", profiles={"mistral": "portable"}) == "portable"
    assert profile_for_model("x/m", default="portable") == "portable"
    out = repair_request(
        {"model": "openai/gpt-4o", "messages": _dotted_id()}, profiles={"openai": "anthropic"}
    )
    assert out["messages"][1]["tool_calls"][0]["id"] != "call.1"


def test_an_unknown_option_or_profile_is_an_error() -> None:
    with pytest.raises(TypeError, match="orphan_call"):
        RepairLogger(orphan_call="drop")
    with pytest.raises(TypeError, match="orphan_call"):
        repair_request({"messages": []}, orphan_call="drop")
    with pytest.raises(Exception, match="unknown profile"):
        RepairLogger(default_profile="claude")
