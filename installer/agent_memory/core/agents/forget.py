"""``fact forget TEXT``: the one live fact a description names (DECAY.md § Forget by
description), chosen with recall's BM25, or the candidates when none stands out.

A fact is chosen when it holds at least ``FLOOR`` of the description's words (recall's words:
runs of a-z and 0-9), and at least ``WORDS`` of them, and its BM25 score is at least ``MARGIN``
times the next fact's: a description of one common word never retracts a fact.
"""

from collections.abc import Sequence
from typing import NamedTuple

from ...parse.facts import Document
from ..facts.duplicates import fact_text
from .ranking import Hit, words
from .recall import recall

FLOOR = 0.6  # of the description's distinct words, the fact holds at least this share
MARGIN = 1.5  # the best score over the next one
WORDS = 2  # the fewest of the description's words the fact holds
SHOWN = 5  # candidates listed when none is chosen


class Choice(NamedTuple):
    chosen: Hit | None
    candidates: tuple[Hit, ...]  # best score first (then id): what a person picks from


def choose(text: str, docs: Sequence[Document]) -> Choice:
    """The live fact of ``docs`` (not vision.md's, not a retracted or superseded one) that
    ``text`` describes, or None and the best candidates."""
    live = [
        doc._replace(facts=tuple(f for f in doc.facts if f.field("tier") != "superseded"))
        for doc in docs
    ]
    hits = sorted(recall(text, live, SHOWN), key=lambda h: (-h.score, h.id))
    wanted = set(words(text))
    if not hits or not wanted:
        return Choice(None, tuple(hits))
    best = hits[0]
    held = next(
        set(words(fact_text(doc, fact))) for doc in live for fact in doc.facts if fact.id == best.id
    )
    shared = len(wanted & held)
    covered = shared >= FLOOR * len(wanted) and shared >= WORDS
    ahead = len(hits) == 1 or best.score >= MARGIN * hits[1].score
    return Choice(best if covered and ahead else None, tuple(hits))
