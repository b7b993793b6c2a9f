"""The one change a session log may take: ``review --session`` appending its summary (DESIGN §14).

Session logs are append-only. The new bytes must start with every old byte, and what follows must
be a ``## Memory Review`` section alone — blank lines, that heading, and lines that open no other
heading — on a log that had no such section before.
"""

from __future__ import annotations

import re

from ... import patterns

REVIEW_HEADING = b"## memory review"
_HEADING = patterns.compile(rb"^[ ]{0,3}#", re.MULTILINE)
_OPENING = patterns.compile(rb"^(?:[ \t]*\r?\n)*## Memory Review\b", re.IGNORECASE)


def has_review(data: bytes) -> bool:
    """Whether a log already holds a ``## Memory Review`` section (a line that starts one)."""
    return any(line.lower().startswith(REVIEW_HEADING) for line in data.splitlines())


def is_review_append(old: bytes, new: bytes) -> bool:
    """Whether ``new`` is ``old`` plus exactly the summary ``review --session`` appends."""
    if not new.startswith(old) or len(new) == len(old) or has_review(old):
        return False
    added = new[len(old) :]
    if old and not old.endswith(b"\n") and not added.startswith((b"\n", b"\r\n")):
        return False  # the heading would continue the old last line, not start a section
    opening = _OPENING.match(added)
    if opening is None:
        return False
    rest = added[opening.end() :]
    first_break = rest.find(b"\n")
    body = b"" if first_break < 0 else rest[first_break + 1 :]
    return _HEADING.search(body) is None
