"""A session file's parsed lines live only while it is checked.

Codex rollouts and Claude Code sessions are read whole. What a codec keeps between calls
(`histnorm.last_answer`) holds the lines a file was read as weakly, so once a file
is checked nothing of it stays in memory into the next file's check, and the lines parsed
to try the fast path are let go before the file is read again. The sizes this keeps down
are measured in `benchmarks/sessions.py` (`make bench`)."""

from __future__ import annotations

import gc
import json
import sys
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from session_helpers import session
from strategies_json import JSON_VALUES, strings

from histnorm.document import fix_document, lint_document, read_document
from histnorm.engine import fix, lint
from histnorm.formats.claude_code.sizes import line_sizes
from histnorm.jsonio import string_json
from histnorm.last_answer import LastAnswer, ReadLines
from histnorm.rules.oversized_content import _json_size, _plain
from histnorm.settings import Settings


def _alive() -> int:
    gc.collect()
    return sum(isinstance(o, ReadLines) for o in gc.get_objects())


@pytest.mark.parametrize("fmt", ["claude-code", "codex"])
@pytest.mark.parametrize("damaged", [False, True])
@pytest.mark.parametrize("fix", [False, True])
def test_no_parsed_line_outlives_the_check_of_its_file(fmt: str, damaged: bool, fix: bool) -> None:
    before = _alive()
    check = fix_document if fix else lint_document
    result = check(session(fmt, damaged), path_hint="session.jsonl")
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


def _non_ascii(value: Any) -> Any:
    """`value` with each text in it (a string holding a space: no id or time) in other
    scripts."""
    if isinstance(value, str):
        return value.replace(" ", " Größe ✅ ") if " " in value else value
    if isinstance(value, dict):
        return {key: _non_ascii(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_non_ascii(item) for item in value]
    return value


@pytest.mark.parametrize(
    ("fmt", "name"), [("claude-code", "parallel-tools"), ("codex", "shell-tools")]
)
@pytest.mark.parametrize("check", [lint, fix])
def test_checking_a_session_leaves_its_strings_as_small_as_they_were_read(
    fmt: str, name: str, check: Any
) -> None:
    """orjson keeps a UTF-8 copy inside each non-ASCII string it writes, for the life of
    the string: a check that wrote a session's strings to measure or compare them would
    hold its text twice until the file is done. The request-size limit (HN113, under
    `anthropic`) and the count of kept results (`fix`, which keys each answered result by
    its content) measure them without it."""
    lines = [orjson.loads(line) for line in session(fmt, True, name).splitlines()]
    data = b"".join(orjson.dumps(_non_ascii(line)) + b"\n" for line in lines)
    transcript = read_document(data, path_hint="session.jsonl").records[0].transcript
    assert transcript is not None
    texts = [s for s in strings(list(transcript.native)) if not s.isascii()]
    sizes = [sys.getsizeof(s) for s in texts]
    assert texts, "the session holds non-ASCII text"
    result = check(transcript, Settings(profile="anthropic"))
    if check is fix:
        assert result.changed and "HN002" in result.applied
    else:
        assert "HN002" in [d.code for d in result]
    assert [sys.getsizeof(s) for s in texts] == sizes


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.text())
def test_a_string_is_written_as_orjson_writes_it_without_orjson(text: str) -> None:
    """`string_json` keys results (`edit.result_key`) as orjson did, so a key kept in a
    message's metadata still matches; a lone surrogate, which orjson refuses, is escaped
    as the standard library escapes it."""
    try:
        expected = orjson.dumps(text).decode()
    except TypeError:
        expected = json.dumps(text)
    assert string_json(text) == expected


@settings(max_examples=200, deadline=None, derandomize=True)
@given(JSON_VALUES)
def test_the_request_size_bound_never_undercounts(value: Any) -> None:
    """HN113 sums every message's JSON only when twice the standard library's count of
    it could be over the limit: that count may never be under half of orjson's."""
    assert _json_size(value) <= 2 * _plain(value)
