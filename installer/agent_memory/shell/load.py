"""Reading a repo's memory from disk into a ``Memory``; the logs' contents are read on demand."""

from __future__ import annotations

import bisect

from ..core.archive import QUARTER_FILE
from ..layout import ARCHIVE_DIR, ARCHIVE_INDEX, CONTINUITY, POLICY, SESSION_NAME, SESSIONS_DIR
from ..parse import facts, policy
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
    )


def _archives(repo: Repo) -> tuple[facts.Document, ...]:
    """The archive's quarter files, parsed, in file-name order."""
    return tuple(facts.parse(rel, repo.read(rel) or b"") for rel in archive_files(repo))


def archive_files(repo: Repo) -> list[str]:
    """The paths of the archive's quarter files, in file-name order."""
    return [
        f"{ARCHIVE_DIR}/{name}" for name in repo.list_dir(ARCHIVE_DIR) if QUARTER_FILE.match(name)
    ]
