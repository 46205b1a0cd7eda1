"""`histnorm fix` writes a changed or inserted message in the layout of its neighbours.

Each file is written by a common serialiser (2-space, 4-space or tab indentation, one
message per line, Python's or compact separators); after the fix the whole file must be
exactly what that same serialiser writes for the fixed value, and the bytes of every
message no fix touched must be the bytes read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from histnorm_cli.app import app
from typer.testing import CliRunner

Dump = Callable[[Any], str]

ARGS = json.dumps({"city": "Oslo", "when": "today"})  # `\": ` inside a string
MESSAGES: list[dict[str, Any]] = [
    {"role": "user", "content": "Weather in Oslo, and a table for two? Caf\u00e9 Ny"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_w", "type": "function", "function": {"name": "w", "arguments": ARGS}},
            {"id": "call_b", "type": "function", "function": {"name": "book", "arguments": "{}"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_w", "content": "4 C, cloudy"},
    {"role": "user", "content": "Never mind the table."},
]
SYNTHESIZED = {
    "role": "tool",
    "tool_call_id": "call_b",
    "content": "Tool call was interrupted before it produced a result.",
}


def dropped() -> list[dict[str, Any]]:
    """The messages after the default fix: the unanswered call is removed."""
    fixed = json.loads(json.dumps(MESSAGES))
    fixed[1]["tool_calls"] = fixed[1]["tool_calls"][:1]
    return fixed


def synthesized() -> list[dict[str, Any]]:
    """The messages after `orphan-tool-call=synthesize`: a result is inserted."""
    fixed = json.loads(json.dumps(MESSAGES))
    return [*fixed[:3], SYNTHESIZED, fixed[3]]


def one_per_line(separators: tuple[str, str], indent: str = "  ") -> Dump:
    def dump(value: Any) -> str:
        items = [indent * 2 + json.dumps(m, separators=separators) for m in value["messages"]]
        key = '"messages"' + separators[1]
        return "{\n" + indent + key + "[\n" + ",\n".join(items) + "\n" + indent + "]\n}\n"

    return dump


def message_lines(separators: tuple[str, str]) -> Dump:
    return lambda value: "".join(json.dumps(m, separators=separators) + "\n" for m in value)


def pretty(indent: int | str, ascii: bool = True, newline: str = "\n") -> Dump:
    def dump(value: Any) -> str:
        text = json.dumps(value, indent=indent, ensure_ascii=ascii) + "\n"
        return text.replace("\n", newline)

    return dump


ENVELOPE: Callable[[list[Any]], Any] = lambda messages: {"messages": messages}  # noqa: E731
BARE: Callable[[list[Any]], Any] = lambda messages: messages  # noqa: E731

LAYOUTS: dict[str, tuple[str, Dump, Callable[[list[Any]], Any]]] = {
    "indent-2": ("a.json", pretty(2), ENVELOPE),
    "indent-4": ("a.json", pretty(4), ENVELOPE),
    "indent-tab": ("a.json", pretty("\t"), ENVELOPE),
    "indent-2-utf8": ("a.json", pretty(2, ascii=False), ENVELOPE),
    "indent-2-crlf": ("a.json", pretty(2, newline="\r\n"), BARE),
    "indent-4-bare": ("a.json", pretty(4), BARE),
    "one-per-line-python": ("a.json", one_per_line((", ", ": ")), ENVELOPE),
    "one-per-line-compact": ("a.json", one_per_line((",", ":")), ENVELOPE),
    "one-per-line-tab": ("a.json", one_per_line((", ", ": "), "\t"), ENVELOPE),
    "single-line-compact": (
        "a.json",
        lambda v: json.dumps(v, separators=(",", ":"), ensure_ascii=False),
        ENVELOPE,
    ),
    "single-line-python": ("a.json", lambda v: json.dumps(v), ENVELOPE),
    "jsonl-transcript-python": ("a.jsonl", lambda v: json.dumps(v) + "\n", ENVELOPE),
    "jsonl-transcript-compact": (
        "a.jsonl",
        lambda v: json.dumps(v, separators=(",", ":")) + "\n",
        ENVELOPE,
    ),
    "jsonl-messages-python": ("a.jsonl", message_lines((", ", ": ")), BARE),
    "jsonl-messages-compact": ("a.jsonl", message_lines((",", ":")), BARE),
}
FIXES = {"drop": ([], dropped), "synthesize": (["--unsafe-fixes"], synthesized)}
POLICY = ["--policy", "orphan-tool-call=synthesize"]


@pytest.fixture(autouse=True)
def _workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("fix", FIXES)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_a_fixed_file_is_written_in_its_own_layout(layout: str, fix: str) -> None:
    name, dump, wrap = LAYOUTS[layout]
    flags, expected = FIXES[fix]
    before = dump(wrap(MESSAGES)).encode()
    Path(name).write_bytes(before)
    policy = POLICY if fix == "synthesize" else []
    result = CliRunner().invoke(app, ["fix", *flags, *policy, name])
    assert result.exit_code == 0, result.output
    after = Path(name).read_bytes()
    assert after.decode() == dump(wrap(expected()))
    assert after.decode() == dump(wrap(expected()))


def test_untouched_messages_keep_their_bytes_however_they_are_written() -> None:
    """A hand-formatted message no fix touches keeps its odd spacing and spellings."""
    odd = b'    { "role" : "user",   "content":"Caf\\u00e9 for 1.50E1?" }'
    lines = pretty(2)({"messages": MESSAGES}).encode().split(b"\n")
    start = lines.index(b"    {")
    end = lines.index(b"    },", start)
    data = b"\n".join([*lines[:start], odd + b",", *lines[end + 1 :]])
    Path("a.json").write_bytes(data)
    result = CliRunner().invoke(app, ["fix", "a.json"])
    assert result.exit_code == 0, result.output
    after = Path("a.json").read_bytes()
    assert odd + b",\n" in after
    expected = pretty(2)({"messages": dropped()}).encode().split(b"\n")
    assert after.split(b"\n")[start + 1 :] == expected[end + 1 :]


def test_a_changed_message_keeps_its_own_layout_inside():
    """A pretty message whose calls sit one per line loses the dropped call's line only."""
    demo = Path(__file__).resolve().parent.parent / "fixtures" / "demo"
    data = (demo / "cancelled-stream.openai-chat.json").read_bytes()
    Path("a.json").write_bytes(data)
    result = CliRunner().invoke(app, ["fix", "a.json"])
    assert result.exit_code == 0, result.output
    lines = data.decode().splitlines(keepends=True)
    (dropped_at,) = [i for i, line in enumerate(lines) if '"id": "call_book"' in line]
    kept = lines[dropped_at - 1]
    expected = [*lines[: dropped_at - 1], kept.replace("}},\n", "}}\n"), *lines[dropped_at + 1 :]]
    assert Path("a.json").read_text() == "".join(expected)
