"""Behaviour C: approval-resumed tool results before trailing caller messages (behaviours.md §4).

Every scenario of §4.10 is a test named after it (snake_case); Ex-C1..C6 of §4.8 are
tests of their own. Inputs are native MEAI JSON, decoded with `histnorm.load(...,
format="meai")`; outputs are compared after `histnorm.encode`.

How the upstream tests map onto the pure functions:

- FICC's downstream input (`expectedDownstreamClientInput`) is `outgoing`.
- The caller output is `returned` followed by whatever the inner client answers; histnorm
  has no inner client, so only `returned` is asserted. An inner client "that throws if
  called" means: `returned` holds exactly the rebuilt calls and results.
- Running the approved functions is `approved_results`: a callable (or a mapping) standing
  in for the tools `Func1` ("Result 1"), `Func2(i)` ("Result 2: i") and `Func3(s)`.
- Tests about FICC turning model calls into approval requests (tool registration,
  `requiresConfirmation`, stream buffering) are run on the transcript those tests store:
  the same approval requests, answered and resumed.
- Streaming and non-streaming run through `pytest.mark.parametrize("streaming", ...)`.
  The outgoing list is the same in both; in streaming, rebuilt call messages without a
  request message ID get the fallback ID `histnorm-calls-<first call id>` and the returned
  results are one tool message with ID `histnorm-results-<first call id>` (§4.6).

MEAI writes no null properties (`WhenWritingNull`, §1.2), so null-valued keys are dropped
from both sides before comparing (`_wire`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

import histnorm
from histnorm import HistnormError, Message, ToolCallPart, Transcript
from histnorm.behaviours.approvals import (
    ApprovalValidationError,
    ReslotResult,
    repair_appended_tool_results,
    reslot_approval_results,
)

STREAMING = pytest.mark.parametrize("streaming", [False, True], ids=["nonstreaming", "streaming"])
REJECTED = "Tool call invocation rejected."
TRAILING = "By the way, please keep the answer concise."

Json = dict[str, Any]

# --- native MEAI builders ---------------------------------------------------------------


def text(value: str) -> Json:
    return {"$type": "text", "text": value}


def call(call_id: str, name: str, args: Json | None = None, **extra: Any) -> Json:
    content: Json = {"$type": "functionCall", "callId": call_id, "name": name}
    if args is not None:
        content["arguments"] = args
    return {**content, **extra}


def rebuilt(call_json: Json) -> Json:
    """A rebuilt call as FICC leaves it: informational-only once rejected or invoked."""
    return {**call_json, "informationalOnly": True}


def mcp_call(call_id: str, name: str) -> Json:
    return {"$type": "mcpServerToolCall", "callId": call_id, "name": name, "serverName": "srv"}


def req(call_json: Json, request_id: str | None = None, **extra: Any) -> Json:
    rid = request_id or "ficc_" + call_json["callId"]
    return {"$type": "toolApprovalRequest", "requestId": rid, "toolCall": call_json, **extra}


def resp(
    call_json: Json, approved: bool = True, request_id: str | None = None, **extra: Any
) -> Json:
    rid = request_id or "ficc_" + call_json["callId"]
    return {
        "$type": "toolApprovalResponse",
        "requestId": rid,
        "approved": approved,
        "toolCall": call_json,
        **extra,
    }


def result(call_id: str, value: Any) -> Json:
    return {"$type": "functionResult", "callId": call_id, "result": value}


def msg(role: str, *contents: Json, **extra: Any) -> Json:
    return {"role": role, "contents": list(contents), **extra}


def user(value: str) -> Json:
    return msg("user", text(value))


C1 = call("callId1", "Func1")
C2 = call("callId2", "Func2", {"i": 42})
C3 = call("callId3", "Func3", {"s": "test"})
R1 = result("callId1", "Result 1")
R2 = result("callId2", "Result 2: 42")
R3 = result("callId3", "Result 3: test")


def run_tool(tool_call: ToolCallPart) -> Any:
    """The tools of the upstream tests."""
    args = tool_call.arguments or {}
    if tool_call.name == "Func1":
        return "Result 1"
    if tool_call.name == "Func2":
        return f"Result 2: {args['i']}"
    if tool_call.name == "Func3":
        return f"Result 3: {args['s']}"
    return f'Error: Requested function "{tool_call.name}" not found.'


# --- running and comparing --------------------------------------------------------------


def _wire(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _wire(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value


def encode(messages: tuple[Message, ...]) -> list[Json]:
    encoded = histnorm.encode(Transcript(messages=messages, format="meai"))
    assert isinstance(encoded, list)
    return list(_wire(encoded))


def reslot(
    native: list[Json],
    *,
    service_managed: bool = False,
    streaming: bool = False,
    strict_adjacency: bool = False,
    approved_results: Any = run_tool,
) -> tuple[list[Json], list[Json]]:
    """Run `reslot_approval_results` on native JSON; give back (outgoing, returned) JSON."""
    before = copy.deepcopy(native)
    transcript = histnorm.load(native, format="meai")
    out = reslot_approval_results(
        transcript,
        service_managed=service_managed,
        approved_results=approved_results,
        streaming=streaming,
        strict_adjacency=strict_adjacency,
    )
    assert isinstance(out, ReslotResult)
    assert native == before
    return encode(out.outgoing), encode(out.returned)


def tools(streaming: bool, first: str, *groups: list[Json]) -> list[Json]:
    """The returned tool message(s): one per non-empty group, or one merged when streaming."""
    present = [g for g in groups if g]
    if streaming:
        merged = [part for g in present for part in g]
        return [msg("tool", *merged, messageId="histnorm-results-" + first)]
    return [msg("tool", *g) for g in present]


def calls_message(streaming: bool, *calls: Json, **extra: Any) -> Json:
    """A rebuilt call message with no request message ID (fallback ID when streaming)."""
    if streaming:
        extra.setdefault("messageId", "histnorm-calls-" + calls[0]["callId"])
    return msg("assistant", *(rebuilt(c) for c in calls), **extra)


def recorder() -> tuple[list[str], Callable[[ToolCallPart], Any]]:
    seen: list[str] = []

    def invoke(tool_call: ToolCallPart) -> Any:
        seen.append(tool_call.call_id or "")
        return run_tool(tool_call)

    return seen, invoke


def request_history(*contents: Json, message_id: str | None = "resp1") -> list[Json]:
    extra = {} if message_id is None else {"messageId": message_id}
    return [user("hello"), msg("assistant", *(req(c) for c in contents), **extra)]


# --- §4.10, added by #7617 --------------------------------------------------------------


@STREAMING
def test_approved_responses_stay_adjacent_to_tool_call_when_trailing_messages_present_with_service_threads_async(  # noqa: E501
    streaming: bool,
) -> None:
    """Ex-C1: the result goes before the trailing user message, not after it."""
    native = [msg("user", resp(C1)), user(TRAILING)]
    outgoing, returned = reslot(native, service_managed=True, streaming=streaming)
    assert outgoing == [msg("tool", R1), user(TRAILING)]
    assert returned == [calls_message(streaming, C1), *tools(streaming, "callId1", [], [R1])]


@STREAMING
def test_approved_response_stays_adjacent_to_tool_call_when_approval_message_has_other_content_with_service_threads_async(  # noqa: E501
    streaming: bool,
) -> None:
    """Ex-C2: residual text in the anchor message stays after the result."""
    native = [msg("user", resp(C1), text("please proceed"))]
    outgoing, returned = reslot(native, service_managed=True, streaming=streaming)
    assert outgoing == [msg("tool", R1), user("please proceed")]
    assert returned == [calls_message(streaming, C1), *tools(streaming, "callId1", [], [R1])]


@STREAMING
def test_approved_responses_stay_adjacent_to_tool_call_when_trailing_messages_present_with_client_history_async(  # noqa: E501
    streaming: bool,
) -> None:
    """Ex-C3: client-managed; the rebuilt call and its result go before the trailing message."""
    native = [*request_history(C1), msg("user", resp(C1)), user(TRAILING)]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = msg("assistant", rebuilt(C1), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", R1), user(TRAILING)]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1])]


@STREAMING
def test_approved_response_stays_adjacent_to_tool_call_when_approval_message_has_other_content_with_client_history_async(  # noqa: E501
    streaming: bool,
) -> None:
    """Ex-C4: client-managed with residual text in the anchor."""
    native = [*request_history(C1), msg("user", resp(C1), text("please proceed"))]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = msg("assistant", rebuilt(C1), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", R1), user("please proceed")]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1])]


@STREAMING
@pytest.mark.parametrize("service_managed", [False, True], ids=["client", "service"])
def test_approved_response_that_requests_termination_stops_before_calling_inner_client_async(
    streaming: bool, service_managed: bool
) -> None:
    """Termination: the caller gets exactly [rebuilt call, result] and nothing else.

    The terminating function is the `approved_results` callable, called once; "the inner
    client throws if called" becomes: `returned` ends with the approved results.
    """
    seen, invoke = recorder()
    native = [*request_history(C1), msg("user", resp(C1))]
    _, returned = reslot(
        native, service_managed=service_managed, streaming=streaming, approved_results=invoke
    )
    assert seen == ["callId1"]
    call_message = msg("assistant", rebuilt(C1), messageId="resp1")
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1])]


@STREAMING
def test_approved_approval_response_is_executed_mixed_with_mcp_approval_async(
    streaming: bool,
) -> None:
    """§4.4: the residual MCP response stays in the anchor, so it ends up after the block.

    Upstream's `useAdditionalTools` theory only changes how tools are registered, which
    has no histnorm counterpart.
    """
    mcp = mcp_call("callId2", "McpTool")
    native = [
        user("hello"),
        msg("assistant", req(C1), req(mcp), messageId="resp1"),
        msg("user", resp(C1), resp(mcp)),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = msg("assistant", rebuilt(C1), messageId="resp1")
    assert outgoing == [
        user("hello"),
        msg("assistant", req(mcp), messageId="resp1"),
        call_message,
        msg("tool", R1),
        msg("user", resp(mcp)),
    ]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1])]


@STREAMING
@pytest.mark.parametrize("approve", ["function", "mcp"])
def test_rejected_approval_responses_mixed_with_mcp_approval_async(
    streaming: bool, approve: str
) -> None:
    """Either the function or the MCP call is approved, the other rejected.

    The MCP response is left to the service, whatever it says; the function's outcome
    decides its result.
    """
    mcp = mcp_call("callId2", "McpTool")
    native = [
        user("hello"),
        msg("assistant", req(C1), req(mcp), messageId="resp1"),
        msg("user", resp(C1, approve == "function"), resp(mcp, approve == "mcp")),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    function_result = R1 if approve == "function" else result("callId1", REJECTED)
    call_message = msg("assistant", rebuilt(C1), messageId="resp1")
    assert outgoing == [
        user("hello"),
        msg("assistant", req(mcp), messageId="resp1"),
        call_message,
        msg("tool", function_result),
        msg("user", resp(mcp, approve == "mcp")),
    ]
    assert returned == [call_message, *tools(streaming, "callId1", [function_result])]


# --- §4.10, existing tests that fix the surrounding semantics ---------------------------


def _all_approved(native: list[Json], streaming: bool) -> None:
    native = [*native, msg("user", resp(C1), resp(C2))]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", R1, R2)]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1, R2])]


@STREAMING
def test_all_function_calls_replaced_with_approvals_when_all_require_approval_async(
    streaming: bool,
) -> None:
    """The stored shape (every call became an approval request) resumes as one block."""
    _all_approved(request_history(C1, C2), streaming)


@STREAMING
def test_all_function_calls_replaced_with_approvals_when_any_require_approval_async(
    streaming: bool,
) -> None:
    """A sibling that only became a request (`requiresConfirmation: false`) is extracted too."""
    native = [
        user("hello"),
        msg("assistant", req(C1), req(C2, requiresConfirmation=False), messageId="resp1"),
    ]
    _all_approved(native, streaming)


@STREAMING
@pytest.mark.parametrize("additional_tools_require_approval", [False, True])
def test_all_function_calls_replaced_with_approvals_when_any_request_or_additional_require_approval_async(  # noqa: E501
    streaming: bool, additional_tools_require_approval: bool
) -> None:
    """Whichever call needed approval, both requests are function approval content."""
    first, second = (False, True) if additional_tools_require_approval else (True, False)
    native = [
        user("hello"),
        msg(
            "assistant",
            req(C1, requiresConfirmation=first),
            req(C2, requiresConfirmation=second),
            messageId="resp1",
        ),
    ]
    _all_approved(native, streaming)


@STREAMING
def test_requires_confirmation_is_true_for_approval_required_function_nested_in_delegating_wrapper_async(  # noqa: E501
    streaming: bool,
) -> None:
    """A request with `requiresConfirmation: true` needs and gets its response."""
    native = [*request_history(C1), msg("user", resp(C1))]
    request = histnorm.load(native, format="meai").messages[1].parts[0]
    assert request.kind == "approval_request" and request.requires_confirmation
    with pytest.raises(ApprovalValidationError):
        reslot(native[:2], streaming=streaming)
    outgoing, _ = reslot(native, streaming=streaming)
    assert outgoing[-1] == msg("tool", R1)


@STREAMING
def test_requires_confirmation_is_false_for_function_call_with_no_matching_tool_when_peer_requires_approval_async(  # noqa: E501
    streaming: bool,
) -> None:
    """`requiresConfirmation: false` still needs a response; a call with no tool gets the
    tool's error result (here from `approved_results`)."""
    unknown = call("callId2", "Missing")
    history = [
        user("hello"),
        msg("assistant", req(C1), req(unknown, requiresConfirmation=False), messageId="resp1"),
    ]
    with pytest.raises(ApprovalValidationError, match="'callId2'"):
        reslot([*history, msg("user", resp(C1))], streaming=streaming)
    outgoing, _ = reslot([*history, msg("user", resp(C1), resp(unknown))], streaming=streaming)
    missing = result("callId2", 'Error: Requested function "Missing" not found.')
    assert outgoing[-1] == msg("tool", R1, missing)


@STREAMING
def test_approved_approval_responses_are_executed_async(streaming: bool) -> None:
    """Both approved: one rebuilt call message (the request message's ID), one tool message."""
    _all_approved(request_history(C1, C2), streaming)


@STREAMING
def test_approved_approval_responses_are_grouped_when_message_id_is_null_async(
    streaming: bool,
) -> None:
    """#7153: without a request message ID the calls still share one message."""
    native = [*request_history(C1, C2, message_id=None), msg("user", resp(C1), resp(C2))]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = calls_message(streaming, C1, C2)
    assert outgoing == [user("hello"), call_message, msg("tool", R1, R2)]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1, R2])]


@STREAMING
def test_approved_approval_responses_from_separate_fcc_messages_are_executed_async(
    streaming: bool,
) -> None:
    """Requests in two messages give two rebuilt call messages, then one tool message (U-3)."""
    native = [
        user("hello"),
        msg("assistant", req(C1), messageId="resp1"),
        msg("assistant", req(C2), messageId="resp2"),
        msg("user", resp(C1)),
        msg("user", resp(C2)),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    first = msg("assistant", rebuilt(C1), messageId="resp1")
    second = msg("assistant", rebuilt(C2), messageId="resp2")
    assert outgoing == [user("hello"), first, second, msg("tool", R1, R2)]
    assert returned == [first, second, *tools(streaming, "callId1", [], [R1, R2])]


@STREAMING
def test_rejected_approval_responses_are_failed_async(streaming: bool) -> None:
    native = [*request_history(C1, C2), msg("user", resp(C1, False), resp(C2, False))]
    outgoing, returned = reslot(native, streaming=streaming, approved_results={})
    rejected = [result("callId1", REJECTED), result("callId2", REJECTED)]
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", *rejected)]
    assert returned == [call_message, *tools(streaming, "callId1", rejected)]


@STREAMING
def test_mixed_approved_and_rejected_approval_responses_are_executed_and_failed_async(
    streaming: bool,
) -> None:
    """Ex-C5: rejected first, then approved; separate tool messages unless streaming."""
    native = [*request_history(C1, C2), msg("user", resp(C1, False), resp(C2))]
    outgoing, returned = reslot(native, streaming=streaming)
    rejected = result("callId1", REJECTED)
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", rejected), msg("tool", R2)]
    assert returned == [call_message, *tools(streaming, "callId1", [rejected], [R2])]


@STREAMING
def test_rejected_approval_responses_with_custom_reason_async(streaming: bool) -> None:
    native = [
        *request_history(C1, C2),
        msg(
            "user",
            resp(C1, False, reason="User denied permission for this operation"),
            resp(C2, False, reason="Function Func2 is not allowed at this time"),
        ),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    rejected = [
        result("callId1", f"{REJECTED} User denied permission for this operation"),
        result("callId2", f"{REJECTED} Function Func2 is not allowed at this time"),
    ]
    assert outgoing[-1] == msg("tool", *rejected)
    assert returned[1:] == tools(streaming, "callId1", rejected)


@STREAMING
def test_mixed_approval_responses_with_custom_and_default_reasons_async(streaming: bool) -> None:
    native = [
        *request_history(C1, C2, C3),
        msg(
            "user",
            resp(C1, False, reason="Custom rejection for Func1"),
            resp(C2, False),
            resp(C3),
        ),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    rejected = [
        result("callId1", f"{REJECTED} Custom rejection for Func1"),
        result("callId2", REJECTED),
    ]
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), rebuilt(C3), messageId="resp1")
    assert outgoing == [user("hello"), call_message, msg("tool", *rejected), msg("tool", R3)]
    assert returned == [call_message, *tools(streaming, "callId1", rejected, [R3])]


@STREAMING
@pytest.mark.parametrize("reason", [None, "", "   "], ids=["null", "empty", "whitespace"])
def test_rejected_approval_responses_with_empty_or_whitespace_reason_uses_default_message_async(
    streaming: bool, reason: str | None
) -> None:
    native = [*request_history(C1), msg("user", resp(C1, False, reason=reason))]
    outgoing, _ = reslot(native, streaming=streaming)
    assert outgoing[-1] == msg("tool", result("callId1", REJECTED))


@STREAMING
def test_approved_inputs_are_executed_and_function_results_are_converted_async(
    streaming: bool,
) -> None:
    """Results given as a mapping are stored verbatim as the `result` JSON, whatever its type."""
    values = {"callId1": {"status": "ok", "items": [1, 2]}, "callId2": 42}
    native = [*request_history(C1, C2), msg("user", resp(C1), resp(C2))]
    outgoing, returned = reslot(native, streaming=streaming, approved_results=values)
    results = [result("callId1", values["callId1"]), result("callId2", 42)]
    assert outgoing[-1] == msg("tool", *results)
    assert returned[1:] == tools(streaming, "callId1", [], results)


@STREAMING
def test_already_executed_approvals_are_ignored_async(streaming: bool) -> None:
    """Responses whose call already has a result are dropped, not rebuilt nor run again."""
    c3 = call("callId3", "Func1")
    native = [
        *request_history(C1, C2),
        msg("user", resp(C1), resp(C2)),
        msg("assistant", C1, C2),
        msg("tool", R1, R2),
        msg("assistant", req(c3), messageId="resp2"),
        msg("user", resp(c3)),
    ]
    seen, invoke = recorder()
    outgoing, returned = reslot(native, streaming=streaming, approved_results=invoke)
    assert seen == ["callId3"]
    call_message = msg("assistant", rebuilt(c3), messageId="resp2")
    r3 = result("callId3", "Result 1")
    assert outgoing == [
        user("hello"),
        msg("assistant", C1, C2),
        msg("tool", R1, R2),
        call_message,
        msg("tool", r3),
    ]
    assert returned == [call_message, *tools(streaming, "callId3", [], [r3])]


@STREAMING
def test_rejection_sets_informational_only_on_both_request_and_response_fcc_instances_async(
    streaming: bool,
) -> None:
    """The rebuilt (response) call is informational-only in both lists; the request's copy
    is extracted, so only the response's instance is left to carry the flag. The input
    models are never changed."""
    transcript = histnorm.load([*request_history(C1), msg("user", resp(C1, False))], format="meai")
    snapshot = transcript.model_copy(deep=True)
    out = reslot_approval_results(
        transcript, service_managed=False, approved_results={}, streaming=streaming
    )
    for messages in (out.outgoing, out.returned):
        rebuilt_call = messages[1 if messages is out.outgoing else 0].parts[0]
        assert isinstance(rebuilt_call, ToolCallPart) and rebuilt_call.informational
    assert transcript == snapshot
    request, response = transcript.messages[1].parts[0], transcript.messages[2].parts[0]
    assert request.kind == "approval_request" and request.tool_call is not None
    assert response.kind == "approval_response" and response.tool_call is not None
    assert not request.tool_call.informational and not response.tool_call.informational


@STREAMING
def test_mixed_informational_only_workaround_with_middleware_async(streaming: bool) -> None:
    """An approval whose call a middleware marked informational-only is residual content:
    it neither anchors nor runs, and stays where it is."""
    handled = call("callId1", "Func1", informationalOnly=True)
    native = [
        user("hello"),
        msg("assistant", req(handled), req(C2), messageId="resp1"),
        msg("user", resp(handled), resp(C2)),
    ]
    seen, invoke = recorder()
    outgoing, returned = reslot(native, streaming=streaming, approved_results=invoke)
    assert seen == ["callId2"]
    call_message = msg("assistant", rebuilt(C2), messageId="resp1")
    assert outgoing == [
        user("hello"),
        msg("assistant", req(handled), messageId="resp1"),
        call_message,
        msg("tool", R2),
        msg("user", resp(handled)),
    ]
    assert returned == [call_message, *tools(streaming, "callId2", [], [R2])]


@STREAMING
def test_mixed_approval_required_tools_with_non_approval_requiring_function_call_async(
    streaming: bool,
) -> None:
    """A call that needed no approval (already run, with its result) is left alone; only the
    approval-gated call is rebuilt and run."""
    plain = call("callId0", "Func3", {"s": "x"})
    native = [
        user("hello"),
        msg("assistant", plain),
        msg("tool", result("callId0", "Result 3: x")),
        msg("assistant", req(C1), messageId="resp1"),
        msg("user", resp(C1)),
    ]
    seen, invoke = recorder()
    outgoing, _ = reslot(native, streaming=streaming, approved_results=invoke)
    assert seen == ["callId1"]
    assert outgoing == [
        *native[:3],
        msg("assistant", rebuilt(C1), messageId="resp1"),
        msg("tool", R1),
    ]


@STREAMING
def test_approval_request_without_approval_response_throws_async(streaming: bool) -> None:
    native = [*request_history(C1, C2)]
    with pytest.raises(ApprovalValidationError) as raised:
        reslot(native, streaming=streaming)
    assert raised.value.message == (
        "ToolApprovalRequestContent found with FunctionCall.CallId(s) 'callId1, callId2' "
        "that have no matching ToolApprovalResponseContent."
    )
    assert raised.value.call_ids == ("callId1", "callId2")
    assert isinstance(raised.value, HistnormError)
    with pytest.raises(ApprovalValidationError) as raised:
        reslot([*native, msg("user", resp(C2))], streaming=streaming)
    assert str(raised.value) == (
        "ToolApprovalRequestContent found with FunctionCall.CallId(s) 'callId1' "
        "that have no matching ToolApprovalResponseContent."
    )


@STREAMING
def test_approved_approval_responses_without_approval_request_are_executed_async(
    streaming: bool,
) -> None:
    """Lone responses are accepted; their calls go into one new assistant message."""
    native = [user("hello"), msg("user", resp(C1), resp(C2))]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = calls_message(streaming, C1, C2)
    assert outgoing == [user("hello"), call_message, msg("tool", R1, R2)]
    assert returned == [call_message, *tools(streaming, "callId1", [], [R1, R2])]


@STREAMING
def test_function_call_content_is_not_passed_to_downstream_service_with_service_threads_async(
    streaming: bool,
) -> None:
    native = [msg("user", resp(C1), resp(C2))]
    outgoing, returned = reslot(native, service_managed=True, streaming=streaming)
    assert outgoing == [msg("tool", R1, R2)]
    assert returned == [
        calls_message(streaming, C1, C2),
        *tools(streaming, "callId1", [], [R1, R2]),
    ]


@STREAMING
def test_function_call_content_is_buffered_until_end_of_stream_when_streaming_async(
    streaming: bool,
) -> None:
    """The caller gets all rebuilt calls of a request message in one message; streamed, the
    rejected and approved results arrive as one tool message under one ID."""
    native = [*request_history(C1, C2, C3), msg("user", resp(C1), resp(C2, False), resp(C3))]
    _, returned = reslot(native, streaming=streaming)
    rejected = result("callId2", REJECTED)
    call_message = msg("assistant", rebuilt(C2), rebuilt(C1), rebuilt(C3), messageId="resp1")
    assert returned == [call_message, *tools(streaming, "callId2", [rejected], [R1, R3])]
    assert len(returned) == (2 if streaming else 3)


@STREAMING
def test_function_cals_are_buffered_until_approval_requirement_encountered_when_streaming_async(
    streaming: bool,
) -> None:
    """Text streamed before the calls stays in the request message, in place; the rebuilt
    call message is a clone of it holding only the calls."""
    native = [
        user("hello"),
        msg("assistant", text("Text 1"), text("Text 2"), req(C1), req(C2), messageId="m1"),
        msg("user", resp(C1), resp(C2)),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), messageId="m1")
    assert outgoing == [
        user("hello"),
        msg("assistant", text("Text 1"), text("Text 2"), messageId="m1"),
        call_message,
        msg("tool", R1, R2),
    ]
    assert returned[0] == call_message


@STREAMING
def test_function_calls_with_informational_only_true_are_not_replaced_with_approvals_async(
    streaming: bool,
) -> None:
    """Informational calls and approvals are not function approval content: a history with
    only those is returned as it is, with nothing for the caller."""
    handled = call("callId1", "Func1", informationalOnly=True)
    native = [
        user("hello"),
        msg("assistant", handled, req(handled), messageId="resp1"),
        msg("user", resp(handled)),
    ]
    transcript = histnorm.load(native, format="meai")
    out = reslot_approval_results(
        transcript, service_managed=False, approved_results={}, streaming=streaming
    )
    assert out.outgoing == transcript.messages and out.returned == ()
    assert all(a is b for a, b in zip(out.outgoing, transcript.messages, strict=True))


@STREAMING
def test_approval_response_preserves_original_request_message_metadata(streaming: bool) -> None:
    """The rebuilt call message is a clone of the request message: author, createdAt,
    additionalProperties and messageId survive; any request ID works."""
    request_message = msg(
        "assistant",
        req(C1, request_id="approval-request-id"),
        authorName="planner",
        messageId="resp1",
        createdAt="2026-07-20T10:00:00+00:00",
        additionalProperties={"_attribution": {"source": "agent"}},
    )
    native = [
        user("hello"),
        request_message,
        msg("user", resp(C1, request_id="approval-request-id")),
    ]
    outgoing, returned = reslot(native, streaming=streaming)
    call_message = {**request_message, "contents": [rebuilt(C1)]}
    assert outgoing == [user("hello"), call_message, msg("tool", R1)]
    assert returned[0] == call_message


@STREAMING
def test_function_call_replaced_with_approval_mixed_with_mcp_approval_async(
    streaming: bool,
) -> None:
    """An unanswered MCP request is the service's business: it neither raises nor moves."""
    mcp = mcp_call("callId2", "McpTool")
    native = [
        user("hello"),
        msg("assistant", req(C1), req(mcp), messageId="resp1"),
        msg("user", resp(C1)),
    ]
    outgoing, _ = reslot(native, streaming=streaming)
    assert outgoing == [
        user("hello"),
        msg("assistant", req(mcp), messageId="resp1"),
        msg("assistant", rebuilt(C1), messageId="resp1"),
        msg("tool", R1),
    ]


# --- §4.10, histnorm additions ----------------------------------------------------------

C6_INPUT = [msg("user", resp(C1)), user("MIDDLE"), msg("user", resp(C2))]


@STREAMING
def test_unsupported_interleaving_compat_mode_matches_upstream(streaming: bool) -> None:
    """Ex-C6 / U-1: only the last approval message anchors; MIDDLE stays ahead of the block."""
    outgoing, _ = reslot(C6_INPUT, service_managed=True, streaming=streaming)
    assert outgoing == [user("MIDDLE"), msg("tool", R1, R2)]


@STREAMING
def test_strict_adjacency_moves_interleaved_content_after_block(streaming: bool) -> None:
    """Everything from the first processed response message on goes after the block, in
    order: interleaved messages and the residual content of approval messages alike."""
    outgoing, returned = reslot(
        C6_INPUT, service_managed=True, streaming=streaming, strict_adjacency=True
    )
    assert outgoing == [msg("tool", R1, R2), user("MIDDLE")]
    compat_returned = reslot(C6_INPUT, service_managed=True, streaming=streaming)[1]
    assert returned == compat_returned
    native = [
        user("BEFORE"),
        msg("user", resp(C1), text("A")),
        user("MIDDLE"),
        msg("user", resp(C2), text("B")),
        user("TRAIL"),
    ]
    outgoing, _ = reslot(native, service_managed=True, streaming=streaming, strict_adjacency=True)
    assert outgoing == [
        user("BEFORE"),
        msg("tool", R1, R2),
        user("A"),
        user("MIDDLE"),
        user("B"),
        user("TRAIL"),
    ]
    client = [*request_history(C1, C2), *native]
    outgoing, _ = reslot(client, streaming=streaming, strict_adjacency=True)
    call_message = msg("assistant", rebuilt(C1), rebuilt(C2), messageId="resp1")
    assert outgoing[:4] == [user("hello"), user("BEFORE"), call_message, msg("tool", R1, R2)]


@STREAMING
def test_duplicate_approval_request_id_raises_or_dedupes(streaming: bool) -> None:
    """A repeated function approval request ID raises; `dedupe_transcript_requests` (§3.4)
    removes the benign repeat first. Repeated MCP request IDs are not checked."""
    from histnorm.behaviours.requests import dedupe_transcript_requests

    native = [
        user("hello"),
        msg("assistant", req(C1), messageId="resp1"),
        msg("assistant", req(C1), messageId="resp1"),
        msg("user", resp(C1)),
    ]
    with pytest.raises(ApprovalValidationError, match="'ficc_callId1'") as raised:
        reslot(native, streaming=streaming)
    assert raised.value.request_id == "ficc_callId1"

    deduped, removed, conflicts = dedupe_transcript_requests(histnorm.load(native, format="meai"))
    assert removed == ((2, 0),) and conflicts == ()
    out = reslot_approval_results(
        deduped, service_managed=False, approved_results=run_tool, streaming=streaming
    )
    assert encode(out.outgoing) == [
        user("hello"),
        msg("assistant", rebuilt(C1), messageId="resp1"),
        msg("tool", R1),
    ]

    mcp = mcp_call("callId2", "McpTool")
    repeated_mcp = [*native[:2], msg("assistant", req(mcp), req(mcp)), native[3]]
    outgoing, _ = reslot(repeated_mcp, streaming=streaming)
    assert outgoing[1] == msg("assistant", req(mcp), req(mcp))


@STREAMING
def test_response_before_request_validation_fails(streaming: bool) -> None:
    """The needs-response check follows message order, as upstream's does (§5.16)."""
    native = [user("hello"), msg("user", resp(C1)), msg("assistant", req(C1))]
    with pytest.raises(ApprovalValidationError, match="'callId1' that have no matching"):
        reslot(native, streaming=streaming)


def _repair_case(native: list[Json], service_managed: bool) -> list[int]:
    """Run the repair; give back the new order as input indices (checking identity)."""
    source = histnorm.load(native, format="meai").messages
    repaired = repair_appended_tool_results(source, service_managed)
    order = [next(i for i, m in enumerate(source) if m is r) for r in repaired]
    assert sorted(order) == list(range(len(source)))
    assert repair_appended_tool_results(repaired, service_managed) == repaired
    return order


EX_C7 = [
    user("Delete /tmp/x"),
    msg("assistant", call("call_1", "rm", {"path": "/tmp/x"})),
    user("By the way, keep it short."),
    msg("tool", result("call_1", "ok")),
]
RR_1 = result("callId1", REJECTED)


@pytest.mark.parametrize(
    ("native", "service_managed", "order"),
    [
        pytest.param(EX_C7, True, [0, 1, 3, 2], id="ex-c7-approvals-gone"),
        pytest.param(EX_C7, False, [0, 1, 3, 2], id="ex-c7-client"),
        pytest.param(
            [*request_history(C1), msg("user", resp(C1)), user(TRAILING), msg("tool", R1)],
            True,
            [0, 1, 2, 4, 3],
            id="service-anchor",
        ),
        pytest.param(
            [
                msg("user", resp(C1, False), resp(C2)),
                user(TRAILING),
                msg("tool", RR_1),
                msg("tool", R2),
            ],
            True,
            [0, 2, 3, 1],
            id="rejected-then-approved-keep-order",
        ),
        pytest.param(
            [msg("user", resp(C1), text("please proceed")), user(TRAILING), msg("tool", R1)],
            True,
            [0, 2, 1],
            id="residual-anchor-not-split",
        ),
        pytest.param(
            [
                *request_history(C1),
                msg("user", resp(C1)),
                user(TRAILING),
                msg("assistant", rebuilt(C1)),
                msg("tool", R1),
                msg("assistant", text("world")),
            ],
            False,
            [0, 1, 2, 4, 5, 3, 6],
            id="client-block-moves-with-calls",
        ),
        pytest.param(
            [
                *request_history(C1),
                msg("user", resp(C1)),
                user(TRAILING),
                msg("assistant", rebuilt(C1)),
                msg("tool", R1),
            ],
            True,
            [0, 1, 2, 3, 4, 5],
            id="never-before-its-call",
        ),
        pytest.param(
            [msg("assistant", C1, C2), msg("tool", R1), user(TRAILING), msg("tool", R2)],
            False,
            [0, 1, 3, 2],
            id="after-results-already-there",
        ),
        pytest.param(
            [user("hello"), msg("assistant", C1), msg("tool", R1), user(TRAILING)],
            False,
            [0, 1, 2, 3],
            id="adjacent-untouched",
        ),
    ],
)
def test_repair_appended_tool_results_moves_to_anchor(
    native: list[Json], service_managed: bool, order: list[int]
) -> None:
    """Appended results move to the §4.3 anchor, or after their calls once approvals are gone.

    Same messages (same objects), new order; a second run changes nothing.
    """
    assert _repair_case(native, service_managed) == order


# --- §4.8 examples ----------------------------------------------------------------------


def test_ex_c1_service_managed_with_trailing_message() -> None:
    native = [
        {
            "role": "user",
            "contents": [
                {
                    "$type": "toolApprovalResponse",
                    "requestId": "ficc_callId1",
                    "approved": True,
                    "toolCall": {"$type": "functionCall", "callId": "callId1", "name": "Func1"},
                }
            ],
        },
        {"role": "user", "contents": [{"$type": "text", "text": TRAILING}]},
    ]
    outgoing, returned = reslot(native, service_managed=True)
    assert outgoing == [
        {
            "role": "tool",
            "contents": [{"$type": "functionResult", "callId": "callId1", "result": "Result 1"}],
        },
        {"role": "user", "contents": [{"$type": "text", "text": TRAILING}]},
    ]
    assert returned == [msg("assistant", rebuilt(C1)), msg("tool", R1)]


def test_ex_c2_service_managed_residual_content_in_anchor() -> None:
    outgoing, _ = reslot([msg("user", resp(C1), text("please proceed"))], service_managed=True)
    assert outgoing == [msg("tool", R1), user("please proceed")]


def test_ex_c3_client_managed_trailing() -> None:
    native = [*request_history(C1), msg("user", resp(C1)), user("By the way…")]
    outgoing, _ = reslot(native)
    assert outgoing == [
        user("hello"),
        msg("assistant", rebuilt(C1), messageId="resp1"),
        msg("tool", R1),
        user("By the way…"),
    ]


def test_ex_c4_client_managed_residual() -> None:
    native = [*request_history(C1), msg("user", resp(C1), text("please proceed"))]
    outgoing, _ = reslot(native)
    assert outgoing == [
        user("hello"),
        msg("assistant", rebuilt(C1), messageId="resp1"),
        msg("tool", R1),
        user("please proceed"),
    ]


def test_ex_c5_mixed_rejected_and_approved_client_managed() -> None:
    native = [*request_history(C1, C2), msg("user", resp(C1, False), resp(C2))]
    outgoing, _ = reslot(native)
    assert outgoing == [
        user("hello"),
        msg("assistant", rebuilt(C1), rebuilt(C2), messageId="resp1"),
        msg("tool", result("callId1", "Tool call invocation rejected.")),
        msg("tool", R2),
    ]


def test_ex_c6_unsupported_interleaving() -> None:
    outgoing, _ = reslot(C6_INPUT, service_managed=True)
    assert outgoing == [user("MIDDLE"), msg("tool", R1, R2)]
    outgoing, _ = reslot(C6_INPUT, service_managed=True, strict_adjacency=True)
    assert outgoing == [msg("tool", R1, R2), user("MIDDLE")]


# --- API details ------------------------------------------------------------------------


def test_untouched_messages_keep_identity_and_output_is_deterministic() -> None:
    native = [*request_history(C1), msg("user", resp(C1)), user(TRAILING)]
    transcript = histnorm.load(native, format="meai")
    first = reslot_approval_results(
        transcript.messages, service_managed=False, approved_results=run_tool, streaming=True
    )
    again = reslot_approval_results(
        transcript, service_managed=False, approved_results=run_tool, streaming=True
    )
    assert first == again
    assert first.outgoing[0] is transcript.messages[0]
    assert first.outgoing[-1] is transcript.messages[-1]
    new_parts = [p for m in first.returned for p in m.parts if p.kind == "tool_result"]
    assert new_parts and all(p.native is None for p in new_parts)


def test_mapping_without_an_approved_call_raises() -> None:
    native = [msg("user", resp(C1))]
    with pytest.raises(HistnormError, match="callId1"):
        reslot(native, service_managed=True, approved_results={"other": 1})
