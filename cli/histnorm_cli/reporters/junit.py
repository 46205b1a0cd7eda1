"""`junit`: JUnit XML (one test suite, a test case per file with findings, a failure per
diagnostic), which CI systems show as test results."""

from __future__ import annotations

import re
from typing import Any
from xml.etree import ElementTree as ET

from histnorm.diagnostic import Diagnostic
from histnorm_cli.reporters import Reporter, Summary
from histnorm_cli.reporters.text import where

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml(text: str) -> str:
    """`text` with what XML 1.0 cannot hold (control characters, lone surrogates) escaped."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class JunitReporter(Reporter):
    """Collects the diagnostics per file and writes the XML at the end."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.files: dict[str, list[Diagnostic]] = {}

    def file(self, diagnostics: list[Diagnostic]) -> None:
        """Keep the diagnostics of one file (it may come in several chunks)."""
        for d in diagnostics:
            self.files.setdefault(d.location.path or "<stdin>", []).append(d)

    def finish(self, summary: Summary) -> None:
        """Write the test suite."""
        failures = sum(len(found) for found in self.files.values())
        suite = ET.Element(
            "testsuite",
            name="histnorm",
            tests=str(len(self.files)),
            failures=str(failures),
            errors=str(summary.errors),
        )
        for path, found in self.files.items():
            case = ET.SubElement(suite, "testcase", name=_xml(path), classname="histnorm")
            for d in found:
                at = d.location.pointer
                pointer = f" (at {at or '/'})" if at is not None else ""
                failure = ET.SubElement(
                    case,
                    "failure",
                    message=_xml(f"{d.code} {d.name}: {d.message}"),
                    type=d.severity.value,
                )
                failure.text = _xml(f"{where(d)}: {d.code} {d.message}{pointer}")
        root = ET.Element("testsuites", name="histnorm", tests=str(len(self.files)))
        root.set("failures", str(failures))
        root.append(suite)
        ET.indent(root)
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.out.write(ET.tostring(root, encoding="unicode") + "\n")
