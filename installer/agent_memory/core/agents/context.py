"""``context``: what an agent reads at session start, as plain Markdown within a byte budget.

The facts come in the order an agent needs them — core and invariants, open threads, active,
working — each as written in continuity.md without its footer, so the view is a pure function of
the file and the due-check. When the budget runs out, whole facts are cut from the end and the
view says how many and how to reach them, so nothing is silently hidden.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ...layout import CONTEXT_BYTES, CONTINUITY
from ...parse import footer
from ...parse.facts import Document, Fact
from ..review.tiers import INVARIANTS

GROUPS = ("Core and invariants", "Open threads", "Active", "Working")
_INTRO = (
    "# Memory context\n\n"
    "From `memory/continuity.md`. Name the ids you use in your session log's "
    "`## Memory References` (or let `agent-memory session capture` write it); "
    "`agent-memory recall QUERY` finds more, archived facts too.\n"
)


def group_of(fact: Fact) -> int | None:
    """Which heading of the view a fact goes under; None: not shown (decaying or done)."""
    tier = fact.field("tier")
    if tier == "core" or fact.section.lower() == INVARIANTS:
        return 0
    if fact.task == " ":
        return 1
    if fact.task is None and tier in ("active", "working", None):  # None: not reviewed yet
        return 2 if tier == "active" else 3
    return None


def fact_text(doc: Document, fact: Fact, mark: str = "") -> str:
    """The fact's lines without its footer comment, and its id in backticks after the bullet
    (and ``mark``, a stale citation, after the id)."""
    lines = []
    for index in range(fact.start, fact.end):
        line = doc.text.lines[index]
        if index == fact.footer_line and (found := footer.find(line)) is not None:
            line = line[: found.start] + line[found.end :]
        line = line.rstrip()
        if line.strip():
            lines.append(line)
    if not lines:
        return ""
    if fact.id is not None:
        lines[0] += f" `{fact.id}`"
    if mark:
        lines[0] += f" _({mark})_"
    return "\n".join(lines) + "\n"


def render(
    doc: Document,
    due: Sequence[str],
    max_bytes: int = CONTEXT_BYTES,
    extra: Sequence[Document] = (),
    marks: Mapping[str, str] = MappingProxyType({}),
) -> str:
    """The view of ``doc`` (and of ``extra``: the one-file open threads and vision.md) with the
    review's due reasons; at most ``max_bytes`` of UTF-8. ``marks``: what to say after a
    fact's id (its stale citations)."""
    review = (
        "## Review\n\n- due: " + "; ".join(due) + " — run `agent-memory review`\n"
        if due
        else "## Review\n\n- not due\n"
    )
    shown: list[tuple[int, str]] = []
    for each, fact in ((d, f) for d in (doc, *extra) for f in d.facts):
        where = group_of(fact)
        text = fact_text(each, fact, marks.get(fact.id or "", "")) if where is not None else ""
        if where is not None and text:
            shown.append((where, text))
    shown.sort(key=lambda entry: entry[0])  # stable: document order within a group
    head = f"{_INTRO}\n{review}"
    budget = max_bytes - _size(head) - _size(_cut_note(len(shown), len(shown)))
    parts: list[str] = []
    current = None
    for where, text in shown:
        heading = f"\n## {GROUPS[where]}\n\n" if where != current else ""
        cost = _size(heading) + _size(text)
        if cost > budget:
            break
        parts.append(heading + text)
        budget -= cost
        current = where
    total, fitted = len(shown), len(parts)
    body = head + "".join(parts)
    if fitted < total:
        body += _cut_note(total - fitted, total)
    return _clip(body, max_bytes)


def _cut_note(hidden: int, total: int) -> str:
    return (
        f"\n_{hidden} of {total} facts not shown (over --max-bytes); "
        f"`agent-memory recall QUERY` finds them, or read {CONTINUITY}._\n"
    )


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _clip(text: str, max_bytes: int) -> str:
    """A budget too small for even the heading still gets at most ``max_bytes`` bytes."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
