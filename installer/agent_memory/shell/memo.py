"""Values computed from a file, kept while the file is unchanged: the MCP server's cache.

A long-running server answers many calls on the same files; re-reading and re-parsing 10,000
archived facts on every call would cost a second. ``FileMemo`` keeps one value per file, keyed by
the file's path, size, mtime, change time and inode as read from the open file, so a commit,
checkout or edit made outside is seen by the next call. A file modified within ``RACY_NS`` of its
reading is never trusted (git's "racily clean" rule): a same-size rewrite inside one tick of the
file system's clock would otherwise keep its old key. Only the server uses it; a command reads each
file once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Generic, TypeVar

from .repo import FileKey, Repo

T = TypeVar("T")
RACY_NS = 2_000_000_000  # coarser than any file system's timestamps (FAT: 2 s)


class FileMemo(Generic[T]):
    def __init__(self, build: Callable[[str, bytes], T]) -> None:
        self._build = build
        self._kept: dict[str, tuple[FileKey, T]] = {}  # one per file: bounded by the repo

    def get(self, repo: Repo, rel: str) -> T | None:
        """``build(rel, contents)`` of the file now at ``rel``, or None when there is none."""
        kept = self._kept.get(rel)
        if kept is not None and repo.stat_key(rel) == kept[0]:
            return kept[1]
        started = time.time_ns()
        read = repo.read_keyed(rel)
        if read is None:
            self._kept.pop(rel, None)
            return None
        key, data = read
        value = self._build(rel, data)
        if key.mtime_ns < started - RACY_NS:
            self._kept[rel] = (key, value)
        else:
            self._kept.pop(rel, None)
        return value
