"""A personal fact's own edits (DECAY.md § Personal facts): one more use counted in its footer,
and what ``fact share`` takes out of the personal file and writes into continuity.md."""

from __future__ import annotations

import datetime as dt

from ...parse import footer
from ...parse.text import Text
from ..review.edits import Edit, apply_edits, footer_edit
from .curate import Place

# The footer fields a shared fact keeps: what it says and where it applies, not how one person
# used it (its uses and last use stay personal; the team's count starts at its sharing).
SHARED_FIELDS = ("created", "valid-until", "paths", "cites")


def text_of(place: Place) -> str:
    """The fact's words as ``fact add`` takes them: its first line, then its other lines, the
    footer left out."""
    fact, lines = place.fact, place.doc.text.lines
    rest = []
    for index in range(fact.start + 1, fact.end):
        line = lines[index]
        if index == fact.footer_line and (found := footer.find(line)) is not None:
            line = line[: found.start] + line[found.end :]
        rest.append(line.strip())
    return "\n".join([fact.first_line, *rest]).strip()


def shared_fields(place: Place) -> dict[str, str]:
    return {k: v for k, v in place.fields.items() if k in SHARED_FIELDS}


def without(place: Place) -> Text:
    """The personal file without the fact's lines."""
    return apply_edits(place.doc.text, [Edit(place.fact.start, place.fact.end, ())])


def used(place: Place, today: dt.date) -> Text:
    """The personal file with one more use of the fact, today: a personal fact's use is counted
    in its own footer, never in a session log."""
    fields = place.fields
    if fields.get("last_used") == today.isoformat():
        return place.doc.text  # one use a day, as one log counts once
    try:
        uses = int(fields.get("uses", "0")) + 1
    except ValueError:
        uses = 1
    fields |= {"last_used": today.isoformat(), "uses": str(uses)}
    return apply_edits(place.doc.text, [footer_edit(place.doc.text, place.fact, fields)])
