"""Provider profiles: what each target API rejects, as data.

A profile is the set of constraints one replay target enforces, each tied to the
provider error it prevents. The profile rules (HN1xx) read these fields; profiles also
adjust the severity of core rules (the Responses API pairs results by call id anywhere,
so a displaced result is only a style matter there). `portable` is the intersection: the
strictest value of every constraint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import MISSING, field, fields, replace
from functools import cache
from types import MappingProxyType
from typing import Literal

import histnorm.profile_evidence as cited
from histnorm._record import record
from histnorm.diagnostic import Severity
from histnorm.errors import HistnormError

SystemPlacement = Literal["anywhere", "inline", "leading", "top-level"]
"""Where system text may go: anywhere in the messages; in the messages, but only some
models of the target take it there (`inline`, reported as information); only before the
first other message; or only in the request's top-level field."""

EmptyText = Literal["accepted", "beside-result", "lone-blank", "rejected"]
"""Which empty or whitespace-only text parts the target rejects: none; only those in a
message that also holds a tool result (Gemini); every empty one, but a whitespace-only one
only where it stands alone in its message or sits in the last message (Anthropic); all of
them."""

ToolArguments = Literal["any", "json-object"]
"""What the target needs of a function call's arguments: nothing it checks (`any`), or
one JSON object in the form the input format writes (`json-object`): the JSON text of an
object where the format sends a string (OpenAI Chat, Responses, Codex), the object itself
elsewhere (chat templates, Anthropic, Gemini)."""
FinalAssistant = Literal["accepted", "some-models", "rejected"]
"""Whether a request may end on an assistant message: yes (a prefill, or a new answer
after it); only on some models of the target, newer ones reject it; never."""
ReasoningCarry = Literal["optional", "call-turns", "opens-tool-loop", "signed-calls"]
"""Which reasoning the target needs back with the tool calls it made (HN116): none; on
every assistant message that makes a tool call (DeepSeek thinking mode); a reasoning
block opening the assistant turn of an open tool loop (Anthropic with thinking); a
signature on the first call of each model step of the current turn (Gemini 3)."""
ResultNames = Literal["free", "checked", "paired"]
"""What the target does with the name a tool result carries: nothing (`free`: a name
other than its call's is reported as information); rejects one that is not its call's
(`checked`, Gemini); pairs results with calls by it (`paired`, Ollama: a result without a
name is an error too)."""


@record(frozen=True)
class Profile:
    """The constraints one target API enforces on a replayed history.

    Every constraint whose value differs from the dataclass default, and every severity
    override, names its evidence in `evidence` (keyed by field name): the provider's error
    text, its documentation, or a recorded verdict (a request body the
    provider answered, by cassette). A default value may cite evidence too, when a
    verdict shows the target accepts what a stricter reading would reject.
    """

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
    instructions_between_results: bool = False
    """System and developer messages between a call and its result do not separate them:
    the target pairs results by call id wherever they sit (Responses API; HN008)."""
    merges_same_role: bool = False
    """Consecutive messages of one role are merged into one turn, so calls in back-to-back
    assistant messages are answered together by the message after them."""
    system_placement: SystemPlacement = "anywhere"
    empty_text: EmptyText = "accepted"
    """Which empty or whitespace-only text parts the target rejects (HN004)."""
    tool_arguments: ToolArguments = "any"
    """What the target needs of a function call's arguments (HN109)."""
    no_empty_tool_calls: bool = False
    """An assistant message may not carry an empty `tool_calls` array (chat templates;
    HN110)."""
    call_after_user: bool = False
    """A turn holding a function call must come right after a user turn or a function
    response turn, so a history cannot open with one (Gemini; HN120)."""
    final_assistant: FinalAssistant = "accepted"
    """Whether the history, sent as it is (tail=close), may end on an assistant
    message (HN121)."""
    final_text_trimmed: bool = False
    """The text that ends a final assistant message cannot end with whitespace (Anthropic,
    Bedrock; HN122, tail=close)."""
    error_result_content: bool = False
    """A tool result marked as an error must have content (Bedrock; HN123)."""
    answer_after_results: bool = False
    """Only an assistant message or more results may follow tool results: the assistant
    answers them before the user speaks again (Mistral; HN124)."""
    max_string_length: int | None = None
    """Characters one string of the request may hold (HN113)."""
    max_request_bytes: int | None = None
    """Bytes the whole request body may hold (HN113)."""
    max_image_base64: int | None = None
    """Base64 characters one inline image may hold (HN113)."""
    max_image_side: int | None = None
    """Pixels an image may have on its longer side (HN113)."""
    many_images: int | None = None
    """Above this many images in one request, `max_image_side_many` applies (HN113)."""
    max_image_side_many: int | None = None
    image_types: frozenset[str] | None = None
    """The image media types the target takes; None: any (HN114)."""
    user_images_only: bool = False
    """Images may appear only in user messages: not in tool results, assistant or system
    messages (HN114)."""
    reasoning_carry: ReasoningCarry = "optional"
    """Which reasoning the target needs back with its tool calls (HN116)."""
    rejects_reasoning: bool = False
    """Reasoning fields in messages are rejected (Groq, HN117)."""
    model_bound_thinking: bool = False
    """A thinking signature is valid only for the model that made it (HN118)."""
    tool_name_pattern: str | None = None
    """A regular expression every tool call's name must match in full (HN111)."""
    max_tool_name_length: int | None = None
    result_names: ResultNames = "free"
    """What the target does with a tool result's name (HN112)."""
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """Severity overrides for core rules under this target."""
    evidence: Mapping[str, str] = field(default_factory=dict)
    """Where each constraint comes from, by field name."""


CONSTRAINTS: tuple[str, ...] = tuple(
    f.name for f in fields(Profile) if f.name not in ("name", "summary", "evidence")
)
"""The fields of `Profile` that constrain a history."""

RULES_OF: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "results_first": ("HN101",),
        "equal_call_counts": ("HN102",),
        "reasoning_needs_next": ("HN103",),
        "max_call_id_length": ("HN104",),
        "call_id_pattern": ("HN104",),
        "unique_call_ids": ("HN105",),
        "first_message_user": ("HN106",),
        "alternating_roles": ("HN107",),
        "merges_same_role": ("HN008",),
        "instructions_between_results": ("HN008",),
        "system_placement": ("HN108",),
        "empty_text": ("HN004",),
        "tool_arguments": ("HN109",),
        "no_empty_tool_calls": ("HN110",),
        "call_after_user": ("HN120",),
        "final_assistant": ("HN121",),
        "final_text_trimmed": ("HN122",),
        "error_result_content": ("HN123",),
        "answer_after_results": ("HN124",),
        "max_string_length": ("HN113",),
        "max_request_bytes": ("HN113",),
        "max_image_base64": ("HN113",),
        "max_image_side": ("HN113",),
        "many_images": ("HN113",),
        "max_image_side_many": ("HN113",),
        "image_types": ("HN114",),
        "user_images_only": ("HN114",),
        "reasoning_carry": ("HN116",),
        "rejects_reasoning": ("HN117",),
        "model_bound_thinking": ("HN118",),
        "tool_name_pattern": ("HN111",),
        "max_tool_name_length": ("HN111",),
        "result_names": ("HN112",),
    }
)
"""The rules each constraint drives (severity overrides name their rule themselves)."""


def is_default(profile: Profile, constraint: str) -> bool:
    """Whether `profile` keeps the dataclass default for `constraint`."""
    default = next(f for f in fields(Profile) if f.name == constraint)
    if default.default is not MISSING:
        return bool(getattr(profile, constraint) == default.default)
    return not getattr(profile, constraint)  # severity: an empty mapping


_MIB = 1024 * 1024
_JPEG_PNG_GIF_WEBP = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_GEMINI_IMAGES = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})
_OPENAI_SIZES = {
    "max_string_length": cited.OPENAI_STRING,
    "image_types": cited.OPENAI_IMAGES,
}
_ANTHROPIC_ID = r"[a-zA-Z0-9_-]+"
_BEDROCK_ID = r"[a-zA-Z0-9_.:-]+"
_ANTHROPIC = Profile(
    "anthropic",
    "Anthropic Messages API",
    results_first=True,
    call_id_pattern=_ANTHROPIC_ID,
    merges_same_role=True,
    system_placement="inline",
    empty_text="lone-blank",
    final_assistant="some-models",
    final_text_trimmed=True,
    max_request_bytes=32 * _MIB,
    max_image_base64=5 * _MIB,
    max_image_side=8000,
    many_images=20,
    max_image_side_many=2000,
    image_types=_JPEG_PNG_GIF_WEBP,
    evidence=cited.ANTHROPIC,
)
"""Anthropic's profile; `anthropic-thinking` adds what thinking mode needs."""

_GEMINI = Profile(
    "gemini",
    "Google Gemini generateContent",
    equal_call_counts=True,
    merges_same_role=True,
    system_placement="top-level",
    empty_text="beside-result",
    call_after_user=True,
    final_assistant="some-models",
    image_types=_GEMINI_IMAGES,
    result_names="checked",
    evidence=cited.GEMINI,
)
"""Gemini's profile; `gemini-3` adds the thought signatures Gemini 3 checks."""

_MISTRAL_ID = r"[a-zA-Z0-9]{9}"
_TOOL_NAME = r"[a-zA-Z0-9_-]+"
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        p.name: p
        for p in (
            Profile(
                "openai-chat",
                "OpenAI Chat Completions",
                max_call_id_length=40,
                max_string_length=10_485_760,
                image_types=_JPEG_PNG_GIF_WEBP,
                user_images_only=True,
                tool_name_pattern=_TOOL_NAME,
                max_tool_name_length=64,
                evidence={
                    **_OPENAI_SIZES,
                    "user_images_only": cited.OPENAI_TOOL_IMAGES,
                    "max_call_id_length": "OpenAI 400: `Invalid 'messages[36].tool_calls[0].id': "
                    "string too long. Expected a string with maximum length 40, but got a "
                    "string with length 51 instead.` (vercel/ai#8132)",
                    "tool_arguments": cited.OPENAI_ARGUMENTS,
                    **cited.OPENAI_CHAT_TOOL_NAMES,
                    "empty_text": "accepted: no OpenAI error text rejects empty or "
                    "whitespace-only content; the one reported "
                    '400 on content "" beside tool_calls (continuedev/continue#5091) named '
                    "an empty tool name",
                },
            ),
            Profile(
                "openai-responses",
                "OpenAI Responses API",
                reasoning_needs_next=True,
                instructions_between_results=True,
                max_call_id_length=64,
                unique_call_ids=True,
                max_string_length=10_485_760,
                image_types=_JPEG_PNG_GIF_WEBP,
                tool_name_pattern=_TOOL_NAME,
                max_tool_name_length=64,
                severity={"HN008": Severity.WARNING},
                evidence={**cited.RESPONSES, **_OPENAI_SIZES, **cited.RESPONSES_TOOL_NAMES},
            ),
            _ANTHROPIC,
            replace(
                _ANTHROPIC,
                name="anthropic-thinking",
                summary="Anthropic Messages API with extended thinking enabled",
                reasoning_carry="opens-tool-loop",
                model_bound_thinking=True,
                evidence={**cited.ANTHROPIC, **cited.ANTHROPIC_THINKING},
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
                empty_text="rejected",
                final_assistant="some-models",
                final_text_trimmed=True,
                error_result_content=True,
                max_image_base64=5 * _MIB,
                max_image_side=8000,
                image_types=_JPEG_PNG_GIF_WEBP,
                tool_name_pattern=_TOOL_NAME,
                max_tool_name_length=64,
                evidence=cited.BEDROCK,
            ),
            _GEMINI,
            replace(
                _GEMINI,
                name="gemini-3",
                summary="Google Gemini 3 generateContent (thought signatures enforced)",
                reasoning_carry="signed-calls",
                evidence={**cited.GEMINI, **cited.GEMINI_3},
            ),
            replace(
                _GEMINI,
                name="vertex",
                summary="Gemini on Google Vertex AI (split responses and empty text rejected)",
                merges_same_role=False,
                empty_text="rejected",
                evidence={
                    **{k: v for k, v in cited.GEMINI.items() if k != "merges_same_role"},
                    **cited.VERTEX,
                },
            ),
            Profile(
                "mistral",
                "Mistral AI chat completions (La Plateforme)",
                call_id_pattern=_MISTRAL_ID,
                answer_after_results=True,
                evidence=cited.MISTRAL,
            ),
            Profile(
                "ollama",
                "Ollama /api/chat (results carry `tool_name`, no call id)",
                result_names="paired",
                evidence=cited.OLLAMA,
            ),
            Profile(
                "meai",
                "Microsoft.Extensions.AI FunctionInvokingChatClient (client side)",
                empty_text="rejected",
                evidence={
                    "empty_text": "the Agent Framework partial-response sanitizer removes "
                    "empty text before storing a turn (microsoft/agent-framework#9790; "
                    "`histnorm.behaviours.sanitize_partial_response`, R-A4), so histories it "
                    "reads hold none",
                },
            ),
            Profile(
                "vllm",
                "vLLM, SGLang and other servers that render a chat template",
                alternating_roles=True,
                tool_arguments="json-object",
                no_empty_tool_calls=True,
                evidence=cited.VLLM,
            ),
            Profile(
                "deepseek",
                "DeepSeek Chat Completions in thinking mode (the default)",
                reasoning_carry="call-turns",
                evidence=cited.DEEPSEEK,
            ),
            Profile(
                "groq",
                "Groq Chat Completions (OpenAI-compatible)",
                rejects_reasoning=True,
                evidence=cited.GROQ,
            ),
            Profile(
                "portable",
                "every target at once: the strictest value of each constraint",
                results_first=True,
                equal_call_counts=True,
                reasoning_needs_next=True,
                max_call_id_length=40,
                call_id_pattern=_MISTRAL_ID,
                unique_call_ids=True,
                first_message_user=True,
                alternating_roles=True,
                system_placement="leading",
                empty_text="rejected",
                tool_arguments="json-object",
                no_empty_tool_calls=True,
                call_after_user=True,
                final_assistant="rejected",
                final_text_trimmed=True,
                error_result_content=True,
                answer_after_results=True,
                max_string_length=10_485_760,
                max_request_bytes=32 * _MIB,
                max_image_base64=5 * _MIB,
                max_image_side=8000,
                many_images=20,
                max_image_side_many=2000,
                image_types=_JPEG_PNG_GIF_WEBP & _GEMINI_IMAGES,
                user_images_only=True,
                rejects_reasoning=True,
                model_bound_thinking=True,
                tool_name_pattern=_TOOL_NAME,
                max_tool_name_length=64,
                result_names="paired",
                evidence={
                    name: cited.PORTABLE
                    for name in (
                        "results_first",
                        "equal_call_counts",
                        "reasoning_needs_next",
                        "max_call_id_length",
                        "call_id_pattern",
                        "unique_call_ids",
                        "first_message_user",
                        "alternating_roles",
                        "system_placement",
                        "empty_text",
                        "tool_arguments",
                        "no_empty_tool_calls",
                        "call_after_user",
                        "final_assistant",
                        "final_text_trimmed",
                        "error_result_content",
                        "answer_after_results",
                        "max_string_length",
                        "max_request_bytes",
                        "max_image_base64",
                        "max_image_side",
                        "many_images",
                        "max_image_side_many",
                        "image_types",
                        "user_images_only",
                        "rejects_reasoning",
                        "model_bound_thinking",
                        "tool_name_pattern",
                        "max_tool_name_length",
                        "result_names",
                    )
                }
                | {"reasoning_carry": cited.PORTABLE_CARRY},
            ),
        )
    }
)
"""Every profile by name."""


def evidence_for(code: str) -> list[tuple[str, str, str]]:
    """(profile, constraint, evidence) for every profile constraint that drives rule `code`."""
    found = []
    for profile in PROFILES.values():
        for constraint in CONSTRAINTS:
            drives = RULES_OF.get(constraint, ())
            if constraint == "severity":
                drives = tuple(profile.severity)
            if code in drives and constraint in profile.evidence:
                found.append((profile.name, constraint, profile.evidence[constraint]))
    return found


DEFAULT_FOR_FORMAT: Mapping[str, str] = MappingProxyType(
    {
        "openai-chat": "openai-chat",
        "chat-template": "openai-chat",
        "trl": "openai-chat",
        "openai-responses": "openai-responses",
        "anthropic": "anthropic",
        "claude-code": "anthropic",
        "codex": "openai-responses",
        "gemini": "gemini",
        "meai": "meai",
        "agent-framework": "meai",
        "bedrock-converse": "bedrock-converse",
    }
)
"""The profile used when none is chosen: the provider the input format is sent to.
Formats not listed here (LangChain, ShareGPT) have no single target and get `meai`'s
neutral profile, which adds no constraint beyond the core rules."""

NEUTRAL = "meai"


ALIASES: Mapping[str, str] = MappingProxyType({"bedrock": "bedrock-converse", "sglang": "vllm"})
"""Other names of profiles."""


def get_profile(name: str) -> Profile:
    """The profile named `name` (or an alias); raise `HistnormError` listing the known
    names otherwise."""
    try:
        return PROFILES[ALIASES.get(name, name)]
    except KeyError:
        known = ", ".join(PROFILES)
        raise HistnormError(f"unknown profile {name!r}; known profiles: {known}") from None


def profile_for(chosen: str | None, format: str | None) -> Profile:
    """The profile in force: the one chosen, else the default for the input format."""
    if chosen is not None:
        return get_profile(chosen)
    return PROFILES[DEFAULT_FOR_FORMAT.get(format or "", NEUTRAL)]


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def call_id_problem(call_id: str, limits: Profile) -> str | None:
    """Why `call_id` breaks the profile's limits on call ids (HN104), or None."""
    if limits.max_call_id_length is not None and len(call_id) > limits.max_call_id_length:
        return f"is {len(call_id)} characters long (the limit is {limits.max_call_id_length})"
    if limits.call_id_pattern is not None and not _compiled(limits.call_id_pattern).fullmatch(
        call_id
    ):
        return f"does not match {limits.call_id_pattern}"
    return None
