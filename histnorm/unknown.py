"""Content histnorm does not model, where it could hide a tool call or result.

The findings of HN013 (`histnorm.rules.unknown_content`, whose docs say what is found and
why), computed here once per transcript: the rule reports them, and the fix guard
(`histnorm.guard`) holds back fixes in the turns around them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import TYPE_CHECKING

from histnorm._record import record
from histnorm.analysis.outline import UNKNOWN, UNKNOWN_OTHER, UNKNOWN_PART, UNKNOWN_ROLE
from histnorm.call_keys import unread_call_keys
from histnorm.diagnostic import Severity
from histnorm.errors import join_pointer
from histnorm.last_answer import LastAnswer
from histnorm.lazy import model

if TYPE_CHECKING:
    from histnorm.model import Message, Transcript, UnknownPart

MODELLED_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""The roles every rule understands; with the native roles of every codec (Gemini's
`model`, OpenAI's legacy `function`, ...), the roles that are not unknown content."""
_CALLISH = re.compile(r"tool|function|call|result|observation")
_PAIRING = frozenset({"tool_call", "tool_result", "approval_request", "approval_response"})
"""The `kind` of the parts that call tools, answer them, or ask or answer for approval."""


@record(frozen=True)
class Unknown:
    """One piece of content histnorm does not model, where it matters."""

    message_index: int
    part_index: int | None
    pointer: str
    message: str
    severity: Severity
    whole: bool = False
    """It concerns the whole history (mostly unknown parts), not one turn."""


@cache
def _known_roles(native: frozenset[str]) -> frozenset[str]:
    """`MODELLED_ROLES` and a codec's native roles, casefolded: a role native only to
    another format (Gemini's `model` in an OpenAI Chat file) is unknown here."""
    return frozenset(role.casefold() for role in MODELLED_ROLES | native)


def _a(role: str) -> str:
    return f"an {role}" if role[:1].casefold() in ("a", "e", "i", "o", "u") else f"a {role}"


def _type_of(part: UnknownPart) -> str:
    return repr(part.type) if part.type else "(untyped)"


_LAST: LastAnswer[tuple[Unknown, ...]] = LastAnswer()
"""The answer for the last transcript `findings` answered for (held weakly): lint asks
twice (the rule and the guard), and a transcript is immutable."""


def findings(transcript: Transcript) -> tuple[Unknown, ...]:
    """Every unknown content finding of `transcript`, in message order."""
    return _LAST.get(transcript, lambda: _findings(transcript))


def _findings(transcript: Transcript) -> tuple[Unknown, ...]:
    from histnorm.formats import CODECS, outline_of

    codec = CODECS.get(transcript.format or "")
    if codec is None:
        return ()
    roles = _known_roles(codec.known_roles or frozenset())
    at = codec.message_pointer
    found: list[Unknown] = []
    unknown: list[tuple[int, int]] = []
    total = 0
    read = codec.read_call_keys
    outline = outline_of(transcript)
    if not outline.all_flags(codec.known_roles) & (UNKNOWN | UNKNOWN_PART | UNKNOWN_ROLE):
        return ()  # no message holds a key, a role or a part that a finding names
    steps = outline.messages  # UNKNOWN: the two checks below find keys
    for mi, message in enumerate(transcript.messages):
        if not steps[mi].flags & UNKNOWN:
            keys: list[str] = []
            unread: list[str] = []
        else:
            keys = unread_call_keys(message.native, read) if read is not None else []
            unread = [] if keys else codec.unread_content(message.native)
        for key in keys:
            found.append(
                Unknown(
                    mi,
                    None,
                    join_pointer(at(transcript, mi), key),
                    f"{message.role} message carries {key!r}, which the {codec.name} reader "
                    "does not read: its tool calls or results are invisible (is this file "
                    "in another format?)",
                    Severity.ERROR,
                )
            )
        if unread:
            found.append(_unread_content(transcript, mi, unread))
        if (
            message.role.casefold() not in roles
            and codec.known_roles is not None
            and message.native is not None
        ):
            native = message.native
            pointer = at(transcript, mi)
            role_key = next(
                (k for k in ("role", "from") if isinstance(native, dict) and k in native), None
            )
            if role_key is not None:
                pointer = join_pointer(pointer, role_key)
            found.append(
                Unknown(
                    mi,
                    None,
                    pointer,
                    f"unknown role {message.role!r}: histnorm does not know what this message "
                    "is, so it may hold tool calls or results it cannot pair",
                    Severity.ERROR,
                )
            )
        total += len(message.parts)
        if UNKNOWN_OTHER not in steps[mi].parts:  # the outline of every unknown part
            continue
        for pi, part in enumerate(message.parts):
            if isinstance(part, model.UnknownPart) and part.type not in codec.verbatim_types:
                unknown.append((mi, pi))
    if len(unknown) >= 2 and 2 * len(unknown) > total:
        mi, pi = unknown[0]
        kinds = sorted({_type_of(p) for m in transcript.messages for p in _unknown(m)})
        found.append(
            Unknown(
                mi,
                pi,
                codec.part_pointer(transcript, mi, pi),
                f"histnorm cannot read {len(unknown)} of the {total} parts of this history "
                f"(types {', '.join(kinds[:5])}), so it cannot check it (is this file in "
                "another format?)",
                Severity.ERROR,
                whole=True,
            )
        )
    else:
        found.extend(_parts(transcript, unknown))
    return tuple(sorted(found, key=lambda u: (u.message_index, u.part_index or -1)))


def _unread_content(transcript: Transcript, mi: int, keys: list[str]) -> Unknown:
    """The finding for message `mi`, whose content lies under `keys` its reader does not
    read (`histnorm.content_keys`)."""
    from histnorm.formats import get_codec

    codec = get_codec(transcript.format or "")
    message = transcript.messages[mi]
    listed = ", ".join(repr(k) for k in keys[:3]) + (", ..." if len(keys) > 3 else "")
    return Unknown(
        mi,
        None,
        join_pointer(codec.message_pointer(transcript, mi), keys[0]),
        f"{message.role} message has no content where the {codec.name} reader looks, but "
        f"holds {listed}: its content is hidden from histnorm, so it is not empty (is this "
        "file in another format?)",
        Severity.ERROR,
    )


def _unknown(message: Message) -> Iterator[UnknownPart]:
    return (p for p in message.parts if isinstance(p, model.UnknownPart))


def _parts(transcript: Transcript, positions: Sequence[tuple[int, int]]) -> Iterator[Unknown]:
    from histnorm.formats import get_codec

    if not positions:
        return
    codec = get_codec(transcript.format or "")
    tools = any(p.kind in _PAIRING for m in transcript.messages for p in m.parts)
    for mi, pi in positions:
        message = transcript.messages[mi]
        part = message.parts[pi]
        assert isinstance(part, model.UnknownPart)
        pointer = codec.part_pointer(transcript, mi, pi)
        if part.type and _CALLISH.search(part.type.casefold()):
            yield Unknown(
                mi,
                pi,
                pointer,
                f"part of unknown type {_type_of(part)} in {_a(message.role)} message may be a "
                "tool call or result histnorm cannot see",
                Severity.ERROR,
            )
        elif (
            any(p.kind in _PAIRING for p in message.parts)
            or message.role_is("tool", "function")
            or (tools and not message.role_is("user", "system", "developer"))
        ):
            yield Unknown(
                mi,
                pi,
                pointer,
                f"part of unknown type {_type_of(part)} in {_a(message.role)} message that "
                "takes part in tool pairing",
                Severity.WARNING,
            )
