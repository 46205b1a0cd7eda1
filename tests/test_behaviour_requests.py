"""Behaviour B (behaviours.md §3): repeated request IDs in one run, first wins.

One test per scenario of §3.8 (items 1 to 20), the worked examples Ex-B1 to Ex-B5, and
properties for the invariants I-B1 to I-B3.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from histnorm import encode, load
from histnorm.behaviours.handoffs import (
    TRANSFERRED,
    dedupe_handoff_candidates,
    handoff_result,
)
from histnorm.behaviours.requests import (
    Conflict,
    Duplicate,
    MergeResult,
    dedupe_transcript_requests,
    merge_repeated_requests,
    submit,
)
from histnorm.errors import HistnormError
from histnorm.formats.meai import decode_message
from histnorm.model import (
    SYNTHESIZED_KEY,
    ApprovalRequestPart,
    ApprovalResponsePart,
    Message,
    Part,
    ToolCallPart,
    ToolFamily,
    ToolResultPart,
    Transcript,
)
from histnorm.pairing import pair_transcript

HANDOFFS = {"handoff_to_0": "agentB", "handoff_to_1": "agentC"}


def fc(call_id: str, name: str, arguments: Any = None, **extra: Any) -> dict[str, Any]:
    content: dict[str, Any] = {"$type": "functionCall", "callId": call_id, "name": name}
    if arguments is not None:
        content["arguments"] = arguments
    return {**content, **extra}


def fr(call_id: str, result: Any = "ok") -> dict[str, Any]:
    return {"$type": "functionResult", "callId": call_id, "result": result}


def areq(request_id: str, call_id: str, name: str = "pay", arguments: Any = None) -> dict[str, Any]:
    return {
        "$type": "toolApprovalRequest",
        "requestId": request_id,
        "toolCall": fc(call_id, name, arguments),
    }


def aresp(request_id: str, call_id: str, approved: bool = True) -> dict[str, Any]:
    return {
        "$type": "toolApprovalResponse",
        "requestId": request_id,
        "approved": approved,
        "toolCall": fc(call_id, "pay"),
    }


def upd(*contents: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"contents": list(contents), **extra}


def call_ids(result: MergeResult) -> dict[str, tuple[str | None, Any]]:
    return {cid: (call.name, call.arguments) for cid, call in result.calls.items()}


def meai_transcript(*messages: dict[str, Any]) -> Transcript:
    return load(list(messages), format="meai")


# §3.8 scenarios 1 to 20


def test_repeated_function_call_same_name_submitted_once_no_warning():
    result = merge_repeated_requests(
        [upd(fc("c1", "lookup", {"q": "x"})), upd(fc("c1", "lookup", {"q": "x"}))]
    )
    assert call_ids(result) == {"c1": ("lookup", {"q": "x"})}
    assert [s.id for s in result.submissions] == ["c1"]
    assert result.warnings == () and result.warning_message is None
    assert result.conflicted_ids == ()
    assert result.duplicates == (Duplicate("function_call", "c1", (1, 0), (0, 0)),)


def test_repeated_approval_request_same_call_id_submitted_once_no_warning():
    result = merge_repeated_requests(
        [upd(areq("r1", "c1", arguments={"amt": 5})), upd(areq("r1", "c1", arguments={"amt": 9}))]
    )
    assert list(result.approvals) == ["r1"]
    first = result.approvals["r1"]
    assert first.tool_call is not None and first.tool_call.arguments == {"amt": 5}
    assert [(s.kind, s.id) for s in result.submissions] == [("approval_request", "r1")]
    assert result.warnings == () and result.warning_message is None
    assert result.duplicates == (Duplicate("approval_request", "r1", (1, 0), (0, 0)),)


def test_repeated_approval_request_different_call_id_first_kept_warning():
    result = merge_repeated_requests([upd(areq("ficc_c1", "c1")), upd(areq("ficc_c1", "c2"))])
    kept = result.approvals["ficc_c1"].tool_call
    assert kept is not None and kept.call_id == "c1"
    (warning,) = result.warnings
    assert (warning.kind, warning.id, warning.kept, warning.dropped) == (
        "approval_request",
        "ficc_c1",
        "c1",
        "c2",
    )
    assert warning.update_position == (1, 0) and warning.first_position == (0, 0)
    assert warning.message == (
        "Repeated RequestId 'ficc_c1' carried a different ToolCall.CallId ('c2'); "
        "keeping the first ('c1')."
    )
    assert result.warning_message == (
        "Conflicting requests under repeated IDs were not serviced: ficc_c1."
    )
    assert result.duplicates == ()


def test_repeated_function_call_different_name_first_kept_warning():
    result = merge_repeated_requests([upd(fc("c1", "f")), upd(fc("c1", "g"))])
    assert call_ids(result) == {"c1": ("f", None)}
    assert result.warnings == (
        Conflict(
            "function_call",
            "c1",
            "f",
            "g",
            (1, 0),
            "Repeated CallId 'c1' carried a different function name ('g'); "
            "keeping the first ('f').",
            (0, 0),
        ),
    )
    assert result.conflicted_ids == ("c1",)


def test_repeated_function_call_different_arguments_first_kept_no_warning():
    result = merge_repeated_requests(
        [upd(fc("c1", "lookup", {"q": "x"})), upd(fc("c1", "lookup", {"q": "y", "n": 2}))]
    )
    assert call_ids(result) == {"c1": ("lookup", {"q": "x"})}
    assert result.warnings == ()
    assert len(result.duplicates) == 1


def test_repeated_function_call_argumentless_reemission_first_arguments_kept():
    placeholder = fc("c1", "search_tool", additionalProperties={"foundry.item_id": "fc_1"})
    result = merge_repeated_requests(
        [upd(fc("c1", "search_tool", {"query": "weather"})), upd(placeholder)]
    )
    call = result.calls["c1"]
    assert call.arguments == {"query": "weather"} and call.metadata == {}
    assert result.warnings == ()
    assert [d.update_position for d in result.duplicates] == [(1, 0)]


def test_response_removes_pending_then_reemitted_id_is_new_request():
    result = merge_repeated_requests(
        [upd(areq("r1", "c1")), upd(aresp("r1", "c1")), upd(areq("r1", "c9"))]
    )
    kept = result.approvals["r1"].tool_call
    assert kept is not None and kept.call_id == "c9"
    assert [s.update_position for s in result.submissions] == [(2, 0)]
    assert result.warnings == () and result.duplicates == ()


def test_result_removes_pending_call():
    assert merge_repeated_requests([upd(fc("c1", "f")), upd(fr("c1"))]).calls == {}
    result = merge_repeated_requests([upd(fc("c1", "f"), fc("c2", "g")), upd(fr("c1"))])
    assert list(result.calls) == ["c2"]
    # A result with nothing pending changes nothing and is not a warning.
    result = merge_repeated_requests([upd(fr("zz")), upd(fc("c1", "f"))])
    assert list(result.calls) == ["c1"] and result.warnings == ()


def test_filtered_calls_not_collected():
    stream = [
        upd(fc("h1", "handoff_to_0"), fc("c1", "skip_me"), fc("c2", "keep")),
        upd(fc("h1", "handoff_to_1"), fc("c1", "other")),
        upd({"$type": "mcpServerToolCall", "callId": "m1", "name": "x", "serverName": "s"}),
    ]
    result = merge_repeated_requests(stream, call_filter=lambda c: c.name != "skip_me")
    # Handoff calls are never collected (the handoff filter returns false for them), calls
    # the filter rejects are not collected and so cannot conflict, and hosted MCP calls are
    # not function calls.
    assert list(result.calls) == ["c2", "c1"]
    assert result.calls["c1"].name == "other"
    assert result.warnings == () and result.duplicates == ()
    unfiltered = merge_repeated_requests(stream)
    assert list(unfiltered.calls) == ["c1", "c2"]
    assert [w.id for w in unfiltered.warnings] == ["c1"]


def test_non_streaming_response_duplicates_within_one_response_merged():
    response = decode_message(
        {
            "role": "assistant",
            "contents": [
                fc("c1", "f", {"a": 1}),
                areq("r1", "c5"),
                fc("c1", "f"),
                areq("r1", "c5"),
                fc("c1", "g"),
                fc("c2", "h"),
                fr("c2"),
            ],
        }
    )
    result = merge_repeated_requests([response])
    assert result.calls == {"c1": response.parts[0]}
    assert result.calls["c1"] is response.parts[0]
    assert result.approvals["r1"] is response.parts[1]
    assert [d.update_position for d in result.duplicates] == [(0, 2), (0, 3)]
    assert [w.update_position for w in result.warnings] == [(0, 4)]


def test_no_exception_on_any_repeat():
    stream = [
        upd(fc("", "a"), fc("", "a"), fc("", "b"), areq("", ""), areq("", "x")),
        upd(areq("", ""), fr(""), fr(""), fc("", ""), aresp("", ""), aresp("", "")),
        upd(fc("x", "handoff_to_0"), fc("x", "handoff_to_0"), fc("x", "f"), fc("x", "g")),
        upd(),
        {"contents": None},
        {"role": "assistant"},
        Message(role="assistant"),
    ]
    result = merge_repeated_requests(stream)
    assert result.warning_message is not None
    assert result.conflicted_ids == ("", "x")
    again = merge_repeated_requests(stream, call_filter=lambda c: False)
    assert again.calls == {}


def test_single_aggregated_warning_names_all_conflicting_ids():
    result = merge_repeated_requests(
        [
            upd(areq("ficc_c1", "c1"), fc("c1", "f")),
            upd(areq("ficc_c1", "c2"), fc("c1", "g")),
            upd(fc("c1", "h"), areq("ficc_c1", "c3")),
        ]
    )
    assert len(result.warnings) == 4
    assert result.conflicted_ids == ("ficc_c1", "c1")
    assert result.warning_message == (
        "Conflicting requests under repeated IDs were not serviced: ficc_c1, c1."
    )


def test_per_conflict_records_in_detection_order():
    result = merge_repeated_requests(
        [
            upd(fc("c1", "f"), areq("r1", "a"), fc("c2", "f")),
            upd(fc("c2", "g"), areq("r1", "b"), fc("c1", "f")),
            upd(fc("c1", "h")),
        ]
    )
    assert [(w.kind, w.id, w.dropped, w.update_position) for w in result.warnings] == [
        ("function_call", "c2", "g", (1, 0)),
        ("approval_request", "r1", "b", (1, 1)),
        ("function_call", "c1", "h", (2, 0)),
    ]
    assert [d.update_position for d in result.duplicates] == [(1, 2)]


def test_handoff_candidate_same_call_id_and_target_deduped_no_duplicate_warning():
    candidates, chosen, warnings = dedupe_handoff_candidates(
        [
            upd(fc("h1", "handoff_to_0", {"reason": "x"}), responseId="resp_1"),
            upd(fc("h1", "handoff_to_0"), responseId="resp_2"),
        ],
        HANDOFFS,
    )
    assert len(candidates) == 1 and chosen is candidates[0]
    assert (chosen.call_id, chosen.name) == ("h1", "handoff_to_0")
    assert chosen.response_id == "resp_1" and chosen.update_position == (0, 0)
    assert chosen.call.arguments == {"reason": "x"}
    assert warnings == ()


def test_handoff_candidates_distinct_last_wins_warning():
    candidates, chosen, warnings = dedupe_handoff_candidates(
        [upd(fc("h1", "handoff_to_0")), upd(fc("h2", "handoff_to_1"))], HANDOFFS
    )
    assert [(c.call_id, c.name) for c in candidates] == [
        ("h1", "handoff_to_0"),
        ("h2", "handoff_to_1"),
    ]
    assert chosen is candidates[-1]
    assert warnings == (
        "Duplicate handoff requests in single turn ([handoff_to_0, handoff_to_1]). "
        "Using last (handoff_to_1)",
    )


def test_handoff_candidates_same_call_id_different_target_not_coalesced_warning():
    candidates, chosen, warnings = dedupe_handoff_candidates(
        [
            upd(fc("h1", "handoff_to_0")),
            upd(fc("h1", "handoff_to_1")),
            upd(fc("h1", "handoff_to_0")),
        ],
        HANDOFFS,
    )
    assert [(c.call_id, c.name, c.update_position) for c in candidates] == [
        ("h1", "handoff_to_0", (0, 0)),
        ("h1", "handoff_to_1", (1, 0)),
    ]
    assert chosen is not None and chosen.name == "handoff_to_1"
    assert warnings == (
        "Duplicate handoff requests in single turn ([handoff_to_0, handoff_to_1]). "
        "Using last (handoff_to_1)",
    )


def test_handoff_result_created_once_for_chosen_call_id():
    stream = [
        upd(fc("h1", "handoff_to_0")),
        upd(fc("h1", "handoff_to_0"), fc("c9", "lookup")),
        upd(fc("h2", "handoff_to_1")),
        upd(fc("h2", "handoff_to_1")),
    ]
    candidates, chosen, _ = dedupe_handoff_candidates(stream, set(HANDOFFS))
    assert len(candidates) == 2 and chosen is not None
    message = handoff_result(chosen)
    assert message.role == "tool"
    (result,) = message.parts
    assert isinstance(result, ToolResultPart)
    assert result.call_id == "h2" and result.content == TRANSFERRED == "Transferred."
    assert result.family is ToolFamily.FUNCTION and result.metadata == {SYNTHESIZED_KEY: True}
    assert handoff_result(chosen) == message
    native = encode(Transcript(messages=(message,), format="meai"))
    assert native[0]["contents"][0]["$type"] == "functionResult"
    assert native[0]["contents"][0]["callId"] == "h2"
    # No candidate, nothing to answer.
    assert dedupe_handoff_candidates([upd(fc("c1", "lookup"))], HANDOFFS) == ((), None, ())


def test_empty_string_ids_are_ordinary_keys():
    result = merge_repeated_requests(
        [
            upd(fc("", "bash", {"cmd": "ls"})),
            upd(fc("", "read", {"path": "a"})),
            upd(fr("", "a.txt")),
            upd(fc("", "bash", {"cmd": "pwd"})),
            upd(areq("", "")),
            upd(areq("", "x")),
        ]
    )
    assert call_ids(result) == {"": ("bash", {"cmd": "pwd"})}
    assert list(result.approvals) == [""]
    assert [(w.kind, w.id) for w in result.warnings] == [
        ("function_call", ""),
        ("approval_request", ""),
    ]
    assert result.warnings[0].message == (
        "Repeated CallId '' carried a different function name ('read'); keeping the first ('bash')."
    )
    assert result.conflicted_ids == ("",)
    assert result.warning_message == (
        "Conflicting requests under repeated IDs were not serviced: ''."
    )


def test_transcript_dedupe_duplicate_approval_request_removed():
    native = [
        {"role": "user", "contents": [{"$type": "text", "text": "pay 5"}]},
        {"role": "assistant", "messageId": "m1", "contents": [areq("ficc_c1", "c1")]},
        {
            "role": "assistant",
            "messageId": "m2",
            "contents": [{"$type": "text", "text": "again"}, areq("ficc_c1", "c1")],
        },
        {"role": "assistant", "messageId": "m3", "contents": [areq("ficc_c1", "c1")]},
        {"role": "user", "contents": [aresp("ficc_c1", "c1")]},
    ]
    before = copy.deepcopy(native)
    transcript = meai_transcript(*native)
    out, removed, conflicts = dedupe_transcript_requests(transcript)
    assert removed == ((2, 1), (3, 0)) and conflicts == ()
    assert len(out.messages) == 4
    for index in (0, 1):
        assert out.messages[index] is transcript.messages[index]
    assert out.messages[3] is transcript.messages[4]
    assert [p.kind for p in out.messages[2].parts] == ["text"]
    trimmed = {**before[2], "contents": [before[2]["contents"][0]]}
    assert encode(out) == [before[0], before[1], trimmed, before[4]]
    assert native == before
    pairing = pair_transcript(out)
    assert pairing.repeats == () and pairing.pending_requests == ()


# Worked examples Ex-B1 to Ex-B5


def test_ex_b1_benign_reemission_across_updates():
    result = merge_repeated_requests([upd(fc("c1", "lookup", {"q": "x"})), upd(fc("c1", "lookup"))])
    assert call_ids(result) == {"c1": ("lookup", {"q": "x"})}
    assert result.warnings == ()
    assert [(d.id, d.update_position[0]) for d in result.duplicates] == [("c1", 1)]


def test_ex_b2_conflicting_approval_under_one_request_id():
    result = merge_repeated_requests(
        [upd(areq("r1", "c1", arguments={"amt": 5})), upd(areq("r1", "c2", arguments={"amt": 500}))]
    )
    kept = result.approvals["r1"].tool_call
    assert kept is not None and (kept.call_id, kept.arguments) == ("c1", {"amt": 5})
    assert [(w.kind, w.id, w.kept, w.dropped) for w in result.warnings] == [
        ("approval_request", "r1", "c1", "c2")
    ]
    assert result.warning_message is not None and "r1" in result.warning_message


def test_ex_b3_conflicting_function_name_under_one_call_id():
    result = merge_repeated_requests([upd(fc("c1", "f")), upd(fc("c1", "g"))])
    assert call_ids(result) == {"c1": ("f", None)}
    assert [(w.kind, w.id, w.kept, w.dropped) for w in result.warnings] == [
        ("function_call", "c1", "f", "g")
    ]


def test_ex_b4_resolution_then_reuse():
    result = merge_repeated_requests([upd(fc("c1", "f")), upd(fr("c1")), upd(fc("c1", "f"))])
    assert call_ids(result) == {"c1": ("f", None)}
    assert result.submissions[0].update_position == (2, 0)
    assert result.warnings == () and result.duplicates == () and result.warning_message is None


@pytest.mark.parametrize(
    ("stream", "expected", "chosen_call", "warned"),
    [
        pytest.param(
            [("h1", "handoff_to_0"), ("h1", "handoff_to_0")],
            [("h1", "handoff_to_0")],
            ("h1", "handoff_to_0"),
            False,
            id="a-reemission",
        ),
        pytest.param(
            [("h1", "handoff_to_0"), ("h2", "handoff_to_1")],
            [("h1", "handoff_to_0"), ("h2", "handoff_to_1")],
            ("h2", "handoff_to_1"),
            True,
            id="b-distinct",
        ),
        pytest.param(
            [("h1", "handoff_to_0"), ("h1", "handoff_to_1")],
            [("h1", "handoff_to_0"), ("h1", "handoff_to_1")],
            ("h1", "handoff_to_1"),
            True,
            id="c-same-id-new-target",
        ),
    ],
)
def test_ex_b5_handoff_candidates(stream, expected, chosen_call, warned):
    candidates, chosen, warnings = dedupe_handoff_candidates(
        [upd(fc(cid, name)) for cid, name in stream], HANDOFFS
    )
    assert [(c.call_id, c.name) for c in candidates] == expected
    assert chosen is not None and (chosen.call_id, chosen.name) == chosen_call
    assert bool(warnings) is warned
    if warned:
        names = ", ".join(name for _, name in expected)
        assert warnings == (
            f"Duplicate handoff requests in single turn ([{names}]). Using last ({chosen.name})",
        )


def test_external_handler_already_pending_id_not_reposted_across_turns():
    turn1 = merge_repeated_requests([upd(areq("r1", "c1"), fc("k1", "lookup"))])
    posted, outstanding = submit(turn1)
    assert [(s.kind, s.id) for s in posted] == [
        ("approval_request", "r1"),
        ("function_call", "k1"),
    ]
    turn2 = merge_repeated_requests([upd(areq("r1", "c1")), upd(areq("r2", "c2"))])
    assert [s.id for s in turn2.submissions] == ["r1", "r2"]
    posted, outstanding = submit(turn2, outstanding=outstanding)
    assert [s.id for s in posted] == ["r2"]
    assert outstanding == {
        ("approval_request", "r1"),
        ("approval_request", "r2"),
        ("function_call", "k1"),
    }
    # Once r1 is answered it is free again, so a later turn posts it anew.
    posted, _ = submit(turn2, outstanding=outstanding - {("approval_request", "r1")})
    assert [s.id for s in posted] == ["r1"]


# Further edges


def test_approval_wrapping_another_call_kind_is_a_conflict():
    mcp = {
        "$type": "toolApprovalRequest",
        "requestId": "r1",
        "toolCall": {
            "$type": "mcpServerToolCall",
            "callId": "c1",
            "name": "pay",
            "serverName": "s",
        },
    }
    result = merge_repeated_requests([upd(areq("r1", "c1")), upd(mcp)])
    (warning,) = result.warnings
    assert (warning.kept, warning.dropped) == ("c1", "c1")
    assert warning.message == (
        "Repeated RequestId 'r1' carried a different ToolCall kind ('mcpServerToolCall'); "
        "keeping the first ('functionCall')."
    )


def test_requires_confirmation_difference_is_not_a_conflict():
    second = {**areq("r1", "c1"), "requiresConfirmation": False}
    result = merge_repeated_requests([upd(areq("r1", "c1")), upd(second)])
    assert result.warnings == () and len(result.duplicates) == 1
    assert result.approvals["r1"].requires_confirmation is True


def test_pascal_case_updates_and_canonical_messages_mix():
    pascal = {
        "Contents": [{"$type": "functionCall", "CallId": "c1", "Name": "f", "Arguments": {"a": 1}}]
    }
    canonical = Message(
        role="assistant", parts=(ToolCallPart(call_id="c1", name="f", arguments={"a": 2}),)
    )
    result = merge_repeated_requests([pascal, canonical])
    assert result.calls["c1"].arguments == {"a": 1}
    assert result.duplicates == (Duplicate("function_call", "c1", (1, 0), (0, 0)),)


def test_merge_does_not_mutate_its_input():
    stream = [upd(fc("c1", "f", {"a": [1]})), upd(fc("c1", "g")), upd(areq("r", "c"))]
    before = copy.deepcopy(stream)
    merge_repeated_requests(stream)
    dedupe_handoff_candidates(stream, HANDOFFS)
    assert stream == before


@pytest.mark.parametrize(
    ("update", "pointer"),
    [
        ({"contents": [{"$type": "functionCall", "name": "f"}]}, "/0/contents/0/callId"),
        ({"contents": "nope"}, "/0/contents"),
        ({"contents": [3]}, "/0/contents/0"),
        ("not an update", "/0"),
    ],
)
def test_unreadable_native_update_raises_histnorm_error(update, pointer):
    with pytest.raises(HistnormError) as info:
        merge_repeated_requests([update])
    assert info.value.pointer == pointer


def test_transcript_dedupe_reports_conflicts_without_removing():
    transcript = meai_transcript(
        {"role": "assistant", "contents": [fc("", "bash", {"cmd": "ls"})]},
        {"role": "assistant", "contents": [fc("", "read", {"path": "a"})]},
        {"role": "tool", "contents": [fr("", "a.txt")]},
        {"role": "assistant", "contents": [fc("", "bash", {"cmd": "pwd"})]},
    )
    out, removed, conflicts = dedupe_transcript_requests(transcript)
    assert out is transcript and removed == ()
    assert [(c.kind, c.id, c.kept, c.dropped, c.update_position) for c in conflicts] == [
        ("function_call", "", "bash", "read", (1, 0))
    ]


def test_transcript_dedupe_removes_repeated_calls_but_never_reused_ones():
    transcript = meai_transcript(
        {"role": "assistant", "contents": [fc("c1", "f", {"a": 1}), fc("c1", "f")]},
        {"role": "assistant", "contents": [fc("c1", "f"), fc("h", "handoff_to_0")]},
        {"role": "tool", "contents": [fr("c1")]},
        {"role": "assistant", "contents": [fc("c1", "f"), fc("h", "handoff_to_0")]},
        {"role": "assistant", "contents": [fc("h", "handoff_to_1")]},
    )
    out, removed, conflicts = dedupe_transcript_requests(transcript)
    assert removed == ((0, 1), (1, 0), (3, 1)) and conflicts == ()
    assert [[p.kind for p in m.parts] for m in out.messages] == [
        ["tool_call"],
        ["tool_call"],
        ["tool_result"],
        ["tool_call"],
        ["tool_call"],
    ]
    assert out.messages[2] is transcript.messages[2] and out.messages[4] is transcript.messages[4]
    first = out.messages[0].parts[0]
    assert isinstance(first, ToolCallPart) and first.arguments == {"a": 1}


# Properties

IDS = st.sampled_from(["", "a", "b"])
NAMES = st.sampled_from(["f", "g", "handoff_to_0"])
CONTENTS = st.one_of(
    st.builds(fc, IDS, NAMES),
    st.builds(fr, IDS),
    st.builds(areq, IDS, IDS),
    st.builds(aresp, IDS, IDS),
    st.builds(
        lambda r, c: {
            "$type": "toolApprovalRequest",
            "requestId": r,
            "toolCall": {"$type": "mcpServerToolCall", "callId": c, "name": "m", "serverName": "s"},
        },
        IDS,
        IDS,
    ),
    st.builds(lambda c: {"$type": "mcpServerToolCall", "callId": c, "name": "m"}, IDS),
    st.builds(lambda c: {"$type": "mcpServerToolResult", "callId": c, "outputs": []}, IDS),
    st.just({"$type": "text", "text": "hi"}),
)
STREAMS = st.lists(
    st.tuples(st.lists(CONTENTS, max_size=4), st.booleans()),
    max_size=6,
).map(
    lambda updates: [
        decode_message({"role": "assistant", "contents": c}) if as_message else upd(*c)
        for c, as_message in updates
    ]
)
FILTERS = st.sampled_from([None, lambda call: call.name != "g"])


def _parts(stream: list[Any]) -> list[tuple[tuple[int, int], Part]]:
    out = []
    for ui, update in enumerate(stream):
        message = (
            update
            if isinstance(update, Message)
            else decode_message({"role": "assistant", **update})
        )
        out.extend(((ui, ci), part) for ci, part in enumerate(message.parts))
    return out


def _reference(stream: list[Any], call_filter: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """RB-1 to RB-5 as plain dictionaries: (id -> position) of what is pending at the end."""
    approvals: dict[str, Any] = {}
    calls: dict[str, Any] = {}
    for position, part in _parts(stream):
        if isinstance(part, ApprovalRequestPart):
            approvals.setdefault(part.request_id, position)
        elif isinstance(part, ApprovalResponsePart):
            approvals.pop(part.request_id, None)
        elif isinstance(part, ToolCallPart):
            if part.family is ToolFamily.FUNCTION and (call_filter is None or call_filter(part)):
                calls.setdefault(part.call_id or "", position)
        elif isinstance(part, ToolResultPart) and part.family is ToolFamily.FUNCTION:
            calls.pop(part.call_id or "", None)
    return approvals, calls


def _without(stream: list[Any], positions: set[tuple[int, int]]) -> list[Any]:
    kept: dict[int, list[Part]] = {ui: [] for ui in range(len(stream))}
    for position, part in _parts(stream):
        if position not in positions:
            kept[position[0]].append(part)
    return [Message(role="assistant", parts=tuple(kept[ui])) for ui in range(len(stream))]


@settings(max_examples=300, deadline=None)
@given(STREAMS, FILTERS)
def test_property_submitted_ids_are_the_pending_ids_and_conflicts_change_nothing(
    stream, call_filter
):
    result = merge_repeated_requests(stream, call_filter=call_filter)
    approvals, calls = _reference(stream, call_filter)
    # I-B1: the IDs submitted are the IDs pending at the end, each once; I-B2: first copy.
    assert [(s.id, s.update_position) for s in result.submissions] == [
        *approvals.items(),
        *calls.items(),
    ]
    assert list(result.approvals) == list(approvals) and list(result.calls) == list(calls)
    assert (result.warning_message is None) == (result.warnings == ())
    assert result.conflicted_ids == tuple(dict.fromkeys(w.id for w in result.warnings))
    # I-B3: dropping every repeat (conflicting or benign) leaves the same pending requests.
    repeats = {w.update_position for w in result.warnings}
    repeats |= {d.update_position for d in result.duplicates}
    for dropped in (repeats, {w.update_position for w in result.warnings}):
        again = merge_repeated_requests(_without(stream, dropped), call_filter=call_filter)
        assert dict(again.approvals) == dict(result.approvals)
        assert dict(again.calls) == dict(result.calls)
        assert again.warnings == ()
        assert again.duplicates == () or dropped != repeats


@settings(max_examples=200, deadline=None)
@given(STREAMS)
def test_property_transcript_dedupe_is_idempotent_and_keeps_pairing(stream):
    transcript = Transcript(
        messages=tuple(
            m if isinstance(m, Message) else decode_message({"role": "assistant", **m})
            for m in stream
        ),
        format="meai",
    )
    out, removed, conflicts = dedupe_transcript_requests(transcript)
    again, removed_again, conflicts_again = dedupe_transcript_requests(out)
    assert again is out and removed_again == ()
    assert [c.message for c in conflicts_again] == [c.message for c in conflicts]
    before, after = pair_transcript(transcript), pair_transcript(out)
    for name in ("pending_requests", "unmatched_calls", "call_results", "orphan_results"):
        assert len(getattr(after, name)) == len(getattr(before, name))
    assert len(removed) == sum(
        1 for r in before.repeats if not r.conflict and r.position not in mcp_positions(transcript)
    )
    leftover = [r for r in after.repeats if not r.conflict]
    assert all(r.position in mcp_positions(out) for r in leftover)


def mcp_positions(transcript: Transcript) -> set[tuple[int, int]]:
    return {
        (mi, pi)
        for mi, m in enumerate(transcript.messages)
        for pi, p in enumerate(m.parts)
        if isinstance(p, ToolCallPart) and p.family is ToolFamily.MCP
    }
