"""``agent-memory recover``: roll back the plan an interrupted run left half-applied."""

from __future__ import annotations

from ..layout import MERGE_DRIVER_KEY
from ..shell import files, git
from ..shell.merge_driver import match_attributes
from ..shell.repo import Repo
from .report import Report, Result


def recover(repo: Repo, wait: float) -> Result:
    """Every writing command does this first; the read-only ones refuse instead."""
    pending = repo.interrupted()
    repo.recover(wait)
    with repo.locked(wait):  # a write under way has its temp file: none is, under the lock
        strays = files.remove_strays(repo.root, git.untracked_temps(repo.root))
    # A run killed after its plan landed but before its git config: the config follows the tree.
    driver = match_attributes(repo)
    outcome = "rolled back" if pending else "nothing to recover"
    text: tuple[str, ...] = (
        "an interrupted run was rolled back: the repo is as it was before that run"
        if pending
        else "no interrupted run to roll back",
    )
    if strays:
        text += (f"removed {strays} temp file{'s' * (strays != 1)} a killed write left",)
    if driver:
        text += (f"git config (local): {MERGE_DRIVER_KEY} {driver}, as .gitattributes says",)
    summary = {"merge_driver": driver, "temp_files_removed": strays}
    report = Report("recover", repo.shown, outcome, None, (), summary, text)
    return Result(report, 0)
