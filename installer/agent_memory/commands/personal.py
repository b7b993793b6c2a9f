"""Personal facts (DECAY.md § Personal facts): where they may be written."""

from typing import NamedTuple

from ..core.facts.personal import template
from ..errors import AgentMemoryError
from ..layout import CONTINUITY, PERSONAL
from ..shell import git
from ..shell.repo import Repo


def shared_by_git(repo: Repo) -> str | None:
    """Why git would take the personal file (it tracks it, or does not ignore it), or None: it
    is ignored and not tracked, or there is no git at all."""
    if not git.in_work_tree(repo.root):
        return None
    if git.recorded(repo.root, PERSONAL):
        return (
            "git tracks it, so its facts would reach every clone; run git rm --cached "
            f"{PERSONAL} (the file stays), then run this again"
        )
    if not git.ignore_rules(repo.root, [PERSONAL]):
        return (
            "git does not ignore it, so a commit could take its facts; add the line "
            f"/{PERSONAL} to .gitignore (enable's block lists it), then run this again"
        )
    return None


def private_or_refuse(repo: Repo) -> None:
    """A personal fact is written only where git will not take it."""
    why = shared_by_git(repo)
    if why is not None:
        raise AgentMemoryError(why, PERSONAL)


class Target(NamedTuple):
    """The file new facts go to: its path, the bytes they are added to, and the bytes on disk
    (None: the personal file is made, from its template)."""

    path: str
    raw: bytes
    before: bytes | None


def target(repo: Repo, team: bytes, personal: bool) -> Target:
    """continuity.md (its bytes ``team``), or the personal file for ``personal``."""
    if not personal:
        return Target(CONTINUITY, team, team)
    mine = repo.read(PERSONAL)
    return Target(PERSONAL, template() if mine is None else mine, mine)
