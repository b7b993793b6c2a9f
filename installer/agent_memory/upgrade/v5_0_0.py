"""Rung 3.0.0 → 5.0.0 (UPGRADE.md § 3.0.0 → 5.0.0): the shapes the hand-run line added.

A 3.0.0 repo's memory files already read correctly in 5.0.0: ids with dots, the superseded tier,
one-file threads and vision.md are new shapes it may start to use, not ones it has to convert.
So the rung changes no memory file; the re-sync that follows it installs the 5.0.0 schema,
DECAY.md and REVIEW.md that describe them.
"""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from ..core.install.ladder import Files, Rung


def upgrade(files: Files, today: dt.date) -> dict[str, bytes | None]:
    del files, today
    return {}


RUNG = Rung(Version("5.0.0"), "supersession, ids with dots, one-file threads, vision", upgrade)
