"""``context``: what an agent reads at session start, as plain Markdown within a byte budget.

The budget goes to what sessions use (HOOKS.md § Session start). Facts are offered in
``relevance``'s order: binding facts first, in full while they take at most ``BINDING_SHARE`` of
the budget; then the other facts in full while they fit. Every fact not shown in full keeps one
line — its id and first line, shortened as much as the budget needs — so every id the view may
show is at least named. A pure function of the memory, the task and the paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ...layout import CONTEXT_BYTES, CONTINUITY
from ...parse import footer
from ...parse.facts import Document, Fact
from .relevance import CLOSED, CORE, FACTS, THREADS, Offer, rank

# The most of the budget binding facts take in full; past it, they keep their one line.
BINDING_SHARE = 0.25
# The first-line lengths the one-line form tries, longest first; 0: the id alone.
_FIRST_LINE = (120, 90, 60, 40, 20, 0)
GROUPS = {
    CORE: "Core and invariants",
    THREADS: "Open threads",
    FACTS: "Facts",
    CLOSED: "Recently closed threads",
}
INDEX = "Also in memory (one line each)"
_INTRO = (
    "# Memory context\n\n"
    "From `memory/continuity.md`. Name the ids you use in your session log's "
    "`## Memory References` (or let `agent-memory session capture` write it); "
    "`agent-memory recall QUERY` finds more, archived facts too.\n"
)


class View(NamedTuple):
    """The rendered context, and which ids it shows in full, which only by their one line and
    which it counts but does not name (over the budget)."""

    text: str
    full: tuple[str, ...]
    named: tuple[str, ...]
    cut: tuple[str, ...]


def view(
    docs: Sequence[Document],
    task: str = "",
    paths: Sequence[str] | None = None,
    max_bytes: int = CONTEXT_BYTES,
    due: Sequence[str] = (),
    marks: Mapping[str, str] = MappingProxyType({}),
) -> View:
    """The context of the memory ``docs`` (continuity.md, then the one-file threads and
    vision.md) for ``task`` and the touched ``paths`` (None: unknown), at most ``max_bytes``;
    with the ids it shows in full, by one line, and not at all (what a replay measures)."""
    ranked = rank(docs, task, paths)
    entries = [_entry(docs, offer, marks) for offer in ranked.offers]
    head = _INTRO + "\n" + review_section(due)
    fixed = head + "".join(_heading(title) for title in (*GROUPS.values(), INDEX))
    budget = (
        max_bytes - _size(fixed) - _size(_notes(len(entries), len(entries), ranked.out_of_scope))
    )
    full = _choose(entries, [offer.key for offer in ranked.offers], budget)
    shown = [e for k, e in enumerate(entries) if k in full]
    rest = [e for k, e in enumerate(entries) if k not in full]
    room = budget - sum(_size(e.full) for e in shown)
    lines, named = _one_lines(rest, room)
    body = head + _sections(shown, lines)
    body += _notes(len(rest) - named, len(entries), ranked.out_of_scope)
    return View(
        _clip(body, max_bytes),
        tuple(e.id for e in shown if e.id),
        tuple(e.id for e in rest[:named] if e.id),
        tuple(e.id for e in rest[named:] if e.id),
    )


def review_section(due: Sequence[str]) -> str:
    if due:
        return "## Review\n\n- due: " + "; ".join(due) + " — run `agent-memory review`\n"
    return "## Review\n\n- not due\n"


class _Entry(NamedTuple):
    group: int
    id: str | None
    full: str  # as written, without its footer, id after the first line
    first: str  # its first line, for the one-line form


def _entry(docs: Sequence[Document], offer: Offer, marks: Mapping[str, str]) -> _Entry:
    fact = offer.fact
    mark = marks.get(fact.id or "", "")
    return _Entry(offer.group, fact.id, fact_text(docs[offer.doc], fact, mark), fact.first_line)


def _choose(entries: Sequence[_Entry], keys: Sequence[tuple[object, ...]], budget: int) -> set[int]:
    """Which entries are shown in full (``choose``, on their sizes)."""
    costs = [_size(e.full) if e.full else 0 for e in entries]
    least = [_size(_one_line(e, 0)) for e in entries]
    return choose(costs, least, [e.group for e in entries], keys, budget)


def choose(
    costs: Sequence[int],
    least: Sequence[int],
    groups: Sequence[int],
    keys: Sequence[tuple[object, ...]],
    budget: int,
) -> set[int]:
    """Which of the facts of sizes ``costs`` in full (0: none) and ``least`` by their id alone
    are shown in full. First the binding ones (``groups``), in order, while they take at most
    their share; then all the others, binding or not, by relevance alone (``keys`` less the
    binding rank). Each only when it fits beside the one-line form of all the others (its id
    alone, the least it needs)."""
    reserve = sum(least)
    cap = budget // 2  # a one-line index too long for the budget takes half of it, not all
    binding = [k for k, group in enumerate(groups) if group <= THREADS]
    rest = sorted(range(len(costs)), key=lambda k: keys[k][1:])
    full: set[int] = set()
    used = 0
    for phase, limit in ((binding, int(BINDING_SHARE * budget)), (rest, budget)):
        for k in phase:
            cost, saved = costs[k], least[k]
            if k in full or not cost or used + cost > limit:
                continue
            spare = reserve - saved
            if used + cost + (cap if cap < spare else spare) <= budget:
                full.add(k)
                used += cost
                reserve -= saved
    return full


def _one_lines(rest: Sequence[_Entry], room: int) -> tuple[list[tuple[int, str]], int]:
    """The one-line forms of ``rest`` at the longest first line that fits ``room``; when even
    ids alone do not fit, as many as fit, in order. Returns the lines and how many."""
    lines: list[tuple[int, str]] = []
    for length in _FIRST_LINE:
        lines, total = [], 0
        for entry in rest:
            line = _one_line(entry, length)
            total += _size(line)
            if total > room:
                break
            lines.append((entry.group, line))
        else:
            break
    return lines, len(lines)


def _one_line(entry: _Entry, length: int) -> str:
    first = " ".join(entry.first.split()) if length else ""
    if len(first) > length:
        first = first[: length - 1].rstrip() + "…"
    name = f"`{entry.id}`" if entry.id else ""
    return "- " + " — ".join(part for part in (name, first) if part) + "\n"


def _sections(shown: Sequence[_Entry], lines: Sequence[tuple[int, str]]) -> str:
    """Binding groups hold their full facts, then their one lines; the other groups their full
    facts; the one lines of the others close the view."""
    out = []
    for group, title in GROUPS.items():
        parts = [e.full for e in shown if e.group == group]
        if group <= THREADS:
            parts += [line for where, line in lines if where == group]
        if parts:
            out.append(_heading(title) + "".join(parts))
    index = [line for where, line in lines if where > THREADS]
    if index:
        out.append(_heading(INDEX) + "".join(index))
    return "".join(out)


def _heading(title: str) -> str:
    return f"\n## {title}\n\n"


def _notes(hidden: int, total: int, out_of_scope: int) -> str:
    notes = ""
    if out_of_scope:
        notes += f"\n_{_facts(out_of_scope)} scoped to paths this session does not touch._\n"
    if hidden:
        notes += (
            f"\n_{hidden} of {_facts(total)} not named (over --max-bytes); "
            f"`agent-memory recall QUERY` finds them, or read {CONTINUITY}._\n"
        )
    return notes


def _facts(count: int) -> str:
    return f"{count} fact" if count == 1 else f"{count} facts"


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


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _clip(text: str, max_bytes: int) -> str:
    """A budget too small for even the heading still gets at most ``max_bytes`` bytes."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
