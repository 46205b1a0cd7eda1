"""Large transcripts: the shapes whose handling walks indexes built once per transcript
(turn ends, slot ranks, turn bounds of unknown content) give exactly what the walk per
call gave. Speed is measured in `benchmarks.scale`, not here."""

from __future__ import annotations

import orjson
import pytest
from outline_helpers import summary

import histnorm
from histnorm import edit, guard
from histnorm.formats import base
from histnorm.model import Message, TextPart, ToolCallPart, ToolResultPart, UnknownPart
from histnorm.settings import Scope

N = 2000
SYNTHESIZED = "Tool call was interrupted before it produced a result."


def _call(i: int) -> dict[str, object]:
    return {"id": f"c{i}", "type": "function", "function": {"name": "run", "arguments": "{}"}}


def _calls(ids: range) -> dict[str, object]:
    return {"role": "assistant", "content": None, "tool_calls": [_call(i) for i in ids]}


def _tool(i: int, content: str = "ok") -> dict[str, object]:
    return {"role": "tool", "tool_call_id": f"c{i}", "content": content}


def _fix(messages: list[dict[str, object]], **options: object) -> histnorm.FixResult:
    return histnorm.fix(orjson.dumps({"messages": messages}), format="openai-chat", **options)


def _messages(result: histnorm.FixResult) -> list[object]:
    return orjson.loads(histnorm.dump(result.transcript))["messages"]  # type: ignore[no-any-return]


GO, NEXT = {"role": "user", "content": "go"}, {"role": "user", "content": "next"}
HALF = [GO, _calls(range(N)), *(_tool(i) for i in range(0, N, 2)), NEXT]
"""2,000 parallel calls, every other one without a result."""


def test_fix_drops_every_other_call_of_a_large_batch():
    result = _fix(HALF)
    assert result.applied == {"HN001": N // 2}
    kept = {"role": "assistant", "content": None, "tool_calls": [_call(i) for i in range(0, N, 2)]}
    assert _messages(result) == [GO, kept, *(_tool(i) for i in range(0, N, 2)), NEXT]
    assert result.remaining == ()


def test_fix_synthesizes_every_other_result_of_a_large_batch():
    result = _fix(HALF, orphan_tool_call="synthesize")
    assert result.applied == {"HN001": N // 2}
    made = [_tool(i, SYNTHESIZED) for i in range(1, N, 2)]
    assert _messages(result) == [GO, _calls(range(N)), *HALF[2:-1], *made, NEXT]


def test_lint_reports_every_missing_result_of_a_large_batch_in_order():
    found = histnorm.lint(orjson.dumps({"messages": HALF}), format="openai-chat")
    assert [d.code for d in found] == ["HN001"] * (N // 2)
    assert [d.location.pointer for d in found] == [
        f"/messages/1/tool_calls/{i}" for i in range(1, N, 2)
    ]


def test_fix_moves_a_large_batch_of_displaced_results_in_call_order():
    results = [_tool(i) for i in range(N)]
    result = _fix([GO, _calls(range(N)), NEXT, *results])
    assert result.applied == {"HN008": N}
    assert _messages(result) == [GO, _calls(range(N)), *results, NEXT]


def test_fix_keeps_one_of_many_duplicate_results():
    result = _fix([GO, _calls(range(1)), *(_tool(0) for _ in range(N)), NEXT])
    assert result.applied == {"HN010": N - 1}
    assert _messages(result) == [GO, _calls(range(1)), _tool(0), NEXT]


def test_tail_scope_reports_only_after_the_last_user_message():
    data = orjson.dumps({"messages": [*HALF, _calls(range(N, N + 3))]})
    everywhere = histnorm.lint(data, format="openai-chat")
    assert {d.location.message_index for d in everywhere} == {1, N // 2 + 3}
    found = histnorm.lint(data, format="openai-chat", scope=Scope.TAIL)
    assert {d.location.message_index for d in found} == {N // 2 + 3}


@pytest.mark.parametrize(
    ("format", "data"),
    [
        (
            "anthropic",
            {
                "messages": [
                    {"role": "user", "content": "go"},
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "tool_use", "id": f"c{i}", "name": "f", "input": {}}
                            for i in range(N)
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": f"c{i}", "content": "ok"}
                            for i in range(N)
                        ],
                    },
                ]
            },
        ),
        (
            "meai",
            {
                "messages": [
                    {"role": "user", "contents": [{"$type": "text", "text": "go"}]},
                    {
                        "role": "assistant",
                        "contents": [
                            {"$type": "functionCall", "callId": f"c{i}", "name": "f"}
                            for i in range(N)
                        ],
                    },
                    {
                        "role": "tool",
                        "contents": [
                            {"$type": "functionResult", "callId": f"c{i}", "result": "ok"}
                            for i in range(N)
                        ],
                    },
                ]
            },
        ),
    ],
)
def test_shape_of_a_large_batch_keeps_every_id_in_order(format, data):
    shape = summary(histnorm.get_codec(format).read_outline(data))
    assert shape is not None
    ids = tuple(f"c{i}" for i in range(N))
    assert shape[1].calls == ids
    assert shape[2].results == ids
    assert histnorm.lint(data, format=format) == ()


def _naive_block_end(messages, index, items):
    end = index
    if items:
        while end + 1 < len(messages) and edit._call_only(messages[end + 1]):
            end += 1
    while end + 1 < len(messages) and edit.is_result_only(messages[end + 1]):
        end += 1
    return end


def _msg(role: str, *parts: object) -> Message:
    return Message(role=role, parts=tuple(parts))


TEXT = TextPart(text="hi")
CALL = ToolCallPart(call_id="c", name="f")
RESULT = ToolResultPart(call_id="c", content="ok")
MIXED = [
    _msg("user", TEXT),
    _msg("assistant", CALL),
    _msg("assistant", CALL, CALL),
    _msg("tool", RESULT),
    _msg("tool", RESULT, RESULT),
    _msg("user", TEXT),
    _msg("assistant", CALL),
    _msg("user", RESULT, TEXT),
    _msg("tool", RESULT),
    _msg("assistant", CALL),
    _msg("assistant", CALL),
]


@pytest.mark.parametrize("items", [False, True])
def test_block_end_matches_a_walk_from_each_message(items):
    messages = tuple(MIXED)
    for index in range(len(messages)):
        assert edit.block_end(messages, index, items) == _naive_block_end(messages, index, items)
        assert edit.open_at_end(messages, index, items) == (
            _naive_block_end(messages, index, items) == len(messages) - 1
        )


def test_block_end_of_a_list_is_not_kept_after_it_changes():
    messages = list(MIXED[:4])
    assert edit.block_end(messages, 1, True) == 3
    messages.append(MIXED[4])
    assert edit.block_end(messages, 1, True) == 4


def test_first_index_counts_parts_of_the_same_slot():
    parts = [TextPart(text=str(i), slot="a" if i % 3 else "b") for i in range(50)]
    message = Message(role="user", parts=tuple(parts))
    for index, part in enumerate(parts):
        for slot in ("a", "b", None):
            naive = sum(1 for p in parts[:index] if p.slot == slot)
            assert base.first_index(message, index, slot) == naive
        assert base.first_index(message, index, part.slot) == sum(
            1 for p in parts[:index] if p.slot == part.slot
        )


def _naive_bounds(messages, index):
    start = end = index
    while start > 0 and not guard._opens_turn(messages[start - 1]):
        start -= 1
    while end + 1 < len(messages) and not guard._opens_turn(messages[end + 1]):
        end += 1
    return start, end


def test_turn_bounds_match_a_walk_from_each_message():
    messages = [*MIXED, _msg("user", UnknownPart(native={"type": "x"})), _msg("user", TEXT)]
    starts, ends = guard._turn_bounds(messages)
    assert [(starts[i], ends[i]) for i in range(len(messages))] == [
        _naive_bounds(messages, i) for i in range(len(messages))
    ]
    assert guard._turn_bounds([]) == ([], [])


def test_keeps_finds_a_block_by_equal_messages_as_well_as_by_identity():
    before = histnorm.Transcript(messages=tuple(MIXED))
    block = guard.Block(1, 3, "/1")
    copied = tuple(m.model_copy(deep=True) for m in MIXED)
    assert guard.keeps(before, before, [block]) is None
    assert guard.keeps(before, before.evolve(messages=copied[1:]), [block]) is None
    broken = before.evolve(messages=(*MIXED[:2], *MIXED[3:]))
    assert guard.keeps(before, broken, [block]) == block
