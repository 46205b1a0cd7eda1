"""Tool-call arguments as a target reads them (HN109): the form each format writes, what
is wrong with a value, and the fixes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import orjson

import histnorm.jsonio as jsonio
from histnorm.edit import rewrite, turn_end
from histnorm.errors import HistnormError
from histnorm.formats.base import strict_equal
from histnorm.lazy import model
from histnorm.model_terms import SYNTHESIZED_KEY
from histnorm.pairing import Pairing, Position, pair_transcript
from histnorm.rules._common import left_open
from histnorm.settings import InvalidArgumentsPolicy, OrphanCallPolicy, Settings
from histnorm.tail import tail_of

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolCallPart, ToolResultPart, Transcript

Form = Literal["string", "object", "either"]
"""How a format writes arguments: the JSON text of an object, the object, or both."""

STRING_FORMATS = frozenset({"openai-chat", "openai-responses", "codex"})
EITHER_FORMATS = frozenset({"pydantic-ai", "langchain", "semantic-kernel"})
"""Formats that hold both (pydantic-ai `args`; LangChain's raw OpenAI calls beside its
parsed ones; Semantic Kernel `arguments`, `str | Mapping`); the others write objects."""

Kind = Literal["invalid", "not-object", "double-encoded", "string-form", "object-form"]
FIXED_BY_FORM = frozenset({"double-encoded", "string-form", "object-form"})
"""The findings fixed by decoding or converting, whatever the policy."""


class Finding(NamedTuple):
    """What is wrong with one call's arguments, and for a form fix the value to write."""

    kind: Kind
    message: str
    value: Any = None
    exact: bool = False
    """The conversion keeps the value exactly (safe)."""
    respelled: str | None = None
    """A number the conversion would write with another spelling (`1e-400` as `0.0`):
    then it is not offered, since no rule owns the spelling of a number."""


def native_form(format: str | None) -> Form:
    """The form `format` writes arguments in."""
    if format in STRING_FORMATS:
        return "string"
    if format is None or format in EITHER_FORMATS:
        return "either"
    return "object"


def _parse(text: str) -> tuple[bool, Any, str]:
    try:
        return True, jsonio.loads(text), ""
    except HistnormError as exc:
        return False, None, exc.message


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("duplicate key")
    return found


def _exact(text: str, value: Any) -> bool:
    """Whether `text` parses to `value` with nothing lost: no duplicate keys, and `value`
    written back reads as the same value."""
    try:
        json.loads(text, object_pairs_hook=_no_duplicates)
    except (ValueError, RecursionError):
        return False
    return strict_equal(jsonio.loads(jsonio.dumps(value)), value)


def respelled(text: str) -> str | None:
    """The first number of the JSON `text` that, parsed and written back by either of
    histnorm's writers, is spelled otherwise (`1E2` as `100.0`, `-0` as `0`, `1e-400` as
    `0.0`, `1e-7` as `1e-07`), or None."""
    tokens: list[str] = []

    def keep(token: str) -> int:
        tokens.append(token)
        return 0

    try:
        json.loads(text, parse_float=keep, parse_int=keep)
    except (ValueError, RecursionError):
        return None
    for token in tokens:
        value = jsonio.loads(token)
        if json.dumps(value) != token:  # the writer of styled documents
            return token
        try:
            if orjson.dumps(value).decode("utf-8") != token:  # the compact writer
                return token
        except TypeError:
            pass  # beyond 64 bits: the standard library writes it, exactly
    return None


def _converted(kind: Kind, message: str, text: str, value: Any) -> Finding:
    """The finding of JSON `text` that converts to `value`: not offered when a number
    would be re-spelled, unsafe when the value is not kept exactly."""
    number = respelled(text)
    if number is not None:
        message = f"{message}; converting them would re-spell the number {number}"
        return Finding(kind, message, None, False, number)
    return Finding(kind, message, value, _exact(text, value))


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    return "a number"


def inspect_arguments(arguments: Any, form: Form) -> Finding | None:
    """What keeps `arguments` from being one JSON object in `form`, or None."""
    if arguments is None or arguments == "":
        return None  # absent: read as {}
    if isinstance(arguments, dict):
        if form == "string":
            text = jsonio.dumps(arguments).decode("utf-8")
            return Finding("object-form", "are an object, not its JSON text", text, True)
        return None
    if not isinstance(arguments, str):
        return Finding("not-object", f"are {_kind(arguments)}, not an object")
    ok, value, why = _parse(arguments)
    if not ok:
        return Finding("invalid", f"are {why}")
    if isinstance(value, dict):
        if form != "object":
            return None
        return _converted("string-form", "are JSON text, not the object", arguments, value)
    if isinstance(value, str):
        ok, inner, _ = _parse(value)
        if ok and isinstance(inner, dict):
            if form == "object":
                return _converted("double-encoded", _TWICE, value, inner)
            return Finding("double-encoded", _TWICE, value, True)
    return Finding("not-object", f"are JSON {_kind(value)}, not an object")


_TWICE = "are encoded twice (a JSON string holding the JSON text of an object)"


def note_for(arguments: Any) -> str:
    """The note `replace` keeps the raw arguments in."""
    raw = arguments if isinstance(arguments, str) else jsonio.dumps(arguments).decode("utf-8")
    return (
        "[histnorm: the arguments of this call were no JSON object and were replaced by {}; "
        f"they were: {raw}]"
    )


def with_note(content: Any, note: str) -> Any:
    """`content` with `note` appended, or None when its shape cannot take a note."""
    if content is None or content == "":
        return note
    if isinstance(content, str):
        return f"{content}\n\n{note}"
    if isinstance(content, list) and any(
        isinstance(block, dict) and block.get("type") == "text" for block in content
    ):
        return [*content, {"type": "text", "text": note}]
    return None


def may_add_result(transcript: Transcript, position: Position, settings: Settings) -> bool:
    """Whether `replace` may add a result for the unanswered call at `position`: only
    where HN001 would add one itself (orphan-tool-call=synthesize, and not a call the tail
    in force, `histnorm.tail`, leaves open)."""
    policy = settings.orphan_tool_call
    tail = tail_of(settings, transcript.native)
    return policy is OrphanCallPolicy.SYNTHESIZE and not left_open(transcript, position, tail)


def carries_note(
    transcript: Transcript, pairing: Pairing, position: Position, settings: Settings
) -> bool:
    """Whether `replace` can keep the raw text of the call at `position`: in its result,
    or in one it may add (`may_add_result`)."""
    answer = pairing.call_results.get(position)
    if answer is None:
        return may_add_result(transcript, position, settings)
    result = transcript.messages[answer[0]].parts[answer[1]]
    return isinstance(result, model.ToolResultPart) and with_note(result.content, "") is not None


def _empty(form: Form, arguments: Any) -> Any:
    return "{}" if form == "string" or (form == "either" and isinstance(arguments, str)) else {}


def _result_for(call: ToolCallPart, note: str) -> ToolResultPart:
    return model.ToolResultPart(
        call_id=call.call_id,
        name=call.name if call.call_id is None else None,
        content=note,
        is_error=True,
        family=call.family,
        tool_type="function" if call.call_id is None else None,
        metadata={SYNTHESIZED_KEY: True},
    )


def argument_fix(
    transcript: Transcript, positions: list[Position], settings: Settings
) -> Transcript:
    """Fix the arguments of the calls at `positions` (see HN109's docs)."""
    form = native_form(transcript.format)
    pairing = pair_transcript(transcript)
    policy = settings.invalid_tool_arguments
    replace: dict[Position, list[Part]] = {}
    remove: list[Position] = []
    added: dict[int, list[ToolResultPart]] = {}
    for position in positions:
        call = transcript.messages[position[0]].parts[position[1]]
        found = (
            None
            if not isinstance(call, model.ToolCallPart)
            else inspect_arguments(call.arguments, form)
        )
        if found is None or not isinstance(call, model.ToolCallPart) or found.respelled is not None:
            continue
        if found.kind in FIXED_BY_FORM:
            replace[position] = [call.evolve(arguments=found.value)]
        elif policy is InvalidArgumentsPolicy.DROP:
            remove.append(position)
            remove.extend(r for r, c in pairing.result_calls.items() if c == position)
        elif policy is InvalidArgumentsPolicy.REPLACE:
            note = note_for(call.arguments)
            answer = pairing.call_results.get(position)
            if answer is None:
                if not may_add_result(transcript, position, settings):
                    continue  # HN001's policy or the kept tail forbids a result
                added.setdefault(position[0], []).append(_result_for(call, note))
            else:
                result = transcript.messages[answer[0]].parts[answer[1]]
                assert isinstance(result, model.ToolResultPart)
                content = with_note(result.content, note)
                if content is None:
                    continue
                replace[answer] = [result.evolve(content=content)]
            replace[position] = [call.evolve(arguments=_empty(form, call.arguments))]
    inserts: dict[int, list[Message]] = {}
    for mi, results in added.items():
        end = turn_end(transcript, mi)
        inserts.setdefault(end, []).append(model.Message(role="tool", parts=tuple(results)))
    return rewrite(transcript, remove=remove, replace=replace, insert_after=inserts)
