"""``recall``: find facts in continuity.md and the archive by words, ranked deterministically.

BM25 over each fact's text, id and section; ties broken by tier (core first) and then by id, so
the same query always lists the same facts in the same order. Each document is indexed on its
own (words counted once per fact), and a search combines the indexes it is given.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ...parse.facts import Document, Fact
from ...parse.footer import TIERS, without_footers

# Every byte but those of a-z and 0-9 made a space: the words of UTF-8 text split out in C.
_SPACES = bytes(b if chr(b) in "abcdefghijklmnopqrstuvwxyz0123456789" else 32 for b in range(256))
K1 = 1.2
B = 0.75


class Hit(NamedTuple):
    id: str
    tier: str
    path: str
    line: int
    section: str
    first_line: str
    score: float


def words(text: str) -> list[str]:
    """The runs of a-z and 0-9 in the lowered text: ``re.findall("[a-z0-9]+", text.lower())``
    (a property test holds it there) for a fifth of the cost, split out in C. No byte of another
    character is one of theirs."""
    lowered = text.lower().encode("utf-8", "surrogatepass")
    return lowered.translate(_SPACES).decode("ascii").split()


class Index:
    """One document's facts ready for searching: each fact's words, read once.

    Indexes of several documents are searched together (``search``), so a caller may keep the
    index of a file that has not changed (the MCP server does) and the result is the same. A
    word's postings and BM25's length terms are worked out when a search first asks for them,
    and kept: a command asks for a few words, a kept index is asked again. A hit is built only
    for a fact listed.
    """

    __slots__ = (
        "_facts",
        "_norms",
        "_postings",
        "_sections",
        "_terms",
        "ids",
        "lengths",
        "path",
        "tiers",
        "words",
    )

    def __init__(self, doc: Document) -> None:
        """The index of a document's facts; facts without an id cannot be cited: skipped."""
        self.path = doc.path
        self._facts: list[Fact] = []  # the document's facts that have an id
        self._terms: list[list[str]] = []  # each one's words, in order
        self._sections: list[str] = []
        self.ids: list[str] = []  # ties are ranked by tier, then id
        self.tiers: list[str] = []
        lines = doc.text.lines
        for fact in doc.facts:
            if fact.id is None:
                continue
            fields = dict(fact.fields)
            section = fields.get("from") or fact.section  # where it lived before the archive
            self._facts.append(fact)
            self._terms.append(words(f"{text(lines, fact)} {fact.id} {section}"))
            self._sections.append(section)
            self.ids.append(fact.id)
            self.tiers.append(fields.get("tier") or "working")
        self.lengths = [len(found) for found in self._terms]
        self.words = sum(self.lengths)
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._norms: dict[float, list[float]] = {}

    def __len__(self) -> int:
        return len(self._facts)

    def postings(self, term: str) -> list[tuple[int, int]]:
        """(fact, occurrences) for each fact whose words hold ``term``."""
        found = self._postings.get(term)
        if found is None:
            found = self._postings[term] = [
                (entry, terms.count(term))
                for entry, terms in enumerate(self._terms)
                if term in terms
            ]
        return found

    def norms_for(self, average: float) -> list[float]:
        """BM25's length term of each fact, for the last average length searched with (the same
        as long as no memory file changes)."""
        found = self._norms.get(average)
        if found is None:
            self._norms.clear()
            found = self._norms[average] = [
                K1 * (1 - B + B * length / average) for length in self.lengths
            ]
        return found

    def hit(self, entry: int, score: float) -> Hit:
        fact, tier, section = self._facts[entry], self.tiers[entry], self._sections[entry]
        return Hit(self.ids[entry], tier, self.path, fact.line, section, fact.first_line, score)


def index(doc: Document) -> Index:
    return Index(doc)


def text(lines: Sequence[str], fact: Fact) -> str:
    """The fact's lines without its footers (``without_footers``). When the one comment in them
    is its footer, that is cut where the parser found it: stripping every line costs 25K
    instructions a fact."""
    body = "".join(lines[fact.start : fact.end])
    if fact.footer_line is None or body.count("<!--") != 1:
        return without_footers(body)
    start, end = fact.footer_span
    if lines[fact.footer_line][end - 3 : end] != "-->":  # unclosed: it runs to the line's end
        return without_footers(body)
    offset = sum(map(len, lines[fact.start : fact.footer_line]))
    return f"{body[: offset + start]} {body[offset + end :]}"


def recall(query: str, docs: Iterable[Document], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query`` in ``docs``."""
    return search(query, [index(doc) for doc in docs], limit)


def search(query: str, indexes: Sequence[Index], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query``: highest score, then tier (core first), then id."""
    wanted = list(dict.fromkeys(words(query)))
    total = sum(len(ix) for ix in indexes)
    if not total or not wanted:
        return []
    average = sum(ix.words for ix in indexes) / total
    accumulated = [[0.0] * len(ix) for ix in indexes]
    saturation = K1 + 1
    for term in wanted:
        frequency = sum(len(ix.postings(term)) for ix in indexes)
        if not frequency:
            continue
        idf = math.log(1 + (total - frequency + 0.5) / (frequency + 0.5))
        for scores, ix in zip(accumulated, indexes, strict=True):
            norms = ix.norms_for(average)
            for entry, tf in ix.postings(term):
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
        tiers, ids = indexes[k].tiers, indexes[k].ids
        for entry in [e for e, score in enumerate(scores) if score > floor]:
            key = -round(scores[entry], 6), rank.get(tiers[entry], len(rank)), ids[entry], k, entry
            ranked.append(key)
    ranked.sort()  # ties in all three keys: document order, as the facts are read
    return [indexes[k].hit(entry, -neg) for neg, _, _, k, entry in ranked[:limit]]


def lines(hits: Sequence[Hit]) -> list[str]:
    return [f"{h.id}  [{h.tier}]  {h.path}:{h.line}  {h.first_line}" for h in hits]
