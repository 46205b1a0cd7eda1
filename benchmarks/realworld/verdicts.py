"""Hold histnorm's profiles to the verdicts real providers gave on real request bodies.

    python -m benchmarks.realworld.verdicts ../shared/real-world/provider-verdicts [--json]

The folder holds one request body per file, in a subfolder named after its format
(`openai-chat`, `openai-responses`, `anthropic`, `gemini`), and an `index.json` listing
`{"file", "host", "status", ...}` for each. A body answered 200 by the provider a
profile models was accepted: any error or warning histnorm reports on it under that
profile is a false positive, and `fix` must leave it byte-identical. A 400 is a miss
when its cause lies in the history (`KNOWN_CAUSES` says which do, from the error text
the provider sent) and histnorm reports no error. Groq's and Mistral's bodies are
evidence for `groq` and `mistral`; bodies sent to other hosts (DeepSeek's Responses
endpoint, OpenRouter...) say nothing about any profile and are only counted.
An index entry may instead name the body's `format` and `profile` itself (the second
verdict folder, whose files sit in one subfolder per source project), and the `cause` of
a rejection (`history`, or `other` for keys, quotas and model names).
Exit status: 0 when there is no false positive, no miss and no changed body; 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import histnorm
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.document import read_json, write
from histnorm.engine import fix as fix_transcript
from histnorm.engine import proven_clean
from histnorm.settings import Settings

PROFILE_OF_HOST: Mapping[str, str] = {
    "api.anthropic.com": "anthropic",
    "generativelanguage.googleapis.com": "gemini",
    "aiplatform.googleapis.com": "vertex",
    "api.groq.com": "groq",
    "api.mistral.ai": "mistral",
}
"""Hosts whose verdicts are evidence for one profile, whatever the endpoint."""

OPENAI_HOST = "api.openai.com"
OPENAI_PROFILES = ("openai-chat", "openai-responses")
"""OpenAI's verdicts evidence the profile of the endpoint, which is the body's folder."""

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock-converse")
"""The formats the checker reads (the first set's folders are named after them)."""

BEDROCK = "bedrock-converse"
BEDROCK_HOST = "bedrock-runtime."
"""A Converse body sent to `bedrock-runtime.<region>.amazonaws.com` is evidence for the
`bedrock-converse` profile."""


@dataclass(frozen=True)
class Cause:
    """Why a provider rejected a body, from the error text it answered."""

    history: bool
    """Whether the cause lies in the history (what histnorm must report)."""
    reason: str


_AUDIO_CHAT = Cause(
    False,
    "Invalid 'messages[3]'. Content blocks are expected to be either text or image_url type. "
    "(an input_audio block sent to a model without audio input)",
)
_MATRIX = "tests/models/cassettes/test_multimodal_tool_returns/test_multimodal_tool_return_matrix"

KNOWN_CAUSES: Mapping[str, Cause] = {
    f"{_MATRIX}[direct-url_force_download-audio-openai_chat].yaml#2": _AUDIO_CHAT,
    f"{_MATRIX}[tool_return_content-url_force_download-audio-openai_chat].yaml#2": _AUDIO_CHAT,
    f"{_MATRIX}[direct-url-audio-openai_responses].yaml#1": Cause(
        False,
        "The file type you uploaded is not supported. Please try again with a pdf (an mp3 "
        "input_file in a function_call_output)",
    ),
    "tests/models/cassettes/test_multimodal_tool_returns/test_model_sees_multiple_images"
    "[google_vertex].yaml#1": Cause(
        False,
        "Cannot fetch content from the provided URL. Please ensure the URL is valid and "
        "accessible by Vertex AI. (a file_uri Vertex could not download)",
    ),
    "tests/models/cassettes/test_openai_responses/"
    "test_openai_responses_thinking_with_modified_history.yaml#1": Cause(
        True,
        "Item 'rs_...' of type 'reasoning' was provided without its required following item. "
        "(the reasoning's output message was replaced by one without an id)",
    ),
}
"""Why the provider rejected each recorded 400, keyed by `cassette#interaction` (or by
file when the index names no cassette), with the error text the cassette holds."""


@dataclass
class Tally:
    """What the checker found for one profile."""

    bodies: int = 0
    accepted: int = 0
    rejected: int = 0
    history_rejected: int = 0
    caught: int = 0
    false_positives: dict[str, list[str]] = field(default_factory=dict)
    """File of each accepted body with errors or warnings: the rules that reported."""
    misses: list[str] = field(default_factory=list)
    unclassified: list[str] = field(default_factory=list)
    """400s whose cause is not in the table of known causes."""
    changed_by_fix: list[str] = field(default_factory=list)

    def by_rule(self) -> Counter[str]:
        """How many accepted bodies each rule flagged."""
        return Counter(code for codes in self.false_positives.values() for code in set(codes))


@dataclass
class Report:
    """The tallies of every profile, and the bodies that evidence none."""

    profiles: dict[str, Tally] = field(default_factory=dict)
    not_evidence: Counter[str] = field(default_factory=Counter)
    """Bodies per host that no profile models."""

    @property
    def clean(self) -> bool:
        """No false positive, no miss, no accepted body changed, no unknown 400."""
        return not any(
            t.false_positives or t.misses or t.changed_by_fix or t.unclassified
            for t in self.profiles.values()
        )


def profile_for(host: str, folder: str) -> str | None:
    """The profile a verdict from `host` on a body in `folder` is evidence for."""
    if host == OPENAI_HOST:
        return folder if folder in OPENAI_PROFILES else None
    return PROFILE_OF_HOST.get(host)


def format_and_profile(entry: Mapping[str, Any]) -> tuple[str, str | None]:
    """The format of an index entry's body and the profile its verdict is evidence for
    (None: no profile): named by the entry, or its folder's and its host's."""
    if "format" in entry:
        kind = str(entry["format"])
        named = entry.get("profile")
        if kind == BEDROCK and named is None and str(entry["host"]).startswith(BEDROCK_HOST):
            named = BEDROCK  # the index names no profile for Bedrock's own endpoint
        return kind, named if kind in FORMATS and isinstance(named, str) else None
    kind = str(entry["file"]).split("/", 1)[0]
    return kind, profile_for(str(entry["host"]), kind) if kind in FORMATS else None


def indexed_cause(entry: Mapping[str, Any]) -> Cause | None:
    """The cause an index entry gives a rejection itself (`history` or `other`), if any."""
    cause = entry.get("cause")
    if cause not in ("history", "other"):
        return None
    return Cause(cause == "history", str(entry.get("error") or entry.get("why") or cause))


def cause_key(entry: Mapping[str, Any]) -> str:
    """The key of an index entry in a table of causes: `cassette#interaction`, or the file."""
    if "cassette" in entry:
        return f"{entry['cassette']}#{entry.get('interaction', 0)}"
    return str(entry["file"])


def diagnose(data: bytes, format: str, profile: str) -> tuple[Diagnostic, ...]:
    """What `histnorm lint --format FORMAT --profile PROFILE` reports on one body."""
    return histnorm.lint(data, Settings(profile=profile), format=format)


def fix_changes(data: bytes, format: str, profile: str) -> bool:
    """Whether `histnorm fix` would change the bytes of one body."""
    settings = Settings(profile=profile)
    if proven_clean(json.loads(data), format, settings):
        return False
    document = read_json(data, format)
    fixed = [
        None if r.transcript is None else fix_transcript(r.transcript, settings).transcript
        for r in document.records
    ]
    return write(document, fixed) != data


def _flagged(diagnostics: Sequence[Diagnostic]) -> list[str]:
    return sorted({d.code for d in diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)})


def check(folder: Path, causes: Mapping[str, Cause] | None = None) -> Report:
    """Lint every body listed in `folder/index.json` and tally the verdicts per profile.

    `causes` says why each 400 was rejected (default `KNOWN_CAUSES`)."""
    known = KNOWN_CAUSES if causes is None else causes
    report = Report()
    entries: list[dict[str, Any]] = json.loads((folder / "index.json").read_bytes())
    for entry in entries:
        name, host, status = entry["file"], entry["host"], int(entry["status"])
        kind, profile = format_and_profile(entry)
        if profile is None:
            report.not_evidence[host] += 1
            continue
        tally = report.profiles.setdefault(profile, Tally())
        tally.bodies += 1
        data = (folder / name).read_bytes()
        found = diagnose(data, kind, profile)
        if status < 300:
            tally.accepted += 1
            if flagged := _flagged(found):
                tally.false_positives[name] = flagged
            if fix_changes(data, kind, profile):
                tally.changed_by_fix.append(name)
            continue
        tally.rejected += 1
        cause = known.get(cause_key(entry)) or indexed_cause(entry)
        if cause is None:
            tally.unclassified.append(name)
        elif cause.history:
            tally.history_rejected += 1
            if any(d.severity is Severity.ERROR for d in found):
                tally.caught += 1
            else:
                tally.misses.append(name)
    report.profiles = dict(sorted(report.profiles.items()))
    return report


def _rules(counts: Counter[str]) -> str:
    return ", ".join(f"{code} x{n}" for code, n in sorted(counts.items())) or "-"


def render(report: Report) -> str:
    """The report as a text table, then the files behind every problem."""
    head = ("profile", "bodies", "200", "false+", "by rule", "400", "history", "missed", "fixed")
    rows = [head]
    for name, t in report.profiles.items():
        fp = str(len(t.false_positives))
        cells = (str(t.bodies), str(t.accepted), fp, _rules(t.by_rule()), str(t.rejected))
        rows.append(
            (name, *cells, str(t.history_rejected), str(len(t.misses)), str(len(t.changed_by_fix)))
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) for row in rows]
    others = ", ".join(f"{host} {n}" for host, n in sorted(report.not_evidence.items()))
    lines.append(f"not evidence: {sum(report.not_evidence.values())} bodies ({others or '-'})")
    for name, t in report.profiles.items():
        lines += [
            f"false positive [{name}] {f}: {', '.join(c)}" for f, c in t.false_positives.items()
        ]
        lines += [f"missed [{name}] {f}" for f in t.misses]
        lines += [f"fix changes [{name}] {f}" for f in t.changed_by_fix]
        lines += [f"400 of unknown cause [{name}] {f}" for f in t.unclassified]
    return "\n".join(lines)


def as_json(report: Report) -> dict[str, Any]:
    """The report as a JSON value."""
    return {
        "profiles": {
            name: {**asdict(t), "by_rule": dict(sorted(t.by_rule().items()))}
            for name, t in report.profiles.items()
        },
        "not_evidence": dict(sorted(report.not_evidence.items())),
        "clean": report.clean,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("folder", type=Path, help="a folder with index.json and the bodies")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    report = check(args.folder)
    print(json.dumps(as_json(report), indent=2) if args.json else render(report))
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
