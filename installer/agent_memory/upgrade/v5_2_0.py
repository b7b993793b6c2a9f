"""Rung 5.1.0 → 5.2.0 (UPGRADE.md § 5.1.0 → 5.2.0): the ignore rule of the personal memory file.

5.2.0 adds to what a memory may hold only what a 5.1.0 tool keeps as it is (DESIGN §29: the
`## First Prompt` log section, new optional policy keys, `memory/rejected.md`). The one file it
changes is `.gitignore`: our block gains `/memory/personal.md`, so that one person's own facts
never reach a commit. The re-sync that follows installs the 5.2.0 schema, DECAY.md and REVIEW.md
and AGENTS.md's block.
"""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from ..core.blocks import upsert_block
from ..core.install.ladder import Files, Rung
from ..layout import GITIGNORE, GITIGNORE_BLOCK, GITIGNORE_MARKERS


def upgrade(files: Files, today: dt.date) -> dict[str, bytes | None]:
    del today
    before = files.get(GITIGNORE)
    after, _ = upsert_block(GITIGNORE, before, GITIGNORE_BLOCK.encode(), GITIGNORE_MARKERS)
    return {} if after == before else {GITIGNORE: after}


RUNG = Rung(
    Version("5.2.0"), "the protocol documents re-synced; git ignores memory/personal.md", upgrade
)
