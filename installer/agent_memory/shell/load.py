"""Reading a repo's memory from disk into a ``Memory``; the logs' contents are read on demand."""

from __future__ import annotations

import bisect
from typing import NamedTuple

from ..core.archive import QUARTER_FILE
from ..errors import Problem
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


class Live(NamedTuple):
    """What the session-start commands need: no archive (a review may have filled it with
    thousands of facts) and no log contents."""

    continuity: facts.Document | None
    policy: policy.Policy
    policy_problems: tuple[Problem, ...]
    logs: tuple[str, ...]
    stray_logs: tuple[str, ...]


def load_live(repo: Repo) -> Live:
    """continuity.md, the policy and the session logs' names (not their contents)."""
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
    return Live(continuity, found_policy, tuple(problems), logs, stray)


def load(repo: Repo, *, archives: bool = True) -> Memory:
    """Read every memory file except the session logs' contents (those are read on demand);
    without ``archives`` the archive is left unparsed."""
    continuity, found_policy, problems, logs, stray = load_live(repo)
    return Memory(
        continuity,
        _archives(repo) if archives else (),
        repo.read(ARCHIVE_INDEX),
        found_policy,
        problems,
        logs,
        stray,
        _threads(repo),
        parse_vision(vision) if (vision := repo.read(VISION)) is not None else None,
    )


def extras(repo: Repo) -> tuple[facts.Document, ...]:
    """The facts living outside continuity.md and the archive: one-file threads, vision.md."""
    vision = repo.read(VISION)
    return (*_threads(repo), *((parse_vision(vision),) if vision is not None else ()))


def _threads(repo: Repo) -> tuple[facts.Document, ...]:
    """The one-file open threads, parsed, in file-name order."""
    return tuple(
        parse_thread(path, repo.read(path) or b"")
        for name in repo.list_dir(OPEN_THREADS_DIR)
        if name.endswith(THREAD_FILE_SUFFIX) and not name.startswith(".")
        for path in (f"{OPEN_THREADS_DIR}/{name}",)
    )


def archive_paths(repo: Repo) -> list[str]:
    """The paths of the archive's quarter files, in file-name order."""
    return [f"{ARCHIVE_DIR}/{n}" for n in repo.list_dir(ARCHIVE_DIR) if QUARTER_FILE.match(n)]


def archive_files(repo: Repo) -> list[tuple[str, bytes]]:
    """The archive's quarter files, unparsed, in file-name order."""
    return [(path, repo.read(path) or b"") for path in archive_paths(repo)]


def _archives(repo: Repo) -> tuple[facts.Document, ...]:
    """The archive's quarter files, parsed, in file-name order."""
    return tuple(facts.parse(path, data) for path, data in archive_files(repo))
