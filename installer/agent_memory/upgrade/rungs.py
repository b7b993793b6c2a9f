"""The shipped ladder: one module per rung that changes a file; UPGRADE.md describes each for
upgrading by hand."""

from __future__ import annotations

import datetime as dt

from packaging.version import Version

from ..core.install.ladder import Files, Ladder, Rung
from . import adopt, v3_0_0, v5_2_0
from .history import NO_HISTORY, History


def unchanged(files: Files, today: dt.date) -> dict[str, bytes | None]:
    """A release whose memory files already read correctly: the rung changes none, and the
    re-sync that follows it installs the release's schema, DECAY.md and REVIEW.md."""
    del files, today
    return {}


RUNGS = (
    v3_0_0.RUNG,
    # 5.0.0's new shapes (ids with dots, the superseded tier, one-file threads, vision.md) are
    # ones a 3.0.0 repo may start to use, not ones it has to convert.
    Rung(Version("5.0.0"), "supersession, ids with dots, one-file threads, vision", unchanged),
    # 5.1.0 adds only optional footer fields and log sections a 5.0.0 tool keeps (DESIGN §17).
    Rung(Version("5.1.0"), "the protocol documents re-synced", unchanged),
    v5_2_0.RUNG,
)
ADOPTION = adopt.RUNG


def default_ladder(history: History = NO_HISTORY) -> Ladder:
    """The shipped ladder; its adoption rung dates what it adopts from ``history``."""
    return Ladder(RUNGS, ADOPTION if history is NO_HISTORY else adopt.rung(history))
