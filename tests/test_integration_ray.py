"""histnorm.integrations.ray against the real Ray Data, on a local cluster of two CPUs
(started once for the module): `read_lines`, `fix_dataset` and `LineDatasink` write byte
for byte what `histnorm fix` writes, `lint_dataset` gives the records `histnorm lint
--output-format json` prints, and so do the per-file functions over `read_binary_files`;
`quarantine` splits a dataset of message rows as the `datasets` adapter does."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import ray
import ray.data
from engine_corpus import (
    FILES,
    canonical,
    cli_fix,
    cli_lint,
    expect_changes,
    relative,
    write_corpus,
)
from quarantine_rows import REPAIRABLE, ROWS, WARNING_ONLY, check_split

from histnorm.integrations._ray_quarantine import _mark
from histnorm.integrations.ray import (
    LineDatasink,
    as_record,
    fix_dataset,
    fix_files,
    lint_dataset,
    lint_files,
    quarantine,
    read_lines,
)
from histnorm.settings import with_options

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning:ray.data.context")


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("ray")
    root = base / "corpus"
    paths = write_corpus(root)
    fixed = cli_fix(root, base / "cli")
    expect_changes(fixed)
    return {"root": root, "paths": paths, "fixed": fixed, "lint": cli_lint(paths)}


@pytest.mark.parametrize("block_bytes", [16 << 20, 64], ids=["one-block-a-file", "spread"])
def test_fix_dataset_writes_what_the_cli_writes(
    corpus: dict[str, Any], tmp_path: Path, block_bytes: int
) -> None:
    """With small blocks, a file's lines are spread over blocks and tasks, shuffled even:
    the sink joins their parts in line order."""
    fixed = fix_dataset(read_lines(str(corpus["root"]), block_bytes=block_bytes))
    if block_bytes < 1024:
        fixed = fixed.random_shuffle(seed=7).repartition(3)
    out = tmp_path / "fixed"
    fixed.write_datasink(LineDatasink(out, root=corpus["root"]))
    assert relative(out) == corpus["fixed"]


def test_lint_dataset_gives_the_records_of_the_cli(corpus: dict[str, Any]) -> None:
    for block_bytes in (16 << 20, 64):
        rows = lint_dataset(read_lines(str(corpus["root"]), block_bytes=block_bytes)).take_all()
        assert canonical([as_record(r) for r in rows]) == canonical(corpus["lint"])
    assert {r["code"] for r in rows} >= {"HN000", "HN001", "HN002", "HN008", "HN011"}
    assert any(r["skipped"] for r in rows)


def test_per_file_functions_give_what_the_cli_gives(corpus: dict[str, Any], tmp_path: Path) -> None:
    files = ray.data.read_binary_files(str(corpus["root"]), include_paths=True)
    rows = lint_files(files).take_all()
    assert canonical([as_record(r) for r in rows]) == canonical(corpus["lint"])
    out = tmp_path / "fixed"
    fix_files(files).write_datasink(LineDatasink(out, root=corpus["root"]))
    assert relative(out) == corpus["fixed"]


def test_options_are_settings_as_for_the_cli(corpus: dict[str, Any]) -> None:
    rows = lint_dataset(read_lines(str(corpus["root"])), select=("HN001",)).take_all()
    expected = [r for r in corpus["lint"] if r.get("code") in ("HN001", "HN000") or "skipped" in r]
    assert canonical([as_record(r) for r in rows]) == canonical(expected)
    with pytest.raises(TypeError, match="selec"):
        fix_dataset(read_lines(str(corpus["root"])), selec=("HN001",))


def test_read_text_could_not_give_the_files_back(corpus: dict[str, Any]) -> None:
    """Why `read_lines`: `ray.data.read_text` decodes, drops each line's ending and cuts
    at Unicode line breaks inside JSON strings."""
    path = corpus["root"] / "chats" / "clean.jsonl"
    rows = ray.data.read_text(str(path)).take_all()
    assert len(rows) > FILES["chats/clean.jsonl"].count(b"\n")
    assert len(read_lines(str(path)).take_all()) == FILES["chats/clean.jsonl"].count(b"\n")


@pytest.mark.parametrize("block_bytes", [16 << 20, 64], ids=["one-block-a-file", "spread"])
def test_the_sink_keeps_each_file_s_mode(tmp_path: Path, block_bytes: int) -> None:
    """A fixed file has the mode of the file it was read from (not a temporary file's
    0600), in place and in another folder, whole or joined from parts."""
    root = tmp_path / "corpus"
    paths = write_corpus(root)
    for number, path in enumerate(paths):
        path.chmod((0o644, 0o640, 0o664)[number % 3])
    modes = {relative_name(root, p): p.stat().st_mode & 0o7777 for p in paths}
    fixed = fix_dataset(read_lines(str(root), block_bytes=block_bytes)).materialize()
    fixed.write_datasink(LineDatasink(tmp_path / "out", root=root))
    fixed.write_datasink(LineDatasink(root, root=root))
    for folder in (tmp_path / "out", root):
        written = {relative_name(folder, p): p.stat().st_mode & 0o7777 for p in folder.rglob("*")}
        assert {name: written[name] for name in modes} == modes


@pytest.mark.parametrize("block_bytes", [16 << 20, 64], ids=["one-block-a-file", "spread"])
def test_the_sink_leaves_a_file_that_changed_since_it_was_read(
    tmp_path: Path, block_bytes: int
) -> None:
    """A line appended between the read and the write in place is not lost: that file is
    left as it was and named in the error, the others are written (as `histnorm fix`)."""
    root = tmp_path / "corpus"
    write_corpus(root)
    fixed = fix_dataset(read_lines(str(root), block_bytes=block_bytes)).materialize()
    grown = root / "chats" / "mixed.jsonl"
    appended = FILES["chats/mixed.jsonl"] + b'[{"role": "user", "content": "late"}]\n'
    grown.write_bytes(appended)
    with pytest.raises(Exception, match="changed while being fixed") as raised:
        fixed.write_datasink(LineDatasink(root, root=root))
    assert "mixed.jsonl" in str(raised.value)
    assert grown.read_bytes() == appended
    other = root / "single.json"
    assert other.read_bytes() != FILES["single.json"]  # the others are fixed


def relative_name(folder: Path, path: Path) -> str:
    return str(path.relative_to(folder))


def test_fix_files_leaves_a_file_that_grew_since_it_was_read(tmp_path: Path) -> None:
    """The per-file path too: `read_binary_files` keeps no file status, so `fix_files`
    records the file with the size of the bytes it fixed, and a line appended after that
    shows at the write."""
    root = tmp_path / "corpus"
    write_corpus(root)
    files = ray.data.read_binary_files(str(root), include_paths=True)
    fixed = fix_files(files).materialize()
    grown = root / "single.json"
    appended = FILES["single.json"] + b"\n"
    grown.write_bytes(appended)
    with pytest.raises(Exception, match="changed while being fixed"):
        fixed.write_datasink(LineDatasink(root, root=root))
    assert grown.read_bytes() == appended
    assert (root / "chats" / "mixed.jsonl").read_bytes() != FILES["chats/mixed.jsonl"]


@pytest.fixture
def ordered() -> Iterator[None]:
    """Rows in order: Ray Data keeps it only when asked, before a dataset is created."""
    options = ray.data.DataContext.get_current().execution_options
    before = options.preserve_order
    options.preserve_order = True
    yield
    options.preserve_order = before


def test_quarantine_splits_rows_in_order_with_their_reasons(ordered: None) -> None:
    ds = ray.data.from_items(ROWS, override_num_blocks=2)
    kept, moved = quarantine(ds)
    errors = {2: {"HN000"}, 3: {"HN007", "HN010", "HN016"}}
    check_split(kept.take_all(), moved.take_all(), moved_ids=[2, 3], codes=errors, numbered=False)
    assert kept.columns() == ["id", "messages"]
    assert moved.columns() == ["id", "messages", "histnorm_reason"]


def test_quarantine_repairs_once_when_materialized_and_strict_sets_warnings_aside(
    ordered: None, tmp_path: Path
) -> None:
    """Under options that leave CONFLICT with only a warning, it is kept unless `strict`.
    Materialized (the default), the rows are repaired once for both datasets; lazy, once
    for each."""

    def _seen(batch: Any, log: str) -> Any:
        # Defined here, Ray sends the function itself: its workers cannot import tests.
        with open(log, "a") as out:
            out.write("row\n" * batch.num_rows)
        return batch

    for strict, materialize, once in ((False, False, False), (True, True, True)):
        log = tmp_path / f"seen-{strict}"
        ds = ray.data.from_items(ROWS, override_num_blocks=2)
        ds = ds.map_batches(_seen, fn_args=(str(log),), batch_format="pyarrow")
        kept, moved = quarantine(ds, strict=strict, materialize=materialize, **WARNING_ONLY)
        taken = kept.take_all(), moved.take_all()
        assert log.read_text().count("row") == len(ROWS) * (1 if once else 2)
        codes = {2: {"HN000"}, 3: {"HN007"}}
        moved_ids = [2, 3] if strict else [2]
        check_split(*taken, moved_ids=moved_ids, codes=codes, numbered=False, **WARNING_ONLY)


OPEN_CALL = [  # a call the user went on from (HN001): synthesize answers it
    {"role": "user", "content": "Book"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "book", "arguments": "{}"}}
        ],
    },
    {"role": "user", "content": "Never mind"},
]


def test_a_repair_the_column_type_has_no_place_for_is_quarantined() -> None:
    """Arrow drops a key its struct lacks without a word: the synthesized result needs
    `tool_call_id`, which a block of this row alone lacks, so there the row stays as it
    was, quarantined with the fix's code; in a block whose type has the key, it is
    written back in that type. (One batch, as a Ray task gets it.)"""
    settings = with_options(None, {"orphan_tool_call": "synthesize"})
    for rows, fits in (([OPEN_CALL], False), ([OPEN_CALL, REPAIRABLE], True)):
        batch = pa.Table.from_pylist([{"messages": m} for m in rows])
        marked = _mark(batch, None, None, settings, "why", False)
        assert marked.schema.field("messages") == batch.schema.field("messages")
        first = marked.to_pylist()[0]
        if fits:
            assert first["why"] == ""
            assert [m["role"] for m in first["messages"]] == ["user", "assistant", "tool", "user"]
            assert first["messages"][2]["tool_call_id"] == "c1"
        else:
            assert first["messages"] == batch.to_pylist()[0]["messages"]
            assert [d["code"] for d in json.loads(first["why"])["diagnostics"]] == ["HN001"]
