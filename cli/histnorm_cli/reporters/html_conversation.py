"""A transcript drawn as a conversation: chat bubbles by role, tool calls and results as
cards joined by histnorm's pairing, each finding at the message and part it names."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from histnorm.model import (
    ApprovalRequestPart,
    ApprovalResponsePart,
    MediaPart,
    Message,
    ReasoningPart,
    RefusalPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    Transcript,
    UnknownPart,
    UsagePart,
)
from histnorm.pairing import Pairing, pair_transcript
from histnorm_cli.reporters.html_text import as_text, esc, folded

CONTEXT = 2
"""Messages shown around each marked one; longer runs of unmarked messages fold."""
ROLES = {"user": "user", "assistant": "assistant", "model": "assistant", "ai": "assistant"}
ROLES |= {"system": "system", "developer": "system", "tool": "tool", "function": "tool"}
ROLES |= {"ipython": "tool", "human": "user"}
Position = tuple[int, int]


def finding(found: Mapping[str, Any], anchor: str | None = None) -> str:
    """One report record as a marked note: code (linked to its rule), message, pointer."""
    if "applied" in found:
        code, name = found["applied"]["code"], found["applied"]["name"]
        kind, extra = (
            "applied",
            f'<span class="fixnote">fixed: {esc(found["applied"]["title"])}</span>',
        )
    else:
        code, name, kind = found["code"], found["name"], found["severity"]
        fix = found.get("fix")
        extra = (
            f'<span class="fixnote">fix ({esc(fix["applicability"])}): {esc(fix["title"])}</span>'
            if fix
            else ""
        )
    pointer = found["location"].get("pointer")
    where = found["location"].get("line")
    at = f'<code class="ptr">{esc(pointer or "/")}</code>' if pointer is not None else ""
    line = f'<span class="line">line {where}</span>' if where is not None else ""
    jump = f' <a class="jump" href="#{esc(anchor)}">show</a>' if anchor else ""
    return (
        f'<div class="finding {esc(kind)}" data-code="{esc(code)}">'
        f'<a class="code" href="#rule-{esc(code)}">{esc(code)}</a> '
        f'<span class="name">{esc(name)}</span> <span class="text">{esc(found["message"])}</span> '
        f"{line} {at} {extra}{jump}</div>"
    )


def _place(found: Mapping[str, Any]) -> tuple[int | None, int | None]:
    location = found["location"]
    return location.get("message_index"), location.get("part_index")


def anchor_of(prefix: str, found: Mapping[str, Any]) -> str | None:
    """Where in the drawn conversation a record points (None: the transcript itself)."""
    message, part = _place(found)
    if message is None:
        return None
    return f"{prefix}-m{message}" + ("" if part is None else f"-p{part}")


def conversation(
    transcript: Transcript,
    findings: Sequence[Mapping[str, Any]],
    prefix: str,
    marks: Mapping[int, tuple[str, str]] | None = None,
) -> str:
    """The messages of `transcript` with `findings` at their places; `marks` labels
    messages (css class, text: removed, added, moved) in a before/after view."""
    marks = marks or {}
    at: dict[tuple[int | None, int | None], list[Mapping[str, Any]]] = defaultdict(list)
    for found in findings:
        message, part = _place(found)
        if message is not None and not 0 <= message < len(transcript.messages):
            message = part = None
        at[(message, part)].append(found)
    try:
        pairing = pair_transcript(transcript)
    except Exception:  # display only: no joins drawn
        pairing = Pairing()
    keep = _shown(len(transcript.messages), {m for m, _ in at if m is not None} | set(marks))
    out = [finding(f) for f in at.get((None, None), [])]
    hidden: list[str] = []
    for index, said in enumerate(transcript.messages):
        drawn = _message(said, index, prefix, at, pairing, marks.get(index))
        if index in keep:
            out.append(_fold_run(hidden))
            hidden = []
            out.append(drawn)
        else:
            hidden.append(drawn)
    out.append(_fold_run(hidden))
    return '<div class="conv">' + "".join(out) + "</div>"


def _shown(count: int, marked: set[int]) -> set[int]:
    """The messages drawn open: all of a short transcript, else those near a mark."""
    if count <= 4 * CONTEXT + 4 or not marked:
        return set(range(count))
    return {i for m in marked for i in range(m - CONTEXT, m + CONTEXT + 1) if 0 <= i < count}


def _fold_run(drawn: list[str]) -> str:
    if not drawn:
        return ""
    many = f"{len(drawn)} message{'s' * (len(drawn) != 1)}"
    return (
        f'<details class="gap"><summary>{many} without findings</summary>{"".join(drawn)}</details>'
    )


def _message(
    message: Message,
    index: int,
    prefix: str,
    at: Mapping[tuple[int | None, int | None], list[Mapping[str, Any]]],
    pairing: Pairing,
    mark: tuple[str, str] | None,
) -> str:
    role = ROLES.get(message.role.casefold(), "other")
    anchor = f"{prefix}-m{index}"
    notes = at.get((index, None), [])
    flagged = any(at.get((index, p)) for p in range(len(message.parts))) or notes
    classes = f"msg {role}" + (" flagged" if flagged else "") + (f" {mark[0]}" if mark else "")
    badge = f'<span class="mark">{esc(mark[1])}</span>' if mark else ""
    name = f" · {esc(message.author_name)}" if message.author_name else ""
    parts = [
        _part(part, (index, p), prefix, pairing)
        + "".join(finding(f) for f in at.get((index, p), []))
        for p, part in enumerate(message.parts)
    ]
    extra = [finding(f) for f in notes]
    extra += [
        finding(f)
        for (m, p), found in at.items()
        if m == index and p is not None and p >= len(message.parts)
        for f in found
    ]
    return (
        f'<div class="{classes}" id="{esc(anchor)}"><div class="who">'
        f'<span class="idx">#{index}</span> {esc(message.role)}{name}{badge}</div>'
        + "".join(extra)
        + ("".join(parts) or '<div class="empty">(no content)</div>')
        + "</div>"
    )


def _link(prefix: str, position: Position, text: str) -> str:
    return f'<a class="join" href="#{esc(prefix)}-m{position[0]}-p{position[1]}">{esc(text)}</a>'


def _part(part: Any, position: Position, prefix: str, pairing: Pairing) -> str:
    anchor = f"{prefix}-m{position[0]}-p{position[1]}"
    if isinstance(part, TextPart):
        return f'<div class="part" id="{anchor}">{folded(part.text)}</div>'
    if isinstance(part, ReasoningPart | RefusalPart):
        label = "reasoning" if isinstance(part, ReasoningPart) else "refusal"
        body = folded(part.text or "(opaque)")
        return (
            f'<div class="part {label}" id="{anchor}"><span class="tag">{label}</span>{body}</div>'
        )
    if isinstance(part, ToolCallPart):
        result = pairing.call_results.get(position)
        if result is not None:
            join = _link(prefix, result, f"→ result in message #{result[0]}")
        else:
            join = '<span class="nojoin">no result</span>'
        head = f"call <b>{esc(part.name or '?')}</b> <code>{esc(part.call_id or '-')}</code> {join}"
        return _card("call", anchor, head, folded(as_text(part.arguments), "code"))
    if isinstance(part, ToolResultPart):
        call = pairing.result_calls.get(position)
        if call is not None:
            join = _link(prefix, call, f"← answers the call in message #{call[0]}")
        else:
            join = '<span class="nojoin">answers no call</span>'
        error = ' <span class="nojoin">error</span>' if part.is_error else ""
        head = f"result <code>{esc(part.call_id or '-')}</code>{error} {join}"
        return _card("result", anchor, head, folded(as_text(part.content), "code"))
    if isinstance(part, ApprovalRequestPart | ApprovalResponsePart):
        label = "approval request" if isinstance(part, ApprovalRequestPart) else "approval response"
        return _card("call", anchor, f"{label} <code>{esc(part.request_id)}</code>", "")
    if isinstance(part, MediaPart):
        what = f"{part.media_type or 'media'} {part.uri or ''}"
        return (
            f'<div class="part media" id="{anchor}"><span class="tag">media</span>{esc(what)}</div>'
        )
    if isinstance(part, UsagePart):
        return f'<div class="part usage" id="{anchor}"><span class="tag">usage</span></div>'
    label = part.type if isinstance(part, UnknownPart) and part.type else part.kind
    body = folded(as_text(part.native), "code")
    return (
        f'<div class="part other" id="{anchor}"><span class="tag">{esc(label)}</span>{body}</div>'
    )


def _card(kind: str, anchor: str, head: str, body: str) -> str:
    return f'<div class="card {kind}" id="{anchor}"><div class="card-h">{head}</div>{body}</div>'
