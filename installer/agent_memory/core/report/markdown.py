"""The report as Markdown, for a pull request's comment: the page's content, its charts as
tables."""

from __future__ import annotations

from . import sections
from .content import Content
from .sections import Table


def render(found: Content) -> str:
    lines = sections.summary(found)
    due = f"**Review due:** {_inline('; '.join(found.due))}" if found.due else "**Review:** not due"
    parts = [
        f"# Memory report: {_inline(found.repo)}",
        f"{found.today} · agent-memory {found.version}",
        f"**{_inline(lines[0])}**",
        due,
        "\n".join(f"- {_inline(line)}" for line in lines[1:]),
        *(_table(t) for t in _charts(found)),
        *(_table(t) for t in sections.tables(found)),
        f"_{_inline(sections.LIMITS)}_",
    ]
    return "\n\n".join(parts) + "\n"


def _charts(found: Content) -> list[Table]:
    tiers = [t for t, _ in sections.TIER_COLORS]
    running, archive = 0, []
    for name, count in found.archive:
        running += count
        archive.append((name.removesuffix(".md"), str(count), str(running)))
    return [
        Table(
            "Hit rate over time",
            sections.HITS,
            tuple(sections.hit_row(q, t) for q, t in found.hits_over_time),
            "No session logs yet.",
        ),
        Table(
            "Facts per tier over time",
            ("period", *tiers),
            tuple((q, *(str(c.get(t, 0)) for t in tiers)) for q, c in found.tiers_over_time),
            "No session logs yet.",
        ),
        Table("Archive growth", ("file", "facts", "in all"), tuple(archive), "Nothing archived."),
    ]


def _table(table: Table) -> str:
    title = f"## {table.title}"
    if not table.rows:
        return f"{title}\n\n{table.empty}"
    head = "| " + " | ".join(table.head) + " |"
    rule = "| " + " | ".join("---:" if h in sections.NUMERIC else "---" for h in table.head) + " |"
    rows = [
        "| " + " | ".join(_cell(v, h) for h, v in zip(table.head, row, strict=True)) + " |"
        for row in table.rows
    ]
    return "\n".join([title, "", head, rule, *rows])


def _cell(value: str, head: str) -> str:
    if head == "id":
        return f"`{value}`" if "`" not in value else _inline(value)
    return _inline(value)


def _inline(text: str) -> str:
    """One line of text that Markdown shows as written: markup characters escaped."""
    flat = "".join(c if c.isprintable() else " " for c in text)
    return "".join(f"\\{c}" if c in "\\`*_[]<>|#" else c for c in flat)
