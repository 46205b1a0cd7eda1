"""LlamaIndex chat histories (llama-index-core 0.14): `[m.model_dump() for m in messages]`
of `ChatMessage`s, bare or under `messages`, and `SimpleChatStore` files
(`{"store": {key: [messages...]}, "class_name": "SimpleChatStore"}`, what `persist`
writes).

A message is `{"role", "additional_kwargs", "blocks"}`; every other key is kept. Items of
`blocks` carry a `block_type`:

- `text` → text; `thinking` → reasoning (`opaque` = `additional_information`);
- `tool_call` → tool call (`tool_call_id`, `tool_name`, `tool_kwargs` an object or a
  string, kept as written);
- `image`, `audio`, `video`, `document` → media, kept verbatim; `cache`, `citable`,
  `citation` are kept verbatim on purpose; any other type is unknown (HN013).

`additional_kwargs` is kept key by key. Its `tool_calls` (an assistant message, as the
OpenAI integration stores them: `{"id", "type", "function": {"name", "arguments"}}`) are
tool calls (any other shape there is unknown content); a `tool` message is one result of
the call its `tool_call_id` names (its text, or its blocks when they are not all text).

A chat store holds one conversation per key: the transcript is every key's messages in
order, each message knowing its key by the native object it was read from (one a fix
adds goes with the messages of its conversation); the rules run on each conversation,
a diagnostic points at `/store/<key>/N`, and a fix rewrites only that key's list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from histnorm.analysis.outline import SEVERAL
from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    Codec,
    expect_object,
    first_index,
    marked_sniff,
    rebuild,
    required_str,
    reuse_native,
    type_name,
)
from histnorm.formats.llama_index.blocks import (
    BLOCKS,
    RESULT,
    TOOL_CALLS,
    VERBATIM,
    decode_block,
    decode_tool_call,
    encode_block,
    encode_result,
    encode_tool_call,
    result_content,
)
from histnorm.formats.llama_index.store import (
    STORE_KEY,
    in_order,
    is_store,
    keys_of,
    message_lists,
    same_items,
)
from histnorm.lazy import model
from histnorm.model_terms import JsonValue

if TYPE_CHECKING:
    from histnorm.model import Message, Part, ToolResultPart, Transcript

ROLES = frozenset({"system", "developer", "user", "assistant", "function", "tool"})
ROLES |= {"chatbot", "model"}
"""`MessageRole` of llama-index-core."""


def decode_message(obj: Any, pointer: str = "") -> Message:
    """Decode one `ChatMessage.model_dump()`."""
    msg = expect_object(obj, pointer, "a LlamaIndex message")
    role = required_str(msg.get("role"), join_pointer(pointer, "role"), "the message role")
    kwargs = msg.get("additional_kwargs", {})
    expect_object(kwargs, join_pointer(pointer, "additional_kwargs"), "additional_kwargs")
    blocks = msg.get("blocks", [])
    at = join_pointer(pointer, "blocks")
    if not isinstance(blocks, list):
        raise HistnormError(f"expected blocks to be an array, got {type_name(blocks)}", pointer=at)
    if role.casefold() == "tool":
        kw = join_pointer(pointer, "additional_kwargs")
        call_id = kwargs.get("tool_call_id")
        name = kwargs.get("name")
        for key, value in (("tool_call_id", call_id), ("name", name)):
            if value is not None and not isinstance(value, str):
                raise HistnormError(
                    f"expected {key} to be a string, got {type_name(value)}",
                    pointer=join_pointer(kw, key),
                )
        for index, block in enumerate(blocks):
            expect_object(block, join_pointer(at, index), "a content block")
        result = model.ToolResultPart(
            call_id=call_id,
            name=name,
            content=result_content(blocks),
            tool_type="tool",
            native=blocks,
            slot=RESULT,
        )
        return model.Message(role=role, parts=(result,), native=obj)
    parts: list[Part] = [decode_block(b, join_pointer(at, i)) for i, b in enumerate(blocks)]
    calls = kwargs.get("tool_calls")
    if calls is not None:
        where = join_pointer(pointer, "additional_kwargs", "tool_calls")
        if not isinstance(calls, list):
            raise HistnormError(
                f"expected tool_calls to be an array, got {type_name(calls)}", pointer=where
            )
        parts.extend(decode_tool_call(c, join_pointer(where, i)) for i, c in enumerate(calls))
    return model.Message(role=role, parts=tuple(parts), native=obj)


def encode_message(message: Message) -> list[Any]:
    """Encode one message; an unchanged message gives back its very native object. Tool
    results become `tool` messages of their own, before or after the rest of the message
    as they were ordered in it."""
    if reuse_native(message, decode_message):
        return [message.native]
    results = [p for p in message.parts if isinstance(p, model.ToolResultPart)]
    others = [p for p in message.parts if not isinstance(p, model.ToolResultPart)]
    empty = message.evolve(native=None)
    if results and not others:
        return [_encode_tool(message, results[0])] + [_encode_tool(empty, r) for r in results[1:]]
    lead = 0
    while lead < len(message.parts) and isinstance(message.parts[lead], model.ToolResultPart):
        lead += 1
    body = _encode_other(message, others, drop_call_id=bool(results))
    return (
        [_encode_tool(empty, r) for r in results[:lead]]
        + [body]
        + [_encode_tool(empty, r) for r in results[lead:]]
    )


def _kwargs_of(base: dict[str, Any]) -> dict[str, Any]:
    kwargs = base.get("additional_kwargs")
    return kwargs if isinstance(kwargs, dict) else {}


def _encode_tool(message: Message, result: ToolResultPart) -> dict[str, Any]:
    """A `tool` message holding `result` (on the native `message` was read from, if any)."""
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    old = _kwargs_of(base)
    kwargs = rebuild(old, {"tool_call_id": result.call_id})
    if result.name is not None and ("name" in old or result.native is None):
        kwargs = rebuild(kwargs, {"name": result.name})
    if _same_values(old, kwargs) and "additional_kwargs" in base:
        kwargs = base["additional_kwargs"]
    blocks = encode_result(result, result.native)
    return rebuild(base, {"role": "tool", "additional_kwargs": kwargs, "blocks": blocks})


def _encode_other(message: Message, parts: Sequence[Part], drop_call_id: bool) -> dict[str, Any]:
    """A message of any other role holding `parts` (blocks and OpenAI tool calls)."""
    base: dict[str, Any] = message.native if isinstance(message.native, dict) else {}
    old = _kwargs_of(base)
    kwargs = {k: v for k, v in old.items() if not (drop_call_id and k == "tool_call_id")}
    blocks: Any = [encode_block(p) for p in parts if p.slot != TOOL_CALLS]
    calls = [encode_tool_call(p) for p in parts if p.slot == TOOL_CALLS]
    old_calls = old.get("tool_calls")
    if calls or old_calls is not None:
        kwargs = rebuild(
            kwargs, {"tool_calls": old_calls if same_items(old_calls, calls) else calls}
        )
    if _same_values(old, kwargs) and "additional_kwargs" in base:
        kwargs = base["additional_kwargs"]
    old_blocks = base.get("blocks")
    blocks = old_blocks if same_items(old_blocks, blocks) else blocks
    role = "assistant" if message.role_is("tool") else message.role
    return rebuild(base, {"role": role, "additional_kwargs": kwargs, "blocks": blocks})


def _same_values(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return old.keys() == new.keys() and all(old[k] is new[k] for k in old)


def _sniff_message(msg: Any) -> bool | None:
    """Whether a message has a typed block; None when it cannot be a `ChatMessage` dump."""
    if not isinstance(msg, dict) or not isinstance(msg.get("role"), str):
        return None
    blocks = msg.get("blocks")
    kwargs = msg.get("additional_kwargs", {})
    if not isinstance(blocks, list) or not isinstance(kwargs, dict) or "content" in msg:
        return None
    if not all(isinstance(b, dict) and isinstance(b.get("block_type"), str) for b in blocks):
        return None
    return bool(blocks)


def _messages_of(data: Any) -> list[Any] | None:
    """The message list of a bare dump or a `messages` envelope, None for anything else."""
    if isinstance(data, list):
        return data
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return data["messages"]  # type: ignore[no-any-return]
    return None


class LlamaIndexCodec(Codec):
    """LlamaIndex `ChatMessage` dumps and `SimpleChatStore` files."""

    name = "llama-index"
    one_result_per_message = True
    summary = "LlamaIndex ChatMessage dumps (blocks) and SimpleChatStore files"
    known_roles = ROLES
    read_call_keys = frozenset[str]()
    verbatim_types = VERBATIM
    content_keys = ("blocks",)
    message_keys = frozenset({"role", "additional_kwargs"})

    def sniff(self, data: JsonValue) -> float:
        """Sure when every message is a role with `blocks` whose items all carry a
        `block_type` (and `additional_kwargs`, when there, is an object), and some block
        is there; a chat store by its `class_name` and `store` of message lists."""
        if is_store(data):
            return 0.97
        messages = _messages_of(data)
        return marked_sniff(messages, _sniff_message)

    def decode(self, data: JsonValue) -> Transcript:
        """Decode a message dump (bare or under `messages`) or a chat store."""
        decoded: list[Message] = []
        for base, messages in message_lists(data):
            decoded.extend(decode_message(m, join_pointer(base, i)) for i, m in enumerate(messages))
        native = data if isinstance(data, dict) else None
        return model.Transcript(messages=tuple(decoded), format=self.name, native=native)

    def encode(self, transcript: Transcript) -> JsonValue:
        """Encode; other keys of messages, blocks, the envelope and the store are kept."""
        native = transcript.native
        if not is_store(native):
            out = [native for m in transcript.messages for native in encode_message(m)]
            if isinstance(native, dict):
                old = native.get("messages")
                return rebuild(native, {"messages": old if same_items(old, out) else out})
            return out
        assert isinstance(native, dict)
        store: dict[str, Any] = native["store"]
        keys = keys_of(transcript)
        if not in_order(keys, list(store)):
            raise HistnormError("histnorm cannot write a message outside its key of the store")
        lists: dict[str, list[Any]] = {key: [] for key in store}
        for message, key in zip(transcript.messages, keys, strict=True):
            lists[key].extend(encode_message(message))
        updates = {k: store[k] if same_items(store[k], new) else new for k, new in lists.items()}
        new_store = rebuild(store, updates)
        if _same_values(store, new_store):
            return native
        return rebuild(native, {"store": new_store})

    def message_pointer(self, transcript: Transcript, message_index: int) -> str:
        """`/N`, `/messages/N`, or `/store/<key>/N` (its place in its key's list)."""
        if is_store(transcript.native):
            keys = keys_of(transcript)
            key = keys[message_index]
            return join_pointer("", "store", key, keys[:message_index].count(key))
        base = "/messages" if isinstance(transcript.native, dict) else ""
        return join_pointer(base, message_index)

    def message_arrays(self, transcript: Transcript) -> tuple[str, ...]:
        """One array per key of a store; else the message list."""
        native = transcript.native
        if is_store(native):
            assert isinstance(native, dict)
            return tuple(join_pointer("", "store", key) for key in native["store"])
        return super().message_arrays(transcript)

    def part_pointer(self, transcript: Transcript, message_index: int, part_index: int) -> str:
        """`.../blocks/K`, `.../additional_kwargs/tool_calls/K`, or `.../blocks` for the
        result of a tool message."""
        message = transcript.messages[message_index]
        at = self.message_pointer(transcript, message_index)
        part = message.parts[part_index]
        if part.slot == BLOCKS:
            return join_pointer(at, "blocks", first_index(message, part_index, BLOCKS))
        if part.slot == TOOL_CALLS:
            index = first_index(message, part_index, TOOL_CALLS)
            return join_pointer(at, "additional_kwargs", "tool_calls", index)
        if part.slot == RESULT:
            return join_pointer(at, "blocks")
        return at

    def outline_flags(self, transcript: Transcript) -> int:
        """`SEVERAL` for a chat store of more than one conversation."""
        return SEVERAL if self.conversations(transcript) is not None else 0

    def conversations(self, transcript: Transcript) -> tuple[tuple[int, ...], ...] | None:
        """For a chat store with more than one key holding messages, the indices of each
        key's messages; None for one conversation."""
        if not is_store(transcript.native):
            return None
        keys = keys_of(transcript)
        order = list(dict.fromkeys(keys))
        if len(order) < 2:
            return None
        return tuple(tuple(i for i, k in enumerate(keys) if k == key) for key in order)

    def join(self, transcript: Transcript, parts: Sequence[Transcript]) -> Transcript | str:
        """The store with each key's messages from `parts` (its fixed conversations); a
        message a fix added is kept with its conversation's key."""
        order = list(dict.fromkeys(keys_of(transcript)))
        messages: list[Message] = []
        for key, part in zip(order, parts, strict=True):
            for message in part.messages:
                if message.native is None and message.metadata.get(STORE_KEY) != key:
                    message = message.evolve(metadata={**message.metadata, STORE_KEY: key})
                messages.append(message)
        return transcript.model_copy(update={"messages": tuple(messages)})

    def check_fixed(self, original: Transcript, fixed: Transcript) -> str | None:
        """Refuse a fix that moves a message out of its key of the store."""
        native = fixed.native
        if is_store(native):
            assert isinstance(native, dict)
            if not in_order(keys_of(fixed), list(native["store"])):
                return "a fix would move a message out of its key of the chat store"
        return super().check_fixed(original, fixed)


__all__ = ["LlamaIndexCodec", "decode_message", "encode_message"]
