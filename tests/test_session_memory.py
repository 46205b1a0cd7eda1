"""A session file's parsed lines live only while it is checked.

Codex rollouts and Claude Code sessions are read whole. What a codec keeps between calls
(`histnorm.last_answer`) holds the lines a file was read as weakly, so once a file
is checked nothing of it stays in memory into the next file's check, and the lines parsed
to try the fast path are let go before the file is read again. The sizes this keeps down
are measured in `benchmarks/sessions.py` (`make bench`)."""

from __future__ import annotations

import gc
from pathlib import Path

import orjson
import pytest

from histnorm.document import fix_document, lint_document
from histnorm.formats.claude_code.sizes import line_sizes
from histnorm.last_answer import LastAnswer, ReadLines

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _session(fmt: str, damaged: bool) -> bytes:
    """The `simple.jsonl` fixture of `fmt`; `damaged`: with a result no call answers
    appended (HN002, which `fix` removes), so both paths build models."""
    data = (FIXTURES / "formats" / fmt / "simple.jsonl").read_bytes()
    if not damaged:
        return data
    last = orjson.loads(data.splitlines()[-1])
    if fmt == "codex":
        item = {"type": "function_call_output", "call_id": "call_gone", "output": "ok"}
        extra = {"timestamp": last["timestamp"], "type": "response_item", "payload": item}
    else:
        block = {"type": "tool_result", "tool_use_id": "toolu_gone", "content": "ok"}
        extra = {
            **last,
            "parentUuid": last["uuid"],
            "uuid": "00000000-0000-4000-8000-000000000999",
            "type": "user",
            "message": {"role": "user", "content": [block]},
        }
    return data + orjson.dumps(extra) + b"\n"


def _alive() -> int:
    gc.collect()
    return sum(isinstance(o, ReadLines) for o in gc.get_objects())


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
@pytest.mark.parametrize("damaged", [False, True])
@pytest.mark.parametrize("fix", [False, True])
def test_no_parsed_line_outlives_the_check_of_its_file(fmt: str, damaged: bool, fix: bool) -> None:
    before = _alive()
    check = fix_document if fix else lint_document
    result = check(_session(fmt, damaged), path_hint="session.jsonl")
    if fix:
        assert (result.output is not None) == damaged
    else:
        assert [d.code for d in result.diagnostics] == (["HN002"] if damaged else [])
    assert _alive() == before


def test_the_last_answer_is_kept_for_the_same_lines_and_recomputed_for_others() -> None:
    cache: LastAnswer[int] = LastAnswer()
    lines = ReadLines([{"a": 1}], (7,))
    calls: list[int] = []
    assert cache.get(lines, lambda: calls.append(1) or 1) == 1
    assert cache.get(lines, lambda: calls.append(2) or 2) == 1
    plain = [{"a": 1}]
    assert cache.get(plain, lambda: calls.append(3) or 3) == 3
    assert cache.get(plain, lambda: calls.append(4) or 4) == 3
    assert calls == [1, 3]


def test_read_lines_are_measured_by_the_file_and_others_by_their_encoding() -> None:
    line = {"type": "user", "message": {"role": "user", "content": "hi"}}
    assert line_sizes(ReadLines([line], (99,))) == (99,)
    assert line_sizes([line]) == (len(orjson.dumps(line)),)
