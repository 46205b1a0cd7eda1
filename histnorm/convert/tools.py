"""Tool definitions of a request, read from one format's shape and written in another's.

A client function tool (a name, a description and a JSON Schema of its parameters) has an
equivalent in every request shape histnorm knows; anything else (OpenAI custom tools,
Anthropic server tools, Gemini's Google Search, ...) is returned as not translatable.
"""

from __future__ import annotations

from typing import Any

import histnorm.jsonio as jsonio
from histnorm._record import record
from histnorm.errors import HistnormError

PYTHON_JSON = jsonio.Style(item_separator=", ", key_separator=": ")
"""The separators of Python's `json.dumps`, which LLaMA-Factory's datasets use."""

EMPTY_SCHEMA: dict[str, Any] = {"type": "object", "properties": {}}
"""The parameters of a tool that takes none, where the target requires a schema."""


@record(frozen=True, slots=True)
class Tool:
    """A client function tool."""

    name: str
    description: str | None = None
    parameters: Any = None


def _function(item: Any) -> Tool | None:
    """A `{name, description?, parameters?}` object as a tool, or None."""
    if not isinstance(item, dict) or not isinstance(item.get("name"), str):
        return None
    description = item.get("description")
    parameters = item.get("parameters")
    for key in ("input_schema", "parametersJsonSchema", "parameters_json_schema"):
        if parameters is None:
            parameters = item.get(key)
    return Tool(item["name"], description if isinstance(description, str) else None, parameters)


def _label(item: Any) -> str:
    if isinstance(item, dict):
        inner = next((v for v in item.values() if isinstance(v, dict) and "name" in v), item)
        name = inner.get("name") if isinstance(inner, dict) else None
        kind = item.get("type") or next(iter(item), None)
        return f"the tool {name!r} (type {kind})" if name else f"a tool of type {kind}"
    return f"a tool that is {jsonio.dumps(item).decode('utf-8', 'replace')[:40]}"


def read_tools(format: str, value: Any) -> tuple[list[Tool], list[tuple[str, int | None]]]:
    """The function tools of a request's `tools` value, and a label (with its index in
    the list) for each other tool."""
    if format == "sharegpt" and isinstance(value, str):
        try:
            value = jsonio.loads(value)
        except HistnormError:
            return [], [("the tools (not valid JSON)", None)]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return [], [("the tools (not a list)", None)]
    tools: list[Tool] = []
    other: list[tuple[str, int | None]] = []
    for index, item in enumerate(value):
        found = _read_one(format, item)
        if found is None:
            other.append((_label(item), index))
        else:
            tools.extend(found)
    return tools, other


def _read_one(format: str, item: Any) -> list[Tool] | None:
    if not isinstance(item, dict):
        return None
    if format == "gemini":
        declarations = item.get("functionDeclarations", item.get("function_declarations"))
        if not isinstance(declarations, list) or len(item) != 1:
            return None
        tools = [_function(d) for d in declarations]
        return None if None in tools else [t for t in tools if t is not None]
    kind = item.get("type")
    if format == "anthropic":
        one = _function(item) if kind in (None, "custom") else None
    elif isinstance(item.get("function"), dict) and kind in (None, "function"):
        one = _function(item["function"])  # OpenAI Chat, chat templates, LLaMA-Factory
    else:
        one = _function(item) if kind in (None, "function") else None
    return None if one is None else [one]


def write_tools(format: str, tools: list[Tool]) -> Any:
    """The `tools` value of a request in `format` holding `tools`."""
    if format == "anthropic":
        return [
            _drop_none(
                {
                    "name": t.name,
                    "description": t.description,
                    "input_schema": t.parameters if t.parameters is not None else EMPTY_SCHEMA,
                }
            )
            for t in tools
        ]
    if format == "gemini":
        declarations = [
            _drop_none(
                {"name": t.name, "description": t.description, "parametersJsonSchema": t.parameters}
            )
            for t in tools
        ]
        return [{"functionDeclarations": declarations}]
    if format == "openai-responses":
        return [
            _drop_none(
                {
                    "type": "function",
                    "name": t.name,
                    "description": t.description,
                    "parameters": t.parameters if t.parameters is not None else EMPTY_SCHEMA,
                    "strict": False,
                }
            )
            for t in tools
        ]
    functions = [_plain(t) for t in tools]
    if format == "sharegpt":
        return jsonio.dumps(functions, PYTHON_JSON).decode("utf-8")
    return [{"type": "function", "function": f} for f in functions]


def _plain(tool: Tool) -> dict[str, Any]:
    return _drop_none(
        {"name": tool.name, "description": tool.description, "parameters": tool.parameters}
    )


def _drop_none(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if v is not None}


Choice = tuple[str, str | None]
"""A tool choice: `auto`, `none`, `any` (some tool) or `tool` (the one named)."""

_OPENAI_MODES = {"auto": "auto", "none": "none", "required": "any"}
_GEMINI_MODES = {"AUTO": "auto", "NONE": "none", "ANY": "any"}
CHOICE_KEYS = {
    "openai-chat": ("tool_choice",),
    "openai-responses": ("tool_choice",),
    "anthropic": ("tool_choice",),
    "gemini": ("toolConfig", "tool_config"),
}
"""Where the tool choice sits in each format that has one (the first key is written)."""


def read_choice(format: str, value: Any) -> Choice | None:
    """The tool choice of a request, or None when it says more than a choice can."""
    if format == "gemini":
        if not isinstance(value, dict) or len(value) != 1:
            return None
        config = value.get("functionCallingConfig", value.get("function_calling_config"))
        if not isinstance(config, dict) or set(config) - {
            "mode",
            "allowedFunctionNames",
            "allowed_function_names",
        }:
            return None
        mode = _GEMINI_MODES.get(config.get("mode", ""))
        names = config.get("allowedFunctionNames", config.get("allowed_function_names"))
        if mode == "any" and isinstance(names, list) and len(names) == 1:
            return ("tool", names[0]) if isinstance(names[0], str) else None
        return (mode, None) if mode is not None and names is None else None
    if format == "anthropic":
        if not isinstance(value, dict) or set(value) - {"type", "name"}:
            return None
        kind, name = value.get("type"), value.get("name")
        if kind == "tool":
            return ("tool", name) if isinstance(name, str) else None
        return (kind, None) if kind in ("auto", "any", "none") and name is None else None
    if isinstance(value, str):
        mode = _OPENAI_MODES.get(value)
        return None if mode is None else (mode, None)
    if isinstance(value, dict) and value.get("type") == "function":
        inner = value.get("function") if format == "openai-chat" else value
        name = inner.get("name") if isinstance(inner, dict) else None
        return ("tool", name) if isinstance(name, str) else None
    return None


def write_choice(format: str, choice: Choice) -> Any:
    """The tool choice in `format`'s shape (a format in `CHOICE_KEYS`)."""
    mode, name = choice
    if format == "anthropic":
        return {"type": mode, "name": name} if name is not None else {"type": mode}
    if format == "gemini":
        config: dict[str, Any] = {"mode": "ANY" if mode == "tool" else mode.upper()}
        if name is not None:
            config["allowedFunctionNames"] = [name]
        return {"functionCallingConfig": config}
    if mode == "tool":
        if format == "openai-chat":
            return {"type": "function", "function": {"name": name}}
        return {"type": "function", "name": name}
    return "required" if mode == "any" else mode
