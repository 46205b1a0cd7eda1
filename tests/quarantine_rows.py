"""Rows for the `quarantine` of the Ray Data and Dask adapters, and what both must give:
a clean row, one a repair makes clean, one histnorm cannot read, and one whose errors no
safe fix removes (with a warning, which alone quarantines it under `strict`)."""

from __future__ import annotations

import json
from typing import Any

import histnorm


def _call(call_id: str, name: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


CLEAN = [
    {"role": "user", "content": "hi"},
    {"role": "assistant", "content": "hello"},
]
REPAIRABLE = [  # a result that answers no call (HN002): its fix removes it
    {"role": "user", "content": "Thanks"},
    {"role": "tool", "tool_call_id": "gone", "content": "42"},
    {"role": "assistant", "content": "You are welcome."},
]
UNREADABLE = [  # a message without a role (HN000)
    {"content": "who said this?"},
    {"role": "user", "content": "me"},
]
CONFLICT = [  # two tools under one call id: HN016 and HN010 (errors), HN007 (a warning)
    {"role": "user", "content": "Weather and time?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("c0", "w"), _call("c0", "t")]},
    {"role": "tool", "tool_call_id": "c0", "content": "4 C"},
    {"role": "tool", "tool_call_id": "c0", "content": "17:42"},
    {"role": "assistant", "content": "4 C at 17:42."},
]
ROWS = [{"id": i, "messages": m} for i, m in enumerate([CLEAN, REPAIRABLE, UNREADABLE, CONFLICT])]
WARNING_ONLY = {"select": ("HN002", "HN007")}
"""Options under which CONFLICT has only its HN007 warning left: kept unless `strict`."""


def without_none(value: Any) -> Any:
    """`value` without None-valued keys: a row as it was before Arrow unified it."""
    if isinstance(value, list):
        return [without_none(v) for v in value]
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    return value


def check_split(
    kept: list[dict[str, Any]],
    moved: list[dict[str, Any]],
    *,
    moved_ids: list[int],
    codes: dict[int, set[str]],
    numbered: bool,
    **options: Any,
) -> None:
    """`kept` and `moved` (as taken from the engine) are ROWS split in order, nothing lost:
    the kept rows repaired as `histnorm.repair(..., **options)` repairs them, the moved
    rows as they were with a reason naming their `row` (None unless `numbered`) and the
    `codes` of their diagnostics."""
    assert len(kept) + len(moved) == len(ROWS)
    assert sorted([r["id"] for r in kept] + [r["id"] for r in moved]) == [r["id"] for r in ROWS]
    assert [r["id"] for r in moved] == moved_ids
    assert [r["id"] for r in kept] == [r["id"] for r in ROWS if r["id"] not in moved_ids]
    for row in kept:
        repaired = histnorm.repair(ROWS[row["id"]]["messages"], **options).value
        assert without_none(row["messages"]) == without_none(repaired)
        assert "histnorm_reason" not in row
    for row in moved:
        assert without_none(row["messages"]) == without_none(ROWS[row["id"]]["messages"])
        reason = json.loads(row["histnorm_reason"])
        assert reason["row"] == (row["id"] if numbered else None)
        assert {d["code"] for d in reason["diagnostics"]} == codes[row["id"]]
        for found in reason["diagnostics"]:
            assert set(found) == {"code", "name", "severity", "message", "pointer"}
        if row["id"] == 2:
            assert reason["diagnostics"] == [
                {
                    "code": "HN000",
                    "name": "unreadable-transcript",
                    "severity": "error",
                    "message": "the message role is missing",
                    "pointer": "/0/role",
                }
            ]
    repaired = [r for r in kept if r["id"] == 1]
    assert [len(r["messages"]) for r in repaired] == [2]  # the orphan result is gone
