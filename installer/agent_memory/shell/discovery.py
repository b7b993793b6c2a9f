"""Which repo a command works on, found from where it starts, as git finds its own (DESIGN §18).

Agents start their hooks, their MCP server and their shells in any subdirectory, so every command
looks for the enabled repo from its PATH (default: the working directory) upwards: the nearest
folder holding ``memory/continuity.md`` or ``.agent/version.md`` (or the journal an interrupted
enable left), never above the git work tree's top — a repo nested in another is its own. Only
``stat`` calls: no git process, so the hooks' start-up stays what it was.
"""

import os
import stat
from pathlib import Path
from typing import NamedTuple

from ..errors import AgentMemoryError, RefusedError
from ..layout import CONTINUITY, JOURNAL_DIR, MANIFEST
from .files import read_regular
from .git import local_config

MARKERS = (CONTINUITY, MANIFEST, JOURNAL_DIR)


class Search(NamedTuple):
    """Where a search for the enabled repo started, where it stopped, and what it found."""

    start: Path
    top: Path  # the last folder looked at: the git work tree's top, or the file system's root
    found: Path | None

    def not_enabled(self, shown: str) -> AgentMemoryError:
        """The one message of every command that needs an enabled repo and found none; ``shown``
        names the folder as the user did."""
        if self.found is not None:
            looked = f"no {CONTINUITY} here"
        else:
            limit = (
                "the git work tree's top" if _holds(self.top, ".git") else "the file system's root"
            )
            above = "" if self.top == self.start else f" and in every folder above up to {self.top}"
            looked = f"looked for {CONTINUITY} or {MANIFEST} here{above} ({limit})"
        return AgentMemoryError(
            f"not an agent-memory repo ({looked}); run agent-memory enable first",
            shown,
        )


def search(start: Path) -> Search:
    """The nearest enabled repo at or above ``start`` (a folder), within its git work tree."""
    here = _absolute(start)
    for folder in (here, *here.parents):
        if any(_holds(folder, marker) for marker in MARKERS):
            return Search(here, folder, folder)
        if _holds(folder, ".git"):
            return Search(here, folder, None)
    return Search(here, Path(here.anchor), None)


def work_tree_top(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git`` (a folder, or a worktree's or
    a submodule's file), or None outside git."""
    here = _absolute(start)
    return next((f for f in (here, *here.parents) if _holds(f, ".git")), None)


def git_folder(top: Path) -> Path | None:
    """The git folder of the work tree at ``top``: its ``.git`` folder, or the one its ``.git``
    file names when that folder names this work tree back (``names_back``); None else. A
    ``.git`` file is input like any other: it never sends a write elsewhere."""
    mode = os.lstat(top / ".git").st_mode
    if stat.S_ISDIR(mode):
        return top / ".git"
    named = named_folder(top) if stat.S_ISREG(mode) else None
    if named is None:
        return None
    return named if (named / "HEAD").is_file() and names_back(top, named) else None


def named_folder(top: Path) -> Path | None:
    """The folder the ``.git`` file at ``top`` names (``gitdir: <path>``), resolved, whether or
    not it names ``top`` back; None when it names none."""
    with (top / ".git").open("rb") as file:
        line = file.read(4097).split(b"\n", 1)[0].strip()
    if not line.startswith(b"gitdir: "):
        return None
    return (top / os.fsdecode(line[len(b"gitdir: ") :])).resolve()  # absolute, or from top


def names_back(top: Path, folder: Path) -> bool:
    """Whether the git folder ``folder`` names the work tree at ``top`` as its own: a linked
    worktree's ``gitdir`` file names ``top``'s ``.git`` file, a submodule's ``core.worktree``
    names ``top`` (each a path from ``folder``, or absolute, as git writes them)."""
    try:
        back = read_regular(folder / "gitdir", f"{folder}/gitdir", follow=False, limit=4096)
        worktree = local_config(top, "core.worktree") if back is None else None
    except AgentMemoryError:  # a link, a FIFO, past the bound; no git, or no answer in time
        return False
    if back is not None:
        named = os.fsdecode(back.strip())
        return bool(named) and (folder / named).resolve() == (top / ".git").resolve()
    return bool(worktree) and (folder / str(worktree)).resolve() == top.resolve()


def enable_target(given: Path | None, cwd: Path) -> Path:
    """The folder ``enable`` installs into. Without PATH: the enclosing enabled repo (which it
    upgrades), else the git work tree's top, else the working directory. With PATH: that folder,
    unless it lies inside an enabled repo (one memory per repo: refused, naming that repo)."""
    if given is None:
        found = search(cwd).found
        target = found or work_tree_top(cwd) or cwd
        _not_in_git_folder(target, ".")
        return target
    if not given.is_dir():
        return given  # Repo refuses it in its own words
    _not_in_git_folder(given, str(given))
    found = search(given).found
    if found is not None and found != _absolute(given):
        raise RefusedError(
            f"is inside the agent-memory repo {found}; a repo has one memory: run "
            f"`agent-memory enable {found}` (or enable from there without PATH)",
            str(given),
        )
    return given


def _not_in_git_folder(folder: Path, shown: str) -> None:
    """Refuse ``folder`` when it is git's own folder or in one (a ``.git`` folder, a bare
    repository), up to the work tree holding it: no file of the project is checked out there."""
    here = _absolute(folder)
    for each in (here, *here.parents):
        if each.name.lower() == ".git" or _is_git_folder(each):
            raise RefusedError(
                "is in git's own folder, where no file of the project is checked out; run "
                "enable in the repository's work tree (a clone with its files)",
                shown,
            )
        if _holds(each, ".git"):
            return


def _is_git_folder(folder: Path) -> bool:
    """Whether ``folder`` is a git folder by git's own test: a ``HEAD`` that names a ref or a
    commit, beside ``objects/`` and ``refs/`` folders."""
    if not ((folder / "objects").is_dir() and (folder / "refs").is_dir()):
        return False
    try:
        head = read_regular(folder / "HEAD", "HEAD", follow=False, limit=4096)
    except AgentMemoryError:  # a link, a FIFO, past the bound: no HEAD git would read
        return False
    if head is None:
        return False
    commit = head.strip()
    return head.startswith(b"ref: ") or (len(commit) in (40, 64) and commit.isalnum())


def in_repo(root: Path, path: str, cwd: Path | None = None) -> str:
    """A path the user gave, read from where they stand (``cwd``: the working directory), as
    the repo at ``root`` names it — git's rule for the paths of a command line. One outside the
    repo is kept as given (it names nothing in the repo)."""
    full = Path(os.path.normpath(_absolute(cwd or Path.cwd()) / path))
    try:
        return full.relative_to(_absolute(root)).as_posix()
    except ValueError:
        return path


def from_here(root: Path, rel: str, cwd: Path | None = None) -> str:
    """``rel``, a path in the repo at ``root``, as it works from where the user stands: relative
    to the working directory when that is in the repo (or the repo in it), else absolute."""
    here, top = _absolute(cwd or Path.cwd()), _absolute(root)
    target = top / rel
    if here == top or top in here.parents or here in top.parents:
        return Path(os.path.relpath(target, here)).as_posix()
    return str(target)


def below(root: Path, folder: Path | None) -> str | None:
    """``folder``'s place in the repo at ``root`` as a path the session touches (``a/b/``: what
    lies below it), or None at the top, outside the repo, or when not known."""
    if folder is None:
        return None
    try:
        rel = _absolute(folder).relative_to(_absolute(root)).as_posix()
    except ValueError:
        return None
    return None if rel == "." else rel + "/"


def top_as_named(root: Path, folder: str) -> str:
    """The repo's top as ``folder`` (an absolute path an agent ran in) names it: ``folder`` less
    the folders it lies below the top, when it is in the repo once links are followed — an agent
    that reached the repo through a symlink names its files through it too. Otherwise the top
    as this machine names it (the transcript may come from another machine)."""
    if not folder.startswith("/"):  # a POSIX path: what capture reads
        return str(root)
    folder = os.path.normpath(folder)  # as capture reads it
    try:
        below = os.path.relpath(os.path.realpath(folder), os.path.realpath(root))
    except (OSError, ValueError):
        return str(root)
    if below == os.curdir:
        return folder
    if below == os.pardir or below.startswith(os.pardir + os.sep):
        return str(root)
    return folder.rstrip("/").rsplit("/", below.count(os.sep) + 1)[0] or "/"


def _absolute(path: Path) -> Path:
    """``path`` made absolute with its symlinks resolved, as the working directory already is."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a loop: the folder is refused where it is opened
        return path.absolute()


def _holds(folder: Path, name: str) -> bool:
    """Whether ``folder/name`` exists (a name the system cannot look at: no)."""
    try:
        return os.path.lexists(folder / name)
    except (OSError, ValueError):
        return False
