"""Transcript-per-line JSONL: a line is proven clean as it was read, its ending with it.

`check_lines` parses a line with its ending (JSON reads it as whitespace) and hands the
checks that text, so a clean line costs no copy of itself; a line the proof does not
clear is read again without its ending, exactly as before. These tests hold every kind
of line to what the same transcript gives on a line of its own, whatever its ending.
"""

from __future__ import annotations

import orjson
import pytest

from histnorm.document import fix_lines, lint_lines
from histnorm.document.layout import BOM

_CALL = {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
_ASKED = [
    {"role": "user", "content": "Weather in Oslo?"},
    {"role": "assistant", "content": None, "tool_calls": [_CALL]},
]
CLEAN = orjson.dumps(
    {
        "messages": [
            *_ASKED,
            {"role": "tool", "tool_call_id": "call_1", "content": "4 C"},
            {"role": "assistant", "content": "4 C and clear."},
        ]
    }
)
ORPHAN = orjson.dumps({"messages": [*_ASKED, {"role": "user", "content": "Never mind."}]})
BROKEN = b'{"messages": [{"role": "user", "content": "a"}'
ENDINGS = [b"\n", b"\r\n", b"\r\r\n", b""]


def _results(lines: list[bytes], fix: bool = False) -> list[tuple[object, ...]]:
    """Each line's number, bytes, new bytes, codes (found, and fixed) and whether it holds
    a transcript."""
    run = fix_lines if fix else lint_lines
    return [
        (
            r.number,
            r.raw,
            r.output,
            tuple(d.code for d in (*r.diagnostics, *r.fixes)),
            r.transcript,
        )
        for r in run(lines)
    ]


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("fix", [False, True])
def test_a_line_reads_the_same_whatever_its_ending(ending: bytes, fix: bool) -> None:
    lines = [CLEAN + ending, ORPHAN + ending, BROKEN + ending, b"   " + ending]
    lines = [line for line in lines if line]  # an empty last line is no line
    results = _results(lines, fix)
    alone = [_results([line], fix)[0][2:] for line in lines]
    assert [r[2:] for r in results] == alone  # no line's verdict depends on its neighbours
    codes = [r[3] for r in results]
    assert codes[0] == () and "HN001" in codes[1] and codes[2] == ("HN000",)
    assert codes[3] == () and results[3][4] is False  # a blank line holds no transcript
    if fix:
        assert results[0][2] is None  # clean: written as it was
        assert results[1][2] is not None and results[1][2].endswith(ending)
        fixed = orjson.loads(results[1][2])["messages"]  # the orphan call dropped (default)
        assert not any(m.get("tool_calls") for m in fixed) and fixed[-1]["content"] == "Never mind."


def test_a_clean_line_is_the_very_bytes_it_was_read_as() -> None:
    line = CLEAN + b"\n"
    (result,) = list(lint_lines([line]))
    assert result.raw is line and not result.diagnostics and result.transcript


@pytest.mark.parametrize("fix", [False, True])
def test_a_byte_order_mark_opens_only_the_first_line(fix: bool) -> None:
    first = _results([BOM + CLEAN + b"\n", BOM + CLEAN + b"\n"], fix)
    assert first[0][3] == ()  # the file's BOM: the line reads as without it
    assert first[1][3] == ("HN000",)  # a BOM inside the file is no JSON
    if fix:
        assert first[0][2] is None


def test_fixing_a_crlf_line_keeps_its_ending_and_the_bom() -> None:
    (result,) = list(fix_lines([BOM + ORPHAN + b"\r\n"]))
    assert result.output is not None
    assert result.output.startswith(BOM) and result.output.endswith(b"\r\n")
    assert not result.output.endswith(b"\r\r\n")


def test_lines_proven_or_not_settle_the_file_format() -> None:
    # the format the first line settles carries to the next whether or not that first
    # line was proven clean as read (an orphan first, then a clean line)
    results = _results([ORPHAN + b"\n", CLEAN + b"\n", ORPHAN + b"\n"])
    assert [r[3] for r in results] == [("HN001",), (), ("HN001",)]
