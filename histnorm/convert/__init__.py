"""Moving a transcript between formats.

`conversion` gives the converted transcript and notes (CV001 warnings) on what the target
has no place for and was left out: token usage, reasoning, request settings, tools of
another kind, media it cannot hold, author names, and each value of a native block no
field of histnorm's model holds (`histnorm.convert.carry`). `convert` gives the
transcript alone.
"""

from __future__ import annotations

import hashlib
import operator
from typing import Any

import histnorm.jsonio as jsonio
from histnorm._record import record
from histnorm.analysis.outline import MODELLED_ROLES
from histnorm.convert.carry import (
    AUTHOR_NAMES,
    MESSAGE_IDS,
    NO_CALL_IDS,
    UNNAMED_HOSTED,
    inline_uri,
    left_behind,
    media_place,
    media_texts,
    media_type_of,
)
from histnorm.convert.request import read_request, system_message, write_request
from histnorm.diagnostic import Diagnostic, Location, Severity
from histnorm.errors import HistnormError
from histnorm.formats import CODECS, get_codec
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    MediaPart,
    Message,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
)

NOT_CARRIED = ("CV001", "not-carried")
"""The code and name of a note on content the target has no place for."""

NO_PLACE = {
    "usage": frozenset(CODECS) - {"meai", "agent-framework", "langchain"},
    "reasoning": frozenset({"openai-chat", "sharegpt"}),
}
"""The formats that have no place for a part kind: converting to them leaves such parts
out, with a note (token usage a provider reported; reasoning the target cannot replay)."""
OBJECT_ARGUMENTS = frozenset({"anthropic", "claude-code", "gemini", "bedrock-converse"})
"""The formats whose tool calls take their arguments as a JSON object, nothing else."""
WHAT = {"usage": "token usage", "reasoning": "a reasoning part"}


@record(frozen=True, slots=True)
class Conversion:
    """A converted transcript and what of the source it does not carry."""

    transcript: Transcript
    notes: tuple[Diagnostic, ...] = ()


def _note(message: str, pointer: str | None, message_index: int | None = None) -> Diagnostic:
    code, name = NOT_CARRIED
    where = Location(message_index=message_index, pointer=pointer)
    return Diagnostic(code, name, message, Severity.WARNING, where)


def _detach_part(part: Any) -> Any:
    changes: dict[str, Any] = {"native": None, "slot": None}
    if isinstance(part, ApprovalRequestPart | ApprovalResponsePart) and part.tool_call is not None:
        changes["tool_call"] = _detach_part(part.tool_call)
    return part.evolve(**changes)


OWN_ROLES = {"gemini": {"model": "assistant", "function": "tool"}}
"""Roles a format names its own way, by their common names (what other formats write)."""

LEGACY_ROLES = {"function": "tool"}
"""Older names of roles (OpenAI's legacy `function` messages), written by their current
name into a target that does not know the old one."""


def _target_roles(to: str) -> dict[str, str]:
    known = get_codec(to).known_roles
    if known is None:
        return {}
    known_folded = {role.casefold() for role in known | MODELLED_ROLES}
    return {old: new for old, new in LEGACY_ROLES.items() if old not in known_folded}


NO_MESSAGE_IDS = frozenset({"anthropic", "bedrock-converse"})
"""Targets whose request messages hold no `id`: Anthropic's and Converse's take `role`
and `content` only, so a message id read elsewhere (a Claude Code line's response id) is
not carried."""


def _detach_message(message: Message, roles: dict[str, str], to: str) -> Message:
    parts = tuple(_detach_part(p) for p in message.parts)
    role = roles.get(message.role.casefold(), message.role)
    message_id = None if to in NO_MESSAGE_IDS else message.id
    result: Message = message.evolve(role=role, parts=parts, native=None, id=message_id)
    return result


def convert(transcript: Transcript, to: str) -> Transcript:
    """The same conversation, detached from its native source and set to be written as `to`
    (see `conversion`, which also says what was left out)."""
    return conversion(transcript, to).transcript


def conversion(transcript: Transcript, to: str) -> Conversion:
    """The same conversation, detached from its native source and set to be written as `to`.

    The request envelope goes with it where the target has a place for it: system text
    outside the messages, model, sampling settings, function tools (in the target's tool
    shape). Inline media data goes as a `data:` URL. Token usage, reasoning, settings,
    tools, media and author names the target has no place for are left out, each with a
    note (pointing into the source), as are call arguments that are no JSON object where
    the target takes only objects, and the values of a native block (a document's title,
    a call item's status) that the model does not hold. Unknown native parts have no
    meaning in another format and are kept as they are; the target codec raises
    `HistnormError` for anything else it cannot express.
    """
    target = get_codec(to)  # fail early on an unknown name
    if transcript.format == to:
        return Conversion(transcript)
    origin = CODECS.get(transcript.format or "")
    if origin is not None and origin.conversations(transcript) is not None:
        what = (
            "a chat store of several keys in {to}: it holds one conversation per key"
            if origin.name == "llama-index"
            else "a {name} preference pair in {to}: it holds two conversations (the prompt "
            "with chosen, and with rejected)"
        )
        raise HistnormError(
            f"histnorm cannot write {what.format(name=origin.name, to=to)}, not one"
        )
    request = read_request(transcript)
    notes: list[Diagnostic] = []
    messages = _carried(transcript, to, notes)
    if to in OBJECT_ARGUMENTS:
        notes.extend(_shapeless_arguments(transcript, to))
    roles = _target_roles(to) | OWN_ROLES.get(transcript.format or "", {})
    detached = [_detach_message(m, roles, to) for m in messages]
    if request.system:
        detached.insert(0, system_message(request.system))
    source = get_codec(transcript.format) if transcript.format else None
    if source is not None and source.items_are_messages and not target.items_are_messages:
        detached = list(_join_assistant_items(tuple(detached)))
    envelope, lost = write_request(request, to, detached, isinstance(transcript.native, dict))
    notes.extend(_note(f"{what} has no place in {to}: not carried", at) for what, at in lost)
    converted = Transcript(messages=tuple(detached), format=to, native=envelope)
    if target.needs_call_ids:
        converted = _give_call_ids(converted)
    return Conversion(converted, tuple(notes))


def _carried(transcript: Transcript, to: str, notes: list[Diagnostic]) -> list[Message]:
    """The messages as far as `to` can carry them, noting each value left out: the parts
    it has no place for (`NO_PLACE`; media of a type or source it cannot write), the
    values of a media block its URI does not carry, an author name. Inline media data
    goes as a `data:` URL. A message that held nothing else goes too."""
    dropped = {kind for kind, targets in NO_PLACE.items() if to in targets}
    source = get_codec(transcript.format) if transcript.format else None
    out = []
    for mi, message in enumerate(transcript.messages):
        kept: list[Any] = []
        for pi, part in enumerate(message.parts):
            lost: list[tuple[str, str]] = []
            if part.kind in dropped:
                lost = [(WHAT[part.kind], "")]
            elif isinstance(part, MediaPart):
                carried, lost = _media(part, to)
                kept.extend([carried] if carried is not None else [])
            else:
                kept.append(part)
                lost = _unwritten(part, to)
                if isinstance(part.native, dict):
                    twins = [p for p in message.parts if p.native is part.native]
                    lost = _left_of(part, twins) + lost
            pointer = source.part_pointer(transcript, mi, pi) if source and lost else None
            for what, at in lost:
                where = None if pointer is None else pointer + at
                notes.append(_note(f"{what} has no place in {to}: not carried", where, mi))
        changes: dict[str, Any] = {}
        if message.author_name is not None and to not in AUTHOR_NAMES:
            pointer = source.message_pointer(transcript, mi) if source else None
            what = f"the author name {message.author_name!r}"
            notes.append(_note(f"{what} has no place in {to}: not carried", pointer, mi))
            changes["author_name"] = None
        if len(kept) != len(message.parts) or any(map(operator.is_not, kept, message.parts)):
            if not kept and message.parts:
                continue
            changes["parts"] = tuple(kept)
        out.append(message.evolve(**changes) if changes else message)
    notes.extend(_lost_ids(transcript, to))
    return out


def _lost_ids(transcript: Transcript, to: str) -> list[Diagnostic]:
    """One note on the message ids `to` has no place for (`MESSAGE_IDS`), at the first."""
    roles = MESSAGE_IDS.get(to, frozenset())
    lost = [
        mi
        for mi, message in enumerate(transcript.messages)
        if message.id is not None and roles is not None and message.role.casefold() not in roles
    ]
    if not lost:
        return []
    source = get_codec(transcript.format) if transcript.format else None
    pointer = source.message_pointer(transcript, lost[0]) if source else None
    what = "1 message id has" if len(lost) == 1 else f"{len(lost)} message ids have"
    return [_note(f"{what} no place in {to}: not carried", pointer, lost[0])]


def _left_of(part: Any, twins: list[Any]) -> list[tuple[str, str]]:
    """What of the native block of a text, refusal, call or result part no field of it
    holds, nor of the `twins` read from the same block (a Vercel AI tool part is a call
    and its result), as (what, pointer relative to the part): it goes nowhere when the
    part is written in another format."""
    what = {"text": "a text part", "refusal": "a refusal", "tool_call": "a tool call"}
    what["tool_result"] = "a tool result"
    twins = [twin for twin in twins if twin.kind in what or twin.kind.startswith("approval")]
    if part.kind not in what or not isinstance(part.native, dict) or part is not twins[0]:
        return []  # the first of the twins speaks for the block
    carried = [value for twin in twins for value in _fields(twin)]
    return [
        (f"the {at[1:]!r} of {what[part.kind]}", at) for at in left_behind(part.native, carried)
    ]


def _unwritten(part: Any, to: str) -> list[tuple[str, str]]:
    """The fields of a call or result `to` has no place for: its call id (`NO_CALL_IDS`),
    a server-side tool's name (`UNNAMED_HOSTED`)."""
    if not isinstance(part, ToolCallPart | ToolResultPart):
        return []
    found = []
    if to in NO_CALL_IDS and part.call_id:
        found.append((f"the call id {part.call_id!r}", ""))
    if to in UNNAMED_HOSTED and part.family is ToolFamily.HOSTED and part.name:
        found.append((f"the name {part.name!r} of a server-side tool", ""))
    return found


def _fields(part: Any) -> tuple[Any, ...]:
    """The values histnorm's model holds of a part."""
    if isinstance(part, TextPart | RefusalPart):
        return (part.text,)
    if isinstance(part, ToolCallPart):
        return (part.call_id, part.name, part.arguments, part.tool_type, part.informational)
    if isinstance(part, ToolResultPart):
        return (part.call_id, part.name, part.content, part.tool_type, part.is_error)
    if isinstance(part, ApprovalRequestPart):
        return (part.request_id, part.requires_confirmation)
    if isinstance(part, ApprovalResponsePart):
        return (part.request_id, part.approved, part.reason)
    return ()


def _media(part: MediaPart, to: str) -> tuple[MediaPart | None, list[tuple[str, str]]]:
    """The media part as `to` carries it (None when it has no place for it) and what is
    left out, as (what, pointer relative to the part)."""
    uri = part.uri if part.uri is not None else inline_uri(part.native)
    media_type = media_type_of(uri, part.media_type)
    shown = f"a media part ({media_type})" if media_type else "a media part"
    if not media_place(to, uri, media_type):
        return None, [(shown, "")]
    carried = media_texts(uri, media_type)
    lost = [(f"the {at[1:]!r} of {shown}", at) for at in left_behind(part.native, carried)]
    return part.evolve(uri=uri, media_type=media_type), lost


def _shapeless_arguments(transcript: Transcript, to: str) -> list[Diagnostic]:
    """Notes on calls whose arguments are no JSON object (nor the JSON text of one), which
    `to` writes as `{}`: a custom tool's free text, say."""
    source = get_codec(transcript.format) if transcript.format else None
    found = []
    for mi, message in enumerate(transcript.messages):
        for pi, part in enumerate(message.parts):
            if not isinstance(part, ToolCallPart) or _object_like(part.arguments):
                continue
            pointer = source.part_pointer(transcript, mi, pi) if source else None
            written = "" if to == "gemini" else ": written as {}"
            what = f"the arguments of the call {part.name!r} are no JSON object, as {to} requires"
            found.append(_note(what + written, pointer, mi))
    return found


def _object_like(arguments: Any) -> bool:
    if arguments is None or arguments == "" or isinstance(arguments, dict):
        return True
    if not isinstance(arguments, str):
        return False
    try:
        return isinstance(jsonio.loads(arguments), dict)
    except HistnormError:
        return False


def _give_call_ids(transcript: Transcript) -> Transcript:
    """Deterministic ids for calls without one (paired by position in the source format),
    carried to the results paired with them."""
    from histnorm.edit import rewrite
    from histnorm.pairing import pair_transcript

    missing = [
        (mi, pi)
        for mi, message in enumerate(transcript.messages)
        for pi, part in enumerate(message.parts)
        if isinstance(part, ToolCallPart) and part.call_id is None
    ]
    if not missing:
        return transcript
    pairing = pair_transcript(transcript)
    replace: dict[tuple[int, int], tuple[Any, ...]] = {}
    for mi, pi in missing:
        call = transcript.messages[mi].parts[pi]
        assert isinstance(call, ToolCallPart)
        digest = hashlib.sha256(f"{call.name}\x00{mi}\x00{pi}".encode()).hexdigest()
        new_id = "call_" + digest[:24]
        replace[(mi, pi)] = (call.evolve(call_id=new_id),)
        result = pairing.call_results.get((mi, pi))
        if result is not None:
            part = transcript.messages[result[0]].parts[result[1]]
            replace[result] = (part.evolve(call_id=new_id),)
    result_transcript: Transcript = rewrite(transcript, replace=replace)
    return result_transcript


def _join_assistant_items(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """One assistant message per run of assistant items (reasoning, text, parallel calls)."""
    out: list[Message] = []
    for message in messages:
        previous = out[-1] if out else None
        if previous is not None and previous.role_is("assistant") and message.role_is("assistant"):
            out[-1] = previous.evolve(parts=previous.parts + message.parts)
        else:
            out.append(message)
    return tuple(out)
