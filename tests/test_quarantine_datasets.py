"""`histnorm.integrations.datasets.quarantine`: a Hugging Face dataset split into the rows
a repair makes clean (repaired) and the rows it cannot (as they were, with a reason
column), both in the dataset's order."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

pytest.importorskip("datasets")

import datasets
from test_integration_datasets import ANSWERED, ORPHAN, PLAIN

from histnorm.integrations.datasets import Quarantiner, quarantine, repairer

ORPHAN_RESULT = [  # a result that answers no call (HN002): its fix removes it
    {"role": "user", "content": "Thanks"},
    {"role": "tool", "tool_call_id": "gone", "content": "42"},
    {"role": "assistant", "content": "You are welcome."},
]


def _dataset(*conversations: list[dict[str, Any]]) -> Any:
    return datasets.Dataset.from_list(
        [{"messages": m, "id": i} for i, m in enumerate(conversations)]
    )


def test_rows_a_repair_cannot_make_clean_are_quarantined_with_their_reason() -> None:
    ds = _dataset(ANSWERED, ORPHAN, PLAIN, ORPHAN_RESULT, ORPHAN)
    kept, moved = quarantine(ds, orphan_tool_call="fail", batch_size=2)
    repaired = ds.map(repairer(orphan_tool_call="fail"), batched=True)
    assert kept["id"] == [0, 2, 3]
    assert kept.column_names == ds.column_names
    assert kept["messages"] == [repaired[i]["messages"] for i in (0, 2, 3)]
    assert kept[2]["messages"] != ds[3]["messages"]  # repaired
    assert moved["id"] == [1, 4]
    assert moved["messages"] == [ds[1]["messages"], ds[4]["messages"]]  # as they were
    reasons = [json.loads(r) for r in moved["histnorm_reason"]]
    assert [r["row"] for r in reasons] == [1, 4]
    assert reasons[0]["diagnostics"] == [
        {
            "code": "HN001",
            "name": "orphan-tool-call",
            "severity": "error",
            "message": "tool call without an id (book) has no result, but later messages follow",
            "pointer": "/1/tool_calls/0",
        }
    ]


def test_nothing_is_quarantined_when_every_row_can_be_repaired() -> None:
    ds = _dataset(ANSWERED, ORPHAN, PLAIN, ORPHAN_RESULT)
    kept, moved = quarantine(ds, reason_column="why")
    assert moved.num_rows == 0 and moved.column_names == [*ds.column_names, "why"]
    assert kept["messages"] == ds.map(repairer(), batched=True)["messages"]
    again, none = quarantine(kept)
    assert again["messages"] == kept["messages"] and none.num_rows == 0


def test_strict_quarantines_warnings_too() -> None:
    conflict = [
        {"role": "user", "content": "Weather and time?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c0", "type": "function", "function": {"name": "w", "arguments": "{}"}},
                {"id": "c0", "type": "function", "function": {"name": "t", "arguments": "{}"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c0", "content": "4 C"},
        {"role": "tool", "tool_call_id": "c0", "content": "17:42"},
        {"role": "assistant", "content": "4 C at 17:42."},
    ]
    ds = _dataset(PLAIN, conflict)
    kept, moved = quarantine(ds, select=("HN007",))
    assert kept.num_rows == 2 and moved.num_rows == 0
    kept, moved = quarantine(ds, strict=True, select=("HN007",))
    assert kept["id"] == [0] and moved["id"] == [1]


def test_the_map_function_pickles() -> None:
    assert isinstance(pickle.loads(pickle.dumps(Quarantiner(repairer()))), Quarantiner)
