"""Agent Framework Python content items, for `histnorm.formats.agent_framework`.

A content is an object with a snake_case `type` (older releases also wrote a `_content`
suffix, as in `text_content`). Each decodes standalone, so `reuse_native` can check a part
against its own native value. This module reads them and holds the kind tables and
field-name helpers; `histnorm.formats.agent_framework.encode` writes them back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import expect_object, optional_str, required_str
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part, ToolCallPart

SLOT = "contents"
SUFFIX = "_content"
HANDOFF_PREFIX = "handoff_to_"

_HOSTED = ("shell_tool", "search_tool", "code_interpreter_tool", "image_generation_tool")
CALLS = {"function_call": ToolFamily.FUNCTION, "mcp_server_tool_call": ToolFamily.MCP}
CALLS |= {f"{kind}_call": ToolFamily.HOSTED for kind in (*_HOSTED, "computer_tool")}
RESULTS = {"function_result": ToolFamily.FUNCTION, "mcp_server_tool_result": ToolFamily.MCP}
RESULTS |= {f"{kind}_result": ToolFamily.HOSTED for kind in (*_HOSTED, "computer_tool")}
_ARGUMENTS = {"shell_tool_call": "commands", "code_interpreter_tool_call": "inputs"}
_ARGUMENTS |= {"computer_tool_call": "actions", "image_generation_tool_call": ""}
_OUTPUTS = {"function_result": "result", "search_tool_result": "result"}
_OUTPUTS |= {"mcp_server_tool_result": "output", "computer_tool_result": "screenshot"}
_REQUESTS = {"function_approval_request", "function_approval_response"}
_MEDIA = {"data", "uri", "hosted_file", "hosted_vector_store"}
KNOWN = {"text", "text_reasoning", "error", "usage", "oauth_consent_request"}
KNOWN |= {"shell_command_output", *CALLS, *RESULTS, *_REQUESTS, *_MEDIA}


def kind_of(value: Any) -> str | None:
    """The content kind of a `type` value: `text_content` → `text`; None if not a string."""
    if not isinstance(value, str):
        return None
    bare = value.removesuffix(SUFFIX)
    return bare if bare != value and bare in KNOWN else value


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _at(pointer: str, key: str) -> str:
    return join_pointer(pointer, key)


def metadata_of(obj: dict[str, Any], pointer: str) -> dict[str, Any]:
    """A copy of `additional_properties` (absent or null: empty)."""
    props = obj.get("additional_properties")
    if props is None:
        return {}
    where = _at(pointer, "additional_properties")
    return dict(expect_object(props, where, "additional_properties"))


def id_key(obj: dict[str, Any], kind: str) -> str:
    """Where a call or result keeps its id: `call_id`, or an image generation's `image_id`."""
    if kind.startswith("image_generation") and "call_id" not in obj and "image_id" in obj:
        return "image_id"
    return "call_id"


def name_key(kind: str) -> str:
    """Where a call of `kind` keeps its tool name."""
    return "name" if kind == "function_call" else "tool_name"


def arguments_key(kind: str) -> str:
    """Where a call of `kind` keeps its input (empty: it has none)."""
    return _ARGUMENTS.get(kind, "arguments")


def output_key(kind: str) -> str:
    """Where a result of `kind` keeps its output."""
    return _OUTPUTS.get(kind, "outputs")


def _call_id(obj: dict[str, Any], kind: str, pointer: str) -> str | None:
    key = id_key(obj, kind)
    if kind in ("function_call", "function_result", "mcp_server_tool_call"):
        return required_str(obj.get(key), _at(pointer, key), key)
    return optional_str(obj.get(key), _at(pointer, key), key)


def _tool_call(obj: dict[str, Any], kind: str, pointer: str, meta: dict[str, Any]) -> ToolCallPart:
    name = optional_str(obj.get(name_key(kind)), _at(pointer, name_key(kind)), "the tool name")
    family = CALLS[kind]
    if family is ToolFamily.FUNCTION and name and name.startswith(HANDOFF_PREFIX):
        family = ToolFamily.HANDOFF
    key = arguments_key(kind)
    return model.ToolCallPart(
        call_id=_call_id(obj, kind, pointer),
        name=name,
        arguments=obj.get(key) if key else None,
        family=family,
        tool_type=kind,
        informational=obj.get("informational_only") is True,
        native=obj,
        slot=SLOT,
        metadata=meta,
    )


def _nested_call(obj: dict[str, Any], pointer: str) -> ToolCallPart | None:
    nested = obj.get("function_call")
    if nested is None:
        return None
    where = _at(pointer, "function_call")
    part = decode_content(nested, where)
    if not isinstance(part, model.ToolCallPart):
        raise HistnormError("expected a function_call content", pointer=where)
    return part


def decode_content(obj: Any, pointer: str = "") -> Part:
    """Decode one content item (a string is a text content)."""
    if isinstance(obj, str):
        return model.TextPart(text=obj, native=obj, slot=SLOT)
    content = expect_object(obj, pointer, "a content item")
    kind = kind_of(content.get("type"))
    meta = metadata_of(content, pointer)
    common: dict[str, Any] = {"native": obj, "slot": SLOT, "metadata": meta}
    if kind == "text" and isinstance(content.get("text"), str):
        return model.TextPart(text=content["text"], **common)
    if kind == "text_reasoning":
        text = optional_str(content.get("text"), _at(pointer, "text"), "reasoning text")
        return model.ReasoningPart(text=text, opaque=content.get("protected_data"), **common)
    if kind in _MEDIA:
        uri, media_type = _str(content.get("uri")), _str(content.get("media_type"))
        if media_type is None and uri is not None and uri.startswith("data:"):
            media_type = uri[5:].split(";", 1)[0].split(",", 1)[0] or None
        return model.MediaPart(media_type=media_type, uri=uri, **common)
    if kind in CALLS:
        return _tool_call(content, kind, pointer, meta)
    if kind in RESULTS:
        tool_name = _str(content.get("tool_name"))
        return model.ToolResultPart(
            call_id=_call_id(content, kind, pointer),
            name=tool_name,
            content=content.get(output_key(kind)),
            is_error=content.get("exception") is not None,
            family=RESULTS[kind],
            tool_type=kind,
            **common,
        )
    if kind in _REQUESTS:
        request_id = required_str(content.get("id"), _at(pointer, "id"), "the request id")
        call = _nested_call(content, pointer)
        if kind == "function_approval_request":
            return model.ApprovalRequestPart(request_id=request_id, tool_call=call, **common)
        approved = content.get("approved")
        return model.ApprovalResponsePart(
            request_id=request_id,
            approved=approved if isinstance(approved, bool) else None,
            tool_call=call,
            **common,
        )
    if kind == "usage":
        details = content.get("usage_details", content.get("details"))
        return model.UsagePart(details=details, **common)
    return model.UnknownPart(type=kind, **common)
