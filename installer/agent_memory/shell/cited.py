"""The code facts cite and name, read from the work tree or from a git revision (DECAY.md
§ Citations).

A cited path comes from a footer anyone could have committed, so nothing here trusts it: a path
that is absolute or climbs out with ``..`` is never looked at, one that leads out of the repo
through a symlink, a FIFO, a device, a directory or a file past ``LIMIT`` is skipped with the
reason (lint prints it in one line), and nothing outside the repo is ever opened.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from ..core.checks.citations import checked, citations, cited_paths, mark
from ..errors import AgentMemoryError
from ..parse.cites import Skipped, Source, path_problem
from ..parse.facts import Document
from . import git
from .files import read_regular
from .repo import Repo

LIMIT = 8 << 20  # a cited file larger than this is not source code a fact describes
BUDGET = 256 << 20  # the bytes one run reads of cited files, all told: memory stays bounded
_OVER = Skipped(f"was not read: the files cited before it, in path order, hold {BUDGET >> 20} MiB")
_MODES = {"120000": "is a symlink", "160000": "is a submodule", "040000": "is a directory"}


def work_tree(repo: Repo, paths: Iterable[str]) -> dict[str, Source]:
    """What each path holds in the work tree: its bytes, None when it is gone, or Skipped (past
    ``BUDGET`` bytes in all, in path order, the rest are not read)."""
    found: dict[str, Source] = {}
    total = 0
    for path in sorted(set(paths)):
        problem = path_problem(path)
        if problem is not None:
            source: Source = Skipped(f"is not a path inside the repo ({problem})")
        elif total > BUDGET:
            source = _OVER if repo.exists(path) else None
        else:
            source = _read(repo, path)
        if isinstance(source, bytes):
            total += len(source)
            source = source if total <= BUDGET else _OVER
        found[path] = source
    return found


def _read(repo: Repo, path: str) -> Source:
    try:
        real = repo.real(path)  # a link that leads outside the repo is refused here
        return read_regular(real, path, follow=False, limit=LIMIT)
    except AgentMemoryError as exc:  # a refusal of this one file is a finding, not the end
        return Skipped(exc.message)


def at_revision(repo: Repo, rev: str, paths: Iterable[str]) -> dict[str, Source]:
    """What each path holds at git revision ``rev``: its bytes, None when it is not there, or
    Skipped (a symlink, a submodule, a directory, a blob past ``LIMIT``)."""
    every = sorted(set(paths))
    wanted = [p for p in every if path_problem(p) is None]
    listed = git.entries(repo.root, rev, wanted) if wanted else {}
    found: dict[str, Source] = {}
    readable: dict[str, str] = {}
    total = 0
    for path in every:
        entry = listed.get(path)
        if path_problem(path) is not None:
            found[path] = Skipped(f"is not a path inside the repo ({path_problem(path)})")
        elif entry is None:
            found[path] = None
        elif entry.mode in _MODES or entry.kind != "blob":
            found[path] = Skipped(f"{_MODES.get(entry.mode, 'is not a file')} at {rev}")
        elif entry.size is None or entry.size > LIMIT:
            found[path] = Skipped(f"is larger than {LIMIT >> 20} MiB at {rev}")
        elif total + entry.size > BUDGET:
            found[path] = _OVER
        else:
            total += entry.size
            readable[path] = entry.object
    contents = git.blobs(repo.root, sorted(set(readable.values())))
    found.update((path, contents[obj]) for path, obj in readable.items())
    return found


def existing(repo: Repo, paths: Iterable[str], rev: str | None = None) -> frozenset[str]:
    """Which of ``paths`` exist (in the work tree, or at ``rev``), looked up without reading a
    file and never outside the repo (a path through a link that leads out counts as there)."""
    paths = [p for p in paths if path_problem(p) is None]
    if rev is not None:
        listed = git.entries(repo.root, rev, sorted(set(paths))) if paths else {}
        return frozenset(p for p in paths if p in listed)
    return frozenset(p for p in paths if _exists(repo, p))


def _exists(repo: Repo, path: str) -> bool:
    try:
        return os.path.lexists(repo.real(path))
    except AgentMemoryError:
        return True  # outside the repo: not ours to look at, and not reported


def sources(repo: Repo, paths: Iterable[str], rev: str | None) -> Mapping[str, Source]:
    """``work_tree`` or ``at_revision``."""
    return at_revision(repo, rev, paths) if rev is not None else work_tree(repo, paths)


def stale_marks(repo: Repo, docs: Sequence[Document]) -> dict[str, str]:
    """What ``context`` says after each fact whose citations went stale in the work tree."""
    paths = cited_paths(docs)
    if not paths:
        return {}
    read = work_tree(repo, paths)
    cites = {f.id: citations(f) for doc in docs for f in doc.facts if f.id}
    states = checked((c for each in cites.values() for c in each), read)
    found = {fact_id: mark([states[c] for c in each]) for fact_id, each in cites.items()}
    return {fact_id: said for fact_id, said in found.items() if said}
