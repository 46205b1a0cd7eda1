"""Writing UIMessage parts: the model parts of one tool part go back into one tool part.

Parts read from one native tool part are a group (they keep that very part as `native`);
an untouched group is written as its native part, any other is rebuilt over it (its
other keys kept) with the state its parts call for (`tool_state`), together with the
result or approval response `histnorm.formats.vercel_ai.plan` found for it elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import histnorm.jsonio as jsonio
from histnorm.errors import HistnormError
from histnorm.formats.base import MISSING, rebuild, strict_equal
from histnorm.formats.vercel_ai.parts import decode_part, is_tool_type
from histnorm.lazy import model
from histnorm.model_terms import ToolFamily

if TYPE_CHECKING:
    from histnorm.model import ApprovalRequestPart, ApprovalResponsePart, Part, ToolResultPart

TOOL_KINDS = frozenset({"tool_call", "tool_result", "approval_request", "approval_response"})
"""The `kind` of the parts a native tool part is read into."""
_ONLY: dict[str, tuple[str, ...]] = {
    "output": ("output-available",),
    "preliminary": ("output-available",),
    "errorText": ("output-error",),
    "rawInput": ("output-error",),
    "resultProviderMetadata": ("output-available", "output-error"),
}
"""Keys a tool part may hold only in some states (the `never` fields of UIToolInvocation)."""


def groups(parts: Sequence[Part]) -> list[list[Part]]:
    """`parts` cut into the runs read from one native part (a lone part otherwise)."""
    out: list[list[Part]] = []
    for part in parts:
        native = part.native
        last = out[-1][-1].native if out else None
        tool = part.kind in TOOL_KINDS and isinstance(native, dict)
        if tool and native is last and is_tool_type(last.get("type")):
            out[-1].append(part)
        else:
            out.append([part])
    return out


def is_away(group: Sequence[Part]) -> bool:
    """Whether `group` is only results or approval responses (their call is elsewhere)."""
    return all(isinstance(p, model.ToolResultPart | model.ApprovalResponsePart) for p in group)


def unchanged(group: Sequence[Part]) -> bool:
    """Whether `group` is exactly what its native part reads as."""
    native = group[0].native
    if not isinstance(native, dict):
        return False
    try:
        return strict_equal(decode_part(native, ""), tuple(group))
    except HistnormError:
        return False


def encode_part(part: Part) -> Any:
    """Write one part that is no tool part."""
    base = part.native if isinstance(part.native, dict) else {}
    if isinstance(part, model.UnknownPart):
        if isinstance(part.native, dict):
            return part.native
        raise HistnormError(
            f"a part of unknown type {part.type!r} cannot be written as a UIMessage part"
        )
    if isinstance(part, model.TextPart):
        return _rebuild(base, "text", {"text": part.text})
    if isinstance(part, model.ReasoningPart):
        return _rebuild(base, "reasoning", {"text": part.text or ""})
    if isinstance(part, model.MediaPart):
        if part.uri is None or part.media_type is None:
            raise HistnormError(
                "a file without a url and a media type cannot be written as a UIMessage file part"
            )
        return _rebuild(base, "file", {"mediaType": part.media_type, "url": part.uri})
    raise HistnormError(f"a {part.kind} part cannot be written as a UIMessage part")


def _rebuild(base: dict[str, Any], kind: str, values: dict[str, Any]) -> dict[str, Any]:
    if base.get("type") == kind:
        return rebuild(base, values)
    return {"type": kind, **values}


def encode_tool(
    group: Sequence[Part],
    result: ToolResultPart | None = None,
    response: ApprovalResponsePart | None = None,
) -> Any:
    """Write the parts of one tool part, with the outcome found away from it."""
    if result is None and response is None and unchanged(group):
        return group[0].native
    request = next((p for p in group if isinstance(p, model.ApprovalRequestPart)), None)
    call = next((p for p in group if isinstance(p, model.ToolCallPart)), None)
    call = call or (request.tool_call if request is not None else None)
    result = result or next((p for p in group if isinstance(p, model.ToolResultPart)), None)
    response = response or next(
        (p for p in group if isinstance(p, model.ApprovalResponsePart)), None
    )
    if call is None or call.call_id is None or not call.name:
        raise HistnormError(
            "a tool result or approval without its call (with an id and a name) cannot be "
            "written as a UIMessage tool part"
        )
    native = call.native if isinstance(call.native, dict) else group[0].native
    base = native if isinstance(native, dict) and is_tool_type(native.get("type")) else {}
    kind = base.get("type") if base else f"tool-{call.name}"
    values: dict[str, Any] = {"type": kind}
    if kind == "dynamic-tool":
        values["toolName"] = call.name
    elif kind != f"tool-{call.name}":
        values["type"] = f"tool-{call.name}"
    values["toolCallId"] = call.call_id
    state, approval, outcome = tool_state(base, request, response, result)
    values["state"] = state
    if call.arguments is not None or "input" in base:
        values["input"] = call.arguments if base else _input(call.arguments)
    if not base and call.family is ToolFamily.HOSTED:
        values["providerExecuted"] = True
    values |= outcome
    values["approval"] = MISSING if approval is None else approval
    for key, states in _ONLY.items():
        if key in base and state not in states and key not in outcome:
            values[key] = MISSING
    return rebuild(base, values)


def _input(arguments: Any) -> Any:
    """Call arguments from another format: JSON text is written as the value it holds."""
    if isinstance(arguments, str):
        try:
            return jsonio.loads(arguments)
        except ValueError:
            return arguments
    return arguments


def tool_state(
    base: dict[str, Any],
    request: ApprovalRequestPart | None,
    response: ApprovalResponsePart | None,
    result: ToolResultPart | None,
) -> tuple[str, dict[str, Any] | None, dict[str, Any]]:
    """The state, approval and outcome keys of a tool part: a denial makes it
    `output-denied` (as does a result given to a call whose approval was pending:
    histnorm's `deny`); a result `output-available` (`output-error` for an error), with
    the approval it answered; an approval response alone `approval-responded`; a request
    alone `approval-requested`; a call alone keeps its input state."""
    old = base.get("state")
    found = base.get("approval")
    held: dict[str, Any] = found if isinstance(found, dict) else {}
    ident = request.request_id if request is not None else held.get("id")
    if response is not None and response.approved is False:
        said = result.content if result is not None and isinstance(result.content, str) else None
        why = response.reason or said
        approval = rebuild(held, {"id": ident, "approved": False, "reason": why or MISSING})
        keep = result is None and old in ("approval-responded", "output-denied")
        return str(old) if keep else "output-denied", approval, {}
    if result is not None:
        if old == "approval-requested" and request is None and not result.is_error:
            text: Any = result.content if isinstance(result.content, str) else MISSING
            return "output-denied", rebuild(held, {"approved": False, "reason": text}), {}
        answered: dict[str, Any] | None = None
        if old in ("output-available", "output-error") and held:
            answered = held
        elif response is not None:
            answered = rebuild(held, {"id": ident, "approved": True, "reason": _reason(response)})
        if result.is_error:
            content = result.content
            said = content if isinstance(content, str) else jsonio.dumps(content).decode()
            return "output-error", answered, {"errorText": said}
        return "output-available", answered, {"output": result.content}
    if response is not None:
        approval = rebuild(held, {"id": ident, "approved": True, "reason": _reason(response)})
        return "approval-responded", approval, {}
    if request is not None:
        approval = rebuild(held, {"id": ident, "approved": MISSING, "reason": MISSING})
        return "approval-requested", approval, {}
    state = old if old in ("input-streaming", "input-available") else "input-available"
    return str(state), None, {}


def _reason(response: ApprovalResponsePart) -> Any:
    return MISSING if response.reason is None else response.reason
