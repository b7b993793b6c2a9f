"""The names in ``memory/sessions/``: which are logs, in which order, and which are strays.

A history may hold 100,000 names. ``context`` and ``review --if-due`` run at every session start
and ask only about the few logs after the last review's mark, so the names are kept as listed:
sorting them and matching each against the log-name pattern (about 40 % of those commands'
own cost at 10,000 logs) happens only when a caller needs the whole ordered list.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable

from ..layout import SESSION_NAME


class LogNames:
    __slots__ = ("_later", "_listed", "_logs")

    def __init__(self, listed: Iterable[str]) -> None:
        self._listed = tuple(listed)  # in the file system's order
        self._logs: tuple[str, ...] | None = None
        self._later: tuple[str, list[str]] | None = None  # a name, the names sorting after it

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

    def latest(self, count: int) -> tuple[str, ...]:
        """The ``count`` newest logs, newest first: the greatest names when they are all logs
        (a stray among them takes the long way), without sorting or matching every name."""
        if self._logs is None:
            top = heapq.nlargest(count, self._listed)
            if all(map(SESSION_NAME.match, top)):
                return tuple(top)
        return self.logs[::-1][:count]

    def after(self, name: str) -> tuple[str, ...]:
        """The logs sorting after ``name``, in order, each name compared once."""
        if self._logs is not None:
            return self._logs[bisect.bisect_right(self._logs, name) :]
        return tuple(filter(SESSION_NAME.match, sorted(self._after(name))))

    def beyond(self, name: str, read: int) -> int:
        """How many more logs sort at or before ``name`` than ``read`` (0 when not more).

        Every log name starts with a digit, so the names from "0" to ``name`` bound the count
        from above; only when that bound exceeds ``read`` are the names matched one by one.
        """
        if self._logs is None:
            below = sum(map("0".__gt__, self._listed))  # dot-files and the like
            bound = len(self._listed) - len(self._after(name)) - below if name >= "0" else 0
            if bound <= read:
                return 0
        return max(0, bisect.bisect_right(self.logs, name) - read)

    def _after(self, name: str) -> list[str]:
        """The names sorting after ``name``, in C (the session-start commands ask about one
        name twice: the last review's mark)."""
        if self._later is None or self._later[0] != name:
            self._later = (name, list(filter(name.__lt__, self._listed)))
        return self._later[1]
