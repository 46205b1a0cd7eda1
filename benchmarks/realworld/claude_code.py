"""histnorm on real Claude Code session lines: `python -m benchmarks.realworld.claude_code DIR`.

DIR is a folder with `lines/` (single real session lines, one per `.jsonl` file) and
`agent-schemas/` (third-party JSON Schemas of one session line). Nothing is written.

1. Lint: every line file is linted as a session (the command line's reader), and the
   diagnostics are counted per code. The files are single lines of live sessions, so
   their `parentUuid` names a line of another file: that is no defect (HN014 must not
   fire); a `tool_use` line alone is an open call at the end (HN011, info) and a
   `tool_result` line alone answers a call that is not in the file (HN002). Any other
   report is listed.
2. Pairs: each `<Tool>-tool_use` line whose `<Tool>-tool_result[_error]` line names it
   as its parent is a real two-line session, which must lint without errors or warnings.
3. Synthesize: each `tool_use` line, its result removed, is fixed with
   `orphan-tool-call=synthesize` and `tail=close`; every line of the result is validated
   against each schema with jsonschema (Draft 2020-12, formats checked), next to the
   verdict on the real line it answers (some real lines fail the schemas already: drift
   in the originals).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import jsonschema
import orjson
from histnorm_cli.job import Job
from histnorm_cli.per_file import run_file

import histnorm
from histnorm.diagnostic import Severity
from histnorm.settings import OrphanCallPolicy, Settings, TailMode

SYNTHESIZE = Settings(orphan_tool_call=OrphanCallPolicy.SYNTHESIZE, tail=TailMode.CLOSE)


def _validators(folder: Path) -> dict[str, jsonschema.protocols.Validator]:
    out: dict[str, jsonschema.protocols.Validator] = {}
    for path in sorted(folder.glob("*.schema.json")):
        schema = orjson.loads(path.read_bytes())
        checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
        out[path.name.removesuffix(".session.schema.json")] = jsonschema.Draft202012Validator(
            schema, format_checker=checker
        )
    return out


def _lines(path: Path) -> list[Any]:
    return [orjson.loads(raw) for raw in path.read_bytes().splitlines() if raw.strip()]


EXPECTED = ("HN011", "HN002")
"""What a single line of a session gives alone: a call still open at the end (HN011), a
result whose call is on a line of the session that is not in the file (HN002)."""


def lint_files(lines_dir: Path) -> tuple[int, Counter[str], list[str]]:
    """Lint every line file; (files, diagnostics per code, unexpected reports)."""
    files, codes, odd = 0, Counter[str](), []
    for path in sorted(lines_dir.rglob("*.jsonl")):
        files += 1
        outcome = run_file(str(path), Job(mode="lint", settings=Settings()))
        if outcome.error:
            odd.append(f"{path.relative_to(lines_dir)}: {outcome.error}")
        for diagnostic in outcome.diagnostics:
            codes[diagnostic.code] += 1
            if diagnostic.code not in EXPECTED:
                odd.append(f"{path.relative_to(lines_dir)}: {diagnostic.code} {diagnostic.message}")
    return files, codes, odd


def _pairs(tools: Path) -> list[tuple[str, Any, Any]]:
    out = []
    for use_path in sorted(tools.glob("*-tool_use.jsonl")):
        (use,) = _lines(use_path)
        tool = use_path.name.removesuffix("-tool_use.jsonl")
        for suffix in ("-tool_result.jsonl", "-tool_result_error.jsonl"):
            result_path = tools / (tool + suffix)
            if result_path.exists():
                (result,) = _lines(result_path)
                if result.get("parentUuid") == use.get("uuid"):
                    out.append((tool + suffix.removesuffix(".jsonl"), use, result))
    return out


def lint_pairs(tools: Path) -> tuple[int, list[str]]:
    """Lint every real call-and-result pair; (pairs, errors and warnings found)."""
    pairs, bad = _pairs(tools), []
    for name, use, result in pairs:
        for diagnostic in histnorm.lint([use, result], format="claude-code"):
            if diagnostic.severity in (Severity.ERROR, Severity.WARNING):
                bad.append(f"{name}: {diagnostic.code} {diagnostic.message}")
    return len(pairs), bad


def _verdict(validator: Any, line: Any) -> str | None:
    """None if `line` validates, else why (checked against the definition of its type)."""
    if validator.is_valid(line):
        return None
    kind = {"user": "UserMessage", "assistant": "AssistantMessage"}.get(line.get("type"))
    if kind is not None:
        ref = {"$defs": validator.schema["$defs"], "$ref": f"#/$defs/{kind}"}
        validator = jsonschema.Draft202012Validator(ref, format_checker=validator.format_checker)
    error = jsonschema.exceptions.best_match(validator.iter_errors(line))
    assert error is not None
    return f"/{'/'.join(map(str, error.path))}: {error.message[:120]}"


def synthesize(tools: Path, validators: dict[str, Any]) -> dict[str, Any]:
    """Fix each lone tool_use line with a synthesized result; validate what is written."""
    sessions = written = added = 0
    valid: Counter[str] = Counter()
    source_valid: Counter[str] = Counter()
    drift: list[str] = []  # an added line fails where the real line it answers fails too
    faults: list[str] = []  # an added line fails where the real line passes: histnorm's fault
    for use_path in sorted(tools.glob("*-tool_use.jsonl")):
        lines = _lines(use_path)
        out = histnorm.encode(histnorm.fix(lines, SYNTHESIZE, format="claude-code").transcript)
        assert isinstance(out, list)
        sessions += 1
        new = [line for line in out if line not in lines]
        added += len(new)
        written += len(out)
        for name, validator in validators.items():
            source = [_verdict(validator, line) for line in lines]
            valid[name] += source.count(None)
            source_valid[name] += source.count(None)
            for line in new:
                verdict = _verdict(validator, line)
                valid[name] += verdict is None
                if verdict is not None:
                    where = f"{use_path.name} [{name}]: {verdict}"
                    (faults if None in source else drift).append(where)
    return {
        "sessions": sessions,
        "lines_written": written,
        "lines_added": added,
        "valid": dict(valid),
        "source_lines_valid": dict(source_valid),
        "drift": drift,
        "faults": faults,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", type=Path, help="the real-world claude-code folder")
    args = parser.parse_args(argv)
    lines_dir, schemas = args.folder / "lines", args.folder / "agent-schemas"
    validators = _validators(schemas)
    files, codes, odd = lint_files(lines_dir)
    print(f"lint: {files} line files, diagnostics {dict(sorted(codes.items()))}")
    print(f"  {len(odd)} other than {' and '.join(EXPECTED)} (a lone line's own)")
    for item in odd:
        print(f"  {item}")
    pairs, bad = lint_pairs(lines_dir / "tools")
    print(f"pairs: {pairs} real call+result sessions, {len(bad)} errors or warnings")
    for item in bad:
        print(f"  {item}")
    report = synthesize(lines_dir / "tools", validators)
    print(
        f"synthesize: {report['sessions']} sessions, {report['lines_added']} lines added, "
        f"{report['lines_written']} lines written"
    )
    for name in validators:
        print(
            f"  {name}: {report['valid'].get(name, 0)}/{report['lines_written']} written lines "
            f"valid ({report['source_lines_valid'].get(name, 0)}/{report['sessions']} of the "
            "real lines they answer)"
        )
    for item in report["drift"]:
        print(f"  invalid, as the real line it answers is: {item}")
    for item in report["faults"]:
        print(f"  INVALID, although the real line it answers is valid: {item}")
    return 1 if odd or bad or report["faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
