"""Relations between facts (DECAY.md § Relations): ``see: <id>, <id>`` in a footer.

A relation reads both ways: a fact's related facts are those its ``see`` names, in their order,
then those whose ``see`` names it, by id. Showing one is not a use; nothing here counts.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from ...parse.facts import Document, Fact
from ...parse.footer import listed


def see_of(docs: Iterable[Document]) -> dict[str, tuple[str, ...]]:
    """Each fact's ``see`` ids, by its id (facts without one left out)."""
    return {
        f.id: listed(f.field("see"))
        for doc in docs
        for f in doc.facts
        if f.id is not None and f.field("see") is not None
    }


def related_ids(fact_id: str, sees: Mapping[str, Sequence[str]]) -> list[str]:
    """The ids related to ``fact_id``: those it names, then those naming it."""
    back = sorted(other for other, named in sees.items() if fact_id in named)
    return [i for i in dict.fromkeys([*sees.get(fact_id, ()), *back]) if i != fact_id]


def related(docs: Sequence[Document], fact_id: str) -> list[tuple[Document, Fact]]:
    """The facts related to ``fact_id`` that ``docs`` hold, with their documents."""
    by_id = {f.id: (doc, f) for doc in docs for f in doc.facts if f.id is not None}
    return [by_id[i] for i in related_ids(fact_id, see_of(docs)) if i in by_id]


def line(doc: Document, fact: Fact) -> str:
    """One related fact as the text reports show it."""
    return (
        f"{fact.id}  [{fact.field('tier') or 'working'}]  {doc.path}:{fact.line}  {fact.first_line}"
    )
