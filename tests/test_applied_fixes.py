"""Each fix applied is recorded with the diagnostic it fixed and where that was:
`DocumentResult.fixes`, `LineResult.fixes`, `Repair.fixes`, one per fix counted in
`applied`."""

from __future__ import annotations

from collections import Counter

import orjson

import histnorm
from histnorm.document import fix_document, fix_lines, lint_document

ORPHAN = [
    {"role": "user", "content": "Weather?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_w", "type": "function", "function": {"name": "w", "arguments": "{}"}},
            {"id": "call_b", "type": "function", "function": {"name": "b", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_w", "content": "4 C"},
    {"role": "tool", "tool_call_id": "call_gone", "content": "?"},
    {"role": "user", "content": "Thanks."},
]


def test_a_document_records_each_fix_where_it_was_as_read():
    data = orjson.dumps({"messages": ORPHAN}, option=orjson.OPT_INDENT_2)
    result = fix_document(data)
    assert Counter(d.code for d in result.fixes) == Counter(result.applied)
    lines = data.splitlines()
    where = {d.code: (d.location.pointer, d.location.line or 0) for d in result.fixes}
    assert where.keys() == {"HN001", "HN002"}
    assert where["HN001"][0] == "/messages/1/tool_calls/1"
    assert b'"call_b"' in lines[where["HN001"][1]]  # the line of `{`, then its id
    assert where["HN002"][0] == "/messages/3"
    assert b'"call_gone"' in lines[where["HN002"][1] + 1]
    assert all(d.fix is not None for d in result.fixes)
    assert fix_document(result.output or b"").fixes == ()  # nothing left to fix
    assert lint_document(data).fixes == ()


def test_an_array_of_transcripts_and_jsonl_lines_say_which_transcript():
    array = orjson.dumps([{"messages": ORPHAN}, {"messages": ORPHAN[:1]}, {"messages": ORPHAN}])
    found = fix_document(array).fixes
    assert sorted({d.location.transcript_index for d in found}) == [0, 2]
    assert {d.location.pointer for d in found if d.code == "HN001"} == {
        "/0/messages/1/tool_calls/1",
        "/2/messages/1/tool_calls/1",
    }
    lines = [orjson.dumps({"messages": ORPHAN[:1]}) + b"\n", orjson.dumps(ORPHAN) + b"\n"]
    results = list(fix_lines(lines))
    assert results[0].fixes == ()
    assert {(d.code, d.location.line) for d in results[1].fixes} == {("HN001", 2), ("HN002", 2)}


def test_repair_records_each_fix():
    repaired = histnorm.repair(ORPHAN)
    assert Counter(d.code for d in repaired.fixes) == Counter(repaired.applied)
    assert {d.location.pointer for d in repaired.fixes} == {"/1/tool_calls/1", "/3"}
    from_bytes = histnorm.repair(orjson.dumps(ORPHAN))
    assert {d.location.line for d in from_bytes.fixes} == {1}
    assert histnorm.repair(ORPHAN[:1]).fixes == ()
