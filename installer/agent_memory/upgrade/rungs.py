"""The shipped ladder: one module per rung; UPGRADE.md describes each for upgrading by hand."""

from __future__ import annotations

from ..core.install.ladder import Ladder
from . import adopt, v3_0_0, v5_0_0, v5_1_0, v5_2_0
from .history import NO_HISTORY, History

RUNGS = (v3_0_0.RUNG, v5_0_0.RUNG, v5_1_0.RUNG, v5_2_0.RUNG)
ADOPTION = adopt.RUNG


def default_ladder(history: History = NO_HISTORY) -> Ladder:
    """The shipped ladder; its adoption rung dates what it adopts from ``history``."""
    return Ladder(RUNGS, ADOPTION if history is NO_HISTORY else adopt.rung(history))
