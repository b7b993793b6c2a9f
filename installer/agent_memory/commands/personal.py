"""Personal facts (DECAY.md § Personal facts): where they may be written."""

from __future__ import annotations

from ..errors import AgentMemoryError
from ..layout import PERSONAL
from ..shell import git
from ..shell.repo import Repo


def private_or_refuse(repo: Repo) -> None:
    """A personal fact is written only where git will not take it: the personal file ignored and
    not tracked, or no git at all."""
    if not git.in_work_tree(repo.root):
        return
    if git.recorded(repo.root, PERSONAL):
        raise AgentMemoryError(
            "git tracks it, so its facts would reach every clone; run git rm --cached "
            f"{PERSONAL} (the file stays), then run this again",
            PERSONAL,
        )
    if not git.ignore_rules(repo.root, [PERSONAL]):
        raise AgentMemoryError(
            "git does not ignore it, so a commit could take its facts; add the line "
            f"/{PERSONAL} to .gitignore (enable's block lists it), then run this again",
            PERSONAL,
        )
