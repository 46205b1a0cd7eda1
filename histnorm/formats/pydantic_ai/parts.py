"""Pydantic AI message parts: decoding one part into a part and writing a part back.

Private helper of `histnorm.formats.pydantic_ai`; see that module for the shapes read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from histnorm.errors import HistnormError, join_pointer
from histnorm.formats.base import (
    MISSING,
    expect_object,
    optional_str,
    rebuild,
    required_str,
    reuse_native,
    strict_equal,
)
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import Part, ToolCallPart, ToolResultPart

SLOT = "parts"
"""The slot of every part: an item of the message's `parts`."""

HOSTED_CALL = "builtin_tool_call"
HOSTED_RESULT = "builtin_tool_result"
"""`tool_type` of native (builtin) tool calls and returns: one pairing group."""

TEXT_KINDS = frozenset({"system-prompt", "user-prompt", "text"})
CALL_KINDS = {"tool-call": ToolFamily.FUNCTION, "builtin-tool-call": ToolFamily.HOSTED}
RESULT_KINDS = {"tool-return": ToolFamily.FUNCTION, "builtin-tool-return": ToolFamily.HOSTED}
REQUEST_KINDS = frozenset({"system-prompt", "user-prompt", "tool-return", "retry-prompt"})
RESPONSE_KINDS = frozenset({"text", "thinking", "tool-call", "builtin-tool-call"})
RESPONSE_KINDS |= {"builtin-tool-return", "file"}
ERROR_OUTCOMES = frozenset({"failed", "denied", "interrupted", "retried"})


def failed(outcome: Any) -> bool:
    """Whether a tool return's `outcome` says the tool failed (one of `ERROR_OUTCOMES`)."""
    return isinstance(outcome, str) and outcome in ERROR_OUTCOMES


"""`outcome` values of a `tool-return` that report no success."""

VERBATIM = frozenset(
    {
        "retry-prompt",  # without `tool_name`: feedback on the whole response, no result
        "retry-feedback",
        "user-prompt",  # multimodal content (a list)
        "system-prompt",
        "compaction",
        "speech",
        "instruction",
        "instruction-delta",
        "instruction-baseline",
        "instruction-digest",
        "tool-availability-delta",
        "capability-load-delta",
        "model-settings-delta",
    }
)
"""Part kinds kept verbatim on purpose: content or bookkeeping that is no client call or result."""


def _call(part: dict[str, Any], kind: str, pointer: str) -> ToolCallPart:
    family = CALL_KINDS[kind]
    at = join_pointer(pointer, "tool_call_id")
    return model.ToolCallPart(
        call_id=required_str(part.get("tool_call_id"), at, "the tool_call_id"),
        name=optional_str(part.get("tool_name"), join_pointer(pointer, "tool_name"), "tool_name"),
        arguments=part.get("args"),
        family=family,
        tool_type=HOSTED_CALL if family is ToolFamily.HOSTED else kind,
        native=part,
        slot=SLOT,
    )


def _result(part: dict[str, Any], kind: str, pointer: str) -> ToolResultPart:
    family = RESULT_KINDS.get(kind, ToolFamily.FUNCTION)
    at = join_pointer(pointer, "tool_call_id")
    outcome = part.get("outcome")
    return model.ToolResultPart(
        call_id=required_str(part.get("tool_call_id"), at, "the tool_call_id"),
        name=optional_str(part.get("tool_name"), join_pointer(pointer, "tool_name"), "tool_name"),
        content=part.get("content"),
        is_error=kind == "retry-prompt" or failed(outcome),
        family=family,
        tool_type=HOSTED_RESULT if family is ToolFamily.HOSTED else kind,
        native=part,
        slot=SLOT,
    )


def decode_part(item: Any, pointer: str = "") -> Part:
    """Decode one item of a message's `parts`."""
    part = expect_object(item, pointer, "a message part")
    kind = optional_str(part.get("part_kind"), join_pointer(pointer, "part_kind"), "part_kind")
    content = part.get("content")
    if kind in TEXT_KINDS and isinstance(content, str):
        return model.TextPart(text=content, native=part, slot=SLOT)
    if kind == "thinking":
        text = optional_str(content, join_pointer(pointer, "content"), "the thinking text")
        return model.ReasoningPart(text=text, opaque=part.get("signature"), native=part, slot=SLOT)
    if kind in CALL_KINDS:
        return _call(part, kind, pointer)
    if kind in RESULT_KINDS or (kind == "retry-prompt" and part.get("tool_name") is not None):
        return _result(part, kind, pointer)
    if kind == "file":
        media_type = content.get("media_type") if isinstance(content, dict) else None
        url = content.get("url") if isinstance(content, dict) else None
        return model.MediaPart(
            media_type=media_type if isinstance(media_type, str) else None,
            uri=url if isinstance(url, str) else None,
            native=part,
            slot=SLOT,
        )
    return model.UnknownPart(type=kind, native=part, slot=SLOT)


# --- encoding ---------------------------------------------------------------------------


def _text_kind(base: dict[str, Any], response: bool, system: bool) -> str:
    kind = base.get("part_kind")
    if kind in TEXT_KINDS and (kind == "text") == response:
        return str(kind)
    return "text" if response else "system-prompt" if system else "user-prompt"


def _kept(value: str | None, base: dict[str, Any], key: str) -> str | None:
    """`value`, or for a missing one the null the part was read with (a fix never writes
    a null name or id as ""); "" only for a new part (the key is required)."""
    if value is not None:
        return value
    return None if key in base and base[key] is None else ""


def _encode_call(part: ToolCallPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("part_kind")
    if kind not in CALL_KINDS:
        base = {}
        kind = "builtin-tool-call" if part.family is ToolFamily.HOSTED else "tool-call"
    same = "args" in base and strict_equal(part.arguments, base["args"])
    updates: dict[str, Any] = {
        "tool_name": _kept(part.name, base, "tool_name"),
        "args": base["args"] if same else part.arguments,
        "tool_call_id": _kept(part.call_id, base, "tool_call_id"),
        "part_kind": kind,
    }
    return rebuild(base, updates)


def _encode_result(part: ToolResultPart, base: dict[str, Any]) -> dict[str, Any]:
    kind = base.get("part_kind")
    if kind not in RESULT_KINDS and kind != "retry-prompt":
        base = {}
        kind = "builtin-tool-return" if part.family is ToolFamily.HOSTED else "tool-return"
    updates: dict[str, Any] = {
        "tool_name": _kept(part.name, base, "tool_name"),
        "content": part.content,
        "tool_call_id": _kept(part.call_id, base, "tool_call_id"),
    }
    if not base:
        if part.metadata:
            updates["metadata"] = dict(part.metadata)
        if kind == "tool-return":
            updates["outcome"] = "failed" if part.is_error else "success"
    elif kind == "tool-return" and part.is_error != failed(base.get("outcome")):
        updates["outcome"] = "failed" if part.is_error else "success"
    updates["part_kind"] = kind
    return rebuild(base, updates)


def encode_part(part: Part, response: bool, system: bool = False) -> Any:
    """Write one part for a response (`response`) or a request (a `system` message's new
    text is a system prompt); an unchanged part gives back its very native object."""
    if reuse_native(part, decode_part):
        return part.native
    base: dict[str, Any] = part.native if isinstance(part.native, dict) else {}
    allowed = RESPONSE_KINDS if response else REQUEST_KINDS
    if isinstance(part, model.TextPart):
        kind = _text_kind(base, response, system)
        return rebuild(base, {"content": part.text, "part_kind": kind})
    if isinstance(part, model.ReasoningPart) and response:
        signature = part.opaque if part.opaque is not None else MISSING
        if "signature" in base and base["signature"] is None and part.opaque is None:
            signature = None
        updates = {"content": part.text or "", "signature": signature, "part_kind": "thinking"}
        return rebuild(base, updates)
    if isinstance(part, model.ToolCallPart) and response:
        return _encode_call(part, base)
    if isinstance(part, model.ToolResultPart) and (response == (part.family is ToolFamily.HOSTED)):
        return _encode_result(part, base)
    known = isinstance(part, model.UnknownPart) or base.get("part_kind") in allowed
    if isinstance(part, model.UnknownPart | model.MediaPart) and part.native is not None and known:
        return part.native
    where = "a model response" if response else "a model request"
    raise HistnormError(f"a {part.kind} part cannot be written in {where} of Pydantic AI")
