"""`sarif`: SARIF 2.1.0 with the rule catalogue, for code-scanning dashboards."""

from __future__ import annotations

from pathlib import PurePath
from typing import Any

import orjson

import histnorm
from histnorm.diagnostic import Diagnostic, Severity
from histnorm.rules import ALL_RULES
from histnorm_cli.reporters import Reporter, Summary

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule(rule: Any) -> dict[str, Any]:
    summary = rule.doc.split("\n", 1)[0]
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": summary},
        "help": {"text": rule.doc, "markdown": rule.doc},
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
        self.results: list[dict[str, Any]] = []
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
            }
            if d.fix is not None:
                result["properties"] = {"fix": d.fix.applicability.value, "fixTitle": d.fix.title}
            self.results.append(result)

    def finish(self, summary: Summary) -> None:
        """Print the log."""
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
                    "results": self.results,
                }
            ],
        }
        self.out.write(orjson.dumps(log, option=orjson.OPT_INDENT_2).decode() + "\n")
