"""Reading a repo's memory from disk into a ``Memory``; the logs' contents are read on demand."""

from __future__ import annotations

import bisect

from ..core.archive import QUARTER_FILE
from ..layout import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CONTINUITY,
    OPEN_THREADS_DIR,
    POLICY,
    SESSION_NAME,
    SESSIONS_DIR,
    VISION,
)
from ..parse import facts, policy
from ..parse.extras import THREAD_FILE_SUFFIX, parse_thread, parse_vision
from ..parse.memory import Memory
from .repo import Repo


def load(repo: Repo) -> Memory:
    """Read every memory file except the session logs' contents (those are read on demand)."""
    raw = repo.read(CONTINUITY)
    continuity = facts.parse(CONTINUITY, raw) if raw is not None else None
    found_policy, problems = policy.parse(repo.read(POLICY))
    names = repo.list_dir(SESSIONS_DIR)
    logs = tuple(filter(SESSION_NAME.match, names))  # a history may hold 100,000 names
    # Dot-files (.gitkeep) are not strays; sorted, they are the names from "." up to "/".
    hidden = bisect.bisect_left(names, "/") - bisect.bisect_left(names, ".")
    stray: tuple[str, ...] = ()
    if len(logs) != len(names) - hidden:
        stray = tuple(n for n in names if not n.startswith(".") and not SESSION_NAME.match(n))
    return Memory(
        continuity,
        _archives(repo),
        repo.read(ARCHIVE_INDEX),
        found_policy,
        tuple(problems),
        logs,
        stray,
        _threads(repo),
        parse_vision(vision) if (vision := repo.read(VISION)) is not None else None,
    )


def _threads(repo: Repo) -> tuple[facts.Document, ...]:
    """The one-file open threads, parsed, in file-name order."""
    return tuple(
        parse_thread(path, repo.read(path) or b"")
        for name in repo.list_dir(OPEN_THREADS_DIR)
        if name.endswith(THREAD_FILE_SUFFIX) and not name.startswith(".")
        for path in (f"{OPEN_THREADS_DIR}/{name}",)
    )


def _archives(repo: Repo) -> tuple[facts.Document, ...]:
    """The archive's quarter files, parsed, in file-name order."""
    return tuple(
        facts.parse(f"{ARCHIVE_DIR}/{name}", repo.read(f"{ARCHIVE_DIR}/{name}") or b"")
        for name in repo.list_dir(ARCHIVE_DIR)
        if QUARTER_FILE.match(name)
    )
