"""``agent-memory recover``: roll back the plan an interrupted run left half-applied."""

from __future__ import annotations

from .. import resources
from ..shell.repo import Repo
from .report import Report, Result


def recover(repo: Repo, wait: float) -> Result:
    """Every writing command does this first; the read-only ones refuse instead."""
    pending = repo.interrupted()
    repo.recover(wait)
    outcome = "rolled back" if pending else "nothing to recover"
    text = (
        "an interrupted run was rolled back: the repo is as it was before that run"
        if pending
        else "no interrupted run to roll back",
    )
    report = Report("recover", resources.version(), repo.shown, outcome, None, (), {}, text)
    return Result(report, 0)
