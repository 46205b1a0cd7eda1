"""Writing OpenAI Responses parts back as content parts and items.

Helpers for `histnorm.formats.openai_responses`; see that module for the shapes and slots.
An edited part is rebuilt from the item it was read from, so unknown keys keep their place;
a new part is written in the plainest valid shape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, reuse_native
from histnorm.formats.openai_responses.items import (
    CALLS,
    CLIENT_OUTPUTS,
    CLIENT_RUN,
    RESULTS,
    decode_content,
    decode_item,
    item_type,
    result_id_key,
    summary_text,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import (
        ApprovalRequestPart,
        ApprovalResponsePart,
        Part,
        ReasoningPart,
        ToolCallPart,
        ToolResultPart,
    )


def _single(native: Any) -> Part | None:
    message = decode_item(native)
    return message.parts[0] if len(message.parts) == 1 else None


def json_string(value: Any) -> str:
    """`value` as the JSON string the API wants (a string is kept as it is)."""
    return value if isinstance(value, str) else jsonio.dumps(value).decode("utf-8")


def encode_content(part: Part, role: str) -> Any:
    """Encode one part as a content part of a message item."""
    if reuse_native(part, decode_content):
        return part.native
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.TextPart):
        if base.get("type") in ("input_text", "output_text"):
            return rebuild(base, {"text": part.text})
        if role.casefold() == "assistant":
            return {"type": "output_text", "text": part.text, "annotations": []}
        return {"type": "input_text", "text": part.text}
    if isinstance(part, model.RefusalPart):
        return rebuild(base, {"type": "refusal", "refusal": part.text})
    if isinstance(part, model.MediaPart):
        kind = base.get("type")
        if kind not in ("input_image", "input_file"):
            image = part.media_type is None or part.media_type.startswith("image")
            kind, base = ("input_image" if image else "input_file"), {}
        key = "image_url" if kind == "input_image" else _file_key(base, part.uri)
        if part.uri is None and key not in base:
            return rebuild(base, {"type": kind})
        return rebuild(base, {"type": kind, key: part.uri})
    if isinstance(part, model.UnknownPart) and part.native is not None:
        return part.native
    raise HistnormError(
        f"a part of kind {part.kind!r} cannot be written as OpenAI Responses content"
    )


def _file_key(base: dict[str, Any], uri: str | None) -> str:
    """`file_data` for an `input_file` holding a data URL (as OpenAI takes inline files),
    else `file_url`; a block read from a native item keeps the key it had."""
    if "file_data" in base or "file_url" in base:
        return "file_data" if "file_data" in base else "file_url"
    return "file_data" if uri is not None and uri.startswith("data:") else "file_url"


def _keep(base: dict[str, Any], key: str, value: Any) -> Any:
    """`value`, or MISSING when it is None and `base` has no such key."""
    return MISSING if value is None and key not in base else value


def encode_call(part: ToolCallPart) -> dict[str, Any]:
    """A call item: its own shape when it was read from one, else `function_call`."""
    if reuse_native(part, _single):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    kind = item_type(base)
    if kind in CLIENT_RUN:
        return rebuild(base, {"call_id": part.call_id or "", "arguments": part.arguments})
    if kind not in CALLS:
        custom = part.family is ToolFamily.CUSTOM or part.tool_type == "custom_tool_call"
        kind = "custom_tool_call" if custom else "function_call"
        args: Any = part.arguments
        if kind == "function_call":
            args = "{}" if args is None else json_string(args)
        elif not isinstance(args, str):
            args = "" if args is None else json_string(args)
        return {
            "type": kind,
            "call_id": part.call_id or "",
            "name": part.name or "",
            **{CALLS[kind][0]: args},
        }
    key = CALLS[kind][0]
    if kind == "computer_call" and "action" not in base and "actions" in base:
        key = "actions"
    args = part.arguments
    if kind in ("function_call", "custom_tool_call"):
        args = args if args is None or isinstance(args, str) else json_string(args)
    updates = {"call_id": part.call_id or "", key: args}
    if kind in ("function_call", "custom_tool_call") or "name" in base:
        updates["name"] = _keep(base, "name", part.name)
    return rebuild(base, updates)


def _shell_output(part: ToolResultPart) -> Any:
    if isinstance(part.content, list):
        return part.content
    text = part.content if isinstance(part.content, str) else json_string(part.content)
    outcome = {"type": "exit", "exit_code": 1 if part.is_error else 0}
    streams = {"stdout": "", "stderr": text} if part.is_error else {"stdout": text, "stderr": ""}
    return [{**streams, "outcome": outcome}]


def encode_result(part: ToolResultPart, kind: str) -> dict[str, Any]:
    """A result item: its own shape when it was read from one, else an item of `kind`."""
    if reuse_native(part, _single):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    if item_type(base) in CLIENT_OUTPUTS:
        return rebuild(base, {"call_id": part.call_id or "", "tools": part.content})
    if item_type(base) in RESULTS:
        kind = base["type"]
        key = result_id_key(base, kind)
        updates: dict[str, Any] = {key: _keep(base, key, part.call_id), "output": part.content}
        if "name" in base or part.name is not None:
            updates["name"] = part.name
        if kind == "apply_patch_call_output":
            status = base.get("status")
            ok = status if status not in (None, "failed") else "completed"
            updates["status"] = "failed" if part.is_error else _keep(base, "status", ok)
        return rebuild(base, updates)
    key = "id" if kind == "local_shell_call_output" else "call_id"
    item: dict[str, Any] = {"type": kind, key: part.call_id or ""}
    content = part.content
    if kind == "computer_call_output":
        if not (isinstance(content, dict) and content.get("type") == "computer_screenshot"):
            raise HistnormError(
                "a tool_result part answering a computer_call needs a computer_screenshot output"
            )
    elif kind == "shell_call_output":
        content = _shell_output(part)
    elif kind == "apply_patch_call_output":
        item["status"] = "failed" if part.is_error else "completed"
    elif not (
        isinstance(content, str)
        or (isinstance(content, list) and kind != "local_shell_call_output")
    ):
        content = "" if content is None else json_string(content)
    item["output"] = content
    return item


def encode_reasoning(part: ReasoningPart) -> dict[str, Any]:
    """A `reasoning` item; the summary is rewritten only when the text changed."""
    if reuse_native(part, _single):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    updates: dict[str, Any] = {"type": "reasoning"}
    if not base or part.text != summary_text(base.get("summary")):
        updates["summary"] = (
            [] if part.text is None else [{"type": "summary_text", "text": part.text}]
        )
    updates["encrypted_content"] = _keep(base, "encrypted_content", part.opaque)
    return rebuild(base, updates)


def encode_approval(part: ApprovalRequestPart | ApprovalResponsePart) -> dict[str, Any]:
    """An `mcp_approval_request` or `mcp_approval_response` item (MCP approvals only)."""
    if reuse_native(part, _single):
        return part.native  # type: ignore[no-any-return]
    base = part.native if isinstance(part.native, dict) else {}
    call = part.tool_call
    if call is not None and call.family is not ToolFamily.MCP:
        raise HistnormError(
            f"an {part.kind} part for a {call.family.value} call cannot be written as "
            "OpenAI Responses, which has approvals for MCP tools only"
        )
    if isinstance(part, model.ApprovalResponsePart):
        updates: dict[str, Any] = {
            "type": "mcp_approval_response",
            "approval_request_id": part.request_id,
            "approve": part.approved,
            "reason": _keep(base, "reason", part.reason),
        }
        return rebuild(base, updates)
    if call is None:
        raise HistnormError("an approval_request part without a tool call cannot be written")
    args = call.arguments
    if base:
        args = args if args is None or isinstance(args, str) else json_string(args)
        updates = {"id": part.request_id, "name": _keep(base, "name", call.name)}
        updates["arguments"] = _keep(base, "arguments", args)
        return rebuild(base, {"type": "mcp_approval_request", **updates})
    return {
        "type": "mcp_approval_request",
        "id": part.request_id,
        "name": call.name or "",
        "arguments": "{}" if args is None else json_string(args),
    }
