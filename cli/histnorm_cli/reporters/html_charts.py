"""Inline SVG bar charts for the HTML report: drawn here, no chart library at view time."""

from __future__ import annotations

from collections.abc import Sequence

from histnorm_cli.reporters.html_text import esc

ROW = 22
"""The height of one bar's row, in SVG units."""
LABEL = 210
"""The width of the label column."""
WIDTH = 560


def bar_chart(title: str, rows: Sequence[tuple[str, str, int, str]]) -> str:
    """A horizontal bar chart: one row per (label, link target, count, css class), each
    label a link (`#target`); empty when there is nothing to draw."""
    if not rows:
        return ""
    top = max(count for _, _, count, _ in rows) or 1
    span = WIDTH - LABEL - 60
    height = ROW * len(rows) + 4
    out = [
        f'<svg class="chart" role="img" viewBox="0 0 {WIDTH} {height}" '
        f'width="100%" preserveAspectRatio="xMinYMin meet" aria-label="{esc(title)}">'
        f"<title>{esc(title)}</title>"
    ]
    for i, (label, target, count, kind) in enumerate(rows):
        y = i * ROW + 2
        bar = max(2, round(span * count / top))
        out.append(
            f'<a href="#{esc(target)}"><text x="0" y="{y + 15}" class="lbl">{esc(label)}</text>'
            f'<rect x="{LABEL}" y="{y + 3}" width="{bar}" height="{ROW - 8}" rx="3" '
            f'class="bar {esc(kind)}"/>'
            f'<text x="{LABEL + bar + 6}" y="{y + 15}" class="num">{count}</text></a>'
        )
    out.append("</svg>")
    return "".join(out)


def share_bar(parts: Sequence[tuple[str, int, str]]) -> str:
    """One stacked bar of a whole split in shares (label, count, css class)."""
    total = sum(count for _, count, _ in parts)
    if not total:
        return ""
    out = [
        '<svg class="share" role="img" viewBox="0 0 1000 24" width="100%" '
        'preserveAspectRatio="none" aria-label="transcripts by outcome">'
    ]
    x = 0.0
    for label, count, kind in parts:
        if not count:
            continue
        width = 1000 * count / total
        out.append(
            f'<rect x="{x:.1f}" y="0" width="{width:.1f}" height="24" class="{esc(kind)}">'
            f"<title>{esc(label)}: {count}</title></rect>"
        )
        x += width
    out.append("</svg>")
    return "".join(out)
