"""The file layer and the reporters: which files are transcripts, where results go, and
what reaches the report when names and data hold bytes a terminal or JSON cannot take."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import CLEAN, ORPHAN, invoke, put

pytestmark = pytest.mark.usefixtures("cli_workdir")


# -o/--output takes one input file


@pytest.mark.parametrize(
    "args",
    [
        ("dir",),
        (),
        ("dir/a.json", "dir/b.json"),
    ],
    ids=["folder", "working-folder", "two-paths"],
)
def test_output_with_several_input_files_is_refused_and_writes_nothing(args):
    put("dir/a.json", ORPHAN)
    put("dir/b.json", CLEAN)
    result = invoke("fix", *args, "-o", "out.json")
    assert result.exit_code == 2, result.output
    assert "-o/--output" in result.output
    assert not Path("out.json").exists()
    assert Path("dir/a.json").read_bytes() == ORPHAN


def test_output_with_a_folder_of_one_file_writes_it():
    put("dir/a.json", ORPHAN)
    result = invoke("fix", "dir", "-o", "out.json")
    assert result.exit_code == 0, result.output
    assert Path("out.json").read_bytes() != ORPHAN
    assert Path("dir/a.json").read_bytes() == ORPHAN
