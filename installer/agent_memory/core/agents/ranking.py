"""The one ranking: BM25 over each fact's words (its text, id and section), for ``recall``, the
prompt hook and ``context --task``.

A word the query repeats counts as often as it is written. Scores within a fifth of each other
(the same band of a geometric scale of ratio ``NEAR``) are near-ties, broken by what only the
memory knows: the fact used last, then the one used most, then tier (core first), then id; so the
same query always lists the same facts in the same order. Each document is indexed on its own
(words counted once per fact), and a search combines the indexes it is given: the reader's
(``Index``) or the derived store's (``shell/store``), which answer alike.
"""

import heapq
import itertools
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple, Protocol

from ...parse.footer import TIERS
from ...parse.text import words as words  # the one word rule, which search and rows share
from ..facts.relations import related_ids

K1 = 1.2
B = 0.75
# Scores in one band [NEAR**n, NEAR**(n+1)) are near-ties. On four real histories, with each
# session's text as the query, the band lifts recall@5 to or above plain BM25's on each; exact
# ties alone leave it under on three (docs/performance.md).
NEAR = 1.2
# From this many words not yet looked up, a search finds them all in one pass (``Index.prime``).
_PRIMED = 8


class Hit(NamedTuple):
    id: str
    tier: str
    path: str
    line: int
    section: str
    first_line: str
    score: float
    see: tuple[str, ...] = ()  # the ids its footer relates it to (DECAY.md § Relations)


def counted(terms: list[str]) -> dict[str, int]:
    """How often each word stands in a fact's ``terms``, in their order (a dict filled in a loop:
    ``Counter`` cost twice as much, 20 ms over 10,000 facts)."""
    found: dict[str, int] = {}
    for term in terms:
        found[term] = found.get(term, 0) + 1
    return found


# What a search reads of a fact: id, tier, section, line, first line, words, related ids, and
# its last use and uses (``recency``)
Cited = tuple[str, str, str, int, str, list[str], tuple[str, ...], tuple[int, int]]
# Where a fact stands in its file: its section's heading line (-1: none), first and end lines
Place = tuple[int, int, int]


class Searched(Protocol):
    """What a search asks of one file's facts: an ``Index``, or the derived store's rows."""

    path: str
    counted: int
    words: int

    def __len__(self) -> int: ...
    def postings(self, term: str) -> list[tuple[int, int]]: ...
    def counts(
        self, term: str, among: Collection[str], entries: Collection[int]
    ) -> list[tuple[int, int]]: ...
    def frequency(self, term: str) -> int: ...
    def prime(self, wanted: Iterable[str]) -> None: ...
    def norms_for(self, average: float) -> list[float]: ...
    def key(self, entry: int) -> tuple[int, int, str, str]: ...
    def first(self, entries: Collection[int], count: int) -> list[int]: ...
    def hit(self, entry: int, score: float) -> Hit: ...
    def seeing(self) -> dict[str, tuple[str, ...]]: ...
    def found(self, ids: Collection[str]) -> dict[str, int]: ...


class Index:
    """One document's facts ready for searching: each fact's words, read once.

    Indexes of several documents are searched together (``search``), so a caller may keep the
    index of a file that has not changed (the MCP server does) and the result is the same. A
    word's postings and BM25's length terms are worked out when a search first asks for them,
    and kept: a command asks for a few words, a kept index is asked again. A hit is built only
    for a fact listed. An index may hold only some of its document's facts (``candidates``):
    ``counted`` and ``words`` are then the whole document's, which BM25's statistics are of, and
    ``held`` how many of its facts hold each word searched for.
    """

    __slots__ = (
        "_firsts",
        "_held",
        "_lines",
        "_norms",
        "_postings",
        "_sections",
        "counted",
        "ids",
        "lengths",
        "path",
        "places",
        "recency",
        "sees",
        "terms",
        "tiers",
        "words",
    )

    def __init__(
        self,
        path: str,
        cited: Sequence[Cited],
        counted: int | None = None,
        words: int = 0,
        held: Mapping[str, int] | None = None,
        places: Sequence[Place] = (),
    ) -> None:
        self.path, self._held, self.places = path, held, places
        columns = tuple(zip(*cited, strict=True)) or ((),) * 8
        self.ids, self.tiers, self._sections, self._lines, self._firsts = columns[:5]
        self.terms: tuple[list[str], ...] = columns[5]
        self.sees: tuple[tuple[str, ...], ...] = columns[6]
        self.recency: tuple[tuple[int, int], ...] = columns[7]
        self.lengths = [len(found) for found in self.terms]
        self.counted = len(self.ids) if counted is None else counted
        self.words = sum(self.lengths) if counted is None else words
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._norms: dict[float, list[float]] = {}

    def __len__(self) -> int:
        return len(self.ids)

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(fact, occurrences) for each fact whose words hold ``term``."""
        found = self._postings.get(term)
        if found is None:
            found = self._postings[term] = [
                (entry, terms.count(term))
                for entry, terms in enumerate(self.terms)
                if term in terms
            ]
        return found

    def counts(
        self, term: str, among: Collection[str], entries: Collection[int]
    ) -> list[tuple[int, int]]:
        """``postings(term)`` of the facts ``entries`` alone, those holding a word of ``among``."""
        if term in self._postings:
            return [(e, n) for e, n in self._postings[term] if e in entries]
        return [(e, n) for e in sorted(entries) if (n := self.terms[e].count(term))]

    def frequency(self, term: str) -> int:
        """How many of its document's facts hold ``term``."""
        if self._held is not None and term in self._held:
            return self._held[term]
        return len(self.postings(term))

    def prime(self, wanted: Iterable[str]) -> None:
        """The postings of many words at once, in one pass over the facts' words: a query of a
        prompt's or a session's length asks for dozens, and one scan of every fact per word
        costs more than one look-up per word of the facts. The same lists ``postings`` builds."""
        found: dict[str, list[tuple[int, int]]] = {t: [] for t in wanted if t not in self._postings}
        if len(found) < _PRIMED:
            return
        for entry, terms in enumerate(self.terms):
            counts: dict[str, int] = {}
            for term in terms:
                if term in found:
                    counts[term] = counts.get(term, 0) + 1
            for term, count in counts.items():
                found[term].append((entry, count))
        self._postings.update(found)

    def norms_for(self, average: float) -> list[float]:
        """BM25's length term of each fact, for the last average length searched with (the same
        as long as no memory file changes)."""
        found = self._norms.get(average)
        if found is None:
            self._norms.clear()
            found = self._norms[average] = [norm(length, average) for length in self.lengths]
        return found

    def key(self, entry: int) -> tuple[int, int, str, str]:
        """What ranks a fact among near-ties: last use, uses, tier, id."""
        when, uses = self.recency[entry]
        return when, uses, self.tiers[entry], self.ids[entry]

    def first(self, entries: Collection[int], count: int) -> list[int]:
        """The ``count`` facts of ``entries`` that rank first among near-ties (``order``)."""
        return heapq.nsmallest(count, entries, key=lambda entry: (order(self.key(entry)), entry))

    def seeing(self) -> dict[str, tuple[str, ...]]:
        """Each fact's id with the ids its footer relates it to, for those relating any."""
        return {self.ids[e]: see for e, see in enumerate(self.sees) if see}

    def found(self, ids: Collection[str]) -> dict[str, int]:
        """The last fact holding each of ``ids`` it holds, in one pass over its facts."""
        return {held: e for e, held in enumerate(self.ids) if held in ids}

    def hit(self, entry: int, score: float) -> Hit:
        tier, section, line = self.tiers[entry], self._sections[entry], self._lines[entry]
        first, see = self._firsts[entry], self.sees[entry]
        return Hit(self.ids[entry], tier, self.path, line, section, first, score, see)


def norm(length: int, average: float) -> float:
    """BM25's length term of a fact of ``length`` words."""
    return K1 * (1 - B + B * length / average)


def band(score: float) -> int:
    """The near-tie band of a positive score (``NEAR``), of the score rounded to 6 places: the
    order in which a fact's terms were summed cannot move it across a band's edge."""
    return math.floor(math.log(round(score, 6) or score) / _LOG_NEAR)


_LOG_NEAR = math.log(NEAR)


def search(query: str, indexes: Sequence[Searched], limit: int, least: float = 0.0) -> list[Hit]:
    """The best ``limit`` facts for ``query``: the highest band of score, then the fact used
    last, then used most, then tier (core first), then id. With ``least``, only the facts in
    its band or above (the rest of the list is the same)."""
    accumulated = scores(query, indexes, NEAR ** band(least) - 1e-6 if least > 0 else 0.0)
    best = heapq.nlargest(limit, itertools.chain.from_iterable(accumulated))
    if not best or best[0] <= 0:
        return []
    # Only a fact in the band of the limit-th best score or above can make the list: rank those
    # alone, not every fact that matched.
    floor = band(best[-1]) if best[-1] > 0 else None
    if least > 0:
        floor = max(band(least), floor if floor is not None else band(least))
    # A score under the floor band's lower edge (less what rounding to 6 places may add) is
    # outside it without taking its logarithm: with a common word most facts score.
    edge = NEAR**floor - 1e-6 if floor is not None else 0.0
    above: list[tuple[int, int, int]] = []  # (band, index, fact) of the few over the floor band
    tied: list[list[int]] = [[] for _ in indexes]  # the facts in it, per index: maybe thousands
    levels: dict[float, int] = {}  # facts of one length tie on one score: a log each is not
    for k, found in enumerate(accumulated):
        for entry, score in enumerate(found):
            if score <= 0 or score < edge:
                continue
            level = levels.get(score)
            if level is None:
                level = levels[score] = band(score)
            if floor is None or level > floor:
                above.append((level, k, entry))
            elif level == floor:
                tied[k].append(entry)
    # Of the floor band, only the first ``limit`` of each index by the near-tie key can make
    # the list: each index picks them (the store in SQL) rather than every key being read.
    need = max(limit - len(above), 0)
    above += [(floor or 0, k, e) for k, ix in enumerate(indexes) for e in ix.first(tied[k], need)]
    ranked = [(-level, *order(indexes[k].key(e)), k, e) for level, k, e in above]
    # ties in every key: document order, as the facts are read
    best_ranked = heapq.nsmallest(limit, ranked)
    return [indexes[k].hit(e, round(accumulated[k][e], 6)) for *_, k, e in best_ranked]


_RANK = {tier: i for i, tier in enumerate(TIERS)}


def order(key: tuple[int, int, str, str]) -> tuple[int, int, int, str]:
    """What ranks a fact among near-ties, smallest first: used last, used most, tier (core
    first, a tier not known last), id."""
    when, uses, tier, fact_id = key
    return -when, -uses, _RANK.get(tier, len(_RANK)), fact_id


def scores(query: str, indexes: Sequence[Searched], least: float = 0.0) -> list[list[float]]:
    """Each fact's BM25 score for ``query``, per index. A word the query repeats counts as often
    as it is written, as BM25 sums over the query's terms: a session's text names the things it
    is about again and again. All none when no fact can reach ``least`` (each word adds less
    than its weight times K1 + 1): no fact's words are read."""
    weights: dict[str, int] = {}
    for term in words(query):
        weights[term] = weights.get(term, 0) + 1
    accumulated = [[0.0] * len(ix) for ix in indexes]
    total = sum(ix.counted for ix in indexes)
    if not total:
        return accumulated
    average = sum(ix.words for ix in indexes) / total
    saturation = K1 + 1
    for ix in indexes:
        ix.prime(weights)
    idfs: dict[str, float] = {}
    for term, weight in weights.items():
        frequency = sum(ix.frequency(term) for ix in indexes)
        if frequency:
            idfs[term] = weight * math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
    minor = _minor(idfs, least / saturation / (1 + 1e-9))
    if len(minor) == len(idfs):
        return accumulated
    major = [term for term in idfs if term not in minor]
    # the facts holding a major word, where a minor one is counted (none: not worked out)
    held = [{e for t in major for e, _ in ix.postings(t)} if minor else set() for ix in indexes]
    for term, idf in idfs.items():
        for found, ix, some in zip(accumulated, indexes, held, strict=True):
            postings = ix.counts(term, major, some) if term in minor else ix.postings(term)
            norms = ix.norms_for(average) if postings else []
            for entry, tf in postings:
                found[entry] += idf * tf * saturation / (tf + norms[entry])
    return accumulated


def _minor(idfs: Mapping[str, float], least: float) -> frozenset[str]:
    """The query's words that cannot lift a fact to ``least`` by themselves, all together (a
    word adds less than its idf times K1 + 1, ``least`` given divided by it): only a fact
    holding one of the others can reach it, and the minor words are counted for those alone."""
    minor: list[str] = []
    total = 0.0
    for term in sorted(idfs, key=lambda t: (idfs[t], t)):
        total += idfs[term]
        if total >= least:
            break
        minor.append(term)
    return frozenset(minor)


def related(hits: Sequence[Hit], indexes: Sequence[Searched]) -> dict[str, list[Hit]]:
    """Each hit's related facts (those it sees, then those seeing it): shown beside it, which
    is not a use. The ids named are looked up in one pass over each index, not one each: a
    footer may name thousands that no fact holds. Only the facts named are built as hits."""
    sees: dict[str, tuple[str, ...]] = {}
    for ix in indexes:
        sees.update(ix.seeing())
    if not sees:
        return {}
    near = {h.id: related_ids(h.id, sees) for h in hits}
    named = {fact_id for ids in near.values() for fact_id in ids}
    held: dict[str, tuple[Searched, int]] = {}
    for ix in indexes if named else ():  # the last file holding it, as a fact's id is looked up
        held.update((fact_id, (ix, entry)) for fact_id, entry in ix.found(named).items())
    built = {fact_id: ix.hit(entry, 0.0) for fact_id, (ix, entry) in held.items()}
    return {h.id: [built[i] for i in near[h.id] if i in built] for h in hits}
