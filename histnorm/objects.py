"""SDK and framework objects in a history: read as the JSON they send, rebuilt as their class.

Pydantic models (the OpenAI and Anthropic SDK types, a caller's own models) are read as
`model_dump(mode="json", by_alias=True, exclude_unset=True)`, and a JSON object histnorm
rewrote comes back as the class it stands for when that class validates it and dumps it
back unchanged (`model_validate`), else as the JSON object. LangChain messages are read as
`messages_to_dict` writes them (`{"type": ..., "data": model_dump()}`) and rebuilt as
`messages_from_dict` does. No framework is imported here: LangChain messages are known by
their classes, and the classes to rebuild with are found in the modules the caller's
objects came from (`sys.modules`).
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, TypeAdapter

_LANGCHAIN = "langchain_core.messages"
_LANGCHAIN_CLASSES = {
    "human": "HumanMessage",
    "ai": "AIMessage",
    "system": "SystemMessage",
    "tool": "ToolMessage",
    "chat": "ChatMessage",
    "function": "FunctionMessage",
    "remove": "RemoveMessage",
    "AIMessageChunk": "AIMessageChunk",
    "HumanMessageChunk": "HumanMessageChunk",
    "SystemMessageChunk": "SystemMessageChunk",
    "ToolMessageChunk": "ToolMessageChunk",
    "ChatMessageChunk": "ChatMessageChunk",
    "FunctionMessageChunk": "FunctionMessageChunk",
}
"""LangChain message `type` -> the class `messages_from_dict` builds for it."""

_UNIONS = {"openai.types.responses": "ResponseInputItem", "anthropic.types": "ContentBlock"}
"""SDK package -> the union of its item types: an item histnorm adds beside that SDK's
objects (a `function_call_output` beside `response.output` items) is validated with it."""


def is_object(value: Any) -> bool:
    """Whether `value` is a caller's object rather than JSON data (a dict, list or tuple)."""
    return not isinstance(value, dict | list | tuple)


@lru_cache(maxsize=256)
def _is_langchain_class(cls: type) -> bool:
    return any(
        k.__name__ == "BaseMessage" and k.__module__.startswith(_LANGCHAIN) for k in cls.__mro__
    )


@lru_cache(maxsize=256)
def _excludes(cls: type) -> bool:
    """Whether `cls` names fields its SDK leaves out of what it sends (`__api_exclude__`)."""
    return any("__api_exclude__" in vars(k) for k in cls.__mro__)


def is_langchain(item: Any) -> bool:
    """Whether `item` is a LangChain message (a `langchain_core.messages.BaseMessage`)."""
    return isinstance(item, BaseModel) and _is_langchain_class(type(item))


def dumped(item: Any) -> Any:
    """An SDK or pydantic object as the JSON its SDK sends, a LangChain message as
    `messages_to_dict` writes it; anything else as it is."""
    if isinstance(item, BaseModel):
        if _is_langchain_class(type(item)):
            return {"type": item.type, "data": item.model_dump()}  # type: ignore[attr-defined]
        exclude = getattr(item, "__api_exclude__", None) if _excludes(type(item)) else None
        return item.model_dump(mode="json", by_alias=True, exclude_unset=True, exclude=exclude)
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, type):
        return dump()
    return item


def rebuilt(new: dict[str, Any], like: Any) -> Any:
    """`new` (a JSON object histnorm wrote in place of `like`) as an object of `like`'s
    class, or None when that class does not hold it exactly."""
    if is_langchain(like):
        return _langchain(new, like)
    validate = getattr(type(like), "model_validate", None)
    if not callable(validate):
        return None
    try:
        made = validate(new)
    except Exception:  # the class rejects what histnorm wrote: it stays JSON
        return None
    return made if dumped(made) == new else None


def added_like(new: dict[str, Any], neighbour: Any) -> Any:
    """`new` (a JSON object histnorm added beside `neighbour`) as an object of the kind of
    its neighbour: its class, or the item union of its SDK package; None when neither
    holds it exactly."""
    made = rebuilt(new, neighbour)
    if made is not None or is_langchain(neighbour):
        return made
    adapter = _union(type(neighbour).__module__)
    if adapter is None:
        return None
    try:
        made = adapter.validate_python(new)
    except Exception:  # no type of that SDK holds it: it stays JSON
        return None
    return made if dumped(made) == new else None


@lru_cache(maxsize=32)
def _union(module: str) -> TypeAdapter[Any] | None:
    for package, name in _UNIONS.items():
        if module == package or module.startswith(package + "."):
            union = getattr(sys.modules.get(package), name, None)
            return None if union is None else TypeAdapter(union)
    return None


def _langchain(new: dict[str, Any], like: Any) -> Any:
    kind, data = new.get("type"), new.get("data")
    if not isinstance(kind, str) or not isinstance(data, dict):
        return None
    cls: Any = type(like) if like.type == kind else None
    if cls is None:
        name = _LANGCHAIN_CLASSES.get(kind)
        cls = getattr(sys.modules.get(_LANGCHAIN), name, None) if name else None
    if cls is None:
        return None
    try:
        return cls(**data)
    except Exception:  # LangChain rejects what histnorm wrote: it stays JSON
        return None
