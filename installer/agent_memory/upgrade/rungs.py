"""The shipped ladder: one module per rung; UPGRADE.md describes each for upgrading by hand."""

from __future__ import annotations

from ..core.ladder import Ladder
from . import v3_0_0

RUNGS = (v3_0_0.RUNG,)


def default_ladder() -> Ladder:
    return Ladder(RUNGS)
