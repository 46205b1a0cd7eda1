"""The HTML report's page: one self-contained document (inline style and script, no
fetch of any kind), the corpus summary on top, the transcripts with findings below."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import field
from importlib import resources
from typing import Any

import histnorm
from histnorm._record import record
from histnorm_cli.reporters.html_charts import bar_chart, share_bar
from histnorm_cli.reporters.html_conversation import anchor_of, finding
from histnorm_cli.reporters.html_text import esc

PAGE = 50
"""Transcripts per page; the others wait in templates, drawn when their page is shown."""


@record
class View:
    """One transcript with findings (or changed by a fix), ready to be drawn."""

    file: str
    label: str
    findings: list[dict[str, Any]] = field(default_factory=list)
    applied: list[dict[str, Any]] = field(default_factory=list)
    body: str = ""
    """The conversation (or before/after) view; empty when it is not drawn."""
    split: bool = False
    """Whether `body` shows the transcript before and after a fix."""
    unplaced: str = ""
    """`applied` or `findings`: records not drawn at their places in `body` (they point
    into another version of the file)."""

    @property
    def codes(self) -> list[str]:
        """The rules of its findings and fixes."""
        found = [f["code"] for f in self.findings] + [a["applied"]["code"] for a in self.applied]
        return sorted(set(found))

    @property
    def severity(self) -> str:
        """Its worst severity: error, warning, info, or fixed."""
        seen = {f["severity"] for f in self.findings}
        return next((s for s in ("error", "warning", "info") if s in seen), "fixed")


@record
class Totals:
    """The corpus summary."""

    mode: str
    """`lint` or `fix`."""
    files: int
    transcripts: int
    skipped: int
    by_code: Mapping[str, int]
    names: Mapping[str, str]
    fixed: Mapping[str, int] = field(default_factory=dict)
    errors: int = 0
    """Files that could not be checked."""
    command: str = ""
    """The command the page reports (default: `histnorm <mode>`)."""


def build_page(
    totals: Totals,
    views: Sequence[View],
    docs: Mapping[str, str],
    notes: Sequence[str] = (),
    skipped: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The whole page; every string from the data escaped."""
    sections = [_section(i, view) for i, view in enumerate(views)]
    title = esc(totals.command or f"histnorm {totals.mode}")
    script = _asset("page.js")
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    policy = (
        f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<meta name="color-scheme" content="light dark"><title>{title} report</title>'
        f"<style>{_asset('page.css')}</style></head><body><header><h1>{title} report</h1>"
        f'<p class="ver">histnorm {esc(histnorm.__version__)}</p></header><main>'
        + "".join(f'<p class="note">{esc(note)}</p>' for note in notes)
        + _summary(totals, views)
        + _filters(views, totals.mode)
        + f'<div id="list" data-page="{PAGE}">'
        + "".join(sections)
        + "</div>"
        + (
            '<p class="empty-list">No transcript has findings.</p>'
            if not views
            else '<nav class="pager"><button id="prev" type="button">← previous</button>'
            '<span id="f-info"></span><button id="next" type="button">next →</button></nav>'
        )
        + _skipped(skipped)
        + _docs(docs)
        + f"</main><script>{script}</script></body></html>\n"
    )


def _summary(totals: Totals, views: Sequence[View]) -> str:
    with_errors = sum(v.severity == "error" for v in views)
    with_warnings = sum(v.severity == "warning" for v in views)
    with_findings = sum(bool(v.findings) for v in views)
    clean = max(0, totals.transcripts - with_findings)
    counts = [
        ("files", totals.files),
        ("transcripts", totals.transcripts),
        ("clean after the fix" if totals.mode == "fix" else "clean", clean),
        ("with errors", with_errors),
        ("with warnings", with_warnings),
        ("skipped", totals.skipped),
    ]
    if totals.mode == "fix":
        counts.append(("changed by the fix", sum(bool(v.applied) for v in views)))
    if totals.errors:
        counts.append(("files not checked", totals.errors))
    tiles = "".join(
        f'<div class="tile" data-count="{esc(label)}"><b>{n:,}</b><span>{esc(label)}</span></div>'
        for label, n in counts
    )
    share = share_bar(
        [
            ("clean", clean, "ok"),
            ("with errors", with_errors, "error"),
            ("with warnings", with_warnings, "warning"),
            ("other findings", with_findings - with_errors - with_warnings, "info"),
        ]
    )
    rows = [
        (f"{code} {totals.names.get(code, '')}", f"rule-{code}", n, "error")
        for code, n in sorted(totals.by_code.items(), key=lambda item: (-item[1], item[0]))
    ]
    fixed = [
        (f"{code} {totals.names.get(code, '')}", f"rule-{code}", n, "fixed")
        for code, n in sorted(totals.fixed.items(), key=lambda item: (-item[1], item[0]))
    ]
    what = "Findings left after the fix" if totals.mode == "fix" else "Findings per rule"
    charts = ""
    if rows:
        charts += f"<h3>{what}</h3>" + bar_chart(what, rows)
    if fixed:
        charts += "<h3>Fixes per rule</h3>" + bar_chart("Fixes per rule", fixed)
    return (
        f'<section id="summary"><h2>Corpus</h2><div class="tiles">{tiles}</div>{share}'
        f"{charts}</section>"
    )


def _filters(views: Sequence[View], mode: str) -> str:
    if not views:
        return ""
    codes = sorted({code for view in views for code in view.codes})
    files = sorted({view.file for view in views})
    heading = (
        "Transcripts changed or with findings" if mode == "fix" else "Transcripts with findings"
    )
    options = "".join(f'<option value="{esc(c)}">{esc(c)}</option>' for c in codes)
    listed = "".join(f'<option value="{esc(f)}"></option>' for f in files)
    return (
        f'<section id="filters"><h2>{heading}</h2><div class="controls">'
        '<label>Rule <select id="f-rule"><option value="">all rules</option>'
        f"{options}</select></label>"
        '<label>File <input id="f-file" type="search" list="f-files" '
        f'placeholder="part of a path"></label><datalist id="f-files">{listed}</datalist>'
        "</div></section>"
    )


def _section(index: int, view: View) -> str:
    rules = " " + " ".join(view.codes) + " "
    head = (
        f'<header><h3><span class="file">{esc(view.file)}</span>'
        f' <span class="where">{esc(view.label)}</span></h3></header>'
    )
    before = f"t{index}b" if view.split else f"t{index}"
    listed = "".join(
        finding(
            f, anchor_of(before if "applied" in f else f"t{index}", f) if _jumps(view, f) else None
        )
        for f in [*view.applied, *view.findings]
    )
    content = f'{head}<div class="findings">{listed}</div>{view.body}'
    hidden = index >= PAGE
    if hidden:
        content = f"<template>{content}</template>"
    return (
        f'<section class="t {esc(view.severity)}" id="t{index}" data-file="{esc(view.file)}" '
        f'data-rules="{esc(rules)}"{" hidden" if hidden else ""}>{content}</section>'
    )


def _jumps(view: View, found: Mapping[str, Any]) -> bool:
    """Whether the record is drawn at its place in the view (a link can go there)."""
    kind = "applied" if "applied" in found else "findings"
    return bool(view.body) and view.unplaced != kind


def _skipped(skipped: Sequence[Mapping[str, Any]]) -> str:
    if not skipped:
        return ""
    rows = "".join(
        f"<li><span class=file>{esc(s['filename'] or '<stdin>')}</span> {esc(s['message'])}</li>"
        for s in skipped[:200]
    )
    more = f"<p>and {len(skipped) - 200:,} more</p>" if len(skipped) > 200 else ""
    return (
        f'<section id="skipped"><details><summary>Skipped: {len(skipped):,} files or records '
        f"hold no transcript</summary><ul>{rows}</ul>{more}</details></section>"
    )


def _title(doc: str) -> str:
    """A rule page's heading (`# HN001 orphan-tool-call`) without its marker."""
    return doc.splitlines()[0].lstrip("# ") if doc else ""


def _docs(docs: Mapping[str, str]) -> str:
    if not docs:
        return ""
    items = "".join(
        f'<details class="rule" id="rule-{esc(code)}"><summary>{esc(_title(text))}'
        f'</summary><pre class="doc">{esc(text)}</pre></details>'
        for code, text in sorted(docs.items())
    )
    return f'<section id="rules"><h2>Rules</h2>{items}</section>'


def _asset(name: str) -> str:
    """The page's style or script, kept beside this module."""
    return resources.files("histnorm_cli.reporters").joinpath(name).read_text(encoding="utf-8")
