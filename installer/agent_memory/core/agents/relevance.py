"""The order in which ``context`` offers facts: what a session is likely to use first.

Binding facts (core, Architectural Invariants, unchecked threads) come first; then every other
fact still in the memory files — active, working, unreviewed, decaying and checked threads. Each
part is ordered the same way: a fact that cites or is scoped to a path the session touches
first, then by its BM25 score for the task (``recall``'s, in its near-tie bands), then the fact
used last, used most, by tier, by id. Without a task every score is 0, so the order is recency of
use. A fact scoped to paths the session does not touch is left out when the paths are known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ... import patterns
from ...parse import cites, scopes
from ...parse.facts import Document, Fact
from ...parse.footer import ID_PATTERN, TIERS
from ..review.tiers import INVARIANTS
from . import recall

CORE, THREADS, FACTS, CLOSED = range(4)  # the groups of the view, in its order
_HIDDEN = frozenset({"archived", "superseded"})  # gone from the view: recall finds them
_RANK = {tier: i for i, tier in enumerate(TIERS)}
# An id written in the task: the task names that fact.
_NAMED = patterns.compile(rf"(?<![\w.-]){ID_PATTERN}(?![\w-])")


class Offer(NamedTuple):
    """A fact as the view offers it: where it goes, and the key that orders it."""

    key: tuple[object, ...]
    group: int
    doc: int  # the document's place in the memory given
    fact: Fact


class Ranked(NamedTuple):
    offers: list[Offer]  # best first: binding, then the rest
    out_of_scope: int  # facts left out: scoped to paths the session does not touch


def group_of(fact: Fact) -> int | None:
    """Which part of the view a fact goes to; None: not in the view (archived, retracted)."""
    tier = fact.field("tier")
    if tier in _HIDDEN:
        return None
    if tier == "core" or fact.section.lower() == INVARIANTS:
        return CORE
    if fact.task == " ":
        return THREADS
    return FACTS if fact.task is None else CLOSED


def rank(docs: Sequence[Document], task: str, paths: Sequence[str] | None) -> Ranked:
    """Every fact of ``docs`` the view may show, best first. ``paths`` None: nothing is known
    about the paths the session touches."""
    scored = _scores(docs, task)
    if paths is not None:
        paths = tuple(path.removeprefix("./") for path in paths)
    named = frozenset(_NAMED.findall(task.lower())) if task else frozenset()
    offers: list[Offer] = []
    out = 0
    for number, doc in enumerate(docs):
        sections = {
            title: scopes.globs(v) for title, (v, _, _) in scopes.section_scopes(doc).items()
        }
        for place, fact in enumerate(doc.facts):
            group = group_of(fact)
            if group is None:
                continue
            scope = scopes.globs(fact.field("paths")) or sections.get(fact.section, ())
            touched = paths is not None and _touches(fact, scope, paths)
            if scope and paths is not None and not touched:
                out += 1
                continue
            score = scored.get((number, fact.id), 0.0) if fact.id is not None else 0.0
            when, uses = recall.recency(dict(fact.fields))
            near = -recall.band(score) if score > 0 else 1 << 30
            key = (
                group >= FACTS,
                not (touched or fact.id in named),
                near,
                group == CLOSED,
                -when,
                -uses,
                _RANK.get(fact.field("tier") or "working", len(_RANK)),
                fact.id or "",
                number,
                place,
            )
            offers.append(Offer(key, group, number, fact))
    offers.sort(key=lambda offer: offer.key)
    return Ranked(offers, out)


def _touches(fact: Fact, scope: Sequence[str], paths: Sequence[str]) -> bool:
    """Whether the fact is scoped to or cites one of ``paths`` (a cited file, or a folder of it)."""
    if scope and scopes.matches(scope, paths):
        return True
    value = fact.field("cites")
    if not value:
        return False
    cited = {citation.path for citation in cites.parse_value(value)[0]}
    return any(
        path in cited or any(c.startswith(path.rstrip("/") + "/") for c in cited) for path in paths
    )


def _scores(docs: Sequence[Document], task: str) -> Mapping[tuple[int, str | None], float]:
    """Each fact's BM25 score for ``task`` over the facts of ``docs`` (recall's index)."""
    if not task.strip():
        return {}
    indexes = [recall.index(doc) for doc in docs]
    found = recall.scores(task, indexes)
    return {
        (number, fact_id): score
        for number, (ix, column) in enumerate(zip(indexes, found, strict=True))
        for fact_id, score in zip(ix.ids, column, strict=True)
        if score > 0
    }
