"""``agent-memory recover``: roll back the plan an interrupted run left half-applied."""

from __future__ import annotations

from packaging.version import Version

from .. import resources
from ..errors import InputError
from ..layout import MANIFEST, MERGE_DRIVER_KEY
from ..parse import manifest
from ..shell import files, git
from ..shell.journal import Found, RolledBack
from ..shell.merge_driver import match_attributes
from ..shell.repo import Repo
from .report import Report, Result

_FOUND = {
    Found.COMMITTED: "an interrupted run was rolled back",
    Found.UNCOMMITTED: "an interrupted run had written nothing of its plan yet",
    Found.EMPTY: (
        "an interrupted run left its journal empty: it stopped before its plan's first write "
        "or after its last, and nothing needed restoring"
    ),
}


def recover(repo: Repo, wait: float) -> Result:
    """Every writing command does this first; the read-only ones refuse instead."""
    rolled = repo.recover(wait)
    with repo.locked(wait):  # a write under way has its temp file: none is, under the lock
        strays = files.remove_strays(repo.root, git.untracked_temps(repo.root))
    # A run killed after its plan landed but before its git config: the config follows the tree.
    driver = match_attributes(repo)
    outcome = {None: "nothing to recover", Found.COMMITTED: "rolled back"}.get(
        rolled and rolled.found, "journal removed"
    )
    text: tuple[str, ...] = (
        _state(repo, rolled) if rolled is not None else "no interrupted run to roll back",
    )
    if strays:
        text += (f"removed {strays} temp file{'s' * (strays != 1)} a killed write left",)
    if driver:
        text += (f"git config (local): {MERGE_DRIVER_KEY} {driver}, as .gitattributes says",)
    summary = {"merge_driver": driver, "temp_files_removed": strays}
    report = Report("recover", repo.shown, outcome, None, (), summary, text)
    return Result(report, 0)


def _state(repo: Repo, rolled: RolledBack) -> str:
    """What was rolled back and the state it left, said truly: an upgrade lands rung by rung
    (UPGRADE.md), so rolling back its last plan leaves the rungs before it."""
    stamped = _older_stamp(repo)
    if stamped is not None and rolled.found is Found.COMMITTED and MANIFEST in rolled.paths:
        # Only an upgrade's step writes a stamp older than the tool.
        return (
            "rolled back the interrupted upgrade's last step; the rungs it finished stay: the "
            f"repo is at agent-memory {stamped} — run agent-memory enable to finish the upgrade"
        )
    said = _FOUND[rolled.found]
    if stamped is not None and rolled.found is not Found.COMMITTED:  # which run it was is unknown
        return (
            f"{said}; the repo is at agent-memory {stamped}, older than this tool (an upgrade "
            "cut short keeps the rungs it finished): run agent-memory enable to upgrade it"
        )
    if rolled.found is Found.EMPTY:
        return said
    return f"{said}: the repo is as it was before that run"


def _older_stamp(repo: Repo) -> str | None:
    """The version of our stamp when it is older than this tool, else None."""
    data = repo.read(MANIFEST)
    if data is None:
        return None
    try:
        stamp = manifest.parse(data)
    except InputError:  # a stamp no version can be read from: enable names it, not recover
        return None
    older = stamp.ours and stamp.version < Version(resources.version())
    return str(stamp.version) if older else None
