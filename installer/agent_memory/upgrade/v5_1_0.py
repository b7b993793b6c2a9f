"""Rung 5.0.0 → 5.1.0 (UPGRADE.md § 5.0.0 → 5.1.0): the protocol documents of this release.

5.1.0 adds to what a memory may hold (DESIGN §17: optional footer fields and log sections that a
5.0.0 tool keeps as they are) and rewrites the rules a person follows by hand where the tool's
behaviour was unwritten. A 5.0.0 repo's memory files read correctly in 5.1.0, so the rung changes
no memory file; the re-sync that follows it installs the 5.1.0 schema, DECAY.md and REVIEW.md.
"""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from ..core.install.ladder import Files, Rung


def upgrade(files: Files, today: dt.date) -> dict[str, bytes | None]:
    del files, today
    return {}


RUNG = Rung(Version("5.1.0"), "the protocol documents re-synced", upgrade)
