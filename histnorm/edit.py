"""Small pure edits on transcripts that fixes share; untouched messages keep their identity."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeAlias

from histnorm.analysis.outline import Outline, Step
from histnorm.lazy import model
from histnorm.pairing import Position

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart, ToolResultPart, Transcript

AnyMessage: TypeAlias = "Message | Step"
"""A message of a model or of an outline: the helpers below read what both hold."""
AnyTranscript: TypeAlias = "Transcript | Outline"


def is_result_only(message: AnyMessage) -> bool:
    """Whether every part of `message` is a tool result (and it has at least one)."""
    return bool(message.parts) and all(p.kind == "tool_result" for p in message.parts)


def _call_only(message: AnyMessage) -> bool:
    return (
        message.role_is("assistant")
        and bool(message.parts)
        and all(p.kind == "tool_call" or p.kind == "reasoning" for p in message.parts)
    )


def block_end(messages: Sequence[AnyMessage], index: int, items: bool = False) -> int:
    """The index of the last message of the turn that message `index` opens: the result
    messages that follow it and, for formats with one item per message (`items`), the
    further call items of the same parallel batch before them. (Asked about many indices
    of one transcript, `turn_end` walks its messages once.)"""
    return _block_end(_Ends(messages), index, items)


def _block_end(ends: _Ends, index: int, items: bool) -> int:
    return ends.after_results(ends.after_calls(index) if items else index)


_CALL_KINDS = frozenset({"tool_call", "reasoning"})


def _result_only(message: AnyMessage) -> bool:
    parts = message.parts
    if not parts or parts[0].kind != "tool_result":
        return False
    return len(parts) == 1 or is_result_only(message)  # one result: no walk


class _Ends:
    """The ends of the runs of result-only and call-only messages after each index,
    found on demand: a scan from an index records the end for every index it passes, so
    the messages are walked at most once however many indices are asked about."""

    __slots__ = ("_calls", "_messages", "_results")

    def __init__(self, messages: Sequence[AnyMessage]) -> None:
        self._messages = messages
        self._results: dict[int, int] = {}
        self._calls: dict[int, int] = {}

    def after_results(self, index: int) -> int:
        """The last index of the run of result-only messages after `index` (or `index`)."""
        return self._run_end(index, self._results, _result_only)

    def after_calls(self, index: int) -> int:
        """The last index of the run of call-only messages after `index` (or `index`)."""
        return self._run_end(index, self._calls, _call_only)

    def _run_end(
        self, index: int, held: dict[int, int], inside: Callable[[AnyMessage], bool]
    ) -> int:
        found = held.get(index)
        if found is not None:
            return found
        messages, last, passed = self._messages, len(self._messages) - 1, [index]
        end = index
        while end < last and inside(messages[end + 1]):
            end += 1
            known = held.get(end)
            if known is not None:
                end = known
                break
            passed.append(end)
        for at in passed:
            held[at] = end
        return end


_ENDS = "_histnorm_ends"
"""Where `_ends` keeps a transcript's or an outline's `_Ends` in its `__dict__` (pydantic
ignores it: not a field, not compared), with the messages it was found for."""


def _ends(transcript: AnyTranscript) -> _Ends:
    """The `_Ends` of the messages of `transcript`, kept on it, so that a rule or a fix
    asking about every call walks them once, not once per call, and they go with it."""
    messages = transcript.messages
    memo = transcript.__dict__
    held = memo.get(_ENDS)
    if held is not None and held[0] is messages:  # a copy may hold other messages
        ends: _Ends = held[1]
        return ends
    ends = _Ends(messages)
    memo[_ENDS] = (messages, ends)
    return ends


def open_at_end(messages: Sequence[AnyMessage], index: int, items: bool = False) -> bool:
    """Whether nothing but the rest of its turn follows message `index`."""
    return block_end(messages, index, items) == len(messages) - 1


def item_style(transcript: AnyTranscript) -> bool:
    """Whether the transcript's format stores each call and result as its own message."""
    return _items_are_messages(transcript.format)


@cache
def _items_are_messages(format: str | None) -> bool:
    """`Codec.items_are_messages` of a format (None: no format), asked once per format:
    the rules ask for every call of every transcript."""
    from histnorm.formats import CODECS

    codec = CODECS.get(format or "")
    return bool(codec is not None and codec.items_are_messages)


def turn_end(transcript: AnyTranscript, index: int) -> int:
    """`block_end` for a transcript, knowing its format."""
    return _block_end(_ends(transcript), index, item_style(transcript))


def turn_ends(transcript: AnyTranscript) -> Callable[[int], int]:
    """`turn_end` of `transcript` for many indices, its messages walked once."""
    ends = _ends(transcript)
    if item_style(transcript):
        return lambda index: ends.after_results(ends.after_calls(index))
    return ends.after_results


def turn_is_last(transcript: AnyTranscript, index: int) -> bool:
    """`open_at_end` for a transcript, knowing its format."""
    last = len(transcript.messages) - 1
    return _block_end(_ends(transcript), index, item_style(transcript)) == last


def rewrite(
    transcript: Transcript,
    *,
    remove: Iterable[Position] = (),
    replace: Mapping[Position, Sequence[Part]] | None = None,
    insert_after: Mapping[int, Sequence[Message]] | None = None,
    drop_messages: Iterable[int] = (),
) -> Transcript:
    """Apply part removals and replacements, message drops and insertions in one pass.

    Positions and indices refer to `transcript`. A message that loses all its parts
    through `remove` is dropped; a replacement at part 0 of a message with no parts
    becomes its parts (so merging into an empty message keeps what is merged); messages
    not named keep their identity.
    """
    removed: dict[int, set[int]] = {}
    for mi, pi in remove:
        removed.setdefault(mi, set()).add(pi)
    replacements: dict[int, dict[int, Sequence[Part]]] = {}
    for (mi, pi), new_parts in (replace or {}).items():
        replacements.setdefault(mi, {})[pi] = new_parts
    dropped = set(drop_messages)
    inserts = insert_after or {}
    out: list[Message] = []
    for mi, message in enumerate(transcript.messages):
        if mi not in dropped:
            if mi in removed or mi in replacements:
                parts: list[Part] = []
                for pi, part in enumerate(message.parts):
                    if pi in replacements.get(mi, {}):
                        parts.extend(replacements[mi][pi])
                    elif pi not in removed.get(mi, set()):
                        parts.append(part)
                if not message.parts:  # a replacement at (mi, 0) fills an empty message
                    parts.extend(replacements.get(mi, {}).get(0, ()))
                if parts or not message.parts:
                    out.append(message.evolve(parts=tuple(parts)))
            else:
                out.append(message)
        out.extend(inserts.get(mi, ()))
    result: Transcript = transcript.evolve(messages=tuple(out))
    return result


REPLACED_KEY = "histnorm.replaced_content"
"""Metadata a fix sets on a tool result whose content it replaced with a placeholder
(HN113, HN114): the key of the content it had, so the result still counts as kept."""


def result_key(part: ToolResultPart) -> str:
    """What `dropped_answers` compares results by: their content, as sorted JSON (or, for
    a result whose content a fix replaced, the key of the content it had)."""
    import orjson

    replaced = part.metadata.get(REPLACED_KEY)
    if isinstance(replaced, str):
        return replaced
    content = part.content
    if isinstance(content, str) and not content.isascii():
        from histnorm.jsonio import string_json

        return string_json(content)  # orjson would keep a UTF-8 copy in the content
    try:
        return orjson.dumps(content, option=orjson.OPT_SORT_KEYS, default=str).decode()
    except TypeError:  # an integer beyond 64 bits, a lone surrogate: orjson writes neither
        import json

        return json.dumps(part.content, sort_keys=True, default=str, separators=(",", ":"))


def with_content(part: ToolResultPart, content: object) -> ToolResultPart:
    """`part` with `content` in place of its own, still counted as the same result."""
    metadata = {REPLACED_KEY: result_key(part), **part.metadata}
    return part.evolve(content=content, metadata=metadata)  # type: ignore[no-any-return]


def _key_digest(part: ToolResultPart) -> bytes:
    """A digest of `result_key(part)`: `dropped_answers` keeps one for every result of a
    transcript, where the key, as long as the result's content, would hold a second copy
    of every result of a session while it compares them."""
    import hashlib  # only a fix asks: a lint of clean files never loads it

    key = result_key(part).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(key, digest_size=32).digest()


def dropped_answers(before: Transcript, after: Transcript) -> int:
    """How many results that answer an earlier call in `before` are missing from `after`
    (compared by `result_key`, so moved and renamed results count as kept, and so do a
    result whose content only gained text at its end and one whose content a fix replaced
    with `with_content`). A result removed with its call counts as kept only when that call
    is `unreplayable`: a call that is merely misplaced keeps its result. Whether every
    answer is still there, the very part, is asked first, of the messages only one of
    the two holds: a message both hold, the very object, holds its own (one built unread,
    `model.unread_message`, stays so)."""
    from histnorm.pairing import pair_transcript

    messages = before.messages
    pairs = pair_transcript(before).result_calls.items()
    shared = {id(m) for m in after.messages}  # alive in both: an id names one object
    if _all_kept(
        [
            part
            for (mi, pi), _ in pairs
            if id(messages[mi]) not in shared
            and isinstance(part := messages[mi].parts[pi], model.ToolResultPart)
        ],
        after,
        {id(m) for m in messages} & shared,
    ):
        return 0  # every answer is still there, the very part: none is compared by key
    answers = [
        (part, messages[cmi].parts[cpi])
        for (mi, pi), (cmi, cpi) in pairs
        if isinstance(part := messages[mi].parts[pi], model.ToolResultPart)
    ]
    wanted: dict[bytes, list[tuple[ToolResultPart, Part]]] = {}
    for part, call in answers:
        wanted.setdefault(_key_digest(part), []).append((part, call))
    results: list[ToolResultPart] = []
    calls: set[tuple[object, ...]] = set()
    for message in after.messages:
        for part in message.parts:
            if isinstance(part, model.ToolResultPart):
                key = _key_digest(part)
                if wanted.get(key):
                    wanted[key].pop()
                else:
                    results.append(part)
            elif isinstance(part, model.ToolCallPart):
                calls.add((part.call_id, part.name, part.family))
    lost = 0
    for part, call in (pair for pairs in wanted.values() for pair in pairs):
        if (
            isinstance(call, model.ToolCallPart)
            and (call.call_id, call.name, call.family) not in calls
            and unreplayable(call)
        ):
            continue  # its call, which no target can replay, went with it (HN109's drop)
        if not any(_extends(kept.content, part.content) for kept in results):
            lost += 1
    return lost


def _all_kept(parts: list[ToolResultPart], after: Transcript, shared: set[int]) -> bool:
    """Whether `after` holds each of `parts` (the answers outside the messages in `shared`,
    by id), the very objects, as often as `parts` does, outside those messages: then every
    key `dropped_answers` looks for is there as often, and nothing is lost."""
    if not parts:
        return True
    held: dict[int, int] = {}
    for message in after.messages:
        if id(message) in shared:
            continue
        for part in message.parts:
            held[id(part)] = held.get(id(part), 0) + 1
    for part in parts:
        count = held.get(id(part), 0)
        if not count:
            return False
        held[id(part)] = count - 1
    return True


def unreplayable(call: ToolCallPart) -> bool:
    """Whether the arguments of `call` hold no JSON object even once decoded (cut off, or
    JSON of another kind): a call HN109's drop policy may remove with its results. Absent
    arguments read as `{}`; arguments encoded twice are decoded, not dropped. JSON is read
    as HN109 reads it (`histnorm.jsonio.loads`), so the two agree on every call."""
    from histnorm.errors import HistnormError
    from histnorm.jsonio import loads

    arguments = call.arguments
    if arguments is None or arguments == "" or isinstance(arguments, dict):
        return False
    if not isinstance(arguments, str):
        return True
    try:
        value = loads(arguments)
        if isinstance(value, str):
            value = loads(value)
    except HistnormError:
        return True
    return not isinstance(value, dict)


def _extends(content: object, original: object) -> bool:
    """Whether `content` is `original` with something appended."""
    if original is None:
        return content is not None
    if isinstance(content, str) and isinstance(original, str):
        return content.startswith(original)
    if isinstance(content, list) and isinstance(original, list):
        return content[: len(original)] == original
    return False
