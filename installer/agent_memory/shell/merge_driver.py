"""The merge driver's entry in the repository's own git config (MERGE.md): set by ``enable``,
unset by ``disable``, made to match ``.gitattributes`` by ``recover`` — and only ever in the
repository whose work tree holds the target.

A ``.git`` *file* (``gitdir: <path>``) may name any git folder, and ``git config --local`` then
writes into that repository. Two kinds are this folder's own: a linked worktree's (``git worktree
add``: its git folder names this ``.git`` file back, and the config it shares with the main
repository is legitimately this one's too) and a submodule's (its git folder's ``core.worktree``
is this folder). Any other ``.git`` file or link is another repository's: its config is left
alone and the report says why.
"""

from __future__ import annotations

import os
import shlex
import stat
import sys
from pathlib import Path

from ..core.install.attributes import routes_to_driver
from ..errors import AgentMemoryError, LockedError, Problem
from ..layout import GITATTRIBUTES, MERGE_DRIVER, MERGE_DRIVER_FALLBACK, MERGE_DRIVER_KEY
from .discovery import names_back, work_tree_top
from .git import git_dirs, local_config, refusal, unset_local_config
from .repo import Repo


def reconcile(repo: Repo, wanted: bool, dry: bool) -> str:
    """Set the driver (``wanted``) or unset ours in this repo's own git config; what happened,
    for the report: "" when there was nothing to do, or no work tree."""
    dirs = git_dirs(repo.root)
    if dirs is None:
        if not wanted or work_tree_top(repo.root) is None:
            return ""
        return (
            f"not set: git will not work in this folder ({refusal(repo.root)}) — run enable "
            "again once it does, or set it by hand (MERGE.md § Setup)"
        )
    foreign = _foreign(repo.root, *dirs)
    if foreign:  # nothing of ours is there to unset: enable never writes to it
        return (
            f"not set: {foreign} — if it is this folder's, set it by hand (MERGE.md)"
            if wanted
            else ""
        )
    value = local_config(repo.root, MERGE_DRIVER_KEY)
    driver = merge_driver(installing_command())
    if (value == driver) if wanted else not _ours(value):  # the user's own is never unset
        return "already set" if wanted else ""
    done = f"set to {driver!r}" if wanted else "unset"
    if dry:
        return f"would be {done}"
    repo.crash_point()
    try:
        if wanted:
            local_config(repo.root, MERGE_DRIVER_KEY, driver)
        else:
            unset_local_config(repo.root, MERGE_DRIVER_KEY)
    except AgentMemoryError as exc:  # the plan has landed: its report must still be told
        return f"{FAILED}{exc.message} — the files are written; {_BY_HAND[wanted]}"
    return done


def failure(driver: str, shown: str) -> list[Problem]:
    """The error a driver that git would not set or unset is: the run's files are written
    (the report lists them), and the run fails."""
    if not driver.startswith(FAILED):
        return []
    return [Problem(shown, None, "error", "merge-driver", driver.removeprefix(FAILED))]


FAILED = "failed: "  # a reconcile whose git config command failed says this first
_BY_HAND = {
    True: "run enable again once git can write its config, or set it by hand (MERGE.md § Setup)",
    False: f"once git can write its config, run git config --local --unset {MERGE_DRIVER_KEY}",
}


def installing_command() -> str:
    """The absolute command of the tool running now, as a shell word or two: the console
    script when that is what ran, else this interpreter with ``-m`` (a venv's python is never
    resolved: its link is what makes it the venv's)."""
    script = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if script is not None and script.name.startswith("agent-memory") and script.is_file():
        return shlex.quote(str(script.absolute()))
    return f"{shlex.quote(sys.executable)} -m agent_memory"


def merge_driver(installed: str) -> str:
    """The driver's command: the tool that set it (``installed``, an absolute command), else
    ``agent-memory`` on PATH, else git's own text merge with conflict markers — each tried only
    if it runs at all, so a tool gone missing never leaves OURS unmerged and unmarked. git runs
    a driver with ``sh`` (on Windows, its own)."""
    return (
        f"if {installed} --version >/dev/null 2>&1; then exec {installed} merge-file %O %A %B %P"
        + MERGE_DRIVER_FALLBACK
    )


def _ours(value: str | None) -> bool:
    """Whether the driver's config is one ``enable`` wrote: 5.0.0's bare command, or the chain
    of whichever tool set it."""
    if value is None:
        return False
    return value == MERGE_DRIVER or (
        value.startswith("if ") and value.endswith(MERGE_DRIVER_FALLBACK)
    )


def match_attributes(repo: Repo) -> str:
    """``recover``: the driver set exactly when ``.gitattributes`` holds our block — a run killed
    between its plan and its git config left the two apart. A live run is left alone (it sets
    the config itself as it ends). Nothing to change takes no lock (nor writes its file)."""

    def change(dry: bool) -> str:
        wanted = routes_to_driver(repo.read(GITATTRIBUTES))
        done = "" if wanted is None else reconcile(repo, wanted, dry)
        return "" if done in ("", "already set") or done.startswith("not set") else done

    if not change(dry=True):
        return ""
    try:
        with repo.locked():
            return change(dry=False)
    except LockedError:
        return ""


def _foreign(root: Path, top: Path, git_dir: Path, common: Path) -> str:
    """Why the config git writes from ``root`` is another repository's ("" when it is ours)."""
    if top != root and top not in root.parents:
        return f"git's work tree here is {top}, which does not hold this folder"
    dot_git = top / ".git"
    try:
        mode = os.lstat(dot_git).st_mode
    except OSError:
        mode = 0
    if stat.S_ISDIR(mode):
        return "" if dot_git.resolve() == git_dir else f"git uses {git_dir}, not {dot_git}"
    if not stat.S_ISREG(mode):
        return f"{dot_git} is not a folder or a gitdir file"
    if names_back(top, git_dir):  # a linked worktree's or a submodule's git folder
        return ""
    if git_dir != common:
        return f"{dot_git} points to {git_dir}, a worktree of {common} checked out elsewhere"
    if git_dir.name == ".git":
        return f"{dot_git} points to {git_dir}, the repository of {git_dir.parent}"
    return f"{dot_git} points to {git_dir}, a repository that does not name this folder"
