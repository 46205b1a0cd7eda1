"""Helpers the rule modules share: descriptions, the tail predicate, unanswered items."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from histnorm.analysis.context import Context
from histnorm.analysis.outline import OutlinePart
from histnorm.diagnostic import Applicability, Diagnostic
from histnorm.edit import AnyTranscript, rewrite, turn_is_last
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily
from histnorm.pairing import Pairing, Position, pair_transcript
from histnorm.profiles import Profile, call_id_problem, profile_for
from histnorm.rule import Rule
from histnorm.settings import Settings, TailMode

if TYPE_CHECKING:
    from histnorm.model import Part, Transcript


def part_at(transcript: Transcript, position: Position) -> Part:
    """The part at (message index, part index)."""
    mi, pi = position
    return transcript.messages[mi].parts[pi]


def outline_part_at(transcript: AnyTranscript, position: Position) -> Part | OutlinePart:
    """The part at (message index, part index) of a transcript or an outline."""
    mi, pi = position
    return transcript.messages[mi].parts[pi]


def show_id(value: str | None) -> str:
    """An id for messages: quoted, `""` for the empty string, or "without an id"."""
    return "without an id" if value is None else repr(value) if value else '""'


def nth(transcript: AnyTranscript, first: int, last: int | None = None) -> str:
    """Messages `first` (to `last`) as a person counts them: "message 2 of 7",
    "messages 2-4 of 7" (the indexes are 0-based, as in pointers)."""
    total = len(transcript.messages)
    if last is None or last == first:
        return f"message {first + 1} of {total}"
    return f"messages {first + 1}-{last + 1} of {total}"


def describe(part: Part | OutlinePart) -> str:
    """A short human description of a call, result or approval request (of a model or
    of an outline: both have the attributes read here)."""
    if part.kind == "tool_call":
        name = f" ({part.name})" if part.name else ""
        return f"tool call {show_id(part.call_id)}{name}"
    if part.kind == "tool_result":
        return f"tool result {show_id(part.call_id)}"
    if part.kind == "approval_request":
        call = part.tool_call
        wrapped = f" for {describe(call)}" if call else ""
        return f"approval request {show_id(part.request_id)}{wrapped}"
    return f"{part.kind} part"


SERVER_RUN = frozenset({ToolFamily.HOSTED, ToolFamily.MCP})
"""Families of calls the provider runs itself: one in flight at the end of a request body
is the provider's to continue (Anthropic answered 200 to a `server_tool_use` and an
`mcp_tool_use` without results at the end of a request: pydantic-ai's
`test_unpaired_native_tool_calls` cassettes)."""


def left_open(
    transcript: AnyTranscript, position: Position, tail: TailMode, chosen: bool = True
) -> bool:
    """Whether an unanswered item at `position` is a tail state to leave alone: at the end
    under tail=keep, or, when no tail was `chosen` (a request body closes its own), a call
    the provider runs itself (`SERVER_RUN`) at the end."""
    if not turn_is_last(transcript, position[0]):
        return False
    if tail is TailMode.KEEP:
        return True
    if chosen:
        return False
    part = outline_part_at(transcript, position)
    return part.kind == "tool_call" and getattr(part, "family", None) in SERVER_RUN


def unanswered(
    rule: Rule,
    context: Context,
    positions: Iterable[Position],
    *,
    missing: str,
    fix: tuple[str | None, Applicability | None],
    opted_in: bool,
) -> Iterator[Diagnostic]:
    """The diagnostics of calls or requests still waiting for their `missing` answer
    (HN001, HN003): the ones a kept tail leaves open are skipped, and one at the end is
    reported only under a closed tail (`Context.tail`). `fix` is the fix title and
    applicability the chosen policy gives (None, None: no fix)."""
    title, applicability = fix
    transcript = context.outline
    for position in positions:
        if left_open(transcript, position, context.tail, context.settings.tail is not None):
            continue
        at_end = turn_is_last(transcript, position[0])
        closed = f" ({context.closed_tail_note})"
        yield rule.diagnostic(
            f"{describe(outline_part_at(transcript, position))} has no {missing}"
            + (", but later messages follow" if not at_end else closed),
            message_index=position[0],
            part_index=position[1],
            fix_title=title,
            applicability=applicability,
            opted_in=opted_in,
        )


def reported(diagnostics: Sequence[Diagnostic]) -> list[Position]:
    """The (message index, part index) each diagnostic points at."""
    return [(d.location.message_index or 0, d.location.part_index or 0) for d in diagnostics]


def remove_reported(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], settings: Settings
) -> Transcript:
    """The fix that removes the part each diagnostic points at."""
    return rewrite(transcript, remove=reported(diagnostics))


def profile(transcript: AnyTranscript, settings: Settings) -> Profile:
    """The replay target's constraints for `transcript` under `settings`."""
    return profile_for(settings.profile, transcript.format)


_ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _alphanumeric(digest: bytes, length: int) -> str:
    """`length` letters and digits read off `digest` (base 62)."""
    number = int.from_bytes(digest, "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, len(_ALNUM))
        out.append(_ALNUM[digit])
    return "".join(out)


def new_call_id(old: str | None, position: Position, limits: Profile | None = None) -> str:
    """A deterministic replacement id, derived from the old id and its position: `call_`
    and 24 hex digits, or, when `limits` rejects that, the first of 24 or 9 letters and
    digits that `limits` accepts (Mistral: exactly 9)."""
    import hashlib  # only fixes make ids: a lint does not load it

    text = f"{old}\x00{position[0]}\x00{position[1]}"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()
    first = "call_" + digest.hex()[:24]
    if limits is None:
        return first
    for candidate in (first, _alphanumeric(digest, 24), _alphanumeric(digest, 9)):
        if call_id_problem(candidate, limits) is None:
            return candidate
    return first


def results_by_call(pairing: Pairing) -> dict[Position, list[Position]]:
    """Each answered call's results: the one it pairs with, then its duplicates."""
    answers: dict[Position, list[Position]] = {}
    for result, call in pairing.result_calls.items():
        answers.setdefault(call, []).append(result)
    for duplicate, first in pairing.duplicate_results:
        owner = pairing.result_calls.get(first)
        if owner is not None:
            answers.setdefault(owner, []).append(duplicate)
    return answers


def rename_calls(
    transcript: Transcript, diagnostics: Sequence[Diagnostic], limits: Profile | None = None
) -> Transcript:
    """Give each reported call a new id (`new_call_id`, valid under `limits`) and carry it
    to its results."""
    answers = results_by_call(pair_transcript(transcript))
    replace: dict[Position, Sequence[Part]] = {}
    for position in reported(diagnostics):
        renamed = part_at(transcript, position)
        assert isinstance(renamed, model.ToolCallPart)
        new = new_call_id(renamed.call_id, position, limits)
        replace[position] = (renamed.evolve(call_id=new),)
        for result in answers.get(position, ()):
            part = part_at(transcript, result)
            replace[result] = (part.evolve(call_id=new),)
    return rewrite(transcript, replace=replace)
