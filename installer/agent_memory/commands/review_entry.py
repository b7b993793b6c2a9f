"""``review`` as both command lines run it (click's and the quick one).

With ``--if-due`` and nothing due, ``due.not_due`` answers the session-start way; only otherwise
is the review imported: its modules cost 60M instructions (25 ms), more than that answer.
"""

from __future__ import annotations

from pathlib import Path

from .due import not_due
from .report import Result
from .settle import Options


def review_unless_quiet(
    path: Path, full: bool, if_due: bool, session: Path | None, options: Options
) -> Result:
    """``review``, for both command lines: with --if-due and nothing due, the quiet answer found
    the session-start way, without the review's imports; else the review."""
    quiet = not_due(path) if if_due else None
    if quiet is not None:
        return quiet
    from .review import ReviewOptions, review  # 60M instructions, paid only when it runs

    return review(path, ReviewOptions(full, if_due, session), options)
