"""Dates: the review date, and strict parsing of the dates in memory files."""

from __future__ import annotations

import datetime as dt
import os
import re
from functools import lru_cache

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@lru_cache(maxsize=4096)  # every footer holds two to four dates, and they repeat
def parse_date(value: str) -> dt.date | None:
    """A ``YYYY-MM-DD`` date, or None when the text is not one (``2026-13-45`` is not)."""
    if not _DATE.match(value):
        return None
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        return None


def today(explicit: dt.date | None = None) -> dt.date:
    """``--today``, else SOURCE_DATE_EPOCH, else the current UTC date: reproducible when asked."""
    if explicit is not None:
        return explicit
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch and epoch.strip().lstrip("-").isdigit():
        return dt.datetime.fromtimestamp(int(epoch), tz=dt.timezone.utc).date()
    return dt.datetime.now(tz=dt.timezone.utc).date()


def quarter_of(day: dt.date) -> str:
    return f"{day.year}-Q{(day.month - 1) // 3 + 1}"
