"""The report health shows, kept while what it read stays the same, and worked out in a thread of
its own: ``report`` replays every session log, seconds on a long history, so a page never waits
for it.

The report reads the files under ``memory/`` (the memory, the policy, the logs, the rejections), the
files its facts cite (stale citations), git's history (the memory each session found) and the date.
Its result is kept with a key of those: each file's path, size, mtime, change time and inode, the
commit HEAD names (a commit changes the history, not the files), and the date. A page compares the
key of now (a ``stat`` of each file, no read, and one ``git rev-parse``) with the kept one; on any
difference the report is worked out again. A file modified within ``RACY_NS`` of the key's taking is
never trusted (``shell/memo``'s rule), so such a result is shown once and worked out again at the
next ask. Nothing is written: the result lives as long as the server.
"""

import datetime as dt
import os
import stat
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from ...commands.runner import Answer
from ...core.checks.citations import cited_paths
from ...layout import MEMORY_DIR
from ...parse.cites import path_problem
from ...shell import clock, git
from ...shell.load import load
from ...shell.memo import RACY_NS
from ...shell.repo import Repo
from .actions import Setting, run

Stamp = tuple[object, ...]  # a path, then its size, mtime, ctime, inode, mode; or why not read
_MTIME = 2


class Key(NamedTuple):
    today: dt.date
    head: str | None  # the commit HEAD names: the history the report replays on
    memory: tuple[Stamp, ...]  # every entry under memory/, in path order
    cited: tuple[str, ...]  # the paths the live facts cite, as read when the key was taken
    sources: tuple[Stamp, ...]  # those paths' stamps
    trusted: bool  # no file was modified within RACY_NS of the key's taking


class Reported(NamedTuple):
    key: Key
    said: Answer  # what ``report`` answered: its data, or the one line it stopped on
    seconds: float  # how long it took to work out


class Kept:
    """The last report worked out, and the start of the one being worked out (one at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._last: Reported | None = None
        self._since: float | None = None

    def get(self, repo: Repo, setting: Setting) -> tuple[Reported | None, bool, float]:
        """The last report, whether it is the report of the files as they are now, and how
        long ago the one being worked out started. When the last is not the report of now, one
        is started (unless one is under way): the key is taken here, so a memory that cannot
        be read is this page's error."""
        since = self._since
        if since is not None:  # a report is under way: the last is not the files' of now
            return self._last, False, time.monotonic() - since
        started = time.time_ns()
        today, head = clock.today(setting.today), git.head_commit(repo.root)
        memory = _memory_stamps(repo.root)
        last = self._last
        if last is not None and _holds(repo, last.key, (today, head), memory):
            return last, True, 0.0
        with self._lock:
            if self._since is None:
                key = taken(repo, (today, head), memory, started)
                self._since = time.monotonic()
                work = threading.Thread(target=self._work, args=(repo, setting, key), daemon=True)
                work.start()
            return self._last, False, time.monotonic() - self._since

    def _work(self, repo: Repo, setting: Setting, key: Key) -> None:
        started = time.monotonic()
        try:  # the runner turns the report's refusals into its one line
            said = run(("report",), repo.root, {"today": setting.today})
            with self._lock:
                self._last = Reported(key, said, time.monotonic() - started)
        finally:
            with self._lock:
                self._since = None


def taken(
    repo: Repo, now: tuple[dt.date, str | None], memory: tuple[Stamp, ...], started: int
) -> Key:
    """The key of the report's inputs, taken before the report reads them: a change made while
    it works gives the next page another key."""
    cited = tuple(cited_paths(load(repo, archives=False).documents))
    sources = _source_stamps(repo, cited)
    trusted = _settled((*memory, *sources), started - RACY_NS)
    return Key(*now, memory, cited, sources, trusted)


def _settled(stamps: Sequence[Stamp], before: int) -> bool:
    """Whether every file of ``stamps`` was last modified before ``before`` (ns)."""
    for stamp in stamps:
        mtime = stamp[_MTIME] if len(stamp) > _MTIME else None
        if isinstance(mtime, int) and mtime >= before:
            return False
    return True


def _holds(
    repo: Repo, key: Key, now: tuple[dt.date, str | None], memory: tuple[Stamp, ...]
) -> bool:
    """Whether ``key`` is the key of the files as they are now: the cited paths are the kept
    ones, as they change only with the memory, which the stamps of memory/ cover."""
    return (
        key.trusted
        and (key.today, key.head) == now
        and key.memory == memory
        and key.sources == _source_stamps(repo, key.cited)
    )


def _memory_stamps(root: Path) -> tuple[Stamp, ...]:
    """Every entry under memory/, links not followed, in path order."""
    found: list[Stamp] = []
    pending = [MEMORY_DIR]
    while pending:
        rel = pending.pop()
        try:
            entries = list(os.scandir(root / rel))
        except OSError as exc:
            found.append((rel, exc.errno))
            continue
        for entry in entries:
            name = f"{rel}/{entry.name}"
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as exc:
                found.append((name, exc.errno))
                continue
            if stat.S_ISDIR(info.st_mode):
                pending.append(name)
            found.append(
                (name, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)
            )
    return tuple(sorted(found, key=lambda s: str(s[0])))


def _source_stamps(repo: Repo, paths: Sequence[str]) -> tuple[Stamp, ...]:
    """What ``stat`` says of each cited path, through its links (as the report reads it); one
    that is not a path inside the repo is never looked at (as ``shell/cited`` never reads it)."""
    found: list[Stamp] = []
    for path in paths:
        if path_problem(path) is not None:
            found.append((path, "not inside"))
            continue
        try:
            info = (repo.root / path).stat()
        except OSError as exc:
            found.append((path, exc.errno))
            continue
        found.append(
            (path, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)
        )
    return tuple(found)
