"""Provider profiles: what each target API rejects, as data.

A profile is the set of constraints one replay target enforces, each tied to the
provider error it prevents. The profile rules (HN1xx) read these fields; profiles also
adjust the severity of core rules (the Responses API pairs results by call id anywhere,
so a displaced result is only a style matter there). `portable` is the intersection: the
strictest value of every constraint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from histnorm.diagnostic import Severity
from histnorm.errors import HistnormError

SystemPlacement = Literal["anywhere", "leading", "top-level"]


@dataclass(frozen=True)
class Profile:
    """The constraints one target API enforces on a replayed history."""

    name: str
    summary: str
    results_first: bool = False
    """Tool results must open the next user message (Anthropic)."""
    equal_call_counts: bool = False
    """A response turn must hold as many responses as its call turn has calls (Gemini)."""
    reasoning_needs_next: bool = False
    """A reasoning item must be followed by the item it produced (Responses API)."""
    max_call_id_length: int | None = None
    call_id_pattern: str | None = None
    """A regular expression every call id must match in full."""
    unique_call_ids: bool = False
    """Call ids must be unique across the whole request, even after resolution."""
    first_message_user: bool = False
    alternating_roles: bool = False
    """Consecutive messages of the same role are rejected."""
    system_placement: SystemPlacement = "anywhere"
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """Severity overrides for core rules under this target."""


_ANTHROPIC_ID = r"[a-zA-Z0-9_-]+"
_BEDROCK_ID = r"[a-zA-Z0-9_.:-]+"

PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        p.name: p
        for p in (
            Profile("openai-chat", "OpenAI Chat Completions", max_call_id_length=40),
            Profile(
                "openai-responses",
                "OpenAI Responses API",
                reasoning_needs_next=True,
                max_call_id_length=64,
                unique_call_ids=True,
                severity={"HN008": Severity.WARNING},
            ),
            Profile(
                "anthropic",
                "Anthropic Messages API",
                results_first=True,
                call_id_pattern=_ANTHROPIC_ID,
                unique_call_ids=True,
                system_placement="top-level",
            ),
            Profile(
                "bedrock-converse",
                "AWS Bedrock Converse",
                results_first=True,
                max_call_id_length=64,
                call_id_pattern=_BEDROCK_ID,
                unique_call_ids=True,
                first_message_user=True,
                alternating_roles=True,
                system_placement="top-level",
            ),
            Profile(
                "gemini",
                "Google Gemini generateContent",
                equal_call_counts=True,
                system_placement="top-level",
            ),
            Profile("meai", "Microsoft.Extensions.AI FunctionInvokingChatClient (client side)"),
            Profile(
                "portable",
                "every target at once: the strictest value of each constraint",
                results_first=True,
                equal_call_counts=True,
                reasoning_needs_next=True,
                max_call_id_length=40,
                call_id_pattern=_ANTHROPIC_ID,
                unique_call_ids=True,
                first_message_user=True,
                alternating_roles=True,
                system_placement="leading",
            ),
        )
    }
)
"""Every profile by name."""

DEFAULT_FOR_FORMAT: Mapping[str, str] = MappingProxyType(
    {
        "openai-chat": "openai-chat",
        "chat-template": "openai-chat",
        "openai-responses": "openai-responses",
        "anthropic": "anthropic",
        "claude-code": "anthropic",
        "gemini": "gemini",
        "meai": "meai",
        "agent-framework": "meai",
    }
)
"""The profile used when none is chosen: the provider the input format is sent to.
Formats not listed here (LangChain, ShareGPT) have no single target and get `meai`'s
neutral profile, which adds no constraint beyond the core rules."""

NEUTRAL = "meai"


def get_profile(name: str) -> Profile:
    """The profile named `name`; raise `HistnormError` listing the known names otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        known = ", ".join(PROFILES)
        raise HistnormError(f"unknown profile {name!r}; known profiles: {known}") from None


def profile_for(chosen: str | None, format: str | None) -> Profile:
    """The profile in force: the one chosen, else the default for the input format."""
    if chosen is not None:
        return get_profile(chosen)
    return PROFILES[DEFAULT_FOR_FORMAT.get(format or "", NEUTRAL)]
