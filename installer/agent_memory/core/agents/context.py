"""``context``: what an agent reads at session start, as plain Markdown within a byte budget.

The budget goes to what sessions use (HOOKS.md § Session start). Facts come in ``relevance``'s
order. Binding facts (core, invariants) first, in full while they take at most
``BINDING_SHARE`` of the budget; then every fact not yet shown, in full while it fits beside the
index; then, for the facts too large for what was left, their first paragraph and the command
that prints the rest (an excerpt); last, one line each (id and first words) for the others, as
far as the budget goes. A pure function of the memory, the task, the paths and what the latest
sessions used.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ...layout import CONTEXT_BYTES, CONTINUITY, VISION
from ...parse import footer
from ...parse.facts import Document, Fact
from .relevance import CLOSED, CORE, FACTS, THREADS, Offer, rank

# The most of the budget binding facts take in full before the others are offered.
BINDING_SHARE = 0.2
# The most of the budget kept for the one-line index while facts are chosen in full.
INDEX_SHARE = 0.05
# The largest share of the budget one fact takes in full; a larger one is shown by its excerpt.
FACT_SHARE = 0.4
# The most bytes of a fact's first paragraph an excerpt shows.
EXCERPT_BYTES = 480
# The first-line lengths a one-line form tries, longest first: never fewer words than the last.
_FIRST_LINE = (120, 90, 60, 40)
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
    """The rendered context, and which ids it shows in full (their whole text), which only by
    name (an excerpt or one line) and which it counts but does not name (over the budget)."""

    text: str
    full: tuple[str, ...]
    named: tuple[str, ...]
    cut: tuple[str, ...]


class _Piece(NamedTuple):
    """What the view shows of one fact, in each form, with its size: a function of the fact's
    lines, id, place and mark only (not of its footer's other fields), so it is made once."""

    full: str  # as written, without its footer, id after the first line
    excerpt: str  # its first paragraph and where the rest is; "" when that is all of it
    lines: tuple[str, ...]  # its one-line form at each of ``_FIRST_LINE``'s lengths
    full_size: int
    excerpt_size: int
    line_sizes: tuple[int, ...]


class _Entry(NamedTuple):
    key: tuple[object, ...]  # relevance's
    group: int
    id: str | None
    piece: _Piece


# Pieces already made, by (document path, identity of its text, the fact's place and id, its
# mark); the text is kept in the value, so its identity stays its own while cached. A replay
# asks a view for each of thousands of states that differ by one footer: this makes each view
# rank and choose again, not render again. Cleared when it holds ``_PIECES_KEPT`` pieces.
_PIECES_KEPT = 1 << 14
_pieces: dict[tuple[object, ...], tuple[object, _Piece]] = {}


def view(
    docs: Sequence[Document],
    task: str = "",
    paths: Sequence[str] | None = None,
    max_bytes: int = CONTEXT_BYTES,
    due: Sequence[str] = (),
    marks: Mapping[str, str] = MappingProxyType({}),
    recent: Sequence[Collection[str]] = (),
) -> View:
    """The context of the memory ``docs`` (continuity.md, then the one-file threads and
    vision.md) for ``task`` and the touched ``paths`` (None: unknown), at most ``max_bytes``,
    ``recent`` the ids the latest sessions used (newest first); with the ids it shows in full,
    by name, and not at all (what a replay measures)."""
    return views(docs, task, paths, (max_bytes,), due, marks, recent)[0]


def views(
    docs: Sequence[Document],
    task: str,
    paths: Sequence[str] | None,
    budgets: Sequence[int],
    due: Sequence[str] = (),
    marks: Mapping[str, str] = MappingProxyType({}),
    recent: Sequence[Collection[str]] = (),
) -> tuple[View, ...]:
    """``view`` at each of ``budgets``: the facts are ranked once for them all (a report
    replays at several budgets)."""
    ranked = rank(docs, task, paths, recent)
    entries = [_entry(docs, offer, marks) for offer in ranked.offers]
    head = _INTRO + "\n" + review_section(due)
    return tuple(_laid_out(entries, head, ranked.out_of_scope, budget) for budget in budgets)


def _laid_out(entries: Sequence[_Entry], head: str, out_of_scope: int, max_bytes: int) -> View:
    fixed = head + "".join(_heading(title) for title in (*GROUPS.values(), INDEX))
    budget = max_bytes - _size(fixed)
    budget -= _size(_notes(len(entries), len(entries), out_of_scope))
    forms = _choose(entries, budget)
    rest = [e for k, e in enumerate(entries) if k not in forms]
    room = budget - sum(_cost(entries[k].piece, whole) for k, whole in forms.items())
    lines = _one_lines(rest, room)
    shown = [(e.group, _form(e.piece, forms[k])) for k, e in enumerate(entries) if k in forms]
    body = head + _sections(shown, lines)
    body += _notes(len(rest) - len(lines), len(entries), out_of_scope)
    full = [e.id for k, e in enumerate(entries) if forms.get(k) and e.id]
    excerpts = [e.id for k, e in enumerate(entries) if forms.get(k) is False and e.id]
    return View(
        _clip(body, max_bytes),
        tuple(full),
        tuple(excerpts) + tuple(e.id for e in rest[: len(lines)] if e.id),
        tuple(e.id for e in rest[len(lines) :] if e.id),
    )


def review_section(due: Sequence[str]) -> str:
    if due:
        return "## Review\n\n- due: " + "; ".join(due) + " — run `agent-memory review`\n"
    return "## Review\n\n- not due\n"


def _entry(docs: Sequence[Document], offer: Offer, marks: Mapping[str, str]) -> _Entry:
    fact, doc = offer.fact, docs[offer.doc]
    mark = marks.get(fact.id or "", "")
    key = (doc.path, id(doc.text), fact.start, fact.end, fact.footer_line, fact.id, mark)
    kept = _pieces.get(key)
    if kept is not None and kept[0] is doc.text:
        return _Entry(offer.key, offer.group, fact.id, kept[1])
    text = vision_text(doc, fact) if doc.path == VISION else fact_text(doc, fact, mark)
    excerpt = _excerpt(text, fact.id, doc.path)
    lines = tuple(_one_line(fact.id, fact.first_line, length) for length in _FIRST_LINE)
    piece = _Piece(
        text, excerpt, lines, _size(text), _size(excerpt), tuple(_size(line) for line in lines)
    )
    if len(_pieces) >= _PIECES_KEPT:
        _pieces.clear()
    _pieces[key] = (doc.text, piece)
    return _Entry(offer.key, offer.group, fact.id, piece)


def _form(piece: _Piece, whole: bool) -> str:
    return piece.full if whole else piece.excerpt


def _cost(piece: _Piece, whole: bool) -> int:
    return piece.full_size if whole else piece.excerpt_size


def _choose(entries: Sequence[_Entry], budget: int) -> dict[int, bool]:
    """Which entries are shown, and how (True: their full text, False: their excerpt). Binding
    ones first, in order, while in full they take at most their share; then every other in
    order, in full while it fits beside the index (the shortest one line of every entry left,
    at most ``INDEX_SHARE`` of the budget) — among the facts the latest sessions used, the most
    weight per byte first (what fills a budget with the most likely uses); then the excerpts of
    those left, in order, as they fit."""
    least = [e.piece.line_sizes[-1] for e in entries]
    cap, most = int(INDEX_SHARE * budget), int(FACT_SHARE * budget)
    left = sum(least)
    forms: dict[int, bool] = {}
    used = 0
    binding = [k for k, e in enumerate(entries) if e.group == CORE]
    order = sorted(range(len(entries)), key=lambda k: _per_byte(entries[k]))  # binding or not
    phases = ((binding, True, int(BINDING_SHARE * budget)), (order, True, budget))
    for phase, whole, limit in (*phases, (order, False, budget)):
        for k in phase:
            piece = entries[k].piece
            cost = _cost(piece, whole)
            large = whole and cost > most and piece.excerpt and not entries[k].key[3]
            if k in forms or not _form(piece, whole) or used + cost > limit or large:
                continue
            if used + cost + min(cap, left - least[k]) <= budget:
                forms[k] = whole
                used += cost
                left -= least[k]
    return forms


def _per_byte(entry: _Entry) -> tuple[object, ...]:
    """``entry``'s place in the order of every fact: relevance's key, binding aside, with the
    weight of recent use taken per byte of its text."""
    weight = entry.key[3]
    assert isinstance(weight, float)
    return (*entry.key[1:3], weight / max(entry.piece.full_size, 1), *entry.key[4:])


def _excerpt(text: str, fact_id: str | None, path: str) -> str:
    """The first paragraph of ``text`` (a fact in full), at most ``EXCERPT_BYTES``, and where
    the rest is; "" when the text is no longer than that."""
    if fact_id is None or _size(text) <= EXCERPT_BYTES:
        return ""
    lines = text.splitlines()
    first, size = [lines[0]], _size(lines[0])
    for line in lines[1:]:
        size += _size(line) + 1
        if size > EXCERPT_BYTES or not line.startswith("  ") or line.lstrip().startswith("#"):
            break
        first.append(line)
    where = f"read {path}" if path == VISION else f"`agent-memory fact show {fact_id}` prints it"
    if len(first) == 1 and _size(first[0]) > EXCERPT_BYTES:
        first[0] = _cut(first[0], EXCERPT_BYTES) + f" `{fact_id}`"
    return "\n".join(first) + f"\n  _(first paragraph; the rest: {where})_\n"


def _cut(line: str, most: int) -> str:
    """``line`` cut at a word to at most ``most`` bytes, ending in an ellipsis."""
    data = line.encode("utf-8")[: most - 4].decode("utf-8", errors="ignore")
    return data.rsplit(" ", 1)[0].rstrip() + " …"


def _one_lines(rest: Sequence[_Entry], room: int) -> list[tuple[int, str]]:
    """The one-line forms of ``rest`` at the longest first line at which all fit ``room``;
    when even the shortest do not all fit, as many of those as fit, in order."""
    lines: list[tuple[int, str]] = []
    for at in range(len(_FIRST_LINE)):
        lines, total = [], 0
        for entry in rest:
            total += entry.piece.line_sizes[at]
            if total > room:
                break
            lines.append((entry.group, entry.piece.lines[at]))
        else:
            break
    return lines


def _one_line(fact_id: str | None, first_line: str, length: int) -> str:
    first = " ".join(first_line.split())
    if len(first) > length:
        first = first[: length - 1].rstrip() + "…"
    name = f"`{fact_id}`" if fact_id else ""
    return "- " + " — ".join(part for part in (name, first) if part) + "\n"


def _sections(shown: Sequence[tuple[int, str]], lines: Sequence[tuple[int, str]]) -> str:
    """Each group holds what it shows (in full or by excerpt); binding groups then their one
    lines; the one lines of the others close the view."""
    out = []
    for group, title in GROUPS.items():
        parts = [text for where, text in shown if where == group]
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


def vision_text(doc: Document, fact: Fact) -> str:
    """vision.md as one fact: its title and id, then its other lines (the footer's line and
    blank lines left out) indented under it, so that its headings stay inside the fact."""
    lines: list[str] = []
    for index, line in enumerate(doc.text.lines):
        line = line.rstrip()
        if index == fact.footer_line or not line.strip() or line.strip() == ">":
            continue
        if not lines and line.startswith("# "):
            continue  # the title, which the first line holds
        lines.append("  " + line)
    name = f" `{fact.id}`" if fact.id is not None else ""
    return f"- **Vision:** {fact.first_line}{name}\n" + "".join(f"{line}\n" for line in lines)


def _size(text: str) -> int:
    return len(text.encode("utf-8"))


def _clip(text: str, max_bytes: int) -> str:
    """A budget too small for even the heading still gets at most ``max_bytes`` bytes."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", errors="ignore")
