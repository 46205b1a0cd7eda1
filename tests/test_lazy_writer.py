"""`LazyWriter`: a fixed JSONL file is written from its first changed line on."""

from __future__ import annotations

from pathlib import Path

import pytest
from histnorm_cli.files import LazyWriter

LINES = [b"\xef\xbb\xbf{}\r\n", b'{"a":1}\n', b'{"b":2}\n', b"{}"]


def feed(writer: LazyWriter, changed: dict[int, bytes]) -> None:
    for index, line in enumerate(LINES):
        if index in changed:
            writer.write(changed[index], False)
        else:
            writer.write(line, True)


def test_nothing_changed_nothing_written(tmp_path: Path) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(LINES))
    before = source.stat()
    writer = LazyWriter(source, source)
    feed(writer, {})
    writer.commit(always=False)
    assert writer.writer is None
    assert source.stat().st_ino == before.st_ino and source.stat().st_mtime_ns == before.st_mtime_ns
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]


@pytest.mark.parametrize("first", [0, 1, 3])
def test_lines_before_the_first_change_are_copied_exactly(tmp_path: Path, first: int) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(LINES))
    writer = LazyWriter(source, source)
    feed(writer, {first: b'{"new":true}\n'})
    writer.commit(always=False)
    expected = [*LINES[:first], b'{"new":true}\n', *LINES[first + 1 :]]
    assert source.read_bytes() == b"".join(expected)
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]


def test_an_output_path_gets_a_copy_even_when_nothing_changed(tmp_path: Path) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(LINES))
    target = tmp_path / "out.jsonl"
    writer = LazyWriter(source, target)
    feed(writer, {})
    writer.commit(always=True)
    assert target.read_bytes() == source.read_bytes()


def test_discard_leaves_the_source_and_no_temporary_file(tmp_path: Path) -> None:
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(LINES))
    writer = LazyWriter(source, source)
    feed(writer, {2: b"{}\n"})
    writer.discard()
    assert source.read_bytes() == b"".join(LINES)
    assert [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]
