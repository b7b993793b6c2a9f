"""``recall``: find facts in continuity.md and the archive by words, ranked deterministically.

BM25 over each fact's text, id and section; ties broken by tier (core first) and then by id, so
the same query always lists the same facts in the same order. Each document is indexed on its
own (words counted once per fact), and a search combines the indexes it is given.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from ... import patterns
from ...parse.facts import Document
from ...parse.footer import TIERS, listed, without_footers
from ..facts.relations import related_ids

_WORD = patterns.compile(r"[a-z0-9]+")
K1 = 1.2
B = 0.75


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    tier: str
    path: str
    line: int
    section: str
    first_line: str
    score: float
    see: tuple[str, ...] = ()  # the ids its footer relates it to (DECAY.md § Relations)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


@dataclass(frozen=True, slots=True)
class Index:
    """One document's facts ready for searching: what BM25 needs, counted once.

    Indexes of several documents are searched together (``search``), so a caller may keep the
    index of a file that has not changed (the MCP server does) and the result is the same.
    """

    hits: tuple[Hit, ...]  # each fact's hit, score 0
    lengths: tuple[int, ...]  # words per fact
    words: int  # words in all facts
    postings: Mapping[str, tuple[tuple[int, int], ...]]  # word -> (fact, occurrences) pairs
    # BM25's length term of each fact for the last average length searched with: the same as
    # long as no memory file changes, so a kept index computes it once, not once per query.
    norms: dict[float, list[float]] = field(default_factory=dict, compare=False)

    def norms_for(self, average: float) -> list[float]:
        found = self.norms.get(average)
        if found is None:
            self.norms.clear()
            found = self.norms[average] = [
                K1 * (1 - B + B * length / average) for length in self.lengths
            ]
        return found


def index(doc: Document) -> Index:
    """The index of a document's facts; facts without an id cannot be cited: skipped."""
    hits: list[Hit] = []
    lengths: list[int] = []
    postings: dict[str, list[tuple[int, int]]] = {}
    for fact in doc.facts:
        if fact.id is None:
            continue
        body = "".join(doc.text.lines[fact.start : fact.end])
        text = without_footers(body)
        section = fact.field("from") or fact.section
        terms = Counter(words(f"{text} {fact.id} {section}"))
        tier = fact.field("tier") or "working"
        for term, count in terms.items():
            postings.setdefault(term, []).append((len(hits), count))
        see = listed(fact.field("see"))
        hits.append(Hit(fact.id, tier, doc.path, fact.line, section, fact.first_line, 0.0, see))
        lengths.append(sum(terms.values()))
    frozen = {term: tuple(pairs) for term, pairs in postings.items()}
    return Index(tuple(hits), tuple(lengths), sum(lengths), MappingProxyType(frozen))


def recall(query: str, docs: Iterable[Document], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query`` in ``docs``."""
    return search(query, [index(doc) for doc in docs], limit)


def search(query: str, indexes: Sequence[Index], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query``: highest score, then tier (core first), then id."""
    wanted = list(dict.fromkeys(words(query)))
    total = sum(len(ix.hits) for ix in indexes)
    if not total or not wanted:
        return []
    average = sum(ix.words for ix in indexes) / total
    accumulated = [[0.0] * len(ix.hits) for ix in indexes]
    saturation = K1 + 1
    for term in wanted:
        frequency = sum(len(ix.postings.get(term, ())) for ix in indexes)
        if not frequency:
            continue
        idf = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        for scores, ix in zip(accumulated, indexes, strict=True):
            norms = ix.norms_for(average)
            for entry, tf in ix.postings.get(term, ()):
                scores[entry] += idf * tf * saturation / (tf + norms[entry])
    best = heapq.nlargest(limit, itertools.chain.from_iterable(accumulated))
    if not best or best[0] <= 0:
        return []
    # Only a fact whose rounded score reaches the limit-th best raw score's can make the list
    # (rounding moves a score by at most 5e-7): rank those alone, not every fact that matched.
    floor = max(round(best[-1], 6) - 1e-6, 0.0)
    rank = {tier: i for i, tier in enumerate(TIERS)}
    ranked = []
    for k, scores in enumerate(accumulated):
        for entry in [e for e, score in enumerate(scores) if score > floor]:
            hit = indexes[k].hits[entry]
            key = -round(scores[entry], 6), rank.get(hit.tier, len(rank)), hit.id, k, entry
            ranked.append(key)
    ranked.sort()  # ties in all three keys: document order, as the facts are read
    return [_with_score(indexes[k].hits[entry], -neg) for neg, _, _, k, entry in ranked[:limit]]


def _with_score(hit: Hit, score: float) -> Hit:
    return Hit(hit.id, hit.tier, hit.path, hit.line, hit.section, hit.first_line, score, hit.see)


def related(hits: Sequence[Hit], indexes: Sequence[Index]) -> dict[str, list[Hit]]:
    """Each hit's related facts (those it sees, then those seeing it): shown beside it, which
    is not a use."""
    every = {h.id: h for ix in indexes for h in ix.hits}
    sees = {h.id: h.see for h in every.values() if h.see}
    if not sees:
        return {}
    return {h.id: [every[i] for i in related_ids(h.id, sees) if i in every] for h in hits}


def lines(
    hits: Sequence[Hit], near: Mapping[str, Sequence[Hit]] = MappingProxyType({})
) -> list[str]:
    out = []
    for h in hits:
        out.append(f"{h.id}  [{h.tier}]  {h.path}:{h.line}  {h.first_line}")
        out += [
            f"  related: {r.id}  [{r.tier}]  {r.path}:{r.line}  {r.first_line}"
            for r in near.get(h.id, ())
        ]
    return out
