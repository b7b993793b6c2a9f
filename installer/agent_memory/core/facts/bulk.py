"""Many facts added at once (an import): each as ``fact add`` would add it after the ones before,
with continuity.md parsed once and written once.

Adding them one by one parsed the whole file again after each, so 1,600 entries took 20 s and
half a gigabyte. Here each entry is checked against the memory as it was (``draft``) and against
the entries added before it, through an index of their words, and all are appended together at
the end; a property test holds the result to the one-by-one one.
"""

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from ...errors import AgentMemoryError, DuplicateError
from ...layout import CONTINUITY
from ...parse import facts
from ...parse.facts import Document
from ...parse.text import Text
from ..review.edits import append_to_sections
from ..review.moves import landed
from .add import NewFact, draft
from .duplicates import Found, Match, compare, fact_text, probes, words
from .elsewhere import Elsewhere


class Wanted(NamedTuple):
    """One fact to add, as ``add_fact`` takes it."""

    text: str
    section: str
    wanted_id: str | None
    thread: bool
    checked: bool
    fields: Mapping[str, str]  # written over the new fact's own (an import's origin, history)
    where: str  # where it comes from, for a refusal (``claude:deploy.md:1``)


def add_all(
    doc: Document, others: Elsewhere, wanted: Sequence[Wanted], today: dt.date, shown: str
) -> tuple[Document, list[tuple[int, NewFact]], list[tuple[int, str]]]:
    """continuity.md with each fact of ``wanted`` added that says something new (an id taken
    is derived instead); the ones added and the ones skipped (with the fact that already says
    it), each by its index in ``wanted``. A fact that cannot be one stops it all: one line,
    naming where it came from and ``shown``, the source."""
    ids = {fact.id for fact in doc.facts if fact.id is not None}
    written = _Written()
    added: list[tuple[int, NewFact, list[str]]] = []
    skipped: list[tuple[int, str]] = []
    for index, one in enumerate(wanted):
        same, similar = written.compare(one.text)
        if same is not None:
            skipped.append((index, same.id))
            continue
        taken = one.wanted_id and (one.wanted_id in ids or others.place(one.wanted_id))
        try:
            new, lines = draft(
                doc, others, one.text, one.section,
                None if taken or one.wanted_id in written.titles else one.wanted_id,
                one.thread, today, True, imported=one.fields, checked=one.checked,
                taken=written.place,
            )  # fmt: skip
        except DuplicateError as exc:
            skipped.append((index, exc.existing))
            continue
        except AgentMemoryError as exc:
            raise AgentMemoryError(f"{one.where}: {exc.message}", shown) from None
        new = new._replace(section=written.heading(new.section))
        new = new._replace(similar=tuple(sorted(new.similar + similar, key=_order)))
        written.add(new, lines)
        added.append((index, new, lines))
    if not added:
        return doc, [], skipped
    text = append_to_sections(
        CONTINUITY, doc.text, [(new.section, lines) for _i, new, lines in added], doc.sections
    )
    after = landed(CONTINUITY, text, [(new.id, new.section) for _i, new, _l in added])
    lines_of = {f.id: f.line for f in after.facts if f.id is not None}
    return after, [(i, _placed(new, lines_of)) for i, new, _l in added], skipped


def _order(match: Match) -> tuple[float, str]:
    return -match.similarity, match.id


def _placed(new: NewFact, lines: Mapping[str, int]) -> NewFact:
    """``new`` with the lines of the facts of continuity.md it is like as they are once all
    are written (one by one, an earlier fact's line was the one before the later ones)."""
    similar = tuple(
        m._replace(line=lines[m.id]) if m.path == CONTINUITY and m.id in lines else m
        for m in new.similar
    )
    return new._replace(similar=similar)


class _Written:
    """The facts this run added so far: their ids, headings and words, each fact read once."""

    def __init__(self) -> None:
        self.titles: dict[str, str] = {}  # id -> the heading it went under
        self._headings: dict[str, str] = {}  # a heading, case folded -> as first written
        self._docs: list[Document] = []  # each fact on its own, under its heading
        self._by_word: dict[str, list[int]] = {}

    def place(self, fact_id: str) -> str | None:
        return f"{CONTINUITY} (added above)" if fact_id in self.titles else None

    def heading(self, title: str) -> str:
        return self._headings.setdefault(title.strip().lower(), title)

    def add(self, new: NewFact, lines: Sequence[str]) -> None:
        alone = Text(False, tuple(f"{line}\n" for line in (f"## {new.section}", *lines)))
        doc = facts.parse_text(CONTINUITY, alone)
        self.titles[new.id] = new.section
        for word in words(fact_text(doc, doc.facts[0])):
            self._by_word.setdefault(word, []).append(len(self._docs))
        self._docs.append(doc)

    def compare(self, text: str) -> Found:
        """``compare`` against the facts added so far that hold one of the text's probes
        (every similar one does), in the order they were added."""
        wanted = words(text)
        if not wanted:
            return Found(None, ())
        near = sorted({n for word in probes(wanted) for n in self._by_word.get(word, ())})
        return compare(text, [self._docs[n] for n in near])
