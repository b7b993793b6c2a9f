"""The repo's cache folder: what the tool keeps between runs only to save time, derived from the
repo's files and checked against them before use (kept search indexes, ``core/agents/kept``).

It is ``.git/agent-memory/search`` in the git work tree's top: inside the repository, never in
its work tree (git tracks nothing there), and gone with the clone. A repo outside git, or whose
``.git`` is a file (a worktree, a submodule: the folder it names is not followed), keeps
nothing, nor does one whose folder cannot be written; each run then goes on without it.
Deleting the folder loses nothing. Like every file of a repo it may hold anything (a clone's
``.git`` is made by git, an unpacked archive's by whoever packed it): a link is never followed,
an entry is read only up to a bound, and what it says is checked before use (DESIGN §15).
"""

from __future__ import annotations

import binascii
import contextlib
import os
import stat
from pathlib import Path

from .discovery import work_tree_top
from .files import atomic_write, remove_temps

FOLDER = ".git/agent-memory/search"


class Cache:
    """The folder of kept search indexes of the repo at ``top`` (its git work tree's top)."""

    def __init__(self, top: Path, repo: Path) -> None:
        self.top, self.repo = top, repo

    def entry(self, rel: str) -> str:
        """The path, from the top, of the kept index of the repo's file ``rel``: named after
        the file and a checksum of its path from the top (a repo nested in the work tree is
        told apart; two paths of one checksum only make each other's entry again)."""
        full = os.fsencode(Path(os.path.relpath(self.repo, self.top), rel).as_posix())
        checksum = f"{binascii.crc32(full):08x}{binascii.crc32(full[::-1]):08x}"
        return f"{FOLDER}/{checksum}-{Path(rel).name}"

    def open(self, rel: str, limit: int) -> Entry | None:
        """The entry of the file ``rel``, open for reading, when it is a regular file of at
        most ``limit`` bytes (a link is not followed, a FIFO not waited on)."""
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(self.top / self.entry(rel), flags)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
        except OSError:
            info = None
        if info is None or not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            os.close(fd)
            return None
        return Entry(fd, info.st_size)

    def save(self, rel: str, data: bytes) -> bool:
        """Writes the entry whole or not at all: a new file renamed over whatever the old one
        is (a rename follows no link, and waits on no FIFO), in the folder ``cache_of`` found
        to be no link. False when it could not: the folder is then as it was."""
        target = self.top / self.entry(rel)
        try:
            remove_temps(target)  # what a killed run left
            atomic_write(target, data, synced=False)
        except OSError:
            return False
        return True


class Entry:
    """A kept index open for reading: ``read`` reads where a search asks, not the whole file
    (a 10,000-fact file's is some 4 MB). Closed by the search that opened it."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size

    def read(self, at: int, length: int) -> bytes:
        """``length`` bytes at ``at`` (fewer at the end); a failure to read is the entry's
        fault, as the search's reading of it takes every fault (``ValueError``)."""
        try:
            return os.pread(self.fd, max(length, 0), at)
        except OSError as exc:
            raise ValueError(f"the kept index cannot be read: {exc.strerror}") from None

    def close(self) -> None:
        os.close(self.fd)


def cache_of(repo: Path) -> Cache | None:
    """The cache of the repo at ``repo``, its folder made if need be; None when it has none."""
    top = work_tree_top(repo)
    if top is None:
        return None
    folder = top / FOLDER
    try:
        if not stat.S_ISDIR(os.lstat(top / ".git").st_mode):
            return None
        for made in (folder.parent, folder):
            with contextlib.suppress(FileExistsError):
                made.mkdir(mode=0o700)
            if not stat.S_ISDIR(os.lstat(made).st_mode):  # a link or a file: not followed
                return None
    except OSError:
        return None
    return Cache(top, repo) if os.access(folder, os.W_OK | os.X_OK) else None
