"""The run's time, worked out once per run: ``--today``, else SOURCE_DATE_EPOCH, else the clock.

The runner asks it when it opens the repo, and every command reads the run's date and time from
the repo it was handed (``Repo.today``, ``Repo.now``); nothing below the shell reads the clock
or the environment.
"""

from __future__ import annotations

import datetime as dt
import os

from ..errors import AgentMemoryError
from ..parse.dates import epoch_moment

# The largest SOURCE_DATE_EPOCH a date can hold: 9999-12-31T23:59:59Z.
_LAST = int(dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.timezone.utc).timestamp())


def now(explicit: dt.date | None = None) -> dt.datetime:
    """The run's time (UTC). ``explicit`` (``--today``) wins, as that day's midnight, and then
    the environment is not read; else SOURCE_DATE_EPOCH when it is set (empty is unset, as
    reproducible-builds.org says), refused in one line when it is not a time; else the clock."""
    if explicit is not None:
        return dt.datetime.combine(explicit, dt.time(), dt.timezone.utc)
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if not epoch:
        return dt.datetime.now(tz=dt.timezone.utc)
    moment = epoch_moment(epoch)
    if moment is None:
        raise AgentMemoryError(
            f"SOURCE_DATE_EPOCH={epoch[:40]!r} is not a time; set it to whole seconds since "
            f"1970-01-01 UTC (ASCII digits, 0 to {_LAST}) or unset it"
        )
    return moment


def today(explicit: dt.date | None = None) -> dt.date:
    """The run's date: ``explicit`` (``--today``), else the date of ``now()``."""
    return explicit if explicit is not None else now().date()
