"""`histnorm rules` and `histnorm rule`: the catalogue for people and machines."""

from __future__ import annotations

import difflib
import re
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
                "profiles": _under(r),
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


def _under(rule: Rule) -> list[str]:
    """The names of the profiles `rule` runs under (`Rule.applies`), in catalogue order."""
    return [p.name for p in PROFILES.values() if rule.applies is None or rule.applies(p)]


def profiles(rule: Rule) -> str:
    """The profiles `rule` runs under (`Rule.applies`), for a page: every one, or those
    named (it is not run under the others)."""
    under = _under(rule)
    if len(under) == len(PROFILES):
        return "every profile"
    if not under:
        return "none (not run)"
    return ", ".join(f"`{name}`" for name in under) + " (not run under the others)"


def describe(code_or_name: str) -> str | None:
    """A rule's full documentation with its examples, or None for an unknown rule.

    Links are relative to `docs/rules/`, where `histnorm rules --write-docs` puts the page.
    """
    try:
        rule = resolve(code_or_name)
    except HistnormError:
        return None
    head = f"# {rule.code} {rule.name}\n\nSeverity: {severity(rule)}. Fix: {_fix(rule)}.\n\n"
    if rule.applies is not None:
        head += f"Profiles: {profiles(rule)}.\n\n"
    parts = [head + _linked(rule.doc.strip()) + "\n" + _sources(rule)]
    evidence = evidence_for(rule.code)
    if evidence:
        parts.append("\n## Evidence by profile\n\n")
        parts += [
            f"- `{name}` {constraint}: {_linked(text)}\n" for name, constraint, text in evidence
        ]
    for example in rule.examples:
        parts.append(f"\n### Example ({example.format}): {example.title}\n\n")
        if example.good is None or example.good == example.bad:
            parts.append(_json(example.bad) + "\n`histnorm fix` leaves it unchanged.\n")
        else:
            parts.append("What `histnorm fix` changes:\n\n" + _diff(example.bad, example.good))
    return "".join(parts)


_ISSUE = re.compile(r"(?<![\w/\[.-])([A-Za-z0-9][\w.-]*/[\w.-]+)#(\d+)\b")
"""`owner/repo#N`: a GitHub issue or pull request (GitHub redirects one to the other)."""


_PATH = re.compile(r"`((?:histnorm|cli|tests|fixtures|docs|schemas|benchmarks)/[\w./-]*)`")
"""A path in this repository, in backticks."""
ROOT = Path(__file__).resolve().parents[2]
"""The repository: pages link its files relative to `docs/rules/`."""


def _linked(text: str) -> str:
    """`text` with each `owner/repo#N` a link to it, and each path of this repository (in
    backticks) a link to the file."""
    text = _ISSUE.sub(lambda m: f"[{m[0]}](https://github.com/{m[1]}/issues/{m[2]})", text)
    return _PATH.sub(
        lambda m: f"[`{m[1]}`](../../{m[1]})" if (ROOT / m[1]).exists() else m[0], text
    )


def _sources(rule: Rule) -> str:
    """The reference to the rule's own module and cases, in this repository."""
    module = f"histnorm/rules/{rule.name.replace('-', '_')}.py"
    line = f"- The rule: [`{module}`](../../{module})"
    cases = f"fixtures/rules/{rule.code}/"
    if (ROOT / cases).is_dir():
        line += f"; its cases: [`{cases}`](../../{cases})"
    return line + ".\n"


def _pretty(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def _json(value: object) -> str:
    return "```json\n" + _pretty(value) + "\n```\n"


def _diff(bad: object, good: object) -> str:
    """A unified diff from `bad` to `good`, pretty-printed, with the whole example as
    context: one copy of the transcript, its changed lines marked."""
    before, after = _pretty(bad).splitlines(), _pretty(good).splitlines()
    lines = difflib.unified_diff(
        before, after, "before", "after", n=max(len(before), len(after)), lineterm=""
    )
    return "```diff\n" + "\n".join(lines) + "\n```\n"


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
