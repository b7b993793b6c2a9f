"""Curating facts without hand-editing footers: where a fact is, and its files rewritten.

Every curation command (DECAY.md § Curating facts) finds the fact by id in the memory's
documents, computes new footer fields (``footers.py``) or new text (``edit.py``), and turns them
into file edits here: a footer is rewritten in place and nothing else in the file moves, and the
archive's INDEX.md follows whatever changed in the archive, as the review writes it.
"""

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from ...errors import AgentMemoryError, refuse_errors
from ...layout import ARCHIVE_DIR, ARCHIVE_INDEX, VISION
from ...parse import facts
from ...parse.facts import Document, Fact
from ...parse.footer import nearest_id
from ...parse.text import Text
from ..plan import FileEdit, Outcome
from ..review import archive as archive_files
from ..review import tiers
from ..review.edits import Edit, apply_edits, footer_edit
from ..review.inputs import Inputs
from ..review.verdicts import verdicts


class Place(NamedTuple):
    """A fact and the document it lives in."""

    doc: Document
    fact: Fact

    @property
    def id(self) -> str:
        return self.fact.id or ""

    @property
    def fields(self) -> dict[str, str]:
        return dict(self.fact.fields)

    @property
    def archived(self) -> bool:
        """It lives in the archive (and the review, not this command, would move it back)."""
        return self.doc.path.startswith(ARCHIVE_DIR + "/")

    @property
    def vision(self) -> bool:
        return self.doc.path == VISION

    @property
    def where(self) -> str:
        return f"{self.doc.path}:{self.fact.line}"


def locate(docs: Sequence[Document], fact_id: str) -> Place:
    """The fact with ``fact_id``; a refusal naming the nearest id when there is none."""
    for doc in docs:
        for fact in doc.facts:
            if fact.id == fact_id:
                return Place(doc, fact)
    close = nearest_id(fact_id, (f.id for doc in docs for f in doc.facts if f.id))
    hint = f"did you mean {close!r}?" if close else "agent-memory recall finds facts by words"
    raise AgentMemoryError(
        f"no fact in continuity.md, the open threads, vision.md or the archive has id "
        f"{fact_id!r}; {hint}"
    )


def refuse_broken(doc: Document) -> None:
    """A file with an error lint reports is not edited: the command could misread it."""
    refuse_errors(doc.problems, "fix it (agent-memory lint lists every problem), then run again")


def footer_edits(
    changes: Iterable[tuple[Place, Mapping[str, str]]],
) -> dict[str, tuple[Document, list[Edit]]]:
    """The line edits that give each fact its new footer, by file (a footer already as asked
    is left alone)."""
    found: dict[str, tuple[Document, list[Edit]]] = {}
    for place, fields in changes:
        if dict(fields) == place.fields:
            continue
        refuse_broken(place.doc)
        _, edits = found.setdefault(place.doc.path, (place.doc, []))
        edits.append(footer_edit(place.doc.text, place.fact, dict(fields)))
    return found


def rewrite(
    changes: Iterable[tuple[Place, Mapping[str, str]]],
    reason: str,
    archives: Sequence[Document],
    index: tuple[bytes | None, bytes],
) -> list[FileEdit]:
    """The files edited so that each fact of ``changes`` has its new footer; ``archives`` and
    ``index`` (INDEX.md, its template) let the index follow an archived fact's change."""
    texts = {
        path: (doc, apply_edits(doc.text, edits))
        for path, (doc, edits) in footer_edits(changes).items()
    }
    return file_edits(texts, reason, archives, index)


def file_edits(
    texts: Mapping[str, tuple[Document | None, Text]],
    reason: str,
    archives: Sequence[Document],
    index: tuple[bytes | None, bytes],
) -> list[FileEdit]:
    """Each file's new text as an edit, and INDEX.md regenerated when an archive file changed."""
    edits = []
    for path, (doc, text) in sorted(texts.items()):
        before, new = doc.render() if doc is not None else None, text.encode()
        if new != before:
            edits.append(FileEdit(path, before, new, Outcome.written(before), reason))
    if any(edit.path.startswith(ARCHIVE_DIR + "/") for edit in edits):
        after = {e.path: e.after for e in edits if e.after is not None}
        docs = [
            facts.parse(doc.path, after[doc.path]) if doc.path in after else doc for doc in archives
        ]
        rendered = archive_files.render_index(*index, archive_files.index_lines(docs))
        if rendered != index[0]:
            edits.append(FileEdit(ARCHIVE_INDEX, index[0], rendered, Outcome.UPDATED, reason))
    return edits


def recomputed_tier(inputs: Inputs, place: Place, without: Sequence[str]) -> str:
    """The tier DECAY.md's rules give the fact once its footer lacks ``without`` (``tier``:
    unpinned; ``archived-by``: no longer archived by hand), in its section, with the logs the
    last review has not read counted."""
    run = verdicts(inputs)
    judged = run.of(place.id)
    if judged is None:  # pragma: no cover - the place was found in the same documents
        raise AgentMemoryError(f"no fact has id {place.id!r}")
    fields = {k: v for k, v in judged.fields.items() if k not in without}
    today = inputs.today.isoformat()
    return tiers.decide(
        fields, judged.section, place.fact.task, run.since, inputs.policy, today=today
    ).tier
