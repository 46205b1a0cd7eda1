"""Content histnorm does not model, where it could hide a tool call or result.

## What it does
Reports what histnorm read but does not understand, wherever it matters for pairing:
- a message key that carries calls or results in another format and that this format's
  reader ignores (`tool_calls`, `tool_call_id`, `function_call` in an Anthropic, Gemini
  or MEAI message, usually because `--format` named the wrong format): error;
- a role no format histnorm reads defines (`"assitant"`, `"ipython"`, `"bot"`): error;
- a part or item of an unknown type whose name says tool, function, call, result or
  observation (`{"type": "tool_call", "value": ...}`): error, it may be a call or result;
- any other part of an unknown type in a message that takes part in pairing (one with
  calls, results or approvals, a tool message, or an assistant message of a history with
  calls): warning;
- a history most of whose parts (two or more) are of unknown types: error; histnorm
  cannot check it, and it is likely another format read by the wrong codec.

Types a codec recognises and keeps verbatim on purpose (Anthropic `container_upload`,
Responses `web_search_call`, ...) and unknown parts in plain user or system messages of
a history without tools are not reported.

## Why it breaks a replay
What histnorm cannot see it cannot pair: a call it cannot read makes its result look
orphaned, a result it cannot read makes its call look unanswered, and a repair made on
that view deletes real content. Providers reject what they do not know, e.g. OpenAI:
`Invalid value: 'tool'. Supported values are: 'assistant', 'system', 'developer', and
'user'.`; LLaMA-Factory logs `Invalid role tag in [...]` and skips the record.

## Example
An OpenAI Chat file linted with `--format anthropic`: the assistant's `tool_calls` are
invisible to the Anthropic reader, so the message looks empty.

## Fix
None: histnorm does not guess what unknown content means. Instead, every other fix that
would remove, move or rewrite content in the turn of the unknown content (and any fix
on a call before it or a result after it) is held back; its diagnostic then ends with
`fix held back: unknown content at <pointer>` and `fix` leaves it in place. Read the
file in its own format (`--format`), correct the role, or `--ignore` the rules whose
fixes you do not want.

## Fix safety
No fix is offered. The guard keeps the file as it is wherever histnorm cannot see.

## References
- Issue #10, "Unknown content is silently trusted".
- formats.md §2 (OpenAI role values), §7a (LLaMA-Factory role tags).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from histnorm.analysis.outline import UNKNOWN, UNKNOWN_PART, UNKNOWN_ROLE
from histnorm.call_keys import unread_call_keys
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.errors import join_pointer
from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    Message,
    ToolCallPart,
    ToolResultPart,
    Transcript,
    UnknownPart,
)
from histnorm.rule import Example, Rule
from histnorm.settings import Settings

MODELLED_ROLES = frozenset({"system", "developer", "user", "assistant", "tool"})
"""The roles every rule understands; with the native roles of every codec (Gemini's
`model`, OpenAI's legacy `function`, ...), the roles that are not unknown content."""
_CALLISH = re.compile(r"tool|function|call|result|observation")
_PAIRING = (ToolCallPart, ToolResultPart, ApprovalRequestPart, ApprovalResponsePart)


@dataclass(frozen=True)
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
def _known_roles() -> frozenset[str]:
    """`MODELLED_ROLES` and the native roles of every codec."""
    from histnorm.formats import CODECS

    return MODELLED_ROLES.union(*(c.known_roles or () for c in CODECS.values()))


def _a(role: str) -> str:
    return f"an {role}" if role[:1].casefold() in ("a", "e", "i", "o", "u") else f"a {role}"


def _type_of(part: UnknownPart) -> str:
    return repr(part.type) if part.type else "(untyped)"


_last: list[tuple[Transcript, tuple[Unknown, ...]]] = []
"""The last transcript `findings` answered for, and its answer: lint asks twice (the
rule and the guard), and a transcript is immutable."""


def findings(transcript: Transcript) -> tuple[Unknown, ...]:
    """Every unknown content finding of `transcript`, in message order."""
    last = _last[0] if _last else None
    if last is not None and last[0] is transcript:
        return last[1]
    answer = _findings(transcript)
    _last[:] = [(transcript, answer)]
    return answer


def _findings(transcript: Transcript) -> tuple[Unknown, ...]:
    from histnorm.formats import CODECS

    codec = CODECS.get(transcript.format or "")
    if codec is None:
        return ()
    roles = _known_roles()
    at = codec.message_pointer
    found: list[Unknown] = []
    unknown: list[tuple[int, int]] = []
    total = 0
    read = codec.read_call_keys
    for mi, message in enumerate(transcript.messages):
        for key in unread_call_keys(message.native, read) if read is not None else ():
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
        for pi, part in enumerate(message.parts):
            if isinstance(part, UnknownPart) and part.type not in codec.verbatim_types:
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


def _unknown(message: Message) -> Iterator[UnknownPart]:
    return (p for p in message.parts if isinstance(p, UnknownPart))


def _parts(transcript: Transcript, positions: Sequence[tuple[int, int]]) -> Iterator[Unknown]:
    from histnorm.formats import get_codec

    if not positions:
        return
    codec = get_codec(transcript.format or "")
    tools = any(isinstance(p, _PAIRING) for m in transcript.messages for p in m.parts)
    for mi, pi in positions:
        message = transcript.messages[mi]
        part = message.parts[pi]
        assert isinstance(part, UnknownPart)
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
            any(isinstance(p, _PAIRING) for p in message.parts)
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


def check(transcript: Transcript, settings: Settings) -> Iterable[Diagnostic]:
    """Report every finding of `findings`."""
    for found in findings(transcript):
        yield RULE.diagnostic(
            found.message,
            message_index=found.message_index,
            part_index=found.part_index,
            severity=found.severity,
        ).at(pointer=found.pointer)


_CALL = {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{}"}}
_FORCED = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
]
_ROLE = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "assitant", "content": "It is sunny."},
]
_V1 = [
    {"role": "user", "content": [{"type": "text", "text": "Weather in Paris?"}]},
    {"role": "assistant", "content": [{"type": "tool_call", "value": '{"name": "weather"}'}]},
]

RULE = Rule(
    code="HN013",
    name="unknown-content",
    summary="content histnorm does not model could hide a tool call or result",
    severity=Severity.ERROR,
    applicability=None,
    doc=__doc__ or "",
    check=check,
    wants=UNKNOWN | UNKNOWN_PART | UNKNOWN_ROLE,
    examples=(
        Example(bad=_FORCED, good=None, format="anthropic", title="tool_calls read as Anthropic"),
        Example(bad=_ROLE, good=None, title="a misspelt role"),
        Example(bad=_V1, good=None, title="a tool_call part of another dialect"),
    ),
)
