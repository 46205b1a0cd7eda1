"""The HTML report's page: one self-contained document (inline style and script, no
fetch of any kind), the corpus summary on top, the transcripts with findings below."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import histnorm
from histnorm_cli.reporters.html_charts import bar_chart, share_bar
from histnorm_cli.reporters.html_conversation import anchor_of, finding
from histnorm_cli.reporters.html_text import esc

PAGE = 50
"""Transcripts per page; the others wait in templates, drawn when their page is shown."""


@dataclass
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


@dataclass
class Totals:
    """The corpus summary."""

    mode: str
    files: int
    transcripts: int
    skipped: int
    by_code: Mapping[str, int]
    names: Mapping[str, str]
    fixed: Mapping[str, int] = field(default_factory=dict)
    errors: int = 0
    """Files that could not be checked."""


def build_page(
    totals: Totals,
    views: Sequence[View],
    docs: Mapping[str, str],
    notes: Sequence[str] = (),
    skipped: Sequence[Mapping[str, Any]] = (),
) -> str:
    """The whole page; every string from the data escaped."""
    sections = [_section(i, view) for i, view in enumerate(views)]
    title = "histnorm fix --diff" if totals.mode == "fix" else "histnorm lint"
    script = _SCRIPT
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
        f"<style>{_STYLE}</style></head><body><header><h1>{title} report</h1>"
        f'<p class="ver">histnorm {esc(histnorm.__version__)}</p></header><main>'
        + "".join(f'<p class="note">{esc(note)}</p>' for note in notes)
        + _summary(totals, views)
        + _filters(views, totals.mode)
        + '<div id="list">'
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
    heading = "Transcripts changed or with findings" if mode == "fix" else "Transcripts with findings"
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
        finding(f, anchor_of(before if "applied" in f else f"t{index}", f) if view.body else None)
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


def _skipped(skipped: Sequence[Mapping[str, Any]]) -> str:
    if not skipped:
        return ""
    rows = "".join(
        f"<li><span class=file>{esc(s['filename'] or '<stdin>')}</span> "
        f"{esc(s['message'])}</li>"
        for s in skipped[:200]
    )
    more = f"<p>and {len(skipped) - 200:,} more</p>" if len(skipped) > 200 else ""
    return (
        f'<section id="skipped"><details><summary>Skipped: {len(skipped):,} files or records '
        f"hold no transcript</summary><ul>{rows}</ul>{more}</details></section>"
    )


def _docs(docs: Mapping[str, str]) -> str:
    if not docs:
        return ""
    items = "".join(
        f'<details class="rule" id="rule-{esc(code)}"><summary>{esc(text.splitlines()[0].lstrip("# "))}'
        f'</summary><pre class="doc">{esc(text)}</pre></details>'
        for code, text in sorted(docs.items())
    )
    return f'<section id="rules"><h2>Rules</h2>{items}</section>'


_STYLE = """
:root{--bg:#fff;--fg:#1f2328;--mute:#656d76;--line:#d0d7de;--card:#f6f8fa;--user:#ddf4ff;
--asst:#f6f8fa;--sys:#fff8c5;--tool:#f5f0ff;--err:#cf222e;--warn:#9a6700;--info:#0969da;
--ok:#1a7f37;--add:#dafbe1;--del:#ffebe9;--mov:#ddf4ff;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mute:#9198a1;
--line:#30363d;--card:#161b22;--user:#0c2d4a;--asst:#161b22;--sys:#2e2a0f;--tool:#231a38;
--err:#ff7b72;--warn:#d29922;--info:#58a6ff;--ok:#3fb950;--add:#12361d;--del:#3d1417;
--mov:#0c2d4a;--accent:#58a6ff}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif}
body>header{padding:12px 16px;border-bottom:1px solid var(--line)}h1{margin:0;font-size:20px}
.ver{margin:0;color:var(--mute);font-size:13px}main{max-width:1200px;margin:0 auto;padding:12px}
a{color:var(--accent)}code,.code,.body,.ptr,pre{font-family:ui-monospace,SFMono-Regular,Menlo,monospace}
.note{border:1px solid var(--warn);border-radius:6px;padding:8px 12px;color:var(--warn)}
.tiles{display:grid;grid-template-columns:repeat(auto-fit,minmax(110px,1fr));gap:8px;margin:8px 0}
.tile{border:1px solid var(--line);border-radius:8px;padding:8px;background:var(--card)}
.tile b{display:block;font-size:22px}.tile span{color:var(--mute);font-size:13px}
svg.share{height:14px;border-radius:4px;margin:4px 0 8px}svg.chart{max-width:720px;display:block}
.ok{fill:var(--ok)}.error{fill:var(--err)}.warning{fill:var(--warn)}.info{fill:var(--info)}
.bar.fixed{fill:var(--ok)}.chart text{fill:var(--fg);font-size:13px}.chart .num{fill:var(--mute)}
.controls{display:flex;flex-wrap:wrap;gap:12px;margin:8px 0}
select,input,button{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--line);
border-radius:6px;padding:4px 8px}input{min-width:16em}
section.t{border:1px solid var(--line);border-radius:8px;margin:14px 0;padding:10px;
border-left:4px solid var(--info)}section.t.error{border-left-color:var(--err)}
section.t.warning{border-left-color:var(--warn)}section.t.fixed{border-left-color:var(--ok)}
section.t h3{margin:0 0 6px;font-size:15px;overflow-wrap:anywhere}.where{color:var(--mute);font-weight:normal}
.finding{border-left:3px solid var(--info);background:var(--card);padding:4px 8px;margin:4px 0;
border-radius:0 6px 6px 0;font-size:14px;overflow-wrap:anywhere}.finding.error{border-color:var(--err)}
.finding.warning{border-color:var(--warn)}.finding.applied{border-color:var(--ok)}
.finding .code{font-weight:bold;text-decoration:none}.finding .name,.finding .line,.fixnote{color:var(--mute)}
.finding.dim{opacity:.35}.ptr{background:var(--bg);padding:0 4px;border-radius:4px}
.conv{display:flex;flex-direction:column;gap:8px;margin-top:10px}
.msg{max-width:85%;border:1px solid var(--line);border-radius:12px;padding:6px 10px;background:var(--asst)}
.msg.user{align-self:flex-end;background:var(--user)}.msg.system{align-self:center;background:var(--sys)}
.msg.tool{background:var(--tool)}.msg.flagged{box-shadow:0 0 0 2px var(--err)}
.msg.removed{background:var(--del)}.msg.removed>.part{text-decoration:line-through}.msg.added{background:var(--add)}
.msg.moved{box-shadow:0 0 0 2px var(--accent)}.msg.changed{box-shadow:0 0 0 2px var(--warn)}
.mark{margin-left:8px;font-size:12px;border:1px solid currentColor;border-radius:10px;padding:0 6px}
.who{font-size:12px;color:var(--mute)}.idx{font-family:ui-monospace,monospace}
.body{white-space:pre-wrap;overflow-wrap:anywhere;font-family:inherit}
.code.body,div.code{white-space:pre-wrap;overflow-wrap:anywhere;font-size:13px}
.card{border:1px solid var(--line);border-radius:8px;background:var(--bg);padding:4px 8px;margin:4px 0}
.card-h{font-size:13px}.join{margin-left:6px}.nojoin{color:var(--err);margin-left:6px;font-weight:bold}
.tag{font-size:12px;color:var(--mute);margin-right:6px}.more,.cut{color:var(--mute);font-size:12px}
details.gap>summary{color:var(--mute);font-size:13px;cursor:pointer}
.split{display:grid;grid-template-columns:1fr 1fr;gap:12px}.split h4{margin:4px 0}
@media (max-width:720px){.split{grid-template-columns:1fr}.msg{max-width:100%}main{padding:6px}}
.pager{display:flex;gap:12px;align-items:center;justify-content:center;margin:12px 0}
pre.doc{white-space:pre-wrap;background:var(--card);padding:8px;border-radius:6px;font-size:13px}
details.rule>summary{cursor:pointer;padding:4px 0}:target{scroll-margin-top:12px}
"""

_SCRIPT = """
(function(){
var PAGE=%d,all=Array.prototype.slice.call(document.querySelectorAll('section.t')),page=0;
var rule=document.getElementById('f-rule'),file=document.getElementById('f-file');
var info=document.getElementById('f-info'),prev=document.getElementById('prev'),next=document.getElementById('next');
function fill(s){var t=s.querySelector(':scope > template');if(t){s.appendChild(t.content.cloneNode(true));t.remove();}}
function apply(){
 if(!rule)return;
 var r=rule.value,f=file.value.toLowerCase();
 var shown=all.filter(function(s){return(!r||s.dataset.rules.indexOf(' '+r+' ')>=0)&&(!f||s.dataset.file.toLowerCase().indexOf(f)>=0);});
 var pages=Math.max(1,Math.ceil(shown.length/PAGE));if(page>=pages)page=pages-1;
 var on=new Set(shown.slice(page*PAGE,page*PAGE+PAGE));
 all.forEach(function(s){if(on.has(s)){fill(s);s.hidden=false;s.querySelectorAll('.finding').forEach(function(d){d.classList.toggle('dim',!!r&&d.dataset.code!==r);});}else s.hidden=true;});
 info.textContent=shown.length+' of '+all.length+' transcripts'+(pages>1?' \\u00b7 page '+(page+1)+' of '+pages:'');
 prev.disabled=page===0;next.disabled=page>=pages-1;
}
function reveal(){
 var id=decodeURIComponent(location.hash.slice(1));if(!id)return;
 var el=document.getElementById(id);if(!el)return;
 for(var p=el;p;p=p.parentElement){if(p.tagName==='DETAILS')p.open=true;}
 el.scrollIntoView();
}
if(rule){rule.addEventListener('change',function(){page=0;apply();});
 file.addEventListener('input',function(){page=0;apply();});
 prev.addEventListener('click',function(){page--;apply();window.scrollTo(0,document.getElementById('filters').offsetTop);});
 next.addEventListener('click',function(){page++;apply();window.scrollTo(0,document.getElementById('filters').offsetTop);});}
window.addEventListener('hashchange',reveal);apply();reveal();
})();
""" % PAGE
