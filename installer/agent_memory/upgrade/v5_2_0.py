"""Rung 5.1.0 → 5.2.0 (UPGRADE.md § 5.1.0 → 5.2.0): the protocol documents of this release.

5.2.0 adds to what a memory may hold only what a 5.1.0 tool keeps as it is (DESIGN §29: the
`## First Prompt` log section, new optional policy keys), so the rung changes no memory file;
the re-sync that follows it installs the 5.2.0 schema, DECAY.md and REVIEW.md and AGENTS.md's
block.
"""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from ..core.install.ladder import Files, Rung


def upgrade(files: Files, today: dt.date) -> dict[str, bytes | None]:
    del files, today
    return {}


RUNG = Rung(Version("5.2.0"), "the protocol documents re-synced", upgrade)
