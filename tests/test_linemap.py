"""Pointer-to-line mapping for pretty-printed JSON."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from histnorm.linemap import duplicate_keys, lines_for

DOC = b"""{
  "model": "m",
  "messages": [
    {"role": "user", "content": "a,b:{c}[d]"},
    {
      "role": "assistant",
      "tool_calls": [{"id": "x"}, {"id": "y"}]
    }
  ],
  "we/ird~key": {"\\"quoted\\"": [true, null,
    3]}
}
"""


def test_lines_of_nested_values():
    pointers = [
        "",
        "/model",
        "/messages/0",
        "/messages/1",
        "/messages/1/tool_calls/1",
        '/we~1ird~0key/"quoted"/2',
        "/messages/9",
    ]
    assert lines_for(DOC, pointers) == {
        "": 1,
        "/model": 2,
        "/messages/0": 4,
        "/messages/1": 5,
        "/messages/1/tool_calls/1": 7,
        '/we~1ird~0key/"quoted"/2': 11,
    }


def test_nothing_wanted_means_no_scan():
    assert lines_for(b"not json at all", []) == {}


@settings(max_examples=50, derandomize=True)
@given(st.lists(st.one_of(st.integers(), st.text(), st.booleans(), st.none()), max_size=30))
def test_each_item_of_an_indented_array_is_on_its_own_line(items):
    data = json.dumps(items, indent=2).encode()
    got = lines_for(data, [f"/{i}" for i in range(len(items))])
    assert got == {f"/{i}": i + 2 for i in range(len(items))}


def test_duplicate_keys_in_jsonl_are_found_line_by_line() -> None:
    assert duplicate_keys(b'{"a":1}\n{"b":1,"c":{"d":1}}\n') == []
    assert duplicate_keys(b'{"a":1}\n{"b":1,"b":2}\n') == ["/b"]
    assert duplicate_keys(b'{"a":1}\r\n{"b":{"x":1,"x":2}}') == ["/b/x"]


def test_a_repeat_after_a_whole_first_line_is_found_without_reading_the_file_whole() -> None:
    """JSONL is checked a line at a time; a pretty-printed document (whose first line is
    no whole value) and a one-line one are checked whole."""
    assert duplicate_keys(b'{"a":1}\n\n{"b":1}\n{"c":[{"d":1,"d":2}]}\n') == ["/c/0/d"]
    assert duplicate_keys(b'{\n  "a": 1,\n  "a": 2\n}\n') == ["/a"]
    assert duplicate_keys(b'{"a": {"b": 1, "b": 2}}\n   \n') == ["/a/b"]
    assert duplicate_keys(b'{"a": 1, "a": 2}\n{"b": 1}\n') == ["/a"]


def test_compact_json_of_what_was_read_is_known_to_repeat_no_key(monkeypatch) -> None:
    """The writer's repeat check (`document.write._repeats`) answers from the value a line
    was parsed as when the line is the compact JSON of it, without the exact scan; a line
    that is not (a repeat orjson dropped, other spacing, other number spellings) is
    scanned, and its repeats found."""
    import importlib

    import orjson

    write = importlib.import_module("histnorm.document.write")  # the package has a `write`

    value = {"messages": [{"role": "user", "content": 'a":b'}], "n": 1.5}
    compact = orjson.dumps(value)
    scanned: list[bytes] = []

    def scan(text: bytes) -> list[str]:
        scanned.append(text)
        return duplicate_keys(text)

    monkeypatch.setattr(write, "duplicate_keys", scan)
    assert write._repeats(compact, value) == []
    assert scanned == []  # the compact JSON of the value: nothing to scan
    repeated = b'{"messages":[],"n":1,"n":1.5}'
    assert write._repeats(repeated, orjson.loads(repeated)) == ["/n"]
    spaced = json.dumps(value).encode()
    assert write._repeats(spaced, value) == []
    assert write._repeats(b'{"n":1.50}', {"n": 1.5}) == []
    assert write._repeats(compact, None) == []
    assert scanned == [repeated, spaced, b'{"n":1.50}', compact]
