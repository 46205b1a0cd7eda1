"""The linter-side scenarios of behaviours.md (§2.9 items 28-29, §3.8 item 21, §4.10)."""

from __future__ import annotations

from collections import Counter

import orjson

import histnorm

EX_A8 = [
    {"role": "user", "contents": [{"$type": "text", "text": "Weather in Oslo?"}]},
    {
        "role": "assistant",
        "messageId": "r1",
        "contents": [
            {
                "$type": "functionCall",
                "callId": "c1",
                "name": "get_weather",
                "arguments": {"city": "Oslo"},
            }
        ],
    },
]


def test_linter_per_service_call_orphan_call_flagged_outside_marked_segment():
    # No message carries the partial marker: detection must not depend on it.
    assert [d.code for d in histnorm.lint(EX_A8)] == ["HN011"]
    (diagnostic,) = histnorm.lint(EX_A8, tail="close")
    assert (diagnostic.code, diagnostic.location.pointer) == ("HN001", "/1/contents/0")
    assert histnorm.lint(EX_A8, tail="close", scope="marked") == ()
    fixed = histnorm.fix(EX_A8, tail="close")
    assert histnorm.encode(fixed.transcript) == EX_A8[:1]


def test_linter_repeated_partial_turn_flagged():
    request = {"role": "user", "contents": [{"$type": "text", "text": "Plan my trip."}]}
    partial = {
        "role": "assistant",
        "contents": [{"$type": "text", "text": "Day 1"}],
        "additionalProperties": {"agent_framework.partial_response": True},
    }
    stored_twice = [request, partial, request]
    (diagnostic,) = histnorm.lint(stored_twice)
    assert (diagnostic.code, diagnostic.location.message_index) == ("HN012", 1)
    assert (
        histnorm.lint(
            [request, partial, {**request, "contents": [{"$type": "text", "text": "Go on."}]}]
        )
        == ()
    )


def test_linter_reuse_after_result_not_flagged():
    constant_id = []  # llama.cpp returns one call id for every call
    for n in range(3):
        constant_id += [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_0",
                        "type": "function",
                        "function": {"name": "step", "arguments": f'{{"n":{n}}}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_0", "content": str(n)},
        ]
    assert histnorm.lint(constant_id) == ()
    name_as_id = [  # Gemini-style providers use the function name as the call id
        {
            "role": "assistant",
            "contents": [
                {"$type": "functionCall", "callId": "search", "name": "search", "arguments": {}}
            ],
        },
        {
            "role": "tool",
            "contents": [{"$type": "functionResult", "callId": "search", "result": "a"}],
        },
        {
            "role": "assistant",
            "contents": [
                {"$type": "functionCall", "callId": "search", "name": "search", "arguments": {}}
            ],
        },
        {
            "role": "tool",
            "contents": [{"$type": "functionResult", "callId": "search", "result": "b"}],
        },
    ]
    assert histnorm.lint(name_as_id) == ()
    assert not histnorm.fix(name_as_id).changed


def test_linter_displaced_tool_result_fix_is_safe_move():
    ex_c7 = [
        {"role": "user", "contents": [{"$type": "text", "text": "Delete /tmp/x"}]},
        {
            "role": "assistant",
            "contents": [
                {
                    "$type": "functionCall",
                    "callId": "call_1",
                    "name": "rm",
                    "arguments": {"path": "/tmp/x"},
                }
            ],
        },
        {"role": "user", "contents": [{"$type": "text", "text": "By the way, keep it short."}]},
        {
            "role": "tool",
            "contents": [{"$type": "functionResult", "callId": "call_1", "result": "ok"}],
        },
    ]
    (diagnostic,) = histnorm.lint(ex_c7)
    assert diagnostic.code == "HN008"
    assert diagnostic.fix.applicability is histnorm.Applicability.SAFE
    fixed = histnorm.encode(histnorm.fix(ex_c7).transcript)
    assert fixed == [ex_c7[0], ex_c7[1], ex_c7[3], ex_c7[2]]

    def multiset(messages):
        return Counter(orjson.dumps(m) for m in messages)

    assert multiset(fixed) == multiset(ex_c7)


def test_linter_displaced_tool_result_not_an_error_for_responses_profile():
    items = [
        {"role": "user", "content": "Delete /tmp/x"},
        {"type": "function_call", "call_id": "call_1", "name": "rm", "arguments": "{}"},
        {"role": "user", "content": "By the way, keep it short."},
        {"type": "function_call_output", "call_id": "call_1", "output": "ok"},
    ]
    (diagnostic,) = histnorm.lint(items)
    assert diagnostic.code == "HN008"
    assert diagnostic.severity is histnorm.Severity.WARNING  # pairs by call_id anywhere
    (strict,) = histnorm.lint(items, profile="openai-chat")
    assert strict.severity is histnorm.Severity.ERROR
