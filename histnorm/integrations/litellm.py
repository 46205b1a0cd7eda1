"""histnorm for LiteLLM: a callback that repairs the messages of each chat request, under
the profile of the provider the model is sent to.

    from histnorm.integrations.litellm import RepairLogger, repair_request
    litellm.callbacks = [RepairLogger()]   # acompletion, the Router and the proxy
    response = litellm.completion(**repair_request({"model": model, "messages": history}))

Needs `litellm`.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

try:
    import litellm
    from litellm.integrations.custom_logger import CustomLogger
except ImportError as error:
    raise ImportError("histnorm.integrations.litellm needs LiteLLM: pip install litellm") from error

from histnorm.profiles import get_profile
from histnorm.repair import repair
from histnorm.settings import Settings, TailMode, with_options

__all__ = [
    "FORMAT_OF_CALL",
    "PROFILE_FOR_PROVIDER",
    "RepairLogger",
    "profile_for_model",
    "repair_request",
]

PROFILE_FOR_PROVIDER: Mapping[str, str] = MappingProxyType(
    {
        "openai": "openai-chat",
        "azure": "openai-chat",
        "anthropic": "anthropic",
        "bedrock": "bedrock-converse",
        "gemini": "gemini",
        "vertex_ai": "gemini",
        "vertex_ai_beta": "gemini",
        "mistral": "mistral",
        "groq": "groq",
        "hosted_vllm": "vllm",
    }
)
"""The histnorm profile of each LiteLLM provider (the prefix of `model`, as in
`anthropic/claude-sonnet-4-5`). Claude on Vertex AI (`vertex_ai/claude-...`) takes the
Anthropic Messages API and gets `anthropic`. Mistral, Groq and vLLM servers
(`hosted_vllm/...`) take LiteLLM's OpenAI Chat messages as they are, so their own
profiles apply."""

DEFAULT_PROFILE = "openai-chat"
"""The profile of any other provider: LiteLLM sends them the OpenAI Chat format."""

FORMAT_OF_CALL: Mapping[str, str] = MappingProxyType(
    {
        "completion": "openai-chat",
        "acompletion": "openai-chat",
        "anthropic_messages": "anthropic",
    }
)
"""The call types whose `messages` are repaired, and their format: chat completions, and
Anthropic Messages (`/v1/messages` in the proxy, `litellm.anthropic.messages`)."""

_CLOSED_TAIL = Settings(tail=TailMode.CLOSE)
"""The default: the request is about to be sent, so a call left open at its end is a defect."""


def profile_for_model(
    model: str,
    custom_llm_provider: str | None = None,
    profiles: Mapping[str, str] = PROFILE_FOR_PROVIDER,
    default: str = DEFAULT_PROFILE,
) -> str:
    """The profile for a LiteLLM `model`: from `custom_llm_provider`, else the model's
    prefix, else the provider LiteLLM's model map gives a bare name (`gpt-4o`), looked up
    in `profiles`; `default` when none is listed there."""
    prefix, _, name = model.partition("/") if "/" in model else ("", "", model)
    provider = custom_llm_provider or prefix
    if not provider:
        entry = litellm.model_cost.get(model)
        provider = str(entry.get("litellm_provider", "")) if isinstance(entry, dict) else ""
        provider = "vertex_ai" if provider.startswith("vertex_ai") else provider
    if provider.startswith("vertex_ai") and name.startswith("claude"):
        return profiles.get("anthropic", "anthropic")
    return profiles.get(provider, default)


def _call_name(call_type: Any) -> str:
    """A call type as LiteLLM names it, from a `CallTypes` member or a string."""
    return str(getattr(call_type, "value", call_type))


def repair_request(
    kwargs: dict[str, Any],
    settings: Settings | None = None,
    *,
    profiles: Mapping[str, str] = PROFILE_FOR_PROVIDER,
    default_profile: str = DEFAULT_PROFILE,
    **options: Any,
) -> dict[str, Any]:
    """The keyword arguments of a `litellm.completion` call (or a chat request body) with
    `messages` repaired, as `histnorm.repair` does with `options` set over `settings`
    (default: `Settings(tail="close")`). The profile is the one chosen there, else the one
    of the model's provider (`profile_for_model`).

    `kwargs` comes back as the very object passed when nothing was fixed, and is never
    changed; a repaired request is a new dict whose `messages` keep the untouched
    messages as the objects passed. Messages histnorm cannot read are left alone.
    """
    chosen = with_options(settings or _CLOSED_TAIL, options, "repair_request")
    return _repaired(kwargs, chosen, profiles, default_profile) or kwargs


def _repaired(
    kwargs: Mapping[str, Any],
    settings: Settings,
    profiles: Mapping[str, str],
    default: str,
    format: str = "openai-chat",
) -> dict[str, Any] | None:
    """`kwargs` with its messages repaired, or None when there is nothing to repair."""
    messages = kwargs.get("messages")
    if not isinstance(messages, list) or not messages:
        return None
    if settings.profile is None:
        model = kwargs.get("model")
        provider = kwargs.get("custom_llm_provider")
        profile = profile_for_model(
            model if isinstance(model, str) else "",
            provider if isinstance(provider, str) else None,
            profiles,
            default,
        )
        settings = with_options(settings, {"profile": profile})
    try:
        result = repair(messages, settings, format=format)
    except Exception:  # what histnorm cannot read (an object that is no JSON) is left alone
        return None
    if not result.changed:
        return None
    return {**kwargs, "messages": result.value}


class RepairLogger(CustomLogger):
    """A LiteLLM callback that repairs the `messages` of each chat request before the model
    call (`repair_request` does the work; `settings`, `options`, `profiles` and
    `default_profile` as there).

    `async_pre_call_hook` runs in the proxy, on the request body (whose `model` is often a
    model group name, without a provider prefix); `async_pre_call_deployment_hook` runs in
    `litellm.acompletion`, the Router and the proxy once the deployment is chosen, with
    the deployment's model. Plain `litellm.completion` runs no hook that may change the
    messages: call it with `repair_request(kwargs)`. Only chat calls and Anthropic
    Messages calls are touched (`FORMAT_OF_CALL`).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        profiles: Mapping[str, str] = PROFILE_FOR_PROVIDER,
        default_profile: str = DEFAULT_PROFILE,
        **options: Any,
    ) -> None:
        super().__init__()
        self.settings: Settings = with_options(settings or _CLOSED_TAIL, options, "RepairLogger")
        for name in (*profiles.values(), default_profile):
            get_profile(name)  # an unknown profile is an error now, not at the first request
        self.profiles: Mapping[str, str] = profiles
        self.default_profile: str = default_profile

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """The proxy only calls an `async_pre_call_hook` defined by the callback's own class:
        a subclass that does not define one gets this class's."""
        super().__init_subclass__(**kwargs)
        if "async_pre_call_hook" not in cls.__dict__:
            cls.async_pre_call_hook = RepairLogger.async_pre_call_hook  # type: ignore[method-assign]

    def repair(self, kwargs: Mapping[str, Any], call_type: Any) -> dict[str, Any] | None:
        """`kwargs` with its messages repaired, or None when the call type has no messages
        histnorm repairs (`FORMAT_OF_CALL`) or nothing was fixed (the form both hooks return)."""
        format = FORMAT_OF_CALL.get(_call_name(call_type))
        if format is None:
            return None
        return _repaired(kwargs, self.settings, self.profiles, self.default_profile, format)

    async def async_pre_call_hook(
        self, user_api_key_dict: Any, cache: Any, data: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """The proxy's request body with its messages repaired, or None (left as it is)."""
        return self.repair(data, call_type)

    async def async_pre_call_deployment_hook(
        self, kwargs: dict[str, Any], call_type: Any
    ) -> dict[str, Any] | None:
        """The call's keyword arguments with their messages repaired, or None."""
        return self.repair(kwargs, call_type)
