"""Dates: strict parsing of the dates in memory files, of agents' times and of
SOURCE_DATE_EPOCH (which date is today is the runner's: ``shell/clock.py``)."""

from __future__ import annotations

import datetime as dt
from functools import lru_cache

from .. import patterns

_DATE = patterns.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")  # ASCII digits only, no trailing newline
_EPOCH = patterns.compile(r"[0-9]{1,20}")  # no sign, no space: as ``date +%s`` writes it


@lru_cache(maxsize=4096)  # every footer holds two to four dates, and they repeat
def parse_date(value: str) -> dt.date | None:
    """A ``YYYY-MM-DD`` date, or None when the text is not one (``2026-13-45`` is not)."""
    if not _DATE.match(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def parse_moment(value: str) -> dt.datetime | None:
    """A time as ``session new --now`` takes it and agents write it (UTC unless an offset or
    ``Z`` is given), or None; None too for one that is past year 9999 in UTC."""
    try:
        moment = dt.datetime.fromisoformat(value[:-1] + "+00:00" if value[-1:] == "Z" else value)
        moment = moment if moment.tzinfo else moment.replace(tzinfo=dt.timezone.utc)
        moment.astimezone(dt.timezone.utc)  # 9999-12-31T23:59:59-14:00 is past year 9999
    except (ValueError, OverflowError):
        return None
    return moment


def epoch_moment(value: str) -> dt.datetime | None:
    """The UTC time SOURCE_DATE_EPOCH gives (a non-negative whole number of seconds since 1970,
    ASCII digits), or None when it is not one or is past year 9999."""
    if not _EPOCH.fullmatch(value):
        return None
    try:
        return dt.datetime.fromtimestamp(int(value), tz=dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None


def quarter_of(day: dt.date) -> str:
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"
