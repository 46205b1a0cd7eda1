"""The Hugging Face `datasets` adapter, against the real package: `Dataset.map` repairs a
message column and `Dataset.filter` keeps the clean rows, with the rows as Arrow stores
them (absent keys filled with None, structs unified across rows, `tool_calls` as a JSON
string)."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("datasets")

import datasets

import histnorm
from histnorm.integrations.datasets import is_clean, repair_batch, repairer


def _call(name: str, call_id: str | None = None, **args: Any) -> dict[str, Any]:
    call: dict[str, Any] = {"type": "function", "function": {"name": name, "arguments": args}}
    return call if call_id is None else {"id": call_id, **call}


ANSWERED = [
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [_call("weather", "c1", city="Paris")]},
    {"role": "tool", "tool_call_id": "c1", "content": "18C"},
    {"role": "assistant", "content": "It is 18C."},
]
ORPHAN = [  # a call nobody answered, and the user went on (HN001)
    {"role": "user", "content": "Book a table"},
    {"role": "assistant", "content": None, "tool_calls": [_call("book", seats=2)]},
    {"role": "user", "content": "Never mind"},
]
PLAIN = [
    {"role": "user", "content": "hi", "name": "bob"},
    {"role": "assistant", "content": "hello"},
]
LEGACY = [  # a legacy function_call row: every other row gets "function_call": None
    {"role": "user", "content": "q"},
    {"role": "assistant", "content": None, "function_call": {"name": "f", "arguments": "{}"}},
    {"role": "function", "name": "f", "content": "r"},
]


def _dataset(*conversations: list[dict[str, Any]]) -> Any:
    return datasets.Dataset.from_list(
        [{"messages": m, "id": i} for i, m in enumerate(conversations)]
    )


def test_arrow_fills_absent_keys_and_unifies_argument_structs() -> None:
    row = _dataset(ANSWERED, ORPHAN, PLAIN)[0]["messages"]
    assert row[0] == {
        "role": "user",
        "content": "Weather in Paris?",
        **dict.fromkeys(("tool_calls", "tool_call_id", "name")),
    }
    assert row[1]["tool_calls"][0]["function"]["arguments"] == {"city": "Paris", "seats": None}


def test_none_keys_arrow_added_are_not_defects() -> None:
    ds = _dataset(ANSWERED, PLAIN, LEGACY, ANSWERED)
    raw = ds[0]["messages"]
    assert [d.code for d in histnorm.lint(raw)] == ["HN000"]  # function_call: None misleads
    out = ds.map(repairer(applied_column="fixed", remaining_column="left"), batched=True)
    assert out["fixed"] == ["", "", "", ""] and out["left"] == ["", "", "", ""]
    assert out["messages"] == ds["messages"]
    assert ds.filter(is_clean(), batched=True).num_rows == 4


def test_map_repairs_the_broken_rows_and_keeps_the_schema() -> None:
    ds = _dataset(ANSWERED, ORPHAN, PLAIN, ORPHAN)
    out = ds.map(repairer(applied_column="fixed"), batched=True, batch_size=2)
    assert out.features["messages"] == ds.features["messages"]
    assert out["fixed"] == ["", "HN001", "", "HN001"]
    assert [m["content"] for m in out[1]["messages"]] == ["Book a table", "Never mind"]
    assert out[1]["messages"][1] == ds[1]["messages"][2]  # the kept message, None keys and all
    for i in (0, 2):
        assert out[i] == {**ds[i], "fixed": ""}
    assert out["id"] == ds["id"]


def test_a_synthesized_result_is_written_in_the_columns_schema() -> None:
    ds = _dataset(ANSWERED, ORPHAN, PLAIN)
    out = ds.map(repairer(orphan_tool_call="synthesize"), batched=True)
    added = out[1]["messages"][2]
    assert added["role"] == "tool" and added["name"] == "book"
    assert list(added) == list(ds[1]["messages"][0])  # every key of the column, in order
    assert added["tool_calls"] is None and added["tool_call_id"] is None
    assert out[1]["messages"][1] == ds[1]["messages"][1]
    assert not histnorm.lint(repair_batch(out[1:2])["messages"][0])


def test_a_repair_the_schema_has_no_place_for_leaves_the_row() -> None:
    ds = _dataset(ORPHAN, ANSWERED)
    assert "name" not in ds.features["messages"].feature  # a synthesized result has one
    fix = repairer(orphan_tool_call="synthesize", applied_column="fixed", remaining_column="left")
    out = ds.map(fix, batched=True)
    assert out["messages"] == ds["messages"]
    assert out["fixed"] == ["", ""] and out["left"] == ["HN001", ""]


def _jsonl(tmp_path: Path, rows: list[dict[str, Any]]) -> Any:
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return datasets.load_dataset(
        "json", data_files=str(path), split="train", cache_dir=str(tmp_path / "cache")
    )


def _as_json_string(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {**m, "tool_calls": json.dumps(m["tool_calls"])} if "tool_calls" in m else m
        for m in messages
    ]


def test_tool_calls_stored_as_a_json_string(tmp_path: Path) -> None:
    rows = [{"messages": _as_json_string(m)} for m in (ANSWERED, ORPHAN, PLAIN)]
    ds = _jsonl(tmp_path, rows)
    assert isinstance(ds[0]["messages"][1]["tool_calls"], str)
    assert [d.code for d in histnorm.lint(ds[0]["messages"])] == ["HN000"]  # not an array
    out = ds.map(repairer(applied_column="fixed", orphan_tool_call="synthesize"), batched=True)
    assert out["fixed"] == ["", "HN001", ""]
    assert out[0] == {**ds[0], "fixed": ""}
    kept = out[1]["messages"][1]["tool_calls"]
    assert kept == ds[1]["messages"][1]["tool_calls"]  # the very string, untouched
    assert out[1]["messages"][2]["role"] == "tool"


def test_a_changed_message_writes_its_calls_back_as_a_json_string(tmp_path: Path) -> None:
    two = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("a", "c1"), _call("b", "c2")],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "user", "content": "thanks"},
    ]
    ds = _jsonl(tmp_path, [{"messages": _as_json_string(two)}])
    out = ds.map(repairer(), batched=True)
    calls = out[0]["messages"][1]["tool_calls"]
    assert isinstance(calls, str)
    assert [c["id"] for c in json.loads(calls)] == ["c1"]


def test_conversations_column_in_sharegpt(tmp_path: Path) -> None:
    turns = [
        {"from": "human", "value": "Weather?"},
        {"from": "function_call", "value": json.dumps({"name": "weather", "arguments": {}})},
        {"from": "human", "value": "Forget it"},
    ]
    clean = [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}]
    ds = _jsonl(tmp_path, [{"conversations": turns, "system": "s"}, {"conversations": clean}])
    out = ds.map(repairer(applied_column="fixed"), batched=True)
    assert out["fixed"] == ["HN001", ""]
    assert [t["value"] for t in out[0]["conversations"]] == ["Weather?", "Forget it"]
    assert ds.filter(is_clean()).num_rows == 1


def test_map_with_two_processes(tmp_path: Path) -> None:
    rows = [ANSWERED, ORPHAN, PLAIN, LEGACY] * 5
    ds = _dataset(*rows)
    fix = repairer(applied_column="fixed", remaining_column="left")
    one = ds.map(fix, batched=True, batch_size=3)
    two = ds.map(fix, batched=True, batch_size=3, num_proc=2)
    assert two["messages"] == one["messages"] and two["fixed"] == one["fixed"]
    assert two["fixed"].count("HN001") == 5
    assert ds.filter(is_clean(), batched=True).num_rows == 15


def test_filter_one_row_at_a_time_and_in_batches() -> None:
    ds = _dataset(ANSWERED, ORPHAN, PLAIN)
    assert ds.filter(is_clean())["id"] == [0, 2]
    assert ds.filter(is_clean(), batched=True, batch_size=2)["id"] == [0, 2]
    assert ds.filter(is_clean(select=("HN005",)))["id"] == [0, 1, 2]


def test_map_one_row_at_a_time() -> None:
    ds = _dataset(ORPHAN, PLAIN)
    out = ds.map(repairer(applied_column="fixed"))
    assert out["fixed"] == ["HN001", ""]
    assert len(out[0]["messages"]) == 2


def test_unreadable_and_empty_rows_are_left_alone() -> None:
    rows = {"messages": [[{"role": 7}], [], None]}
    out = repairer(remaining_column="left")(rows)
    assert out["messages"] == rows["messages"] and out["left"] == ["HN000", "", ""]
    assert is_clean()(rows) == [False, True, False]


def test_the_callables_pickle_and_check_their_options() -> None:
    fix = repairer("messages", orphan_tool_call="synthesize", applied_column="fixed")
    assert pickle.loads(pickle.dumps(fix)) == fix
    assert pickle.loads(pickle.dumps(is_clean())) == is_clean()
    with pytest.raises(TypeError, match="no_such_option"):
        repairer(no_such_option=1)
    with pytest.raises(KeyError, match="pass column="):
        repairer()({"text": ["a"]})
    with pytest.raises(KeyError, match="'chat'"):
        is_clean("chat")({"messages": [PLAIN]})


def test_format_is_used_for_every_row() -> None:
    out = repairer(format="chat-template", remaining_column="left")({"messages": [ORPHAN]})
    assert out["left"] == [""] and len(out["messages"][0]) == 2


EMPTY_CONTENT_ORPHAN = [  # a dangling call on a turn whose content is "", as many datasets store it
    {"role": "user", "content": "Book a table"},
    {"role": "assistant", "content": "", "tool_calls": [_call("book", "c9", seats=2)]},
    {"role": "user", "content": "Never mind"},
    {"role": "assistant", "content": "Cancelled."},
]


def test_an_assistant_turn_a_fix_empties_is_removed() -> None:
    """Dropping the dangling call of a `content: ""` turn leaves no empty assistant turn
    (as `histnorm fix` removes a `content: null` turn it empties); the rest is kept."""
    ds = _dataset(EMPTY_CONTENT_ORPHAN, ANSWERED)
    out = ds.map(repairer(applied_column="fixed"), batched=True)
    assert out["fixed"] == ["HN001", ""]
    messages = out[0]["messages"]
    assert [(m["role"], m["content"]) for m in messages] == [
        ("user", "Book a table"),
        ("user", "Never mind"),
        ("assistant", "Cancelled."),
    ]
    assert messages[2] == ds[0]["messages"][3]
    assert out[1] == {**ds[1], "fixed": ""}


def test_a_turn_that_keeps_text_or_a_call_is_kept() -> None:
    """Only a turn left with nothing goes: one with text, or a call still answered, stays
    with its content as stored."""
    texted = [dict(m) for m in EMPTY_CONTENT_ORPHAN]
    texted[1] = {**texted[1], "content": "Booking."}
    parallel = [
        {"role": "user", "content": "Book and pay"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [_call("book", "c1", seats=2), _call("pay", "c2", seats=2)],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "booked"},
        {"role": "user", "content": "thanks"},
    ]
    out = _dataset(texted, parallel).map(repairer(applied_column="fixed"), batched=True)
    assert out["fixed"] == ["HN001", "HN001"]
    assert [(m["role"], m["content"]) for m in out[0]["messages"]][1] == ("assistant", "Booking.")
    kept = out[1]["messages"][1]
    assert kept["content"] == "" and [c["id"] for c in kept["tool_calls"]] == ["c1"]
