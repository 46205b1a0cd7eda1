"""The canonical transcript model: frozen pydantic models every codec decodes into.

A `Transcript` is an ordered tuple of `Message`s; a message holds an ordered tuple of
parts. Every part and message keeps the native JSON value it was decoded from in
`native`, so a codec can give back exactly what it read for anything no rule changed.
Parts that histnorm creates have `native=None`. `slot` records where in the native
message a part lives (for example `tool_calls` in an OpenAI Chat assistant message); its
values are defined by each codec.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from histnorm.model_terms import NATIVE_MEMO

# Defined without pydantic in `histnorm.model_terms`; re-exported as the model's own.
from histnorm.model_terms import PARTIAL_RESPONSE_KEY as PARTIAL_RESPONSE_KEY
from histnorm.model_terms import SYNTHESIZED_KEY as SYNTHESIZED_KEY
from histnorm.model_terms import JsonValue as JsonValue
from histnorm.model_terms import MemoSource as MemoSource
from histnorm.model_terms import ToolFamily as ToolFamily
from histnorm.model_terms import is_marker_true as is_marker_true
from histnorm.model_terms import memo_source as memo_source
from histnorm.model_terms import native_memo as native_memo
from histnorm.model_terms import same_source as same_source


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", revalidate_instances="never")

    def evolve(self, **changes: Any) -> Any:
        """Return a validated copy with `changes` applied (unlike `model_copy`, it validates)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(changes)
        return type(self).model_validate(data)


class _PartBase(_Frozen):
    native: JsonValue = None
    slot: str | None = None
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


class TextPart(_PartBase):
    """Plain text."""

    kind: Literal["text"] = "text"
    text: str


class ReasoningPart(_PartBase):
    """Model reasoning; `opaque` holds signatures or encrypted data, kept verbatim."""

    kind: Literal["reasoning"] = "reasoning"
    text: str | None = None
    opaque: JsonValue = None


class RefusalPart(_PartBase):
    """A model refusal."""

    kind: Literal["refusal"] = "refusal"
    text: str


class ToolCallPart(_PartBase):
    """A request to run a tool; `arguments` is the raw native value (string or object)."""

    kind: Literal["tool_call"] = "tool_call"
    call_id: str | None
    name: str | None = None
    arguments: JsonValue = None
    family: ToolFamily = ToolFamily.FUNCTION
    tool_type: str | None = None
    informational: bool = False


class ToolResultPart(_PartBase):
    """The outcome of a tool call, paired with the call by `call_id` (or by position)."""

    kind: Literal["tool_result"] = "tool_result"
    call_id: str | None
    name: str | None = None
    content: JsonValue = None
    is_error: bool = False
    family: ToolFamily = ToolFamily.FUNCTION
    tool_type: str | None = None


class ApprovalRequestPart(_PartBase):
    """A request for user input, usually approval of the wrapped `tool_call`."""

    kind: Literal["approval_request"] = "approval_request"
    request_id: str
    tool_call: ToolCallPart | None = None
    requires_confirmation: bool = True


class ApprovalResponsePart(_PartBase):
    """The answer to an approval request, paired with it by `request_id`."""

    kind: Literal["approval_response"] = "approval_response"
    request_id: str
    approved: bool | None = None
    tool_call: ToolCallPart | None = None
    reason: str | None = None


class MediaPart(_PartBase):
    """Images, audio, files and other data, by URI or inline."""

    kind: Literal["media"] = "media"
    media_type: str | None = None
    uri: str | None = None


class UsagePart(_PartBase):
    """Token usage counts."""

    kind: Literal["usage"] = "usage"
    details: JsonValue = None


class UnknownPart(_PartBase):
    """A native part histnorm does not model; kept verbatim in `native`."""

    kind: Literal["unknown"] = "unknown"
    type: str | None = None


Part = Annotated[
    TextPart
    | ReasoningPart
    | RefusalPart
    | ToolCallPart
    | ToolResultPart
    | ApprovalRequestPart
    | ApprovalResponsePart
    | MediaPart
    | UsagePart
    | UnknownPart,
    Field(discriminator="kind"),
]
"""Any part of a message, discriminated by `kind`."""


class Message(_Frozen):
    """One message: a role (compared case-insensitively), parts and metadata."""

    role: str
    id: str | None = None
    author_name: str | None = None
    parts: tuple[Part, ...] = ()
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    native: JsonValue = None

    def role_is(self, *roles: str) -> bool:
        """Whether the role equals one of `roles`, ignoring case."""
        mine = self.role.casefold()
        return any(mine == role.casefold() for role in roles)

    @property
    def is_partial(self) -> bool:
        """Whether the message is marked as part of a cancelled (partial) response."""
        return is_marker_true(self.metadata.get(PARTIAL_RESPONSE_KEY))


class Transcript(_Frozen):
    """An ordered conversation, with the format it was read in and its native envelope."""

    messages: tuple[Message, ...] = ()
    format: str | None = None
    native: JsonValue = None
    server_state: str | None = None
    """The request key naming stored server-side state this history continues (an OpenAI
    Responses `previous_response_id` or `conversation`), or None. Calls its results answer
    may live there rather than in `messages`."""

    def evolve(self, **changes: Any) -> Any:
        """`_Frozen.evolve`; the copy shares `native_memo` while its native is the same."""
        new = super().evolve(**changes)
        held = self.__dict__.get(NATIVE_MEMO)
        if held is not None and new.native is held[0]:
            new.__dict__[NATIVE_MEMO] = held
        return new
