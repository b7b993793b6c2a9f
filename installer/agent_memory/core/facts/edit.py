"""``fact edit`` and ``fact restore`` of an archived fact: a fact's lines rewritten or moved back.

``fact edit`` gives a fact new text and keeps its footer line byte for byte (an inline footer
keeps its place at the end of the bullet line); every other line of the file is untouched, and
the file must read back with the same facts, the edited one with the same footer. ``fact
restore`` moves an archived fact back as the review's reactivation does (REVIEW.md step 5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ...errors import AgentMemoryError
from ...layout import CONTINUITY, OPEN_THREADS, OPEN_THREADS_DIR
from ...parse.facts import BULLET, Document, parse_text
from ...parse.text import Text, strip_eol
from ..review import moves
from ..review.edits import Edit, append_to_section, apply_edits, fact_lines
from ..secrets import refuse
from .add import body_lines
from .curate import Place, refuse_broken


def edit_text(place: Place, text: str) -> Text:
    """The fact's file with the fact's text replaced by ``text`` (its footer kept)."""
    if place.vision:
        raise AgentMemoryError(
            f"{place.id!r} is the fact of memory/vision.md; edit memory/vision.md itself"
        )
    refuse_broken(place.doc)
    refuse(text, "the new text")
    body = body_lines(text)
    doc, fact = place.doc, place.fact
    lines = doc.text.lines
    bullet = strip_eol(lines[fact.start])
    match = BULLET.match(bullet)
    if match is None or fact.footer_line is None:  # pragma: no cover - a fact with an id is both
        raise AgentMemoryError(f"{place.id!r} is not a bullet with a footer", doc.path)
    prefix, indent = bullet[: match.end()], match.group("indent") + "  "
    ending = lines[fact.start][len(bullet) :] or doc.text.newline
    written = [prefix + body[0], *(indent + line if line else "" for line in body[1:])]
    if fact.footer_line == fact.start:  # the footer ends the bullet line: it stays there
        start = fact.footer_span[0]
        before = bullet[match.end() : start]
        gap = before[len(before.rstrip()) :] or " "
        written[0] += gap + bullet[start:]
        last = lines[fact.end - 1]
        new = [line + ending for line in written[:-1]]
        new.append(written[-1] + last[len(strip_eol(last)) :])
    else:
        new = [line + ending for line in written]
        new.append(lines[fact.footer_line])
    after = apply_edits(doc.text, [Edit(fact.start, fact.end, tuple(new))])
    _check_reads_back(place, after)
    return after


def _check_reads_back(place: Place, after: Text) -> None:
    """The file must hold the same facts, this one with its id, task box and footer, and no
    error: new text that reads as markup (a heading, a second bullet, a comment) is refused."""
    doc = place.doc
    section = OPEN_THREADS if doc.path.startswith(OPEN_THREADS_DIR + "/") else None
    read = parse_text(doc.path, after, section)
    same = [f for f in read.facts if f.id == place.id]
    errors = [p for p in read.problems if p.severity == "error"]
    if (
        len(read.facts) != len(doc.facts)
        or len(same) != 1
        or same[0].fields != place.fact.fields
        or same[0].task != place.fact.task
        or same[0].section != place.fact.section
        or errors
    ):
        raise AgentMemoryError(
            f"the new text of {place.id!r} would not read back as the same one fact (it looks "
            "like markup: a heading, a list, a task box or a comment); write it as plain text"
        )


def moved_back(
    place: Place, fields: Mapping[str, str], continuity: Document, threads: Sequence[str]
) -> dict[str, tuple[Document | None, Text]]:
    """The files an archived fact's move back changes: its quarter file loses its lines, and
    the end of its ``from`` section (or its own thread file, when ``from`` names one that does
    not exist) gains them with ``fields`` as footer. ``threads``: the thread files there are."""
    refuse_broken(place.doc)
    refuse_broken(continuity)
    lines = fact_lines(place.doc.text, place.fact, dict(fields))
    emptied = apply_edits(place.doc.text, moves.removal(place.doc.text, place.fact))
    changed: dict[str, tuple[Document | None, Text]] = {place.doc.path: (place.doc, emptied)}
    came_from = place.fields.get("from")
    thread = moves.thread_file(came_from)
    if thread is not None and thread not in threads:
        changed[thread] = (None, Text(False, tuple(lines)))
        return changed
    section = moves.section_of(came_from) or place.fact.section
    text = append_to_section(CONTINUITY, continuity.text, section, lines, continuity.sections)
    moves.landed(CONTINUITY, text, [(place.id, section)])
    changed[CONTINUITY] = (continuity, text)
    return changed
