"""The version ladder: rungs as data, selected by version (UPGRADE.md).

A rung is a target version, a one-line summary and a pure function from the repo's known files to
the files it changes. The ladder runs every rung with installed < target ≤ current, in order.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from packaging.version import Version

Files = Mapping[str, bytes | None]


@dataclass(frozen=True, slots=True)
class Rung:
    target: Version
    summary: str
    upgrade: Callable[[Files, dt.date], dict[str, bytes | None]]
    reads: tuple[str, ...] = ()  # paths it needs beyond the ones enable always reads


class Ladder:
    """Rungs in version order; two rungs for one version is a programming error."""

    def __init__(self, rungs: Iterable[Rung], adoption: Rung | None = None) -> None:
        ordered = sorted(rungs, key=lambda rung: rung.target)
        for lower, upper in itertools.pairwise(ordered):
            if lower.target == upper.target:
                raise ValueError(f"two rungs target {upper.target}")
        self.rungs = tuple(ordered)
        # The one rung for a repo enabled by hand (HANDRUN.md), chosen by the stamp's marker,
        # never by its number: it takes any hand-run layout straight to its target.
        self.adoption = adoption

    def between(self, installed: Version, current: Version) -> tuple[Rung, ...]:
        return tuple(r for r in self.rungs if installed < r.target <= current)

    @property
    def reads(self) -> tuple[str, ...]:
        every = [*self.rungs, *([self.adoption] if self.adoption else [])]
        return tuple(sorted({path for rung in every for path in rung.reads}))


def history_line(day: dt.date, before: Version, target: Version, summary: str | None) -> str:
    """One ``## Upgrade history`` entry: ``2026-06-13: 2.0.0 → 3.0.0 (rung 3.0.0: summary)``."""
    what = f"rung {target}: {summary}" if summary is not None else "re-sync, no rung"
    return f"{day.isoformat()}: {before} → {target} ({what})"
