"""Reading a repo's memory from disk into a ``Memory``; the logs' contents are read on demand."""

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from .. import patterns
from ..core.facts.elsewhere import Elsewhere
from ..core.facts.relations import related_ids, see_of
from ..core.review.archive import quarter_paths
from ..errors import Problem
from ..layout import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX,
    CONTINUITY,
    OPEN_THREADS_DIR,
    PERSONAL,
    POLICY,
    SESSIONS_DIR,
    VISION,
)
from ..parse import facts, policy
from ..parse.lognames import LogNames
from ..parse.memory import Memory, known_ids
from ..parse.sidefiles import parse_file, thread_paths
from .repo import Repo


class Live(NamedTuple):
    """What the session-start commands need: no archive (a review may have filled it with
    thousands of facts) and no log contents."""

    continuity: facts.Document | None
    policy: policy.Policy
    policy_problems: tuple[Problem, ...]
    sessions: LogNames


def load_live(repo: Repo) -> Live:
    """continuity.md, the policy and the session logs' names (not their contents)."""
    raw = repo.read(CONTINUITY)
    continuity = facts.parse(CONTINUITY, raw) if raw is not None else None
    found_policy, problems = policy.parse(repo.read(POLICY))
    return Live(continuity, found_policy, tuple(problems), log_names(repo))


def log_names(repo: Repo) -> LogNames:
    """The session logs' names, not their contents."""
    return LogNames(repo.list_dir(SESSIONS_DIR, ordered=False))


def newest_log(repo: Repo) -> str | None:
    """The newest session log's name, for a command that needs no other."""
    return log_names(repo).newest


def load(repo: Repo, *, archives: bool = True) -> Memory:
    """Read every memory file except the session logs' contents (those are read on demand);
    without ``archives`` the archive is left unparsed."""
    continuity, found_policy, problems, names = load_live(repo)
    found = extras(repo)
    return Memory(
        continuity,
        load_archives(repo) if archives else (),
        repo.read(ARCHIVE_INDEX),
        found_policy,
        problems,
        names,
        tuple(doc for doc in found if doc.path != VISION),
        next((doc for doc in found if doc.path == VISION), None),
        load_personal(repo),
    )


def load_personal(repo: Repo) -> facts.Document | None:
    """memory/personal.md, parsed; None when this clone has none (DECAY.md § Personal facts)."""
    raw = repo.read(PERSONAL)
    return facts.parse(PERSONAL, raw) if raw is not None else None


def extras(repo: Repo) -> tuple[facts.Document, ...]:
    """The facts living outside continuity.md and the archive: one-file threads, vision.md."""
    return tuple(parse_file(path, data) for path, data in extra_files(repo))


def extra_files(repo: Repo) -> list[tuple[str, bytes]]:
    """The one-file open threads in file-name order, then vision.md, unparsed."""
    threads = thread_paths(repo.list_dir(OPEN_THREADS_DIR))
    found = [(path, repo.read(path) or b"") for path in threads]
    vision = repo.read(VISION)
    return found + ([(VISION, vision)] if vision is not None else [])


def archive_paths(repo: Repo) -> list[str]:
    """The paths of the archive's quarter files, in file-name order."""
    return quarter_paths(repo.list_dir(ARCHIVE_DIR))


def archive_files(repo: Repo) -> list[tuple[str, bytes]]:
    """The archive's quarter files, unparsed, in file-name order."""
    return [(path, repo.read(path) or b"") for path in archive_paths(repo)]


def elsewhere(repo: Repo, also: str | None = PERSONAL) -> Elsewhere:
    """The files beside the one a new fact goes to, unparsed, that it is checked against: the
    archive's quarters, the one-file threads and vision.md, and ``also``: the personal file
    beside continuity.md, continuity.md beside the personal file (DECAY.md § Personal facts)."""
    data = repo.read(also) if also is not None else None
    extra = [(also, data)] if also is not None and data else []
    return Elsewhere([*archive_files(repo), *extra_files(repo), *extra])


def load_archives(repo: Repo) -> tuple[facts.Document, ...]:
    """The archive's quarter files, parsed, in file-name order."""
    return tuple(facts.parse(path, data) for path, data in archive_files(repo))


def archives_naming(
    repo: Repo, ids: Iterable[str], skip: Iterable[str] = ()
) -> tuple[facts.Document, ...]:
    """The archive's quarter files (but ``skip``) in which any of ``ids`` stands as a whole id,
    parsed. The archive may hold thousands of facts; a command about a few parses only these."""
    wanted, left = set(ids), set(skip)
    paths = [path for path in archive_paths(repo) if path not in left] if wanted else []
    return naming([(path, repo.read(path) or b"") for path in paths], wanted)


def naming(files: Sequence[tuple[str, bytes]], ids: Iterable[str]) -> tuple[facts.Document, ...]:
    """Those of ``files`` in which any of ``ids`` stands as a whole id, parsed. Each id is
    searched as a literal (a few ids: well under 1 ms a quarter); past ``_LITERAL`` ids (a log
    may name 200,000), only those among the file's own id-shaped words, read in one pass (45 ms
    over a quarter of 10,000 facts): a pattern per id was minutes of work."""
    wanted = sorted({i.encode() for i in ids})
    if not files or not wanted:
        return ()
    compiled: dict[bytes, re.Pattern[bytes]] = {}

    def holds(data: bytes) -> bool:
        words = set(_WORDS.findall(data)) if len(wanted) > _LITERAL else None
        among = wanted if words is None else sorted(set(wanted) & words)
        for i in among:
            found = compiled.get(i) or compiled.setdefault(i, re.compile(re.escape(i) + _ID_ENDS))
            if _whole(found, data):
                return True
        return False

    return tuple(facts.parse(path, data) for path, data in files if holds(data))


# What may not follow an id that stands whole (no more of an id), nor come before one.
_ID_ENDS = rb"(?![A-Za-z0-9_]|[.-][A-Za-z0-9])"
# Every id that stands whole is one of these (the longest run of ``ID_PATTERN`` from there).
_WORDS = patterns.compile(rb"(?<![A-Za-z0-9._-])[a-z0-9]+(?:[.-][a-z0-9]+)*")
_LITERAL = 64
_ID_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def _whole(found: re.Pattern[bytes], data: bytes) -> bool:
    # The id is searched as a literal (fast), the byte before it checked here: a pattern that
    # starts with a look-behind is tried at every position of the file.
    return any(m.start() == 0 or data[m.start() - 1] not in _ID_BYTES for m in found.finditer(data))


def with_related(
    repo: Repo, docs: tuple[facts.Document, ...], fact_id: str
) -> tuple[facts.Document, ...]:
    """``docs``, and the archive files not among them holding facts related to ``fact_id``:
    those its ``see`` names and those whose ``see`` names it (shown live or archived)."""
    wanted = set(related_ids(fact_id, see_of(docs))) - known_ids(docs) | {fact_id}
    return (*docs, *archives_naming(repo, wanted, skip={doc.path for doc in docs}))
