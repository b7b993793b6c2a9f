"""The dates an adopted fact takes from the repo's history, never from the adoption day.

A hand-run repo holds facts written without a footer (UPGRADE.md § Adopting a repo enabled by
hand), and a Mode C import makes facts of a vendor's lines. Dated the day of adoption, they would
look like the newest facts of the memory and lead its recency order. So a fact without a
``last_used`` takes the date of the newest session log naming its id, else the date of the
commit that added its first line (``created`` too, which is never after it). The shell asks git
and reads the logs; this module only looks the answers up. Without a history to ask (no git, a
shallow clone), the date is that of the repo's oldest session log, else the day of adoption.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from .. import patterns
from ..core.review.edits import apply_edits, footer_edit
from ..parse import facts

# A list item's marker (bullet or number) and its task box.
_MARKER = patterns.compile(r"^(?:[-*+]|[0-9]{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?")
_NOTHING: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class History:
    """What the repo's past says: each line ever added to the files a fact may come from
    (``line_key``) -> the date of the oldest commit that added it (None: no history to ask);
    each fact id -> the date of the newest session log that names it; the oldest log's date."""

    lines: Mapping[str, str] | None = None
    named: Mapping[str, str] = field(default_factory=lambda: _NOTHING)
    oldest_log: str | None = None


NO_HISTORY = History()


def history(added: Mapping[str, str] | None, named: Mapping[str, str], logs: list[str]) -> History:
    """The history of git's ``added`` lines (each -> the date of the oldest commit adding it),
    the dates of the newest logs naming each id, and the log names (in order)."""
    lines: dict[str, str] | None = None
    if added is not None:
        lines = {}
        for line, day in added.items():
            key = line_key(line)
            lines[key] = min(lines.get(key, day), day)
    return History(lines, named, logs[0][:10] if logs else None)


def line_key(line: str) -> str:
    """A line as history and a fact's first line are matched: stripped, without its list
    marker or task box (a vendor's ``* rule`` becomes the fact ``- rule``)."""
    bare = line.strip()
    return _MARKER.sub("", bare, count=1).strip()


def dates(history: History, fact_id: str | None, line: str, today: str) -> tuple[str, str]:
    """``created`` and ``last_used`` of a fact adopted without them (its id, if it had one, and
    its first line as the file holds it), ``today`` the adoption day (``YYYY-MM-DD``)."""
    born = history.lines.get(line_key(line)) if history.lines is not None else None
    used = history.named.get(fact_id) if fact_id else None
    last = used or born or history.oldest_log or today
    return min(born or last, last), last


def redated(path: str, data: bytes, history: History, today: dt.date) -> bytes:
    """``data`` (a memory file a Mode C import wrote, each fact dated ``today``) with every fact
    whose ``created`` and ``last_used`` are ``today`` dated from ``history`` instead."""
    doc = facts.parse(path, data)
    day = today.isoformat()
    edits = []
    for fact in doc.facts:
        fields = dict(fact.fields)
        if fact.id is None or fields.get("created") != day or fields.get("last_used") != day:
            continue
        created, last = dates(history, None, doc.text.lines[fact.start], day)
        if (created, last) != (day, day):
            fields |= {"created": created, "last_used": last}
            edits.append(footer_edit(doc.text, fact, fields))
    return apply_edits(doc.text, edits).encode() if edits else data
