"""LlamaIndex `SimpleChatStore` files: which messages a document holds, and which key of
the store each message of a transcript belongs to.

Private helper of `histnorm.formats.llama_index`.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import split_envelope, type_name

if TYPE_CHECKING:
    from histnorm.model import Transcript

CLASS_NAME = "SimpleChatStore"
STORE_KEY = "llama_index.store_key"
"""Metadata key naming the store key of a message a fix added to one conversation."""


def is_store(data: Any) -> bool:
    """Whether `data` is a persisted `SimpleChatStore`: its `class_name`, and a `store`
    object whose values are lists."""
    if not isinstance(data, dict) or data.get("class_name") != CLASS_NAME:
        return False
    store = data.get("store")
    return isinstance(store, dict) and all(isinstance(v, list) for v in store.values())


def message_lists(data: Any) -> list[tuple[str, list[Any]]]:
    """Each message list of `data` with its pointer: one per key of a store, else the
    dump's list (bare or under `messages`)."""
    if isinstance(data, dict) and data.get("class_name") == CLASS_NAME:
        store = data.get("store")
        if not isinstance(store, dict):
            raise HistnormError(
                f"expected store to be an object, got {type_name(store)}", pointer="/store"
            )
        for key, value in store.items():
            if not isinstance(value, list):
                raise HistnormError(
                    f"expected the messages of a store key to be an array, got {type_name(value)}",
                    pointer=join_pointer("", "store", key),
                )
        return [(join_pointer("", "store", key), value) for key, value in store.items()]
    messages, base = split_envelope(data, "messages", "LlamaIndex messages")
    return [(base, messages)]


def keys_of(transcript: Transcript) -> list[str]:
    """The store key of each message of `transcript`: the key whose list holds its native
    object (matched in order); a message a fix added goes with the key `join` gave it,
    else with the message before it."""
    native = transcript.native
    assert isinstance(native, dict)
    store: dict[str, list[Any]] = native["store"]
    natives = [(key, m) for key, messages in store.items() for m in messages]
    out: list[str] = []
    last, at = next(iter(store), ""), 0
    for message in transcript.messages:
        tagged = message.metadata.get(STORE_KEY) if message.native is None else None
        if isinstance(tagged, str) and tagged in store:
            last = tagged
        else:
            for index in range(at, len(natives)):
                if natives[index][1] is message.native:
                    last, at = natives[index][0], index + 1
                    break
        out.append(last)
    return out


def in_order(keys: Sequence[str], order: Sequence[str]) -> bool:
    """Whether the message keys `keys` follow the store's key order `order`."""
    ranks = [order.index(key) for key in keys]
    return all(a <= b for a, b in pairwise(ranks))


def same_items(old: Any, new: list[Any]) -> bool:
    """Whether `old` is a list of the very objects of `new`."""
    return (
        isinstance(old, list)
        and len(old) == len(new)
        and all(a is b for a, b in zip(old, new, strict=True))
    )
