"""Start-up cost of histnorm in instructions: `python -m benchmarks.startup`.

Runs each command once under `valgrind --tool=callgrind` (instruction counts do not
swing with the load of a shared machine as wall clocks do) beside the floor in the same
run, `python -c "import orjson"`, and prints each as a ratio to it (issue #24 targets:
`import histnorm` <= 2.5x, `histnorm --version` <= 1.5x, `histnorm lint` of a 7 KB file
<= 3.0x).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

from benchmarks.library_calls import clean_history, damaged_history

_COLLECTED = re.compile(rb"Collected : (\d+)")


def instructions(argv: list[str], env: dict[str, str] | None = None) -> int:
    """The instructions `argv` executes, counted by callgrind."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        capture_output=True,
        check=False,
        env=env,
    )
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind gave no count for {argv}: {done.stderr[-400:]!r}")
    return int(found.group(1))


def cached_bytecode(cache: Path) -> dict[str, str]:
    """The environment of a measured run: modules load from bytecode compiled once into
    `cache`, as an installed package's do, even where `PYTHONDONTWRITEBYTECODE` is set
    (with it, every run compiles each module it imports from source, which a user's
    `histnorm` never does)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def commands(files: list[Path]) -> dict[str, list[str]]:
    """What is measured, by name; the first is the floor."""
    cli = [sys.executable, "-c", "from histnorm_cli import main; main()"]
    measured = {
        "floor: python -c 'import orjson'": [sys.executable, "-c", "import orjson"],
        "import histnorm": [sys.executable, "-c", "import histnorm"],
        "histnorm --version": [*cli, "--version"],
    }
    for small in files:
        name = f"histnorm lint {small.name} ({small.stat().st_size / 1024:.0f} KB)"
        measured[name] = [*cli, "lint", "--quiet", str(small)]
    return measured


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--file",
        type=Path,
        help="the file `lint` reads (default: the 40-message history, clean and damaged)",
    )
    parser.add_argument("--json", type=Path, help="also write the counts here")
    options = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: no instruction counts", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="histnorm-startup-") as folder:
        files = [] if options.file is None else [options.file]
        if options.file is None:
            # A damaged history is linted with a trial fix, which builds the models.
            for name, history in (("history", clean_history()), ("damaged", damaged_history())):
                files.append(Path(folder) / f"{name}.json")
                files[-1].write_bytes(
                    orjson.dumps({"messages": history}, option=orjson.OPT_INDENT_2)
                )
        env = cached_bytecode(Path(folder) / "pyc")
        for argv in commands(files).values():
            subprocess.run(argv, env=env, capture_output=True, check=False)  # compile once
        counts = {name: instructions(argv, env) for name, argv in commands(files).items()}
    floor = next(iter(counts.values()))
    print("| command | instructions | x floor |\n|---|---|---|")
    for name, count in counts.items():
        print(f"| {name} | {count / 1e6:,.0f} M | {count / floor:.1f} |")
    if options.json is not None:
        options.json.write_text(json.dumps(counts, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
