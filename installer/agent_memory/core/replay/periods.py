"""The periods a history is cut into for its figures over time: quarters, months or weeks of the
logs' dates (a log's name starts with its date)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from ...parse.dates import parse_date, quarter_of

Period = Callable[[str], str]  # a log's name → the period it falls in


def quarter(log: str) -> str:
    """``YYYY-Qn``."""
    day = parse_date(log[:10])
    return quarter_of(day) if day is not None else log[:7]


def month(log: str) -> str:
    """``YYYY-MM``."""
    return log[:7]


def week(log: str) -> str:
    """``YYYY-Www``, the ISO week."""
    day = parse_date(log[:10])
    if day is None:
        return log[:7]
    year, number, _ = day.isocalendar()
    return f"{year}-W{number:02d}"


def fitting(logs: Sequence[str]) -> Period:
    """Periods that cut the history into a readable number of bars: weeks for half a year or
    less, months for three years or less, else quarters."""
    first = parse_date(logs[0][:10]) if logs else None
    last = parse_date(logs[-1][:10]) if logs else None
    if first is None or last is None:
        return quarter
    span = last - first
    if span <= dt.timedelta(days=183):
        return week
    return month if span <= dt.timedelta(days=3 * 366) else quarter
