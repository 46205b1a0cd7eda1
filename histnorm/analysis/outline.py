"""The outline: a transcript as the structural rules see it, cheap to read from native data.

Per message an outline keeps the role, the id, one small tuple per part (part indices
are the model's, so diagnostics locate the same way) and the flags of what its parts do
not show (`PARTIAL`, `UNKNOWN`); `Outline.all_flags()` adds those the parts show, which
content rules name in `Rule.wants`. Calls and results carry exactly the attributes `pair()`
reads (`call_id`, `name`, `family`, `tool_type`, `informational`), so one pairing serves
outlines and models. `build_outline(transcript, ...)` builds it from a model (the
codec-aware `histnorm.formats.outline_of` passes what only the codec knows); a codec's
`outline(native)` builds the same from a parsed native value (the representation test
holds the two equal).
"""

from __future__ import annotations

from collections.abc import Callable, Container
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from histnorm.analysis.paired import Pairing
from histnorm.call_keys import unread_call_keys
from histnorm.lazy import model
from histnorm.model_terms import UNREAD, ToolFamily, memo_source, same_source

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart, Transcript

PARTIAL = 1
"""The message is marked as part of a cancelled (partial) response."""
UNKNOWN = 2
"""It carries call keys its format's reader skips (`histnorm.call_keys`), or content under
keys it does not read and none where it reads content (`histnorm.content_keys`)."""
EMPTY_TEXT = 4
"""(Derived) a text part is empty or whitespace only."""
EMPTY = 8
"""(Derived) a message has no parts, or only usage parts."""
UNKNOWN_PART = 16
"""(Derived) a part histnorm does not model."""
UNKNOWN_ROLE = 32
"""(Derived) a role neither every rule nor the format knows."""
BROKEN_CHAIN = 64
"""(Whole outline) a Claude Code session whose parent chain stops at a missing line, or
whose compaction boundary names a missing logical parent (HN014, HN017)."""
LONG_LINE = 128
"""(Whole outline) a Claude Code session with a line longer than the default
`Settings.claude_code_line_limit` (HN018)."""

SEVERAL = 256
"""(Whole outline) the transcript holds more than one conversation (a LlamaIndex chat
store of several keys): the rules run on each, which one outline of them all cannot
stand for, so it never proves them clean."""

ALWAYS = 1 << 30
"""Set in every outline's `all_flags`: a rule that wants it always needs the model."""

CALLS = 1
"""(`Outline.tool_kinds`) the transcript holds a tool call."""
RESULTS = 2
"""(`Outline.tool_kinds`) it holds a tool result."""
APPROVALS = 4
"""(`Outline.tool_kinds`) it holds an approval request or response."""
UNANSWERED = 8
"""(`Context.facts`) its pairing leaves a call without a result."""
ORPHANED = 16
"""(`Context.facts`) a result no earlier call owns."""
DUPLICATED = 32
"""(`Context.facts`) a second result of an answered call."""
REPEATED = 64
"""(`Context.facts`) a repeat of a pending call, handoff or approval request."""
PENDING = 128
"""(`Context.facts`) an approval request without a response."""

MODELLED_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""The roles every rule understands."""


class Call(NamedTuple):
    """A tool call, as `pair()` reads it."""

    call_id: str | None
    name: str | None
    family: ToolFamily = ToolFamily.FUNCTION
    tool_type: str | None = None
    informational: bool = False
    kind: Literal["tool_call"] = "tool_call"


class Result(NamedTuple):
    """A tool result, as `pair()` reads it."""

    call_id: str | None
    name: str | None
    family: ToolFamily = ToolFamily.FUNCTION
    tool_type: str | None = None
    kind: Literal["tool_result"] = "tool_result"


class Request(NamedTuple):
    """An approval request and the call it wraps."""

    request_id: str
    tool_call: Call | None = None
    kind: Literal["approval_request"] = "approval_request"


class Response(NamedTuple):
    """An approval response."""

    request_id: str
    kind: Literal["approval_response"] = "approval_response"


OtherKind = Literal["text", "reasoning", "refusal", "media", "usage", "unknown"]


class Other(NamedTuple):
    """Any other part: its kind and, for text, whether it is empty or whitespace only."""

    kind: OtherKind
    empty: bool = False


OutlinePart = Call | Result | Request | Response | Other

_FUNCTION = ToolFamily.FUNCTION
_new = tuple.__new__  # a named tuple as `_make` builds it, without its slower `__new__`


def function_call(call_id: str | None, name: str | None, tool_type: str) -> Call:
    """`Call(call_id, name, tool_type=tool_type)`, built fast (for the fast readers)."""
    return _new(Call, (call_id, name, _FUNCTION, tool_type, False, "tool_call"))


def function_result(call_id: str | None, name: str | None, tool_type: str) -> Result:
    """`Result(call_id, name, tool_type=tool_type)`, built fast (for the fast readers)."""
    return _new(Result, (call_id, name, _FUNCTION, tool_type, "tool_result"))


TEXT = Other("text")
ONE_TEXT: tuple[Other, ...] = (TEXT,)
"""The parts of a message of one non-blank text: the fast readers share this tuple, which
`step_flags` knows to show no flag."""
EMPTY_TEXT_PART = Other("text", True)
REASONING = Other("reasoning")
UNKNOWN_OTHER = Other("unknown")


class Step(NamedTuple):
    """One message: its role, its parts, its `PARTIAL` / `UNKNOWN` flags and its id."""

    role: str
    parts: tuple[OutlinePart, ...]
    flags: int = 0
    id: str | None = None

    def role_is(self, *roles: str) -> bool:
        """Whether the role equals one of `roles`, ignoring case."""
        mine = self.role.casefold()
        for role in roles:  # noqa: SIM110 (a loop: no generator on the lint hot path)
            if role == mine or role.casefold() == mine:
                return True
        return False

    @property
    def is_partial(self) -> bool:
        """Whether the message is marked as part of a cancelled (partial) response."""
        return bool(self.flags & PARTIAL)


Located = tuple[tuple[int, int], OutlinePart]
"""A part and its (message index, part index)."""


class Outline:
    """A transcript's messages as steps, with its format and server-side state, and what
    one walk of them finds: the calls, results and approvals with their positions
    (`tool_parts`), the flags its parts show (`all_flags`) and, when its reader paired
    them as it read, the pairing (`histnorm.pairing.pair_transcript` gives it back)."""

    __slots__ = (
        "__dict__",
        "_calls",
        "_kinds",
        "_tool_parts",
        "flags",
        "format",
        "imageless",
        "messages",
        "pairing",
        "seen",
        "server_state",
    )

    def __init__(
        self,
        messages: tuple[Step, ...],
        format: str | None = None,
        server_state: str | None = None,
        flags: int = 0,
        *,
        tool_parts: tuple[Located, ...] | None = None,
        seen: int | None = None,
        pairing: Pairing | None = None,
        imageless: bool = False,
    ) -> None:
        self.messages = messages
        self.format = format
        self.server_state = server_state
        self.flags = flags
        """Flags of the whole outline (`BROKEN_CHAIN`, `LONG_LINE`)."""
        self._tool_parts = tool_parts
        self._calls: tuple[tuple[tuple[int, int], Call], ...] | None = None
        self._kinds: int | None = None
        self.seen = seen
        """The flags of its steps and parts, when its reader read only modelled roles and
        saw these as it read (`all_flags` needs no walk, nor the codec's roles); else None."""
        self.pairing = pairing
        """The pairing its reader found as it read, or None (`pair_transcript` pairs it)."""
        self.imageless = imageless
        """Whether its reader saw that no part can hold an image where the media checks
        look (`histnorm.rules._media.images`: no media part, no tool result whose content
        is a list); False when it cannot tell."""

    def tool_parts(self) -> tuple[Located, ...]:
        """Every call, result, approval request and response with its position, in order:
        gathered by the reader as it read, else in one walk on first use."""
        found = self._tool_parts
        if found is None:
            found = self._tool_parts = tuple(
                ((mi, pi), part)
                for mi, message in enumerate(self.messages)
                for pi, part in enumerate(message.parts)
                if type(part) is not Other
            )
        return found

    def calls(self) -> tuple[tuple[tuple[int, int], Call], ...]:
        """Every tool call with its position, in order (from `tool_parts`)."""
        found = self._calls
        if found is None:
            found = self._calls = tuple(
                (at, part) for at, part in self.tool_parts() if type(part) is Call
            )
        return found

    def tool_kinds(self) -> int:
        """`CALLS`, `RESULTS` and `APPROVALS`: which kinds of tool part the transcript
        holds (from `tool_parts`), for `Rule.needs`."""
        found = self._kinds
        if found is None:
            found = 0
            gathered = self._tool_parts
            parts = (
                (part for _, part in gathered)
                if gathered is not None
                else (part for step in self.messages for part in step.parts)
            )
            for part in parts:
                kind = type(part)
                if kind is not Other:
                    found |= CALLS if kind is Call else RESULTS if kind is Result else APPROVALS
            self._kinds = found
        return found

    def _key(self) -> tuple[object, ...]:
        return (self.messages, self.format, self.server_state, self.flags)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Outline) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Outline({self.messages!r}, {self.format!r}, {self.server_state!r}, {self.flags})"

    def all_flags(self, known_roles: frozenset[str] | None = None) -> int:
        """The flags of the outline, of every message and those its parts show; a role
        outside `known_roles` (the codec's, with `MODELLED_ROLES`) is `UNKNOWN_ROLE`."""
        if self.seen is not None:  # its reader read only modelled roles and saw these
            return self.flags | ALWAYS | self.seen
        held = self.__dict__.get("_all_flags")  # the last answer, for the same roles
        if held is not None and held[0] is known_roles:
            return held[1]  # type: ignore[no-any-return]
        known = None if known_roles is None else known_roles | MODELLED_ROLES
        found = self.flags | ALWAYS
        for message in self.messages:
            found |= step_flags(message)
            if known is not None and _unknown(message.role, known):
                found |= UNKNOWN_ROLE
        self.__dict__["_all_flags"] = (known_roles, found)
        return found


def _unknown(role: str, known: frozenset[str]) -> bool:
    """Whether `role` is none of `known` (the codec's roles and `MODELLED_ROLES`)."""
    return role not in known and role.casefold() not in known


def step_flags(step: Step) -> int:
    """The flags of one step: its own and those its parts show (the role aside)."""
    found = step.flags
    parts = step.parts
    if parts is ONE_TEXT:
        return found  # one non-blank text shows no flag
    if not parts:
        return found | EMPTY
    if EMPTY_TEXT_PART in parts:  # tuple equality: only an empty text part is equal
        found |= EMPTY_TEXT
    if UNKNOWN_OTHER in parts:
        found |= UNKNOWN_PART
    if parts[0].kind == "usage" and all(part.kind == "usage" for part in parts):
        found |= EMPTY
    return found


def _call(part: ToolCallPart) -> Call:
    return Call(part.call_id, part.name, part.family, part.tool_type, part.informational)


def outline_part(part: Part) -> OutlinePart:
    """The outline of one model part."""
    if isinstance(part, model.ToolCallPart):
        return _call(part)
    if isinstance(part, model.ToolResultPart):
        return Result(part.call_id, part.name, part.family, part.tool_type)
    if isinstance(part, model.ApprovalRequestPart):
        wrapped = part.tool_call
        return Request(part.request_id, None if wrapped is None else _call(wrapped))
    if isinstance(part, model.ApprovalResponsePart):
        return Response(part.request_id)
    if isinstance(part, model.TextPart):
        return EMPTY_TEXT_PART if not part.text.strip() else TEXT
    return Other(part.kind)


IMAGE_SLOT = "_histnorm_image_slot"
"""Where `holds_image_slot` keeps its answer in a message's `__dict__` (pydantic ignores
it), with the `id` of the message it holds for."""


def holds_image_slot(message: Message) -> bool:
    """Whether a part of `message` is where images are read (`histnorm.rules._media.images`):
    a media part, or a tool result whose content is a list. Kept on the message (models are
    frozen: the answer holds for the message it was found for, and a copy has another
    `id`), so the transcripts a run of fixes makes look only at the messages it made."""
    memo = message.__dict__
    held = memo.get(IMAGE_SLOT)
    if held is not None and held[0] == id(message):
        return bool(held[1])
    unread = memo.get(UNREAD)
    if unread is not None and len(unread) > 3 and unread[3]:
        return False  # unread, from a line held as text: its outline saw no image slot
    found = any(
        isinstance(part, model.MediaPart)
        or (isinstance(part, model.ToolResultPart) and isinstance(part.content, list))
        for part in message.parts
    )
    message.__dict__[IMAGE_SLOT] = (id(message), found)  # reading it may give it a new one
    return found


_STEP = "_histnorm_step"
"""Where `build_outline` keeps a message's step in the message's `__dict__` (pydantic
ignores it), with the `id` of the message and the reader it holds for."""


def build_outline(
    transcript: Transcript,
    read_call_keys: frozenset[str] | None = None,
    flags: int = 0,
    unread_content: Callable[[Any], list[str]] | None = None,
    reader: str | None = None,
) -> Outline:
    """The outline of a decoded transcript, given what its codec reads
    (`Codec.read_call_keys`, `Codec.unread_content`) and the outline flags only the codec
    can tell; the codec-aware `histnorm.formats.outline_of` is the reference every codec's
    outline equals. With `reader` (the codec's name, which fixes the other two), each
    message's step is kept on the message, so the transcripts a run of fixes makes build
    steps only for the messages the fixes made (models are frozen: a step holds for the
    message it was built for, and a copy of it has another `id`)."""
    steps = []
    for message in transcript.messages:
        memo = message.__dict__
        held = memo.get(_STEP) if reader is not None else None
        if held is not None and held[0] == id(message) and held[1] == reader:
            steps.append(held[2])
            continue
        step_flags = PARTIAL if message.is_partial else 0
        if (read_call_keys is not None and unread_call_keys(message.native, read_call_keys)) or (
            unread_content is not None and unread_content(message.native)
        ):
            step_flags |= UNKNOWN
        step = Step(message.role, tuple(map(outline_part, message.parts)), step_flags, message.id)
        if reader is not None:  # reading the message may have given it a new `__dict__`
            message.__dict__[_STEP] = (id(message), reader, step)
        steps.append(step)
    return Outline(tuple(steps), transcript.format, transcript.server_state, flags)


OUTLINE_MEMO = "_histnorm_outline"
"""Where `histnorm.formats.outline_of` keeps a transcript's outline in its `__dict__`
(pydantic ignores it: not a field, not compared), with what it was worked out from."""


def kept_outline(transcript: Transcript) -> Outline | None:
    """The outline kept on `transcript` (`OUTLINE_MEMO`) while it still holds what that
    was worked out from, else None (a copy made with `model_copy(update=...)` has none)."""
    held = transcript.__dict__.get(OUTLINE_MEMO)
    if held is not None and same_source(held[0], memo_source(transcript)):
        found: Outline = held[1]
        return found
    return None


def seed_steps(transcript: Transcript, outline: Outline, reader: str) -> None:
    """Keep each step of `outline`, which the reader `reader` read from the very value
    `transcript` was decoded from, on its message as `build_outline` keeps the steps it
    builds (the representation test holds the two outlines equal): the first transcript a
    fix makes builds steps only for the messages the fix made."""
    steps = outline.messages
    if len(steps) != len(transcript.messages):
        return
    for message, step in zip(transcript.messages, steps, strict=True):
        message.__dict__[_STEP] = (id(message), reader, step)


def listed_messages(data: Any) -> list[Any] | None:
    """The messages a fast reader reads: a message list itself, or the list under
    `messages` of a record or request body; None for anything else (message-per-line
    JSONL is read as `ReadLines`, a list)."""
    messages = data.get("messages") if type(data) is dict else data
    return messages if isinstance(messages, list) else None


def gathered(
    steps: tuple[Step, ...],
    format: str,
    plain: Container[int],
    known_roles: frozenset[str] | None = None,
    *,
    imageless: bool = False,
) -> Outline:
    """The outline of the steps a fast reader read, with their tool parts and flags
    gathered in one walk (rather than one walk each when the rules ask). `plain` holds the
    `id` of the shared steps the reader gives for a message with no tool part and no flag
    (steps it keeps alive), passed over at once. `known_roles`, the codec's, when the
    reader may give a role outside them: a step of such a role leaves the flags to
    `Outline.all_flags`. `imageless`: as for `Outline`."""
    located: list[Located] = []
    seen: int | None = 0
    known = None if known_roles is None else known_roles | MODELLED_ROLES
    for mi, step in enumerate(steps):
        if id(step) in plain:
            continue
        if seen is not None:
            seen = (
                None
                if known is not None and _unknown(step.role, known)
                else seen | step_flags(step)
            )
        for pi, part in enumerate(step.parts):
            if type(part) is not Other:
                located.append(((mi, pi), part))
    return Outline(steps, format, tool_parts=tuple(located), seen=seen, imageless=imageless)
