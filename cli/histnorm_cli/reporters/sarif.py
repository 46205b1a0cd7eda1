"""`sarif`: SARIF 2.1.0 with the rule catalogue, for code-scanning dashboards (GitHub code
scanning: each rule carries its page as Markdown; each result has a
fingerprint that survives reformatting of the file)."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import orjson

import histnorm
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rules import ALL_RULES
from histnorm_cli.catalog import describe
from histnorm_cli.reporters import Reporter, Summary
from histnorm_cli.reporters.fingerprint import fingerprint
from histnorm_cli.reporters.jsonout import ArrayWriter

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT = "histnorm/v1"
"""The key of the fingerprint in `partialFingerprints` (its version: the recipe's)."""
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule(rule: Any) -> dict[str, Any]:
    summary = rule.doc.split("\n", 1)[0]
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": summary},
        "help": {"text": rule.doc, "markdown": describe(rule.code)},
        "defaultConfiguration": {"level": _LEVELS[rule.severity]},
        "properties": {
            "fix": rule.applicability.value if rule.applicability else "none",
            "tags": ["histnorm"],
        },
    }


def _uri(path: str | None) -> str:
    return PurePath(path).as_posix() if path else "<stdin>"


class SarifReporter(Reporter):
    """One SARIF log with one run."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.results: ArrayWriter | None = None
        self.index = {rule.code: i for i, rule in enumerate(ALL_RULES)}

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Collect one result per diagnostic."""
        for d in diagnostics:
            loc = d.location
            physical: dict[str, Any] = {"artifactLocation": {"uri": _uri(loc.path)}}
            if loc.line is not None:
                physical["region"] = {"startLine": loc.line}
            location: dict[str, Any] = {"physicalLocation": physical}
            if loc.pointer is not None:
                location["logicalLocations"] = [
                    {"fullyQualifiedName": loc.pointer or "/", "kind": "element"}
                ]
            result: dict[str, Any] = {
                "ruleId": d.code,
                "ruleIndex": self.index[d.code],
                "level": _LEVELS[d.severity],
                "message": {"text": d.message},
                "locations": [location],
                "partialFingerprints": {FINGERPRINT: fingerprint(d)},
            }
            if d.fix is not None:
                result["properties"] = {"fix": d.fix.applicability.value, "fixTitle": d.fix.title}
            self._results().add(result)

    def _results(self) -> ArrayWriter:
        """The results array, after the head of the log (written when first needed)."""
        if self.results is None:
            head, _ = _log()
            self.out.write(head)
            self.results = ArrayWriter(self.out, depth=RESULTS_DEPTH)
        return self.results

    def finish(self, summary: Summary) -> None:
        """End the log."""
        self._results().close()
        self.out.write(_log()[1])


RESULTS_DEPTH = 3
"""How deep the results array sits in the log: {"runs": [{"results": [...]}]}."""
_RESULTS = '"results": []'


def _log() -> tuple[str, str]:
    """The text of the log before and after its results array."""
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "histnorm",
                        "version": histnorm.__version__,
                        "rules": [_rule(rule) for rule in ALL_RULES],
                    }
                },
                "results": [],
            }
        ],
    }
    text = orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n"
    at = text.rindex(_RESULTS) + len(_RESULTS) - 2
    return text[:at], text[at + 2 :]
