"""The uses of a session counted against the memory its start really found (REVIEW.md § Replay):
where git holds that memory, the replay counts on it rather than on the state it projects."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from itertools import islice
from typing import NamedTuple

from ...layout import SESSION_NAME
from ...parse.facts import Document
from ...parse.memory import known_ids
from ...parse.sessions import SessionRefs
from ..agents import context
from .run import ARCHIVED, HIDDEN, NEW, UNKNOWN, Step
from .states import Seen


class Start(NamedTuple):
    """The memory a session start found."""

    live: tuple[Document, ...]  # continuity.md, the one-file threads, vision.md
    archived: frozenset[str]  # the ids the archive held (of those asked about)
    recent: tuple[frozenset[str], ...]  # what the latest logs then used, newest first


# A commit of a folder's history, parents first: (commit, parents, its changes in the folder
# against its first parent: (name, mode, blob, status letter), mode "000000" for a removal)
Walked = tuple[str, tuple[str, ...], tuple[tuple[str, str, str, str], ...]]
Log = tuple[str, str, str]  # a log's name, mode and blob in a commit
_GONE = "000000"


def first_added(walk: Iterable[Walked]) -> dict[str, str | None]:
    """Each name's state before the first commit of ``walk`` that added it: that commit's
    first parent (None: a root commit, or the edge of a shallow clone)."""
    found: dict[str, str | None] = {}
    for _, parents, changes in walk:
        for name, _, _, status in changes:
            if status == "A" and name not in found:
                found[name] = parents[0] if parents else None
    return found


def latest_logs(
    walk: Sequence[Walked], wanted: Collection[str], count: int
) -> dict[str, tuple[Log, ...]]:
    """The ``count`` newest logs of each commit of ``wanted``, newest first: the folder followed
    from each commit to the next, linear in the walk's changes (a commit's files are held only
    while a later commit still starts from them, and copied only where history branches)."""
    pending = Counter(parents[0] for _, parents, _ in walk if parents)
    held: dict[str, tuple[dict[str, tuple[str, str]], list[str]]] = {}
    found: dict[str, tuple[Log, ...]] = {}
    for commit, parents, changes in walk:
        start = held.get(parents[0]) if parents else None
        files: dict[str, tuple[str, str]]
        names: list[str]
        if start is None:
            files, names = {}, []
        elif pending[parents[0]] == 1:
            files, names = held.pop(parents[0])
        else:
            files, names = dict(start[0]), list(start[1])
        if parents:
            pending[parents[0]] -= 1
        for name, mode, blob, _ in changes:
            at = bisect.bisect_left(names, name)
            there = at < len(names) and names[at] == name
            if mode == _GONE:
                if there:
                    del names[at], files[name]
                continue
            if not there:
                names.insert(at, name)
            files[name] = (mode, blob)
        if commit in wanted:
            logs = islice((n for n in reversed(names) if SESSION_NAME.match(n)), count)
            found[commit] = tuple((n, *files[n]) for n in logs)
        if pending[commit]:
            held[commit] = (files, names)
    return found


def seen(start: Start, task: str, budgets: Sequence[int]) -> tuple[Seen, ...]:
    """``context``'s own view of ``start`` at each of ``budgets``, as the replay's are asked
    (no paths known, no review due)."""
    views = context.views(start.live, task, None, budgets, recent=start.recent)
    return tuple(Seen(view) for view in views)


def steps(
    start: Start, views: Sequence[Seen], log: str, found: SessionRefs, known: Collection[str]
) -> tuple[Step, ...]:
    """Log ``log``'s uses (``found``) as the ``views`` of ``start`` showed them, one step per
    view; ``known``: the ids today's memory holds (an id ``start`` lacks is the session's own,
    or made later, when today's memory holds it, else unknown)."""
    live = known_ids(start.live)
    made = []
    for view in views:
        where = view.outcomes([i for i in found.used if i in live])
        uses = tuple(
            (i, where.get(i, HIDDEN))
            if i in live
            else (i, ARCHIVED if i in start.archived else NEW if i in known else UNKNOWN)
            for i in sorted(found.used)
        )
        made.append(Step(log, uses, view.size))
    return tuple(made)
