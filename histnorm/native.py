"""Native values handed to the library: copied as plain JSON data, SDK objects included."""

from __future__ import annotations

from typing import Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import type_name
from histnorm.objects import dumped


def native_json(value: Any) -> Any:
    """A private copy of a caller's native value as plain JSON data: pydantic models (SDK
    block objects such as `anthropic.types.ToolUseBlock`) become the objects their SDK
    sends (`model_dump(mode="json", by_alias=True, exclude_unset=True)`), LangChain messages
    what `messages_to_dict` writes, tuples become arrays; anything else that is no JSON
    value raises `HistnormError` at its pointer."""
    root: list[Any] = [None]
    stack: list[tuple[Any, Any, Any, str]] = [(value, root, 0, "")]
    while stack:
        item, holder, key, at = stack.pop()
        item = dumped(item)
        if isinstance(item, dict):
            new: Any = dict.fromkeys(item)
            for k, v in item.items():
                if not isinstance(k, str):
                    raise HistnormError(f"expected a string key, got {type_name(k)}", pointer=at)
                stack.append((v, new, k, join_pointer(at, k)))
        elif isinstance(item, list | tuple):
            new = [None] * len(item)
            stack.extend((v, new, i, join_pointer(at, i)) for i, v in enumerate(item))
        elif item is None or isinstance(item, str | int | float):
            new = item
        else:
            raise HistnormError(
                f"expected JSON data (an object, array, string, number, boolean or null), "
                f"got a {type(item).__name__} object",
                pointer=at,
            )
        holder[key] = new
    return root[0]
