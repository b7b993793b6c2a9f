"""Rung 2.x → 3.0.0, evolving memory (UPGRADE.md § 2.x → 3.0.0).

Every fact gets an id and a footer, the sections the review needs are added, and the policy and
archive index are installed. Nothing else in continuity.md changes; session logs are not read.
"""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from .. import resources
from ..core.install.ladder import Files, Rung
from ..core.review.archive import is_quarter
from ..core.review.edits import (
    Edit,
    append_to_section,
    apply_edits,
    footer_edit,
    project_state_edit,
)
from ..core.review.tiers import at_birth
from ..errors import refuse_errors
from ..layout import ARCHIVE_INDEX, CONTINUITY, POLICY, USER_DATA
from ..parse import facts
from ..parse.facts import Document
from ..parse.footer import slug, unique_ids
from ..parse.keyvalue import parse_key_line
from ..parse.memory import known_ids
from ..parse.text import Text, strip_eol
from .history import History, dates


def backfill(
    doc: Document, taken: set[str], today: str, history: History | None = None
) -> list[Edit]:
    """Footers for facts that lack one (or lack fields), as the review would compute them;
    dated from ``history`` when the adoption hands one (``history.dates``), else ``today``."""
    missing = [f for f in doc.facts if f.id is None]
    ids = iter(unique_ids((slug(f.first_line) for f in missing), taken))
    edits = []
    for fact in doc.facts:
        fields = dict(fact.fields)
        if "id" not in fields:
            fields = {"id": next(ids), **fields}
        if history is not None and "last_used" not in fields:
            born, last = dates(history, fact.id, doc.text.lines[fact.start], today)
            fields.setdefault("created", born)
            fields["last_used"] = max(last, fields["created"])
        fields.setdefault("created", today)
        fields.setdefault("last_used", fields["created"])
        fields.setdefault("uses", "1")
        if fact.task == "x":  # adopted: its clock goes on from its use (``history``)
            fields.setdefault("done", today if history is None else fields["last_used"])
        fields.setdefault("tier", at_birth(fields, fact.section, fact.task))
        if fields != dict(fact.fields):
            edits.append(footer_edit(doc.text, fact, fields))
    return edits


def _last_review_line(doc: Document) -> list[Edit]:
    """``last_review: (none yet)`` in Project State, in the key form the file already uses."""
    section = doc.section(facts.PROJECT_STATE)
    newline = doc.text.newline
    keys = [
        (i, parsed)
        for i in (range(section.heading + 1, section.end) if section is not None else ())
        if (parsed := parse_key_line(doc.text.lines[i])) is not None
    ]
    if any(parsed.key == "last_review" for _, parsed in keys):
        return []
    if section is None or not keys:
        return [project_state_edit(doc, f"- last_review: (none yet){newline}")]
    last, _ = keys[-1]
    bold = "**" in doc.text.lines[last][: keys[-1][1].start]
    line = "- **last_review:** (none yet)" if bold else "- last_review: (none yet)"
    # After the last key line and anything wrapped under it.
    at = last + 1
    while (
        at < section.end
        and doc.text.lines[at][:1] in (" ", "\t")
        and strip_eol(doc.text.lines[at]).strip()
    ):
        at += 1
    return [Edit(at, at, (line + newline,))]


def _with_invariants(text: Text) -> Text:
    """An empty ``## Architectural Invariants`` above Key Decisions (or at the end)."""
    doc = facts.parse_text(CONTINUITY, text)
    if doc.section("Architectural Invariants") is not None:
        return text
    anchor = doc.section("Key Decisions")
    if anchor is None:
        return append_to_section(CONTINUITY, text, "Architectural Invariants", [])
    newline = text.newline
    block = (f"## Architectural Invariants{newline}", newline)
    return apply_edits(text, [Edit(anchor.heading, anchor.heading, block)])


def upgrade(
    files: Files, today: dt.date, history: History | None = None
) -> dict[str, bytes | None]:
    changed: dict[str, bytes | None] = {}
    data = files.get(CONTINUITY)
    if data is not None:
        doc = facts.parse(CONTINUITY, data)
        refuse_errors(doc.problems, "fix it, then run enable again to upgrade")
        archives = [
            facts.parse(path, archived)
            for path, archived in sorted(files.items())
            if archived is not None and is_quarter(path)
        ]
        taken = set(known_ids([doc, *archives]))
        text = apply_edits(
            doc.text, [*backfill(doc, taken, today.isoformat(), history), *_last_review_line(doc)]
        )
        text = _with_invariants(text)
        if text.encode() != data:
            changed[CONTINUITY] = text.encode()
    for path in (POLICY, ARCHIVE_INDEX):
        if files.get(path) is None:
            changed[path] = resources.data(USER_DATA[path])
    return changed


RUNG = Rung(Version("3.0.0"), "evolving memory", upgrade)
