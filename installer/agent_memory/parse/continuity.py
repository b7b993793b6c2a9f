"""``memory/continuity.md``: the memory document plus its Project State (``last_review``)."""

import re
from collections.abc import Sequence
from typing import NamedTuple

from .. import patterns
from .dates import parse_date
from .facts import PROJECT_STATE, Document
from .keyvalue import parse_key_line

NONE_YET = "(none yet)"
# "<date> | through <stem>[.md] [| <N> logs | merged] [commentary]": hand-run reviews wrote the
# .md and a note after it, and some wrote "<date> (through <stem>.md)"; reviews before 5.0.0
# wrote no count.
_LAST_REVIEW = patterns.compile(
    r"^(?P<date>[0-9]{4}-[0-9]{2}-[0-9]{2})"
    r"(?:\s*(?:\|\s*|\(\s*)through\s+(?:\(none yet\)"
    r"|(?P<stem>[^\s|()]+?)(?P<ext>\.md)?(?=[\s|()]|$)))?"
    r"(?P<tail>[ \t]*\|[ \t]*(?:(?P<count>[0-9]{1,12})[ \t]+logs?|(?P<merged>merged))(?![\w-]))?"
)

Span = tuple[int, int]


class LastReview(NamedTuple):
    line: int | None  # index of the key line, None when absent
    date: str | None  # None: never reviewed
    through: str | None  # stem of the newest log the review read, as written; None: not given
    spans: tuple[Span, Span, Span] | None  # date, stem and the count (empty when none) in the line
    read: int | None = None  # logs sorting at or before the stem when written; None: unknown
    merged: bool = False  # a merge combined two marks: the count is unknown
    mark: Span | None = None  # the date (and a count after it) of a mark naming no log


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
        count = match.group("count")
        return LastReview(
            index,
            match.group("date"),
            match.group("stem"),
            _spans(match, parsed.start),
            int(count) if count is not None else None,
            match.group("merged") is not None,
            (parsed.start + match.start(), parsed.start + match.end()),
        )
    return LastReview(None, None, None, None)


def _spans(match: re.Match[str], offset: int) -> tuple[Span, Span, Span] | None:
    if match.group("stem") is None:
        return None
    name_end = match.end("ext") if match.group("ext") else match.end("stem")
    tail = (match.start("tail"), match.end("tail")) if match.group("tail") else (name_end, name_end)
    return (
        (offset + match.start("date"), offset + match.end("date")),
        (offset + match.start("stem"), offset + match.end("stem")),
        (offset + tail[0], offset + tail[1]),
    )


def cursor(review: LastReview, logs: Sequence[str]) -> str | None:
    """The stem of the last log the previous review read, or None before a first review.

    A hand-run review may have written only a date: then it read every log dated up to it.
    """
    if review.through is not None or review.date is None:
        return review.through
    read = [name for name in logs if name[:10] <= review.date]
    return read[-1][:-3] if read else None
