"""What the Ray Data and Dask tests share: a small corpus of every kind of file and line
the command line meets, and the command line's own results on it, to compare with."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import orjson
from cli_helpers import CLEAN, ORPHAN, invoke

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"

ORPHAN_LINE = ORPHAN.rstrip(b"\n")
CLEAN_LINE = CLEAN.rstrip(b"\n")
SEPARATOR = '[{"role":"user","content":"one\u2028two\u2029three\x85four"}]'.encode()
"""Clean, with Unicode line breaks inside a string: where `str.splitlines` cuts."""
SPREAD = b'[{"role":"user",\r"content":"hi"},\r{"role":"assistant","content":"hello"}]'
"""Clean, with a lone CR between tokens (JSON whitespace, where `bytes.splitlines` cuts)."""


def session(rule: str) -> bytes:
    """A Claude Code session (one event per line) with the defect of a rule fixture."""
    events = orjson.loads((FIXTURES / "rules" / f"{rule}.claude-code.json").read_bytes())
    return b"".join(orjson.dumps(event) + b"\n" for event in events)


FILES: dict[str, bytes] = {
    "chats/mixed.jsonl": b"".join(
        [
            CLEAN_LINE + b"\n",
            ORPHAN_LINE + b"\r\n",
            b'{"role": bad json\n',
            b"\n",
            b'{"note": "no transcript here"}\n',
            SEPARATOR + b"\n",
            b'[{"role":"user","content":"caf\xff"}]\n',
            b"   \r\n",
            SPREAD + b"\n",
            CLEAN_LINE + b"\r\n",
            ORPHAN_LINE,  # the last line, without a newline
        ]
    ),
    "chats/crlf.jsonl": b"\xef\xbb\xbf"
    + b"\r\n".join([ORPHAN_LINE, CLEAN_LINE, ORPHAN_LINE])
    + b"\r\n",
    "chats/clean.jsonl": CLEAN_LINE + b"\n" + SEPARATOR + b"\n",
    "chats/empty.jsonl": b"",
    "single.json": b'[\n  {"role": "user", "content": "hi"},\n  ' + ORPHAN_LINE[1:-1] + b"\n]\n",
    "sessions/compaction-cut.jsonl": session("HN002/compaction-cut"),
    "sessions/displaced.jsonl": session("HN008/parallel-results-displaced").replace(b"\n", b"\r\n"),
    "sessions/torn.jsonl": (
        FIXTURES / "formats/claude-code/torn/killed-mid-write.jsonl"
    ).read_bytes(),
}
"""Each file of the corpus, by its path under the root: transcript-per-line JSONL with
clean, damaged, unreadable, blank and skipped lines, CRLF, a BOM and a last line without
a newline; a JSON file; message-per-line sessions (LF, CRLF, torn)."""


def write_corpus(root: Path) -> list[Path]:
    """Write the corpus under `root`; its files, sorted (as fsspec lists them)."""
    for name, data in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return sorted(root / name for name in FILES)


def cli_fix(root: Path, scratch: Path) -> dict[str, bytes]:
    """Each file of the corpus at `root` after `histnorm fix` (run on a copy in `scratch`),
    by its path under the root."""
    shutil.copytree(root, scratch)
    result = invoke("fix", *(str(scratch / name) for name in FILES))
    assert result.exit_code in (0, 1), result.output
    return {name: (scratch / name).read_bytes() for name in FILES}


def cli_lint(paths: list[Path]) -> list[dict[str, Any]]:
    """The records `histnorm lint --output-format json` prints for `paths`."""
    result = invoke("lint", "--output-format", "json", *(str(p) for p in paths))
    assert result.exit_code == 1, result.output
    return json.loads(result.stdout)


def canonical(records: list[dict[str, Any]]) -> list[str]:
    """`records` in an order that does not depend on how an engine spread the work."""
    return sorted(json.dumps(r, sort_keys=True) for r in records)


def relative(out: Path) -> dict[str, bytes]:
    """Each file under `out`, by its path relative to it (what an engine wrote)."""
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()}


def expect_changes(fixed: dict[str, bytes]) -> None:
    """The corpus is such that a fix changes these files and leaves those alone: a test
    that compares with the command line compares something."""
    changed = {name for name, data in fixed.items() if data != FILES[name]}
    assert changed == {
        "chats/mixed.jsonl",
        "chats/crlf.jsonl",
        "single.json",
        "sessions/compaction-cut.jsonl",
        "sessions/displaced.jsonl",
    }
