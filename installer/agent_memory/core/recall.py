"""``recall``: find facts in continuity.md and the archive by words, ranked deterministically.

BM25 over each fact's text, id and section; ties broken by tier (core first) and then by id, so
the same query always lists the same facts in the same order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..parse.facts import Document
from ..parse.footer import TIERS, without_footers

_WORD = re.compile(r"[a-z0-9]+")
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


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def recall(query: str, docs: Iterable[Document], limit: int) -> list[Hit]:
    """The best ``limit`` facts for ``query``; facts without an id cannot be cited: skipped."""
    entries: list[tuple[Hit, Counter[str], int]] = []
    for doc in docs:
        for fact in doc.facts:
            if fact.id is None:
                continue
            body = "".join(doc.text.lines[fact.start : fact.end])
            text = without_footers(body)
            section = fact.field("from") or fact.section
            terms = Counter(words(f"{text} {fact.id} {section}"))
            tier = fact.field("tier") or "working"
            hit = Hit(fact.id, tier, doc.path, fact.line, section, fact.first_line, 0.0)
            entries.append((hit, terms, sum(terms.values())))
    wanted = list(dict.fromkeys(words(query)))
    if not entries or not wanted:
        return []
    average = sum(length for _, _, length in entries) / len(entries)
    frequency = Counter(term for _, terms, _ in entries for term in wanted if term in terms)
    scored = []
    for hit, terms, length in entries:
        score = 0.0
        for term in wanted:
            tf = terms.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (len(entries) - frequency[term] + 0.5) / (frequency[term] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        if score > 0:
            scored.append(_with_score(hit, round(score, 6)))
    rank = {tier: i for i, tier in enumerate(TIERS)}
    scored.sort(key=lambda h: (-h.score, rank.get(h.tier, len(rank)), h.id))
    return scored[:limit]


def _with_score(hit: Hit, score: float) -> Hit:
    return Hit(hit.id, hit.tier, hit.path, hit.line, hit.section, hit.first_line, score)


def lines(hits: Sequence[Hit]) -> list[str]:
    return [f"{h.id}  [{h.tier}]  {h.path}:{h.line}  {h.first_line}" for h in hits]
