"""The memory of a repo as read from disk: continuity.md, the archive, the policy, the logs."""

from __future__ import annotations

import bisect
from typing import NamedTuple

from . import facts, policy
from .archive import QUARTER_FILE
from .disk import Repo
from .layout import ARCHIVE_DIR, ARCHIVE_INDEX, CONTINUITY, POLICY, SESSION_NAME, SESSIONS_DIR
from .report import Finding


class Memory(NamedTuple):
    continuity: facts.Document | None
    archives: tuple[facts.Document, ...]
    archive_index: bytes | None
    policy: policy.Policy
    policy_problems: tuple[Finding, ...]
    logs: tuple[str, ...]  # correctly named session logs, sorted (= chronological)
    stray_logs: tuple[str, ...]  # other names in memory/sessions/

    @property
    def problems(self) -> tuple[Finding, ...]:
        found = list(self.policy_problems)
        if self.continuity is not None:
            found.extend(self.continuity.problems)
        for doc in self.archives:
            found.extend(doc.problems)
        return tuple(found)


def load(repo: Repo) -> Memory:
    """Read every memory file except the session logs' contents (those are read on demand)."""
    return survey(repo)._replace(archives=load_archives(repo))


def survey(repo: Repo) -> Memory:
    """``load`` but for the archive (``archives`` is empty): a review parses it meanwhile."""
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
        (),
        repo.read(ARCHIVE_INDEX),
        found_policy,
        tuple(problems),
        logs,
        stray,
    )


def load_archives(repo: Repo) -> tuple[facts.Document, ...]:
    """The archive's quarter files, parsed, in file-name order."""
    return tuple(
        facts.parse(f"{ARCHIVE_DIR}/{name}", repo.read(f"{ARCHIVE_DIR}/{name}") or b"")
        for name in repo.list_dir(ARCHIVE_DIR)
        if QUARTER_FILE.match(name)
    )
