"""Behaviour A: sanitizing a cancelled streaming response (behaviours.md §1.4, §2).

One test per histnorm scenario of §2.9 (items 1 to 27; the linter scenarios 28 and 29 are
tested with the rules), the worked examples Ex-A1 to Ex-A7, the §1.4 coalescing rules and
two properties: sanitizing is idempotent, and what it keeps always pairs.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from histnorm.behaviours.coalesce import coalesce_updates, looks_like_updates
from histnorm.behaviours.partial import (
    CallScope,
    PersistPlan,
    Removal,
    is_partial,
    reconcile_approval_state,
    sanitize_partial_response,
    strip_partial_markers,
)
from histnorm.formats.meai import decode_content, decode_message, encode_message
from histnorm.model import (
    PARTIAL_RESPONSE_KEY,
    ApprovalRequestPart,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    Transcript,
    UsagePart,
)
from histnorm.pairing import pair, transcript_items

MARK = {PARTIAL_RESPONSE_KEY: True}
USER = {"role": "user", "contents": [{"$type": "text", "text": "hi"}]}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"$type": "text", "text": value, **extra}


def call(call_id: str, name: str = "f", **extra: Any) -> dict[str, Any]:
    return {"$type": "functionCall", "callId": call_id, "name": name, **extra}


def result(call_id: str, value: Any = "ok") -> dict[str, Any]:
    return {"$type": "functionResult", "callId": call_id, "result": value}


def approval(request_id: str, call_id: str) -> dict[str, Any]:
    return {
        "$type": "toolApprovalRequest",
        "requestId": request_id,
        "requiresConfirmation": True,
        "toolCall": call(call_id, "rm"),
    }


def msg(role: str, *contents: Any, id: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"role": role}
    if id is not None:
        out["messageId"] = id
    return {**out, "contents": list(contents), **extra}


def update(*contents: Any, **fields: Any) -> dict[str, Any]:
    return {**fields, "contents": list(contents)}


def encoded(plan: PersistPlan) -> list[Any]:
    return [encode_message(m) for m in plan.response_messages]


def reasons(plan: PersistPlan) -> list[tuple[int, int | None, str]]:
    return [(r.message_index, r.content_index, r.reason) for r in plan.removed]


def assert_pairs(messages: tuple[Message, ...], earlier: tuple[Message, ...] = ()) -> None:
    """No call of `messages` lacks a result and no result lacks a call (`earlier` first)."""
    pairing = pair(transcript_items(Transcript(messages=earlier + messages)))
    n = len(earlier)
    assert [p for p in pairing.unmatched_calls if p[0] >= n] == []
    assert [p for p in pairing.orphan_results if p[0] >= n] == []
    assert [p for p, _ in pairing.duplicate_results if p[0] >= n] == []
    assert [r for r in pairing.repeats if r.kind != "approval_request" and r.position[0] >= n] == []


# --- worked examples (§2.5) -------------------------------------------------------------


def test_ex_a1_text_and_unmatched_call() -> None:
    partial = [
        msg(
            "assistant",
            text("Let me check the weather."),
            call("c1", "get_weather", arguments={"city": "Oslo"}),
            id="r1",
        )
    ]
    plan = sanitize_partial_response([], partial)
    assert encoded(plan) == [
        {
            "role": "assistant",
            "messageId": "r1",
            "contents": [{"$type": "text", "text": "Let me check the weather."}],
            "additionalProperties": {"agent_framework.partial_response": True},
        }
    ]
    assert plan.removed == (Removal(0, 1, "tool_call", "unmatched_call"),)


def test_ex_a2_matched_pair_survives_and_later_text_is_kept() -> None:
    partial = [
        msg("assistant", call("c1"), id="r1"),
        msg("tool", result("c1", "42"), id="t1"),
        msg("assistant", text("The answ"), id="r2"),
    ]
    plan = sanitize_partial_response([], partial)
    assert encoded(plan) == [{**m, "additionalProperties": MARK} for m in partial]
    assert plan.removed == ()
    assert plan.settled_call_ids == ("c1",)


def test_ex_a3_orphan_result_is_removed() -> None:
    plan = sanitize_partial_response([], [msg("tool", result("zz", "x"))])
    assert plan.response_messages == ()
    assert reasons(plan) == [(0, 0, "orphan_result"), (0, None, "empty_message")]


def test_ex_a4_pending_approval_is_removed() -> None:
    plan = sanitize_partial_response([], [msg("assistant", approval("ficc_c9", "c9"), id="r1")])
    assert plan.response_messages == ()
    assert plan.abandoned_request_ids == ("ficc_c9",)
    assert reasons(plan) == [(0, 0, "pending_input_request"), (0, None, "empty_message")]


def test_ex_a5_whitespace_and_usage() -> None:
    updates = [
        update(text("\n"), role="assistant", messageId="r1"),
        update(text("  "), role="assistant", messageId="r1"),
        update({"$type": "usage", "details": {"inputTokenCount": 10, "outputTokenCount": 2}}),
    ]
    messages, _ = coalesce_updates(updates)
    assert [[p.text for p in m.parts if isinstance(p, TextPart)] for m in messages] == [["\n  "]]
    plan = sanitize_partial_response([], updates)
    assert plan.response_messages == ()
    assert dict(plan.usage) == {"inputTokenCount": 10, "outputTokenCount": 2}


def test_ex_a6_reasoning_with_protected_data() -> None:
    partial = [
        msg(
            "assistant",
            {"$type": "reasoning", "text": "", "protectedData": "gAAAA..."},
            text("Sure"),
            id="r1",
        )
    ]
    plan = sanitize_partial_response([], partial)
    assert encoded(plan) == [{**partial[0], "additionalProperties": MARK}]


def test_ex_a7_cancelled_before_first_update() -> None:
    plan = sanitize_partial_response([USER], [])
    assert [encode_message(m) for m in plan.request_messages] == [USER]
    assert plan.response_messages == ()
    assert plan.messages == plan.request_messages


# --- §2.9 scenarios ---------------------------------------------------------------------


def test_cancelled_after_text_persists_request_and_marked_partial_text() -> None:
    updates = [
        update(text("Let me "), role="assistant", messageId="r1"),
        update(text("check."), role="assistant", messageId="r1"),
    ]
    plan = sanitize_partial_response([USER], updates)
    assert plan.request_messages == (decode_message(USER),)
    assert not any(is_partial(m) for m in plan.request_messages)
    (response,) = plan.response_messages
    assert is_partial(response) and response.id == "r1"
    assert response.parts == (TextPart(text="Let me check.", slot="contents"),)


def test_cancelled_before_first_update_persists_request_only() -> None:
    plan = sanitize_partial_response([USER], [])
    assert plan.response_messages == () and plan.removed == ()
    assert plan.messages == (decode_message(USER),)
    assert not any(is_partial(m) for m in plan.messages)


def test_unmatched_function_call_is_removed_text_kept() -> None:
    partial = [msg("assistant", text("Checking."), call("c1"), id="r1")]
    (response,) = sanitize_partial_response([USER], partial).response_messages
    assert response.parts == (decode_content(text("Checking.")),)


def test_unmatched_function_call_only_content_message_dropped() -> None:
    partial = [msg("assistant", text("Checking."), id="r1"), msg("assistant", call("c1"), id="r2")]
    plan = sanitize_partial_response([USER], partial)
    assert [m.id for m in plan.response_messages] == ["r1"]
    assert reasons(plan) == [(1, 0, "unmatched_call"), (1, None, "empty_message")]


def test_matched_call_and_result_are_kept() -> None:
    partial = [msg("assistant", call("c1"), id="r1"), msg("tool", result("c1"), id="t1")]
    plan = sanitize_partial_response([USER], partial)
    assert [m.parts for m in plan.response_messages] == [
        m.parts for m in (decode_message(x) for x in partial)
    ]
    assert plan.settled_call_ids == ("c1",)


def test_parallel_calls_partial_results_keep_only_matched() -> None:
    partial = [
        msg("assistant", call("a"), call("b"), call("c"), id="r1"),
        msg("tool", result("b"), id="t1"),
    ]
    plan = sanitize_partial_response([USER], partial)
    assert [[getattr(p, "call_id", None) for p in m.parts] for m in plan.response_messages] == [
        ["b"],
        ["b"],
    ]
    assert reasons(plan) == [(0, 0, "unmatched_call"), (0, 2, "unmatched_call")]


def test_orphan_function_result_is_removed() -> None:
    partial = [msg("tool", result("zz"), result("c1")), msg("assistant", call("c1"))]
    plan = sanitize_partial_response([USER], partial)
    assert plan.response_messages == ()
    assert reasons(plan) == [
        (0, 0, "orphan_result"),
        (0, 1, "orphan_result"),
        (0, None, "empty_message"),
        (1, 0, "unmatched_call"),
        (1, None, "empty_message"),
    ]


def test_result_matched_only_against_partial_not_earlier_history() -> None:
    request = [USER, msg("assistant", call("c1"))]
    partial = [msg("tool", result("c1"))]
    assert sanitize_partial_response(request, partial).response_messages == ()
    plan = sanitize_partial_response(request, partial, call_scope="partial+request")
    assert [m.parts for m in plan.response_messages] == [decode_message(partial[0]).parts]
    assert plan.request_messages == tuple(decode_message(m) for m in request)


@pytest.mark.parametrize(
    "tool_call",
    [
        call("c9", "rm"),
        {"$type": "mcpServerToolCall", "callId": "m9", "name": "rm", "serverName": "s"},
    ],
    ids=["function", "mcp"],
)
def test_pending_approval_request_is_removed(tool_call: dict[str, Any]) -> None:
    request = {"$type": "toolApprovalRequest", "requestId": "ficc_9", "toolCall": tool_call}
    partial = [msg("assistant", text("Need approval."), request, id="r1")]
    plan = sanitize_partial_response([USER], partial)
    (response,) = plan.response_messages
    assert not any(isinstance(p, ApprovalRequestPart | ToolCallPart) for p in response.parts)
    assert plan.abandoned_request_ids == ("ficc_9",)


def test_empty_text_is_removed() -> None:
    plan = sanitize_partial_response([], [msg("assistant", text(""), text("x"))])
    assert [p.text for p in plan.response_messages[0].parts if isinstance(p, TextPart)] == ["x"]
    assert reasons(plan) == [(0, 0, "empty_text")]


def test_whitespace_text_is_removed_when_option_on() -> None:
    plan = sanitize_partial_response([], [msg("assistant", text("\n\n"))])
    assert plan.response_messages == ()


def test_whitespace_text_is_kept_when_option_off() -> None:
    partial = [msg("assistant", text("\n\n"), text(""))]
    plan = sanitize_partial_response([], partial, whitespace_text_is_empty=False)
    assert [p.text for p in plan.response_messages[0].parts if isinstance(p, TextPart)] == ["\n\n"]


def test_non_empty_text_is_not_trimmed() -> None:
    plan = sanitize_partial_response([], [msg("assistant", text("  hi  "))])
    assert encoded(plan)[0]["contents"] == [text("  hi  ")]


def test_usage_only_update_does_not_persist_empty_message() -> None:
    updates = [
        update(text("Hel"), role="assistant", messageId="r1"),
        update(text("lo"), role="assistant", messageId="r1"),
        update({"$type": "usage", "details": {"outputTokenCount": 2}}, messageId="r2"),
        update({"$type": "usage", "details": {"inputTokenCount": 5, "outputTokenCount": 1}}),
    ]
    plan = sanitize_partial_response([USER], updates)
    assert [m.id for m in plan.response_messages] == ["r1"]
    assert dict(plan.usage) == {"outputTokenCount": 3, "inputTokenCount": 5}
    assert reasons(plan) == [(1, None, "empty_message")]


def test_reasoning_with_protected_data_kept() -> None:
    partial = [msg("assistant", {"$type": "reasoning", "protectedData": "enc"}, text("ok"))]
    (response,) = sanitize_partial_response([], partial).response_messages
    assert [p.kind for p in response.parts] == ["reasoning", "text"]


def test_empty_reasoning_removed() -> None:
    partial = [msg("assistant", {"$type": "reasoning", "text": " "}, text("ok"))]
    plan = sanitize_partial_response([], partial)
    assert [p.kind for p in plan.response_messages[0].parts] == ["text"]
    assert reasons(plan) == [(0, 0, "empty_reasoning")]


def test_reasoning_only_message_dropped() -> None:
    partial = [
        msg("assistant", {"$type": "reasoning", "text": "hmm", "protectedData": "enc"}),
        msg("assistant", text("ok"), id="r2"),
    ]
    plan = sanitize_partial_response([], partial)
    assert [m.id for m in plan.response_messages] == ["r2"]
    assert reasons(plan) == [(0, None, "reasoning_only_message")]
    kept = sanitize_partial_response([], partial, keep_reasoning_only_messages=True)
    assert len(kept.response_messages) == 2
    gone = sanitize_partial_response([], partial, keep_reasoning=False)
    assert reasons(gone) == [(0, 0, "reasoning"), (0, None, "empty_message")]


def test_marker_on_every_response_message_not_on_request() -> None:
    request = [USER, msg("assistant", text("earlier"), id="r0")]
    partial = [
        msg("assistant", call("c1"), id="r1"),
        msg("tool", result("c1")),
        msg("assistant", text("so"), id="r2", additionalProperties={"_attribution": "x"}),
    ]
    plan = sanitize_partial_response(request, partial)
    assert [is_partial(m) for m in plan.messages] == [False, False, True, True, True]
    assert plan.response_messages[2].metadata == {"_attribution": "x", PARTIAL_RESPONSE_KEY: True}
    assert plan.request_messages == tuple(decode_message(m) for m in request)
    unmarked = sanitize_partial_response(request, partial, mark=False)
    assert not any(is_partial(m) for m in unmarked.messages)
    custom = sanitize_partial_response([], partial, marker_key="x.partial")
    assert all(m.metadata.get("x.partial") is True for m in custom.response_messages)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        ("true", True),
        ("TRUE", True),
        ("True", True),
        (1, True),
        (False, False),
        ("false", False),
        ("yes", False),
        (0, False),
        (2, False),
        (None, False),
        ({}, False),
    ],
)
def test_marker_reads_truthy_variants(value: Any, expected: bool) -> None:
    native = {
        "role": "assistant",
        "contents": [],
        "additionalProperties": {PARTIAL_RESPONSE_KEY: value},
    }
    assert is_partial(native) is expected
    assert is_partial(decode_message(native)) is expected
    pascal = {
        "Role": "assistant",
        "Contents": [],
        "AdditionalProperties": {PARTIAL_RESPONSE_KEY: value},
    }
    assert is_partial(pascal) is expected


def test_reused_call_id_pairs_by_ordered_occurrence() -> None:
    partial = [
        msg("assistant", call("c1", arguments={"n": 1}), id="r1"),
        msg("tool", result("c1")),
        msg("assistant", call("c1", arguments={"n": 2}), id="r2"),
    ]
    plan = sanitize_partial_response([], partial)
    assert [m.id for m in plan.response_messages] == ["r1", None]
    assert reasons(plan) == [(2, 0, "unmatched_call"), (2, None, "empty_message")]


def test_empty_string_call_id_pairs_normally() -> None:
    partial = [
        msg("assistant", call("", "bash"), id="r1"),
        msg("tool", result("")),
        msg("assistant", text("and"), call("", "read"), id="r2"),
    ]
    plan = sanitize_partial_response([], partial)
    assert [len(m.parts) for m in plan.response_messages] == [1, 1, 1]
    assert reasons(plan) == [(2, 1, "unmatched_call")]
    assert plan.settled_call_ids == ("",)


def test_reemitted_call_first_wins_then_paired() -> None:
    updates = [
        update(call("c1", "lookup", arguments={"q": "x"}), role="assistant", messageId="r1"),
        update(call("c1", "lookup"), role="assistant", messageId="r1"),
        update(result("c1"), role="tool", messageId="t1"),
    ]
    plan = sanitize_partial_response([], updates)
    first, _ = plan.response_messages
    assert first.parts == (decode_content(updates[0]["contents"][0]),)
    assert reasons(plan) == [(0, 1, "reemitted_call")]
    assert_pairs(plan.response_messages)
    # without the merge, ordered pairing keeps the second copy and drops the first (E9)
    plain = sanitize_partial_response([], updates, dedupe_reemitted_calls=False)
    assert plain.response_messages[0].parts == (decode_content(updates[1]["contents"][0]),)
    assert reasons(plain) == [(0, 0, "repeated_call")]


def test_conflicting_repeated_call_keeps_the_later_copy() -> None:
    partial = [msg("assistant", call("c1", "f"), call("c1", "g")), msg("tool", result("c1"))]
    plan = sanitize_partial_response([], partial)
    assert [getattr(p, "name", None) for p in plan.response_messages[0].parts] == ["g"]
    assert reasons(plan) == [(0, 0, "repeated_call")]
    assert_pairs(plan.response_messages)


def test_hosted_call_without_result_removed_by_default() -> None:
    hosted = {"$type": "codeInterpreterToolCall", "callId": "ci1"}
    partial = [msg("assistant", text("Running."), hosted, id="r1")]
    plan = sanitize_partial_response([], partial)
    assert [p.kind for p in plan.response_messages[0].parts] == ["text"]
    assert reasons(plan) == [(0, 1, "unmatched_call")]


def test_hosted_call_without_result_kept_when_drop_hosted_unmatched_false() -> None:
    hosted = {"$type": "codeInterpreterToolCall", "callId": "ci1"}
    hosted_result = {"$type": "webSearchToolResult", "callId": "ws1"}
    partial = [msg("assistant", hosted, call("c1"), hosted_result, id="r1")]
    plan = sanitize_partial_response([], partial, drop_hosted_unmatched=False)
    assert encoded(plan)[0]["contents"] == [hosted, hosted_result]
    assert reasons(plan) == [(0, 1, "unmatched_call")]


def test_per_service_call_in_flight_call_only() -> None:
    # service call n: its request messages are the tool results of call n-1, whose call
    # is already stored and therefore not visible here
    request = [msg("tool", result("c0", "sunny"))]
    partial = [msg("assistant", text("It is sunny. Now "), call("c1", "book"), id="r5")]
    plan = sanitize_partial_response(request, partial)
    assert plan.request_messages == (decode_message(request[0]),)
    assert [encode_message(m) for m in plan.request_messages] == request
    assert [p.kind for p in plan.response_messages[0].parts] == ["text"]
    assert plan.settled_call_ids == ("c0",)
    scoped = sanitize_partial_response(request, partial, call_scope="partial+request")
    assert scoped.request_messages == plan.request_messages


def test_input_not_mutated() -> None:
    request = [USER, msg("assistant", call("c0"))]
    partial = [
        update(text("a", additionalProperties={"k": [1]}), role="assistant", messageId="r1"),
        update(text("b"), call("c1"), messageId="r1", additionalProperties={"p": {"q": 1}}),
        update(
            approval("ficc_c2", "c2"), {"$type": "usage", "details": {"additionalCounts": {"x": 1}}}
        ),
        update(result("c1"), role="tool"),
        update(result("c0"), role="tool"),
    ]
    state = {
        "pending": {"ficc_c2": approval("ficc_c2", "c2"), "ficc_c1": approval("ficc_c1", "c1")},
        "auto_approved": {"c1": call("c1")},
        "rules": [{"tool": "f"}],
    }
    before = copy.deepcopy((request, partial, state))
    messages = tuple(decode_message(m) for m in request)
    before_models = copy.deepcopy(messages)
    scopes: tuple[CallScope, ...] = ("partial", "partial+request")
    for scope in scopes:
        plan = sanitize_partial_response(request, partial, call_scope=scope)
        sanitize_partial_response(messages, plan.response_messages, call_scope=scope)
        new_state, _ = reconcile_approval_state(plan.messages, state, drop_abandoned=True)
        new_state["auto_approved"]["zz"] = call("zz")
        strip_partial_markers(plan.messages)
        coalesce_updates(partial)
    assert (request, partial, state) == before
    assert messages == before_models
    # results never alias the caller's objects
    assert plan.request_messages[0].native is not request[0]


def test_approval_state_settled_entries_removed() -> None:
    stored = [
        USER,
        msg("assistant", call("c1", "rm"), call("c3", "ls")),
        msg("tool", result("c1"), result("c3")),
        msg("user", {"$type": "toolApprovalResponse", "requestId": "ficc_c5", "approved": False}),
    ]
    state = {
        "pending": {
            "ficc_c1": approval("ficc_c1", "c1"),
            "ficc_c2": approval("ficc_c2", "c2"),
            "ficc_c5": approval("ficc_c5", "c5"),
        },
        "auto_approved": {"c3": call("c3", "ls"), "c4": call("c4", "ls")},
        "surfaced": {"ficc_c1": decode_content(approval("ficc_c1", "c1"))},
        "rules": {"ls": "always"},
    }
    new_state, removed = reconcile_approval_state(stored, state)
    assert list(new_state["pending"]) == ["ficc_c2"]
    assert list(new_state["auto_approved"]) == ["c4"]
    assert new_state["surfaced"] == {}
    assert new_state["rules"] == {"ls": "always"}
    assert removed == ("ficc_c1", "ficc_c5", "c3")


def test_approval_state_uses_ordered_pairing_for_reused_call_ids() -> None:
    stored = Transcript(
        messages=tuple(
            decode_message(m)
            for m in (
                msg("assistant", call("get_weather")),
                msg("tool", result("get_weather")),
                msg("assistant", call("get_weather")),
            )
        )
    )
    state = {"auto_approved": {"get_weather": call("get_weather")}}
    assert reconcile_approval_state(stored, state) == (state, ())
    mcp_only = [
        msg("assistant", {"$type": "mcpServerToolCall", "callId": "c1", "name": "s"}),
        msg("tool", {"$type": "mcpServerToolResult", "callId": "c1", "outputs": []}),
    ]
    # a function call c1 is not answered by an MCP result c1 (families stay apart)
    assert reconcile_approval_state(mcp_only, {"auto_approved": {"c1": call("c1")}})[1] == ()


def test_approval_state_unfinished_kept_by_default() -> None:
    plan = sanitize_partial_response([USER], [msg("assistant", approval("ficc_c9", "c9"))])
    state = {"pending": {"ficc_c9": approval("ficc_c9", "c9")}}
    assert reconcile_approval_state(plan.messages, state) == (state, ())


def test_approval_state_abandoned_removed_when_drop_abandoned() -> None:
    plan = sanitize_partial_response([USER], [msg("assistant", approval("ficc_c9", "c9"))])
    state = {
        "pending": {"ficc_c9": approval("ficc_c9", "c9"), "ficc_c8": approval("ficc_c8", "c8")},
        "queued": {"ficc_c9": approval("ficc_c9", "c9")},
    }
    new_state, removed = reconcile_approval_state(
        plan.messages,
        state,
        drop_abandoned=True,
        abandoned_request_ids=plan.abandoned_request_ids,
    )
    assert new_state == {"pending": {"ficc_c8": state["pending"]["ficc_c8"]}, "queued": {}}
    assert removed == ("ficc_c9",)
    # a request the stored transcript still mentions is not abandoned
    stored: list[Message | dict[str, Any]] = [
        *plan.messages,
        msg("assistant", approval("ficc_c9", "c9")),
    ]
    kept, _ = reconcile_approval_state(
        stored, state, drop_abandoned=True, abandoned_request_ids=["ficc_c9"]
    )
    assert kept == state


def test_approval_state_empty_pending_removes_key() -> None:
    stored = [msg("assistant", call("c1")), msg("tool", result("c1"))]
    state = {"pending": {"ficc_c1": approval("ficc_c1", "c1")}, "auto_approved": {"c1": call("c1")}}
    new_state, removed = reconcile_approval_state(stored, state)
    assert new_state == {"auto_approved": {}}
    assert removed == ("ficc_c1", "c1")
    assert reconcile_approval_state([], {"pending": {}}) == ({}, ())
    assert reconcile_approval_state([], {"rules": []}) == ({"rules": []}, ())


def test_approval_state_depends_only_on_stored_transcript() -> None:
    partial = [
        msg("assistant", call("c1"), call("c2"), id="r1"),
        msg("tool", result("c1"), id="t1"),
    ]
    state = {"auto_approved": {"c1": call("c1"), "c2": call("c2")}}
    plan = sanitize_partial_response([USER], partial)
    stored = Transcript(messages=plan.messages)
    expected = ({"auto_approved": {"c2": call("c2")}}, ("c1",))
    assert reconcile_approval_state(stored, state) == expected
    # the same stored history, read back from its native form, gives the same answer
    native = [encode_message(m) for m in plan.messages]
    assert reconcile_approval_state(native, state) == expected
    # what was not stored settles nothing, whatever the partial response held
    skipped = sanitize_partial_response([USER], partial, resumable=True)
    assert reconcile_approval_state(skipped.messages, state) == (state, ())


def test_idempotent() -> None:
    updates = [
        update(text("I'll "), role="assistant", messageId="r1"),
        update(text("look"), call("c1"), call("c2"), role="assistant", messageId="r1"),
        update(result("c1"), role="tool", messageId="t1"),
        update({"$type": "reasoning", "text": ""}, text(" "), role="assistant", messageId="r2"),
    ]
    plan = sanitize_partial_response([USER], updates)
    again = sanitize_partial_response(plan.request_messages, plan.response_messages)
    assert again == PersistPlan(
        request_messages=plan.request_messages,
        response_messages=plan.response_messages,
        settled_call_ids=plan.settled_call_ids,
    )


def test_resumable_stream_returns_empty_plan() -> None:
    plan = sanitize_partial_response([USER], [msg("assistant", text("x"))], resumable=True)
    assert plan == PersistPlan(skipped_reason="resumable")
    assert plan.messages == ()


# --- §1.4 coalescing and the updates/messages rule ---------------------------------------


def test_coalesce_message_boundaries_follow_id_role_and_author() -> None:
    updates = [
        update(text("a")),
        update(text("b"), messageId="m1"),  # the first message had no id: same message
        update(text("c"), messageId="m2"),
        update(text("d"), role="Assistant"),  # same role, ignoring case
        update(text("e"), role="tool"),
        update(text("f"), authorName="x"),
        update(text("g"), authorName="y"),
        update(text("h"), authorName=""),
    ]
    messages, usage = coalesce_updates(updates)
    assert [(m.role, m.id, m.author_name) for m in messages] == [
        ("assistant", "m1", None),
        ("Assistant", "m2", None),
        ("tool", None, "x"),
        ("assistant", None, ""),  # a new message is an assistant message
    ]
    assert [[p.text for p in m.parts if isinstance(p, TextPart)] for m in messages] == [
        ["ab"],
        ["cd"],
        ["ef"],
        ["gh"],
    ]
    assert usage == {}


def test_coalesce_merges_text_keeping_first_properties_and_splits_on_annotations() -> None:
    updates = [
        update(text("a", additionalProperties={"k": 1}), text("b", additionalProperties={"k": 2})),
        update(text("c", annotations=[{"$type": "citation"}]), text("d")),
    ]
    (message,), _ = coalesce_updates(updates)
    assert [(p.text, p.metadata) for p in message.parts if isinstance(p, TextPart)] == [
        ("ab", {"k": 1}),
        ("c", {}),
        ("d", {}),
    ]


def test_coalesce_merges_reasoning_until_protected_data() -> None:
    updates = [
        update(
            {"$type": "reasoning", "text": "a"},
            {"$type": "reasoning", "text": "b", "protectedData": "p1"},
            {"$type": "reasoning", "text": "c"},
            {"$type": "reasoning", "text": "d"},
            {"$type": "reasoning", "text": "e", "protectedData": "p2"},
            {"$type": "reasoning", "protectedData": "p3"},
        )
    ]
    (message,), _ = coalesce_updates(updates)
    parts = [(p.text, p.opaque) for p in message.parts if isinstance(p, ReasoningPart)]
    assert parts == [("ab", "p1"), ("cde", "p2"), (None, "p3")]


def test_coalesce_sums_usage_and_merges_properties_only_with_message_id() -> None:
    updates = [
        update(text("x"), messageId="m1", additionalProperties={"a": 1}),
        update(text("y"), additionalProperties={"response": True}),
        update(
            {"$type": "usage", "details": {"inputTokenCount": 3, "additionalCounts": {"k": 1}}},
            messageId="m1",
            additionalProperties={"b": 2},
        ),
        update(
            {
                "$type": "usage",
                "details": {"InputTokenCount": 4, "additionalCounts": {"k": 2, "j": 5}},
            }
        ),
    ]
    (message,), usage = coalesce_updates(updates)
    assert message.metadata == {"a": 1, "b": 2}
    assert not any(isinstance(p, UsagePart) for p in message.parts)
    assert usage == {"inputTokenCount": 7, "additionalCounts": {"k": 3, "j": 5}}


def test_canonical_messages_are_accepted_as_updates_and_as_messages() -> None:
    parts = (TextPart(text="a"),)
    items = [
        Message(role="assistant", id="r1", parts=parts),
        Message(role="assistant", id="r1", parts=(TextPart(text="b"),)),
    ]
    assert looks_like_updates(items)
    plan = sanitize_partial_response([], items)
    assert [
        [p.text for p in m.parts if isinstance(p, TextPart)] for m in plan.response_messages
    ] == [["ab"]]
    separate = sanitize_partial_response([], items, partial_is_updates=False)
    assert len(separate.response_messages) == 2


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ([], False),
        ([msg("assistant", text("a"), id="r1"), msg("tool", result("c"), id="r1")], False),
        ([msg("assistant", text("a"), id="r1"), msg("assistant", text("b"), id="r2")], False),
        ([msg("assistant", text("a"), id="r1"), msg("assistant", text("b"), id="r1")], True),
        ([msg("assistant", text("a")), update(text("b"))], True),
        ([update(text("b"), role=None)], True),
    ],
)
def test_updates_or_messages_auto_rule(items: list[Any], expected: bool) -> None:
    assert looks_like_updates(items) is expected


def test_strip_partial_markers() -> None:
    marked = Message(role="assistant", metadata={PARTIAL_RESPONSE_KEY: "TRUE", "k": 1})
    plain = Message(role="user")
    transcript = Transcript(messages=(plain, marked), format="meai")
    stripped = strip_partial_markers(transcript)
    assert stripped.messages == (plain, Message(role="assistant", metadata={"k": 1}))
    assert stripped.messages[0] is plain and stripped.format == "meai"
    assert strip_partial_markers(stripped) is stripped
    assert strip_partial_markers([marked], "k") == (
        Message(role="assistant", metadata={PARTIAL_RESPONSE_KEY: "TRUE"}),
    )
    assert not is_partial(encode_message(stripped.messages[1]))


# --- properties ---------------------------------------------------------------------------

IDS = st.sampled_from(["a", "b", ""])
CONTENTS = st.one_of(
    st.builds(text, st.sampled_from(["", " ", "\n", "hi", " x "])),
    st.builds(
        lambda t, pd: {
            "$type": "reasoning",
            "text": t,
            **({} if pd is None else {"protectedData": pd}),
        },
        st.sampled_from([None, "", " ", "think"]),
        st.sampled_from([None, "", "enc"]),
    ),
    st.builds(call, IDS, st.sampled_from(["f", "g", "handoff_to_x", "handoff_to_y"])),
    st.builds(result, IDS),
    st.builds(lambda i: {"$type": "mcpServerToolCall", "callId": i, "name": "s"}, IDS),
    st.builds(lambda i: {"$type": "mcpServerToolResult", "callId": i, "outputs": []}, IDS),
    st.builds(lambda i: {"$type": "codeInterpreterToolCall", "callId": i}, IDS),
    st.builds(lambda i: {"$type": "codeInterpreterToolResult", "callId": i}, IDS),
    st.builds(approval, st.sampled_from(["r1", "r2"]), IDS),
    st.builds(
        lambda r: {"$type": "toolApprovalResponse", "requestId": r, "approved": True},
        st.sampled_from(["r1", "r2"]),
    ),
    st.just({"$type": "usage", "details": {"inputTokenCount": 1}}),
)
MESSAGES = st.lists(
    st.builds(
        lambda role, mid, contents: msg(role, *contents, id=mid),
        st.sampled_from(["assistant", "Assistant", "tool"]),
        st.sampled_from([None, "m1", "m2"]),
        st.lists(CONTENTS, max_size=4),
    ),
    max_size=5,
)
REQUESTS = st.lists(
    st.builds(lambda c: msg("assistant", *c), st.lists(CONTENTS, max_size=2)), max_size=2
)


@settings(max_examples=300, deadline=None)
@given(
    request=REQUESTS,
    partial=MESSAGES,
    as_updates=st.booleans(),
    scope=st.sampled_from(["partial", "partial+request"]),
    dedupe=st.booleans(),
)
def test_property_sanitizing_is_idempotent_and_always_pairs(
    request: list[Any], partial: list[Any], as_updates: bool, scope: Any, dedupe: bool
) -> None:
    before = copy.deepcopy((request, partial))
    options: dict[str, Any] = {"call_scope": scope, "dedupe_reemitted_calls": dedupe}
    plan = sanitize_partial_response(request, partial, partial_is_updates=as_updates, **options)
    assert (request, partial) == before
    response = plan.response_messages
    assert_pairs(response, plan.request_messages if scope == "partial+request" else ())
    for message in response:
        assert is_partial(message) and message.parts
        for part in message.parts:
            assert not isinstance(part, ApprovalRequestPart | UsagePart)
            assert not isinstance(part, TextPart) or part.text.strip()
    again = sanitize_partial_response(request, response, partial_is_updates=False, **options)
    assert again.response_messages == response
    assert again.removed == () and again.usage == {}
    assert again.settled_call_ids == plan.settled_call_ids
