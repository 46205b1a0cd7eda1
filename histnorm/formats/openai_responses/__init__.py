"""OpenAI Responses API input items: a bare item list, or a request body with `input`.

A request body keeps every other key; an `input` string is read as one user message.
Each item is one message: a `message` item (easy form `{role, content}` with a string or
parts, or the full form with `type`, `id`, `status`) keeps its role; call items are
`assistant`, their `*_output` items `tool`, `reasoning` and hosted items `assistant`,
`mcp_approval_response` `user`.

Slots: `content` (string content), `content[]` (a content part), `input` (an `input`
string), and for every other item its `type` (`function_call`, `function_call_output`,
`custom_tool_call`, `computer_call`, `local_shell_call`, `shell_call`, `apply_patch_call`
and their outputs, `reasoning`, `mcp_approval_request`, `mcp_approval_response`); such a
part's `native` is the whole item. Hosted and other server-side items (`web_search_call`,
`mcp_call`, `mcp_list_tools`, `item_reference`, `compaction`, unknown types) are
`UnknownPart`s in slot `item`: they complete inside the item, so there is nothing to pair.
But a `tool_search_call` / `tool_search_output` with `"execution": "client"` is a call and
its result (slot: its type), and a `function_call_output` may answer such a call too.
Calls pair with outputs by `call_id`; an item's own `id` (`fc_…`) is `Message.id`.

A request body that sets `previous_response_id` or `conversation` continues state stored
on the server: the transcript's `server_state` names that key, and an output whose call is
not in `input` pairs with a call on the server (`Pairing.server_results`), not an orphan.

Writing: unchanged messages give back their item; a message holding several parts is
split into items (content parts into one `message` item, every other part its own item).
A new call becomes a `function_call` (`custom_tool_call` for the custom family) without
an `id`; a new result becomes the output item of the call it pairs with
(`function_call_output` when unknown); `is_error`, metadata and author names are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import Outline
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    Codec,
    first_index,
    join_envelope,
    reads_as,
    rebuild,
    reuse_native,
    split_envelope,
)
from histnorm.formats.base import decoded as mark
from histnorm.formats.openai_responses.items import (
    CALLS,
    CONTENT_SLOTS,
    HOSTED,
    ITEM_SLOT,
    OTHER_ITEMS,
    OUTPUT_OF,
    RESULTS,
    decode_item,
    item_type,
    message_id,
    server_state,
)
from histnorm.formats.openai_responses.outline import read_outline
from histnorm.formats.openai_responses.sniff import ENVELOPE_KEY, sniff
from histnorm.formats.openai_responses.write import (
    encode_approval,
    encode_call,
    encode_content,
    encode_reasoning,
    encode_result,
)
from histnorm.lazy import model
from histnorm.model_terms import UNREAD, JsonValue, ToolFamily
from histnorm.pairing import pair_transcript

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript


def decode_string_input(text: str) -> Message:
    """The single user message of an `input` string."""
    return model.Message(
        role="user", parts=(model.TextPart(text=text, native=text, slot="input"),), native=text
    )


def _is_content(part: Part) -> bool:
    if part.slot in CONTENT_SLOTS:
        return True
    return part.native is None and isinstance(
        part, model.TextPart | model.RefusalPart | model.MediaPart
    )


def _message_item(message: Message, parts: list[Part], base: dict[str, Any]) -> dict[str, Any]:
    """A `message` item holding `parts`, rebuilt from `base` when there is one."""
    only = parts[0] if len(parts) == 1 else None
    content: Any
    if isinstance(only, model.TextPart) and (
        only.slot in ("content", "input")
        or (only.native is None and not isinstance(base.get("content"), list))
    ):
        content = only.text
    else:
        content = [encode_content(p, message.role) for p in parts]
    if not base:
        return {"type": "message", "role": message.role, "content": content}
    updates: dict[str, Any] = {"role": message.role, "content": content}
    if message.id != base.get("id"):
        updates["id"] = MISSING if message.id is None else message.id
    return rebuild(base, updates)


def _encode_item(part: Part, output_kind: str) -> Any:
    if isinstance(part, model.ToolCallPart):
        return encode_call(part)
    if isinstance(part, model.ToolResultPart):
        return encode_result(part, output_kind)
    if isinstance(part, model.ReasoningPart):
        return encode_reasoning(part)
    if isinstance(part, model.ApprovalRequestPart | model.ApprovalResponsePart):
        return encode_approval(part)
    if isinstance(part, model.UnknownPart) and part.native is not None and part.slot == ITEM_SLOT:
        return part.native
    raise HistnormError(
        f"a part of kind {part.kind!r} cannot be written as an OpenAI Responses item"
    )


def encode_message(message: Message, output_kinds: Mapping[int, str] | None = None) -> list[Any]:
    """Encode one message as items: content parts in `message` items, every other part as
    its own item. `output_kinds` names the item type of each new result, by part index."""
    if not isinstance(message.native, str) and reuse_native(message, decode_item):
        return [message.native]
    native = message.native
    is_message = isinstance(native, dict) and (
        native.get("type") == "message" or ("type" not in native and "role" in native)
    )
    base: dict[str, Any] = native if is_message else {}
    out: list[Any] = []
    run: list[Part] = []
    for index, part in enumerate(message.parts):
        if _is_content(part):
            run.append(part)
            continue
        if run:
            out.append(_message_item(message, run, base))
            base, run = {}, []
        item = _encode_item(part, (output_kinds or {}).get(index, "function_call_output"))
        own = isinstance(native, dict) and part.native is native
        if own and isinstance(item, dict) and message.id != message_id(native):
            item = rebuild(item, {"id": MISSING if message.id is None else message.id})
        out.append(item)
    if run or not message.parts:
        out.append(_message_item(message, run, base))
    return out


def _output_kind(result: ToolResultPart, call: Part | None) -> str:
    if result.tool_type in RESULTS:
        return result.tool_type
    if isinstance(call, model.ToolCallPart):
        native_type = item_type(call.native)
        for kind in (native_type, call.tool_type):
            if kind in CALLS:
                return OUTPUT_OF[kind]
        if call.family is ToolFamily.CUSTOM:
            return "custom_tool_call_output"
    return (
        "custom_tool_call_output" if result.family is ToolFamily.CUSTOM else "function_call_output"
    )


def _output_kinds(transcript: Transcript) -> dict[int, dict[int, str]]:
    """The item type of every result that has no native item, by message and part index."""
    new = [
        (mi, pi)
        for mi, m in enumerate(transcript.messages)
        if UNREAD not in m.__dict__  # unread: each result has its item as read
        for pi, p in enumerate(m.parts)
        if isinstance(p, model.ToolResultPart) and not isinstance(p.native, dict)
    ]
    if not new:
        return {}
    calls = pair_transcript(transcript).result_calls
    out: dict[int, dict[int, str]] = {}
    for mi, pi in new:
        result = transcript.messages[mi].parts[pi]
        assert isinstance(result, model.ToolResultPart)
        at = calls.get((mi, pi))
        call = transcript.messages[at[0]].parts[at[1]] if at else None
        out.setdefault(mi, {})[pi] = _output_kind(result, call)
    return out


def _string_input(transcript: Transcript) -> bool:
    native = transcript.native
    return isinstance(native, dict) and isinstance(native.get(ENVELOPE_KEY), str)


class OpenAIResponsesCodec(Codec):
    """OpenAI Responses API input items (`input[]`), bare or in a request body."""

    name = "openai-responses"
    one_result_per_message = True
    summary = "OpenAI Responses API input items, bare or in a request body's `input`"
    items_are_messages = True
    items_are_messages = True
    known_roles = frozenset({"system", "developer", "user", "assistant", "tool"})
    read_call_keys = frozenset[str]()
    verbatim_types = frozenset(HOSTED | OTHER_ITEMS)

    def sniff(self, data: JsonValue) -> float:
        """Likely when items carry a known `type`, or messages carry Responses content parts;
        a string `input` only in a body with Responses keys (`model`, `instructions`...),
        never alone (an Alpaca record has a string `input` too)."""
        return sniff(data)

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a bare item list, or an object holding `input` (items or a string)."""
        return self._decode(data, {})

    def decode_written(self, data: JsonValue, transcript: Transcript) -> Transcript:
        """`Codec.decode_written`: an item that is the very item a message of `transcript`
        was read from, still as read (`reads_as`), is that message."""
        known = {id(m.native): m for m in transcript.messages if reads_as(m, decode_item)}
        return self._decode(data, known)

    def _decode(self, data: JsonValue, known: Mapping[int, Message]) -> Transcript:
        """`decode`, taking the message `known` holds by the `id` of an item (each item it
        decodes is marked as what `decode_item` makes of it, `decoded`)."""
        native = data if isinstance(data, dict) else None
        if isinstance(data, dict) and isinstance(data.get(ENVELOPE_KEY), str):
            decoded: tuple[Message, ...] = (decode_string_input(data[ENVELOPE_KEY]),)
        else:
            items, base = split_envelope(data, ENVELOPE_KEY, "input items")
            decoded = tuple(
                known.get(id(it)) or mark(decode_item(it, join_pointer(base, i)), decode_item)
                for i, it in enumerate(items)
            )
        state = server_state(data)
        return model.Transcript(
            messages=decoded, format=self.name, native=native, server_state=state
        )

    def read_outline(self, data: JsonValue) -> Outline | None:
        """The outline read without building models, or None (`Codec.read_outline`)."""
        return read_outline(data)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode to the envelope the transcript was read from; new parts become new items."""
        messages = transcript.messages
        if _string_input(transcript) and len(messages) == 1 and messages[0].role_is("user"):
            parts = messages[0].parts
            if len(parts) == 1 and isinstance(parts[0], model.TextPart):
                return rebuild(transcript.native, {ENVELOPE_KEY: parts[0].text})
        kinds = _output_kinds(transcript)
        out: list[Any] = []
        for mi, message in enumerate(messages):
            out.extend(encode_message(message, kinds.get(mi)))
        return join_envelope(transcript, ENVELOPE_KEY, out)

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N` for a bare list, `/input/N` in a request body, `/input` for an input string."""
        if not isinstance(transcript.native, dict):
            return join_pointer("", message_index)
        if _string_input(transcript):
            return "/" + ENVELOPE_KEY
        return join_pointer("/" + ENVELOPE_KEY, message_index)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """The content part (`.../content/K`), the string content, or the item itself."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        part = message.parts[part_index]
        if part.slot == "content[]":
            return join_pointer(at, "content", first_index(message, part_index, part.slot))
        if part.slot == "content":
            return join_pointer(at, "content")
        return at
