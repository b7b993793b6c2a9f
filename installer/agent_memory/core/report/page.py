"""The report as one self-contained HTML page: inline CSS and SVG, no script, nothing fetched (its
Content-Security-Policy forbids it), every table readable without the charts."""

from __future__ import annotations

import html

from ...parse.untrusted import shown
from . import sections
from .charts import Series, bars, legend
from .content import Content

_STYLE = """
body{font:15px/1.45 system-ui,sans-serif;color:#222;max-width:860px;margin:2em auto;padding:0 1em}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ddd}
.meta{color:#666}.big{font-size:1.25em}.due{color:#b35c00}.ok{color:#2b8a3e}
table{border-collapse:collapse;margin:.6em 0}td,th{padding:.25em .7em;text-align:left;
border-bottom:1px solid #eee}td.n,th.n{text-align:right}code{font-size:.92em}
.legend{list-style:none;padding:0;display:flex;gap:1em;flex-wrap:wrap}
.swatch{display:inline-block;width:.8em;height:.8em;margin-right:.3em;vertical-align:middle}
svg{max-width:100%;height:auto}details{margin:.4em 0 1em}
"""
_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def escape(text: str) -> str:
    """Text of the repo's (its folder's name, a fact's words) as inert HTML: a control character
    written as the command line shows it (``\\x1b``), never sent raw."""
    return html.escape(shown(text))


def render(found: Content) -> str:
    """The page (UTF-8 text)."""
    body = [
        f"<h1>Memory report: {escape(found.repo)}</h1>",
        f'<p class="meta">{escape(found.today)} · agent-memory {escape(found.version)}</p>',
        _summary(found),
        _hit_chart(found),
        _tier_chart(found),
        _archive_chart(found),
        *(_table(t) for t in sections.tables(found)),
        f'<p class="meta">{escape(sections.LIMITS)}</p>',
    ]
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Memory report: {escape(found.repo)}</title><style>{_STYLE}</style></head>\n"
        "<body>\n" + "\n".join(body) + "\n</body></html>\n"
    )


def _summary(found: Content) -> str:
    lines = sections.summary(found)
    due = (
        f'<p class="due"><strong>Review due:</strong> {escape("; ".join(found.due))}</p>'
        if found.due
        else '<p class="ok"><strong>Review:</strong> not due</p>'
    )
    items = "".join(f"<li>{escape(line)}</li>" for line in lines[1:])
    return f'<p class="big">{escape(lines[0])}</p>{due}<ul>{items}</ul>'


def _hit_chart(found: Content) -> str:
    quarters = found.hits_over_time
    labels = [q for q, _ in quarters]
    full = tuple(t.in_full_rate or 0.0 for _, t in quarters)
    named = tuple((t.named_rate or 0.0) - f for (_, t), f in zip(quarters, full, strict=True))
    series = [
        Series("in full: the start view showed the fact's text", "#2b8a3e", full),
        Series("named only: it showed one line naming the fact", "#94d82d", named),
    ]
    chart = bars(
        "Share of the facts sessions used that their start view showed in full (lower bar), or "
        "named by one line (upper bar), per period",
        labels,
        series,
        percent=True,
    )
    rows = tuple(sections.hit_row(q, t) for q, t in quarters)
    data = _table(sections.Table("", sections.HITS, rows, ""))
    return _figure("id-hit-rate", "Hit rate over time", chart, legend(series), data)


def _tier_chart(found: Content) -> str:
    labels = [q for q, _ in found.tiers_over_time]
    series = [
        Series(tier, color, tuple(float(c.get(tier, 0)) for _, c in found.tiers_over_time))
        for tier, color in sections.TIER_COLORS
    ]
    chart = bars("Facts per tier at the end of each period (replayed)", labels, series)
    rows = tuple(
        (q, *(str(c.get(t, 0)) for t, _ in sections.TIER_COLORS)) for q, c in found.tiers_over_time
    )
    head = ("period", *(t for t, _ in sections.TIER_COLORS))
    data = _table(sections.Table("", head, rows, ""))
    return _figure("id-tiers", "Facts per tier over time", chart, legend(series), data)


def _archive_chart(found: Content) -> str:
    labels = [name.removesuffix(".md") for name, _ in found.archive]
    totals, running = [], 0
    for _, count in found.archive:
        running += count
        totals.append(float(running))
    chart = bars(
        "Facts in the archive, by the quarter file they went to (cumulative)",
        labels,
        [Series("archived", "#868e96", tuple(totals))],
    )
    rows = tuple((n, str(c), f"{t:g}") for (n, c), t in zip(found.archive, totals, strict=True))
    data = _table(sections.Table("", ("file", "facts", "in all"), rows, ""))
    return _figure("id-archive", "Archive growth", chart, "", data)


def _figure(anchor: str, title: str, chart: str, key: str, data: str) -> str:
    return (
        f'<h2 id="{anchor}">{escape(title)}</h2><figure class="chart">{chart}{key}</figure>'
        f"<details><summary>The numbers</summary>{data}</details>"
    )


def _table(table: sections.Table) -> str:
    title = f"<h2>{escape(table.title)}</h2>" if table.title else ""
    if not table.rows:
        return f"{title}<p>{escape(table.empty)}</p>"
    head = "".join(f"<th{_align(h, table)}>{escape(h)}</th>" for h in table.head)
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td{_align(h, table)}>{_cell(v, h)}</td>"
            for h, v in zip(table.head, row, strict=True)
        )
        + "</tr>"
        for row in table.rows
    )
    return f"{title}<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _align(head: str, table: sections.Table) -> str:
    return ' class="n"' if head in sections.NUMERIC else ""


def _cell(value: str, head: str) -> str:
    return f"<code>{escape(value)}</code>" if head == "id" else escape(value)
