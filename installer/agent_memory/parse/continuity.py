"""``memory/continuity.md``: the memory document plus its Project State (``last_review``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .dates import parse_date
from .facts import PROJECT_STATE, Document
from .keyvalue import parse_key_line

NONE_YET = "(none yet)"
# "<date> | through <stem>[.md] [commentary]": hand-run reviews wrote the .md and a note after it,
# and some wrote "<date> (through <stem>.md)".
_LAST_REVIEW = re.compile(
    r"^(?P<date>\d{4}-\d{2}-\d{2})"
    r"(?:\s*(?:\|\s*|\(\s*)through\s+"
    r"(?:\(none yet\)|(?P<stem>[^\s|()]+?)(?:\.md)?(?=[\s|()]|$)))?"
)


class LastReview(NamedTuple):
    line: int | None  # index of the key line, None when absent
    date: str | None  # None: never reviewed
    through: str | None  # stem of the newest log the review read, as written; None: not given
    spans: tuple[tuple[int, int], tuple[int, int]] | None  # date and stem in the line


def last_review(doc: Document) -> LastReview:
    section = doc.section(PROJECT_STATE)
    if section is None:
        return LastReview(None, None, None, None)
    for index in range(section.heading + 1, section.end):
        parsed = parse_key_line(doc.text.lines[index])
        if parsed is None or parsed.key != "last_review":
            continue
        match = _LAST_REVIEW.match(parsed.value)
        if match is None or parse_date(match.group("date")) is None:
            return LastReview(index, None, None, None)
        spans = None
        if match.group("stem") is not None:
            offset = parsed.start
            spans = (
                (offset + match.start("date"), offset + match.end("date")),
                (offset + match.start("stem"), offset + match.end("stem")),
            )
        return LastReview(index, match.group("date"), match.group("stem"), spans)
    return LastReview(None, None, None, None)


def cursor(review: LastReview, logs: Sequence[str]) -> str | None:
    """The stem of the last log the previous review read, or None before a first review.

    A hand-run review may have written only a date: then it read every log dated up to it.
    """
    if review.through is not None or review.date is None:
        return review.through
    read = [name for name in logs if name[:10] <= review.date]
    return read[-1][:-3] if read else None
