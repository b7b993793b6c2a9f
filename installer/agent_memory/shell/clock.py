"""Today, worked out once per run: ``--today``, else SOURCE_DATE_EPOCH, else the UTC date.

The runner asks it when it opens the repo, and every command reads the run's date from the
repo it was handed (``Repo.today``); nothing below the shell reads the clock or the environment.
"""

from __future__ import annotations

import datetime as dt
import os

from ..parse.dates import epoch_date


def today(explicit: dt.date | None = None) -> dt.date:
    """``explicit`` (``--today``), else SOURCE_DATE_EPOCH, else the current UTC date:
    reproducible when asked."""
    if explicit is not None:
        return explicit
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    day = epoch_date(epoch) if epoch else None
    return day if day is not None else dt.datetime.now(tz=dt.timezone.utc).date()
