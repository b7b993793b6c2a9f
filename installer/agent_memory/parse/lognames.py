"""The names in ``memory/sessions/``: which are logs, in which order, and which are strays.

A history may hold 100,000 names. ``context`` and ``review --if-due`` run at every session start
and ask only about the few logs after the last review's mark, so the names are kept as listed:
sorting them and matching each against the log-name pattern (about 40 % of those commands'
own cost at 10,000 logs) happens only when a caller needs the whole ordered list.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from ..layout import SESSION_NAME


class LogNames:
    __slots__ = ("_listed", "_logs")

    def __init__(self, listed: Iterable[str]) -> None:
        self._listed = tuple(listed)  # in the file system's order
        self._logs: tuple[str, ...] | None = None

    @property
    def logs(self) -> tuple[str, ...]:
        """The correctly named logs, sorted by name (= chronological)."""
        if self._logs is None:
            self._logs = tuple(sorted(filter(SESSION_NAME.match, self._listed)))
        return self._logs

    @property
    def strays(self) -> tuple[str, ...]:
        """The other names, dot-files (``.gitkeep``) aside, sorted."""
        logs = set(self.logs)  # each name matched once, for both lists
        return tuple(sorted(n for n in self._listed if not n.startswith(".") and n not in logs))

    @property
    def newest(self) -> str | None:
        """The newest log's name: the greatest name, when it is a log (a stray sorting last
        takes the long way)."""
        greatest = max(self._listed, default=None)
        if greatest is None or SESSION_NAME.match(greatest):
            return greatest
        return self.logs[-1] if self.logs else None

    def after(self, name: str) -> tuple[str, ...]:
        """The logs sorting after ``name``, in order, each name compared once."""
        if self._logs is not None:
            return self._logs[bisect.bisect_right(self._logs, name) :]
        return tuple(sorted(n for n in self._listed if n > name and SESSION_NAME.match(n)))

    def beyond(self, name: str, read: int) -> int:
        """How many more logs sort at or before ``name`` than ``read`` (0 when not more).

        Every log name starts with a digit, so the names from "0" to ``name`` bound the count
        from above; only when that bound exceeds ``read`` are the names matched one by one.
        """
        if self._logs is None and sum(1 for n in self._listed if "0" <= n <= name) <= read:
            return 0
        return max(0, bisect.bisect_right(self.logs, name) - read)
