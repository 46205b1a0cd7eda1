"""`histnorm rules` and `histnorm rule`: the catalogue for people and machines."""

from __future__ import annotations

from pathlib import Path

import orjson

from histnorm.errors import HistnormError
from histnorm.profiles import PROFILES, evidence_for
from histnorm.rule import Rule
from histnorm.rules import ALL_RULES, resolve


def _fix(rule: Rule) -> str:
    return rule.applicability.value if rule.applicability else "none"


def table(as_json: bool = False) -> str:
    """Every rule as an aligned table, or as a JSON array."""
    if as_json:
        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "fix": _fix(r),
                "summary": r.summary,
            }
            for r in ALL_RULES
        ]
        return orjson.dumps(rows, option=orjson.OPT_INDENT_2).decode() + "\n"
    width = max(len(r.name) for r in ALL_RULES)
    lines = [f"{'code':<6} {'name':<{width}} {'severity':<8} {'fix':<6} summary"]
    for r in ALL_RULES:
        lines.append(
            f"{r.code:<6} {r.name:<{width}} {r.severity.value:<8} {_fix(r):<6} {r.summary}"
        )
    return "\n".join(lines) + "\n"


def severity(rule: Rule) -> str:
    """The severities `rule` reports: its own first, then each other one with when
    (`error; warning under `openai-responses``)."""
    others = [f"{level.value} {when}" for level, when in rule.other_severities]
    others += [
        f"{profile.severity[rule.code].value} under `{profile.name}`"
        for profile in PROFILES.values()
        if rule.code in profile.severity
    ]
    return "; ".join([rule.severity.value, *others])


def describe(code_or_name: str) -> str | None:
    """A rule's full documentation with its examples, or None for an unknown rule."""
    try:
        rule = resolve(code_or_name)
    except HistnormError:
        return None
    head = f"# {rule.code} {rule.name}\n\nSeverity: {severity(rule)}. Fix: {_fix(rule)}.\n\n"
    parts = [head + rule.doc.strip() + "\n"]
    evidence = evidence_for(rule.code)
    if evidence:
        parts.append("\n## Evidence by profile\n\n")
        parts += [f"- `{name}` {constraint}: {text}\n" for name, constraint, text in evidence]
    for example in rule.examples:
        parts.append(
            f"\n### Example ({example.format}): {example.title}\n\nBefore:\n\n" + _json(example.bad)
        )
        if example.good is not None:
            parts.append("\nAfter `histnorm fix`:\n\n" + _json(example.good))
        else:
            parts.append("\n`histnorm fix` leaves it unchanged.\n")
    return "".join(parts)


def _json(value: object) -> str:
    return "```json\n" + orjson.dumps(value, option=orjson.OPT_INDENT_2).decode() + "\n```\n"


def write_docs(folder: Path) -> list[Path]:
    """Write each rule's page (`histnorm rule CODE`) to `folder/CODE.md`; the pages whose
    bytes changed (the others are left untouched)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for rule in ALL_RULES:
        target = folder / f"{rule.code}.md"
        page = (describe(rule.code) or "").encode()
        if not target.exists() or target.read_bytes() != page:
            target.write_bytes(page)
            written.append(target)
    return written
