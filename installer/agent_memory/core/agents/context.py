"""``context``: what an agent reads at session start, as plain Markdown within a byte budget.

The budget goes to what sessions use (HOOKS.md § Session start). Facts come in ``relevance``'s
order. Binding facts (core, invariants) first, in full while they take at most
``BINDING_SHARE`` of --max-bytes; then the user's personal facts, while both take at most
``BINDING_SHARE + PERSONAL_SHARE``; then every fact not yet shown, in full while it fits beside
the index (where a binding fact left is always named; open threads no latest session used take
at most ``THREAD_SHARE``); then, for the facts too large for what
was left, their first paragraph and the command that prints the rest (an excerpt); last, one
line each (id and first words) for the others, as far as the budget goes. A pure function of
the memory, the task and the paths.
"""

from bisect import bisect_left
from collections.abc import Collection, Mapping, Sequence
from types import MappingProxyType
from typing import NamedTuple

from ...layout import CONTEXT_BYTES, CONTINUITY
from ...layout import PERSONAL as PERSONAL_FILE
from ...parse.facts import Document, Fact
from .forms import FIRST_LINE, excerpt, first_words, full_text, one_line, size
from .relevance import (
    CLOSED,
    CORE,
    FACTS,
    PERSONAL,
    RECENT_SESSIONS,
    THREADS,
    Offer,
    offer,
    rank,
    recent_weights,
)

# The shares are of --max-bytes. The most binding facts take in full before the others are
# offered (the one lines of those left keep their room before any other is shown).
BINDING_SHARE = 0.2
# The most personal facts take in full after them, before the others.
PERSONAL_SHARE = 0.2
# The most kept for the one lines of the facts not binding while facts are chosen in full.
INDEX_SHARE = 0.05
# The most open threads no latest session used take in full or by excerpt; those beyond it are
# named by one line.
THREAD_SHARE = 0.25
# The largest share one fact takes in full; a larger one is shown by its excerpt.
FACT_SHARE = 0.4
GROUPS = {
    CORE: "Core and invariants",
    PERSONAL: f"Personal (yours only: {PERSONAL_FILE}; never shared, never named in a log)",
    THREADS: "Open threads",
    FACTS: "Facts",
    CLOSED: "Recently closed threads",
}
INDEX = "Also in memory (one line each)"
TITLE = "# Memory context"  # the view's first line
_INTRO = (
    f"{TITLE}\n\n"
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
    lines: tuple[str, ...]  # its one-line form at each of ``FIRST_LINE``'s lengths
    full_size: int
    excerpt_size: int
    line_sizes: tuple[int, ...]


class _Entry(NamedTuple):
    group: int
    id: str | None
    piece: _Piece
    recent: bool = False  # a session of the latest ones used it


# Pieces already made, by (document path, identity of its text, the fact's place and id, its
# mark); the text is kept in the value, so its identity stays its own while cached. A replay
# asks a view for each of thousands of states that differ by a few footers: a fact its entries
# are told of, or every fact of a state ranked again for a task, is not rendered again.
# Cleared when it holds ``_PIECES_KEPT`` pieces.
_PIECES_KEPT = 1 << 14
# The most a replay's entries scale their weights by before they are placed again at 1: far
# from where a float's exponent ends (2 ** 1023), so that every weight stays exact.
_SCALE_MOST = 2.0**512
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
    return Entries(docs, task, paths, marks, recent).views((max_bytes,), due)[0]


class Entries:
    """The facts a view offers, in ``relevance``'s order, each with its forms made: what a view
    lays out at each budget. ``view`` makes one and lays it out once. A replay keeps one made
    with no task and no paths, where a fact's key is its own alone, and tells it each fact
    that changed between two states (``put``): a state then costs its changed facts and the
    layout, not ranking and rendering every fact again."""

    def __init__(
        self,
        docs: Sequence[Document],
        task: str = "",
        paths: Sequence[str] | None = None,
        marks: Mapping[str, str] = MappingProxyType({}),
        recent: Sequence[Collection[str]] = (),
    ) -> None:
        ranked = rank(docs, task, paths, recent)
        self.docs, self.marks, self.out_of_scope = docs, marks, ranked.out_of_scope
        self.weights = recent_weights(recent)
        self.recent, self.scale = tuple(recent[:RECENT_SESSIONS]), 1.0
        # in the order the budget is handed out (the view's: its binding ones, then the others)
        made = [(offer, _entry(docs, offer, marks)) for offer in ranked.offers]
        keyed = sorted((_handed_out(o, e), k) for k, (o, e) in enumerate(made))  # keys differ
        self.keys = [key for key, _ in keyed]
        self.entries = [made[k][1] for _, k in keyed]
        self.placed = {(made[k][0].doc, made[k][0].place): key for key, k in keyed}
        self.held: dict[tuple[int, int], Fact] = {}  # the facts ``put`` placed, by their place
        self.places: dict[str, set[tuple[int, int]]] = {}  # and the places of each id

    def put(self, number: int, place: int, fact: Fact | None) -> None:
        """The ``place``-th fact of document ``number`` is now ``fact`` (None: gone from the
        memory); places order a document's facts (only their order counts). Only for entries
        made with no task and no paths: a task's scores weigh every fact."""
        old = self.placed.pop((number, place), None)
        if old is not None:
            at = bisect_left(self.keys, old)
            del self.keys[at], self.entries[at]
        weight = self.weights.get(fact.id or "", 0.0) if fact is not None else 0.0
        found = offer(number, place, fact, weight=weight) if fact is not None else None
        gone = self.held.pop((number, place), None)
        if gone is not None:
            self.places[gone.id or ""].discard((number, place))
        if found is not None and fact is not None:
            entry = _entry(self.docs, found, self.marks)
            key = _handed_out(found, entry)
            at = bisect_left(self.keys, key)
            self.keys.insert(at, key)
            self.entries.insert(at, entry)
            self.placed[number, place] = key
            self.held[number, place] = fact
            self.places.setdefault(fact.id or "", set()).add((number, place))

    def reweigh(self, recent: Sequence[Collection[str]]) -> None:
        """The latest sessions are now ``recent``: the facts ``put`` placed whose weight
        changed are placed again (a replay's next state: its entries are made empty and told
        every fact). A new session halves every older use's weight; the entries' weights are
        kept doubled as often instead (``scale``, a power of two: the order, and each weight
        per byte's rounding, stay exact), so only the facts that session used, and those of
        the session that left the window, move."""
        window = tuple(recent[:RECENT_SESSIONS])
        follows = len(window) > 0 and window[1:] == self.recent[: len(window) - 1]
        self.scale = self.scale * 2 if follows and self.scale < _SCALE_MOST else 1.0
        self.recent = window
        weights = {i: w * self.scale for i, w in recent_weights(window).items()}
        changed = {i for i in {*weights, *self.weights} if weights.get(i) != self.weights.get(i)}
        self.weights = weights
        for fact_id in sorted(changed):
            for where in sorted(self.places.get(fact_id, ())):
                self.put(*where, self.held[where])

    def views(self, budgets: Sequence[int], due: Sequence[str] = ()) -> tuple[View, ...]:
        """The view within each of ``budgets``; ``due``: why a review is due."""
        head = _INTRO + "\n" + review_section(due)
        lineup = _lineup(self.entries)
        return tuple(_laid_out(lineup, head, self.out_of_scope, b) for b in budgets)


def _handed_out(offer: Offer, entry: _Entry) -> tuple[object, ...]:
    """The order ``_choose`` hands the budget out in, binding or not: relevance's key, with the
    weight of recent use taken per byte of the fact's text (what fills a budget with the most
    likely uses)."""
    key, weight = offer.key, offer.key[3]
    assert isinstance(weight, float)
    return (*key[1:3], weight / max(entry.piece.full_size, 1), *key[4:])


class _Lineup(NamedTuple):
    """What the layout at every budget reads of the entries, read once for them all."""

    entries: Sequence[_Entry]  # in the order the budget is handed out
    pieces: list[_Piece]
    least: list[int]  # each one's shortest one line
    binding: list[int]  # the binding ones, in order
    personal: list[int]  # the personal ones, in order
    ranked: list[int]  # the view's order: the binding ones, the team's others, the personal ones


def _lineup(entries: Sequence[_Entry]) -> _Lineup:
    pieces = [e.piece for e in entries]
    binding = [k for k, e in enumerate(entries) if e.group == CORE]
    personal = [k for k, e in enumerate(entries) if e.group == PERSONAL]
    others = [k for k, e in enumerate(entries) if e.group not in (CORE, PERSONAL)]
    least = [p.line_sizes[-1] for p in pieces]
    # the team's facts are named before the personal ones left over
    return _Lineup(entries, pieces, least, binding, personal, binding + others + personal)


def _laid_out(lineup: _Lineup, head: str, out_of_scope: int, max_bytes: int) -> View:
    entries = lineup.entries
    # the personal heading only where there is a personal file
    titles = [t for group, t in GROUPS.items() if group != PERSONAL or lineup.personal]
    fixed = head + "".join(_heading(title) for title in (*titles, INDEX))
    budget = max_bytes - size(fixed)
    budget -= size(_notes(len(entries), len(entries), out_of_scope))
    forms, used = _choose(lineup, budget, max_bytes)
    shown: list[tuple[int, str]] = []
    full: list[str] = []
    excerpts: list[str] = []
    rest: list[_Entry] = []
    for k in lineup.ranked:
        entry, whole = entries[k], forms.get(k)
        if whole is None:
            rest.append(entry)
            continue
        shown.append((entry.group, entry.piece.full if whole else entry.piece.excerpt))
        if entry.id:
            (full if whole else excerpts).append(entry.id)
    lines = _one_lines(rest, budget - used)
    body = head + _sections(shown, lines)
    body += _notes(len(rest) - len(lines), len(entries), out_of_scope)
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
        return _Entry(offer.group, fact.id, kept[1], offer.key[3] != 0.0)
    text = full_text(doc, fact, mark)
    first = excerpt(text, fact.id, doc.path)
    said = first_words(doc, fact)
    lines = tuple(one_line(fact.id, said, length) for length in FIRST_LINE)
    piece = _Piece(text, first, lines, size(text), size(first), tuple(size(line) for line in lines))
    if len(_pieces) >= _PIECES_KEPT:
        _pieces.clear()
    _pieces[key] = (doc.text, piece)
    return _Entry(offer.group, fact.id, piece, offer.key[3] != 0.0)


def _choose(lineup: _Lineup, budget: int, max_bytes: int) -> tuple[dict[int, bool], int]:
    """Which entries are shown, and how (True: their full text, False: their excerpt), and the
    bytes they take of ``budget`` (what ``max_bytes`` leaves for facts); each share is of
    ``max_bytes``. Binding ones first, in order, while in full they take at most their share;
    then every other in order, in full while it fits beside the index: the shortest one line
    of every binding entry left, and of the others at most ``INDEX_SHARE``; one over
    ``FACT_SHARE`` only when a latest session used it; then the excerpts of those left, in
    order, as they fit. A binding entry is thus named before any other is shown; open threads
    no latest session used take at most ``THREAD_SHARE``."""
    pieces, least, bound = lineup.pieces, lineup.least, set(lineup.binding)
    cap, most = int(INDEX_SHARE * max_bytes), int(FACT_SHARE * max_bytes)
    share = int(THREAD_SHARE * max_bytes)
    held = sum(least[k] for k in bound)  # the binding one lines still to be kept room for
    left = sum(least) - held  # and the others'
    forms: dict[int, bool] = {}
    used = threads = 0
    order: Sequence[int] = range(len(pieces))
    if lineup.personal:  # personal facts have their share, never the team's
        mine = set(lineup.personal)
        order = [k for k in order if k not in mine]
    phases = (
        (lineup.binding, True, int(BINDING_SHARE * max_bytes)),
        (lineup.personal, True, int((BINDING_SHARE + PERSONAL_SHARE) * max_bytes)),
        (order, True, budget),
    )
    for phase, whole, limit in (*phases, (order, False, budget)):
        for k in phase:
            if k in forms:
                continue
            piece = pieces[k]
            if whole:
                cost, form = piece.full_size, piece.full
            else:
                cost, form = piece.excerpt_size, piece.excerpt
            large = whole and cost > most and piece.excerpt and not lineup.entries[k].recent
            thread = lineup.entries[k].group == THREADS and not lineup.entries[k].recent
            if not form or used + cost > limit or large or (thread and threads + cost > share):
                continue
            binding = k in bound
            room = held - least[k] * binding + min(cap, left - least[k] * (not binding))
            if used + cost + room <= budget:
                forms[k] = whole
                used, threads = used + cost, threads + cost * thread
                held, left = (held - least[k], left) if binding else (held, left - least[k])
    return forms, used


def _one_lines(rest: Sequence[_Entry], room: int) -> list[tuple[int, str]]:
    """The one-line forms of ``rest`` at the longest first line at which all fit ``room``;
    when even the shortest do not all fit, as many of those as fit, in order."""
    lines: list[tuple[int, str]] = []
    for at in range(len(FIRST_LINE)):
        lines, total = [], 0
        for entry in rest:
            total += entry.piece.line_sizes[at]
            if total > room:
                break
            lines.append((entry.group, entry.piece.lines[at]))
        else:
            break
    return lines


def _sections(shown: Sequence[tuple[int, str]], lines: Sequence[tuple[int, str]]) -> str:
    """Each group holds what it shows (in full or by excerpt); binding groups then their one
    lines; the one lines of the others close the view."""
    parts: dict[int, list[str]] = {group: [] for group in GROUPS}
    index: list[str] = []
    for group, text in shown:
        parts[group].append(text)
    for group, line in lines:
        (parts[group] if group <= THREADS else index).append(line)
    out = [_heading(GROUPS[group]) + "".join(texts) for group, texts in parts.items() if texts]
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


def _clip(text: str, max_bytes: int) -> str:
    """A budget too small for even the heading still gets at most ``max_bytes`` bytes, in whole
    lines: a line cut short would end in no line break, which the command line adds back."""
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    return data[: data.rfind(b"\n", 0, max(max_bytes, 0)) + 1].decode("utf-8")
