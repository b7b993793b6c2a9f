"""The order in which ``context`` offers facts: what a session is likely to use first.

Binding facts (core, Architectural Invariants) come first; then the user's personal facts
(DECAY.md § Personal facts); then every other fact still in the memory files — open threads,
active, working, unreviewed, decaying and checked threads — in one order. Each part is ordered
the same way: a fact that cites or is scoped to a path the session touches, or whose id the task
names, first; then a fact the task matches strongly (BM25, as ``recall`` scores it, of at least
``TASK_FLOOR``, in its near-tie bands); then the facts the latest sessions used, by their
weight (each use halves every ``HALF_LIFE`` sessions back: the last session predicts the next
better than a day's date, which many sessions share); then the fact used last, used most, by
tier, by id. Below the floor a task changes nothing. A fact scoped to paths the
session does not touch is left out when the paths are known.
"""

from collections.abc import Collection, Mapping, Sequence
from typing import NamedTuple

from ...layout import PERSONAL as PERSONAL_FILE
from ...parse import cites, scopes
from ...parse.facts import Document, Fact
from ...parse.footer import TIERS
from ..review.tiers import INVARIANTS
from . import ranking, recall

CORE, PERSONAL, THREADS, FACTS, CLOSED = range(5)  # the groups of the view, in its order
# The BM25 score (``recall``'s) from which a task moves a fact ahead of the recency order.
TASK_FLOOR = 6.0
# The most facts a task moves ahead: the best matches, not every fact that shares a word.
TASK_LIFTS = 2
# The sessions back over which a use's weight halves, and how many of the latest sessions count:
# those whose uses weigh at least 1/256.
HALF_LIFE = 1
RECENT_SESSIONS = 8 * HALF_LIFE
_BELOW = 1 << 30  # the band of a fact the task does not move
_HIDDEN = frozenset({"archived", "superseded"})  # gone from the view: recall finds them
_RANK = {tier: i for i, tier in enumerate(TIERS)}
# What may stand around an id the task names (`id`, [[id]], "id", id.): the word less these.
_AROUND = "`*_[](){}<>\"',.;:!?"


class Offer(NamedTuple):
    """A fact as the view offers it: where it goes, and the key that orders it."""

    key: tuple[object, ...]
    group: int
    doc: int  # the document's place in the memory given
    place: int  # the fact's place in its document
    fact: Fact


class Ranked(NamedTuple):
    offers: list[Offer]  # best first: binding, then the rest
    out_of_scope: int  # facts left out: scoped to paths the session does not touch


def group_of(fact: Fact, tier: str | None) -> int | None:
    """Which part of the view a fact of ``tier`` goes to; None: not in the view (archived,
    retracted)."""
    if tier in _HIDDEN:
        return None
    if tier == "core" or fact.section.lower() == INVARIANTS:
        return CORE
    if fact.task == " ":
        return THREADS
    return FACTS if fact.task is None else CLOSED


def recent_weights(recent: Sequence[Collection[str]]) -> dict[str, float]:
    """Each id's weight from the ids the latest sessions used (``recent``, newest first): a use
    weighs 1 in the last session, half as much ``HALF_LIFE`` sessions before, and so on."""
    weights: dict[str, float] = {}
    for back, ids in enumerate(recent[:RECENT_SESSIONS]):
        for fact_id in ids:
            weights[fact_id] = weights.get(fact_id, 0.0) + 0.5 ** (back / HALF_LIFE)
    return weights


def rank(
    docs: Sequence[Document],
    task: str,
    paths: Sequence[str] | None,
    recent: Sequence[Collection[str]] = (),
) -> Ranked:
    """Every fact of ``docs`` the view may show, best first. ``paths`` None: nothing is known
    about the paths the session touches; ``recent``: the ids the latest sessions used, newest
    first."""
    scored = _scores(docs, task)
    weights = recent_weights(recent)
    if paths is not None:
        paths = tuple(path.removeprefix("./") for path in paths)
    named = frozenset(word.strip(_AROUND) for word in task.lower().split())
    offers: list[Offer] = []
    out = 0
    for number, doc in enumerate(docs):
        sections = _section_globs(doc) if paths is not None else {}
        for place, fact in enumerate(doc.facts):
            fields, group, _, _ = _facets(fact)
            if group is None:
                continue
            touched = False
            if paths is not None:  # scopes and citations count only when paths are known
                scope = scopes.globs(fields["paths"]) if "paths" in fields else ()
                scope = scope or sections.get(fact.section, ())
                touched = _touches(fields.get("cites"), scope, paths)
                if scope and not touched:
                    out += 1
                    continue
            score = scored.get((number, fact.id), 0.0) if fact.id is not None else 0.0
            mine = doc.path == PERSONAL_FILE
            weight = weights.get(fact.id or "", 0.0)
            found = offer(number, place, fact, touched or fact.id in named, score, mine, weight)
            if found is not None:
                offers.append(found)
    offers = _lifted(offers)
    offers.sort(key=lambda offer: offer.key)
    return Ranked(offers, out)


def offer(
    number: int,
    place: int,
    fact: Fact,
    ahead: bool = False,
    score: float = 0.0,
    personal: bool = False,
    weight: float = 0.0,
) -> Offer | None:
    """How the view offers ``fact``, the ``place``-th of document ``number`` (None: not at all,
    archived or retracted). ``ahead``: it touches a path the session touches or the task names
    it; ``score``: the task's BM25 score of it; ``personal``: it is the user's own, shown after
    the binding facts; ``weight``: its weight of recent use (``recent_weights``). With no task
    and no paths a fact's key is its own (and its weight) alone, so a replay changes one fact's
    offer without ranking the others again."""
    _, group, (when, uses), tier = _facets(fact)
    if group is None:
        return None
    if personal:
        group = PERSONAL
    near = -ranking.band(score) if score >= TASK_FLOOR else _BELOW
    key = (
        min(group, THREADS),  # binding, personal, then the rest
        not ahead,
        near,
        -weight,
        -when,
        -uses,
        tier,
        fact.id or "",
        number,
        place,
    )
    return Offer(key, group, number, place, fact)


# What ``offer`` reads of a fact's footer, by the fact: a replay with a task ranks thousands of
# states that differ by a few footers. Cleared when it holds ``_FACETS_KEPT`` facts.
_FACETS_KEPT = 1 << 14
_facets_kept: dict[Fact, tuple[Mapping[str, str], int | None, tuple[int, int], int]] = {}


def _facets(fact: Fact) -> tuple[Mapping[str, str], int | None, tuple[int, int], int]:
    """The fact's footer fields, its group, its recency and its tier's rank."""
    kept = _facets_kept.get(fact)
    if kept is None:
        fields = dict(fact.fields)
        tier = _RANK.get(fields.get("tier") or "working", len(_RANK))
        kept = (fields, group_of(fact, fields.get("tier")), recall.recency(fields), tier)
        if len(_facets_kept) >= _FACETS_KEPT:
            _facets_kept.clear()
        _facets_kept[fact] = kept
    return kept


def _lifted(offers: list[Offer]) -> list[Offer]:
    """``offers`` with only the ``TASK_LIFTS`` best of those the task matched strongly kept
    ahead (by score band, then as the recency order ranks them); the others are put back in
    the recency order."""
    strong = sorted((offer.key[2:], k) for k, offer in enumerate(offers) if offer.key[2] != _BELOW)
    for _, k in strong[TASK_LIFTS:]:
        key = offers[k].key
        offers[k] = offers[k]._replace(key=(*key[:2], _BELOW, *key[3:]))
    return offers


def uses_paths(docs: Sequence[Document]) -> bool:
    """Whether the paths a session touches can change ``rank``'s order of ``docs``: a fact or
    a section is scoped, or a fact cites a file. Otherwise git need not be asked for them."""
    return any(
        scopes.section_scopes(doc)
        or any(name in ("paths", "cites") for fact in doc.facts for name, _ in fact.fields)
        for doc in docs
    )


def _section_globs(doc: Document) -> dict[str, tuple[str, ...]]:
    return {title: scopes.globs(v) for title, (v, _, _) in scopes.section_scopes(doc).items()}


def _touches(value: str | None, scope: Sequence[str], paths: Sequence[str]) -> bool:
    """Whether a fact with ``scope`` that cites ``value`` touches one of ``paths`` (a cited
    file, or a folder of it)."""
    if scope and scopes.matches(scope, paths):
        return True
    if not value:
        return False
    cited = {citation.path for citation in cites.parse_value(value)[0]}
    return any(
        path in cited or any(c.startswith(path.rstrip("/") + "/") for c in cited) for path in paths
    )


def _scores(docs: Sequence[Document], task: str) -> Mapping[tuple[int, str | None], float]:
    """Each fact's BM25 score for ``task`` over the facts of ``docs``, as recall scores it: one
    index of them all (the one-file threads are many small documents)."""
    if not task.strip():
        return {}
    places = [(n, f) for n, doc in enumerate(docs) for f in doc.facts if f.id is not None]
    found = ranking.Index(
        "",  # only the words are read
        [
            ("", "", "", 0, "", recall.terms(docs[n].text.lines, f, f.section), (), (0, 0))
            for n, f in places
        ],
    )
    column = ranking.scores(task, [found])[0]
    return {(n, f.id): s for (n, f), s in zip(places, column, strict=True) if s > 0}
