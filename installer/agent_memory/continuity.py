"""``memory/continuity.md``: the memory document plus its Project State (``last_review``)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .dates import parse_date
from .facts import PROJECT_STATE, Document, Edit
from .keyvalue import parse_key_line, with_value

NONE_YET = "(none yet)"
_LAST_REVIEW = re.compile(r"^(?P<date>\S+)(?:\s*\|\s*through\s+(?P<stem>.+?))?\s*$")


@dataclass(frozen=True, slots=True)
class LastReview:
    line: int | None  # index of the key line, None when absent
    date: str | None  # None: never reviewed
    through: str | None  # stem of the newest log the review read; None: none yet


def last_review(doc: Document) -> LastReview:
    section = doc.section(PROJECT_STATE)
    if section is None:
        return LastReview(None, None, None)
    for index in range(section.heading + 1, section.end):
        parsed = parse_key_line(doc.text.lines[index])
        if parsed is None or parsed.key != "last_review":
            continue
        match = _LAST_REVIEW.match(parsed.value.strip())
        if match is None or parse_date(match.group("date")) is None:
            return LastReview(index, None, None)
        stem = match.group("stem")
        return LastReview(index, match.group("date"), None if stem in (None, NONE_YET) else stem)
    return LastReview(None, None, None)


def last_review_edit(doc: Document, date: str, through: str | None) -> Edit:
    """Stamp ``last_review: <date> | through <stem>`` in the form the file already uses."""
    value = f"{date} | through {through or NONE_YET}"
    current = last_review(doc)
    newline = doc.text.newline
    if current.line is not None:
        line = doc.text.lines[current.line]
        return Edit(current.line, current.line + 1, (with_value(line, value),))
    section = doc.section(PROJECT_STATE)
    new_line = f"- last_review: {value}{newline}"
    if section is None:
        at = doc.sections[0].heading if doc.sections else len(doc.text.lines)
        return Edit(at, at, (f"## Project State{newline}", new_line, newline))
    return Edit(section.heading + 1, section.heading + 1, (new_line,))
