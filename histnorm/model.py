"""The canonical transcript model: frozen pydantic models every codec decodes into.

A `Transcript` is an ordered tuple of `Message`s; a message holds an ordered tuple of
parts. Every part and message keeps the native JSON value it was decoded from in
`native`, so a codec can give back exactly what it read for anything no rule changed.
Parts that histnorm creates have `native=None`. `slot` records where in the native
message a part lives (for example `tool_calls` in an OpenAI Chat assistant message); its
values are defined by each codec.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from histnorm.model_terms import HELD, NATIVE_MEMO, REUSE, UNREAD, decoder_key

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

    # A message its codec's fast reader read may be built unread (`unread_message`): it
    # holds its native value and decodes the rest the first time anything else of it is
    # asked for, so a fix builds the parts only of the messages something looks into. It
    # is then what decoding it at once gives, and compares, hashes, copies and dumps so.

    role: str
    id: str | None = None
    author_name: str | None = None
    parts: tuple[Part, ...] = ()
    metadata: dict[str, JsonValue] = Field(default_factory=dict)
    native: JsonValue = None

    def __getattr__(self, name: str) -> Any:
        if name == "native" and HELD in self.__dict__ and UNREAD in self.__dict__:
            return held_native(self)
        if name in _MESSAGE_FIELDS and UNREAD in self.__dict__:
            read(self)
            return self.__dict__[name]
        return super().__getattr__(name)  # type: ignore[misc]

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if isinstance(other, Message):
            mine, theirs = self.native, other.native
            if mine is not theirs and mine != theirs:
                return False  # a field differs: neither needs reading to tell
            if UNREAD in self.__dict__:
                read(self)
            if UNREAD in other.__dict__:
                read(other)
        return super().__eq__(other)

    def __hash__(self) -> int:
        if UNREAD in self.__dict__:
            read(self)
        return hash(_message_values(self.__dict__))

    # What reads the fields without asking for them reads the message first.
    def __copy__(self) -> Any:
        read(self)
        return super().__copy__()

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Any:
        read(self)
        return super().__deepcopy__(memo)

    def __getstate__(self) -> dict[Any, Any]:
        read(self)
        return super().__getstate__()

    def __iter__(self) -> Any:
        read(self)
        return super().__iter__()

    def __repr_args__(self) -> Any:
        read(self)
        return super().__repr_args__()

    @property
    def model_fields_set(self) -> set[str]:
        read(self)
        return self.__pydantic_fields_set__

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Any:
        read(self)
        return super().model_copy(update=update, deep=deep)

    def model_dump(self, **options: Any) -> dict[str, Any]:
        read(self)
        return super().model_dump(**options)

    def model_dump_json(self, **options: Any) -> str:
        read(self)
        return super().model_dump_json(**options)

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

    def model_dump(self, **options: Any) -> dict[str, Any]:
        for message in self.messages:
            read(message)
        return super().model_dump(**options)

    def model_dump_json(self, **options: Any) -> str:
        for message in self.messages:
            read(message)
        return super().model_dump_json(**options)

    def __getstate__(self) -> dict[Any, Any]:
        for message in self.messages:
            read(message)
        return super().__getstate__()

    def evolve(self, **changes: Any) -> Any:
        """`_Frozen.evolve`; the copy shares `native_memo` while its native is the same."""
        new = super().evolve(**changes)
        held = self.__dict__.get(NATIVE_MEMO)
        if held is not None and new.native is held[0]:
            new.__dict__[NATIVE_MEMO] = held
        return new


_MESSAGE_FIELDS = tuple(Message.model_fields)
_message_values = operator.itemgetter(*_MESSAGE_FIELDS)
_set = object.__setattr__
_new = object.__new__


def unread_message(native: Any, decoder: Callable[[Any, str], Message], pointer: str) -> Message:
    """The message `decoder(native, pointer)` gives, built without decoding it: it is
    decoded the first time anything but its `native` is asked for (`read`). Only for a
    value `decoder` is known to decode (its codec's fast reader read it): the error a
    decoder raises is not kept for later. Until it is read it holds its `__dict__` alone
    (what is kept beside the fields may be added to it); `read` sets the rest."""
    message = _new(Message)
    _set(message, "__dict__", {"native": native, UNREAD: (decoder, pointer)})
    return message


def unread_held(unread: tuple[Any, ...], index: int) -> Message:
    """`unread_message` of the native value of line `index` of lines held as text, which
    is not parsed until the message's `native` is asked for. `unread`, one tuple for the
    messages of one transcript: their decoder, None (the pointer is the line's), the
    lines (`histnorm.held_lines.HeldLines`) and whether no message holds an image slot."""
    message = _new(Message)
    _set(message, "__dict__", {UNREAD: unread, HELD: index})
    return message


def held_native(message: Message) -> Any:
    """The `native` of a message built from a held line (`unread_held`), read from its
    line (and kept) the first time it is asked for."""
    memo = message.__dict__
    native = memo.get("native", _NO_NATIVE)
    if native is _NO_NATIVE:
        native = memo["native"] = memo[UNREAD][2].native_of(memo[HELD])
    return native


_NO_NATIVE: Any = object()
_UNREAD = (UNREAD, HELD)
"""What reading a message lets go of."""


def unread(message: Message) -> bool:
    """Whether `message` was built unread (`unread_message`) and nothing has read it yet:
    none of its parts exists yet."""
    return UNREAD in message.__dict__


def read(message: Message) -> None:
    """Decode an unread message (`unread_message`): it takes the fields its decoder gives,
    in their order, and keeps what is kept beside them (memos), in a new `__dict__` set
    at once (whoever holds the old one sees it unread, never half read); it is marked as
    what its decoder makes of its native value (`histnorm.formats.base.decoded`)."""
    memo = message.__dict__
    held = memo.get(UNREAD)
    if held is None:
        return
    decoder, pointer = held[0], held[1]
    native = message.native
    if pointer is None:  # a held line's
        pointer = held[2].pointer_of(memo[HELD])
    full = decoder(native, pointer)
    memo = message.__dict__
    fields = full.__dict__
    kept = {key: value for key, value in memo.items() if key not in fields and key not in _UNREAD}
    key = decoder_key(decoder)
    if key is not None:
        kept[REUSE] = {key: (id(message), True)}
    _set(message, "__pydantic_fields_set__", set(full.__pydantic_fields_set__))
    _set(message, "__pydantic_extra__", full.__pydantic_extra__)
    _set(message, "__pydantic_private__", full.__pydantic_private__)
    _set(message, "__dict__", {**fields, **kept})
