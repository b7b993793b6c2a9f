"""The uses of a session counted against the memory its start really found (REVIEW.md § Replay):
where git holds that memory, the replay counts on it rather than on the state it projects."""

import bisect
from collections.abc import Collection, Iterable, Sequence
from itertools import islice
from typing import NamedTuple

from ...layout import SESSION_NAME
from ...parse.facts import Document
from ...parse.memory import known_ids
from ...parse.rawlog import Commit
from ...parse.sessions import SessionRefs
from .run import ARCHIVED, LIVE, NEW, UNKNOWN


class Start(NamedTuple):
    """The memory a session start found."""

    live: tuple[Document, ...]  # continuity.md, the one-file threads, vision.md
    archived: frozenset[str]  # the ids the archive held (of those asked about)
    recent: tuple[frozenset[str], ...]  # what the latest logs then used, newest first


Log = tuple[str, str, str]  # a log's name, mode and blob in a commit
_GONE = "000000"


def first_added(walk: Iterable[Commit]) -> dict[str, str | None]:
    """Each name's state before the first commit of ``walk`` that added it: that commit's
    first parent (None: a root commit, or the edge of a shallow clone)."""
    found: dict[str, str | None] = {}
    for _, parents, changes in walk:
        for name, _, _, status in changes:
            if status == "A" and name not in found:
                found[name] = parents[0] if parents else None
    return found


def latest_logs(
    walk: Sequence[Commit], wanted: Collection[str], count: int
) -> dict[str, tuple[Log, ...]]:
    """The ``count`` newest logs of each commit of ``wanted``, newest first. One set of the
    folder's files is followed depth first through the tree that first parents make: a
    commit's changes applied on the way to it and undone on the way back, so that the cost
    grows with the changes, however often history branches."""
    known = {commit for commit, _, _ in walk}
    children: dict[str | None, list[int]] = {}
    for at, (_, parents, _) in enumerate(walk):
        first = parents[0] if parents and parents[0] in known else None
        children.setdefault(first, []).append(at)
    files: dict[str, tuple[str, str]] = {}
    names: list[str] = []
    found: dict[str, tuple[Log, ...]] = {}
    # (a commit's place in the walk, None to enter it, else what leaving it puts back)
    stack: list[tuple[int, list[tuple[str, tuple[str, str] | None]] | None]]
    stack = [(at, None) for at in reversed(children.get(None, []))]
    while stack:
        at, undo = stack.pop()
        if undo is not None:
            for name, held in reversed(undo):
                _put(files, names, name, held)
            continue
        commit, _, changes = walk[at]
        undo = []
        for name, mode, blob, _ in changes:
            undo.append((name, files.get(name)))
            _put(files, names, name, None if mode == _GONE else (mode, blob))
        if commit in wanted:
            logs = islice((n for n in reversed(names) if SESSION_NAME.match(n)), count)
            found[commit] = tuple((n, *files[n]) for n in logs)
        stack.append((at, undo))
        stack.extend((child, None) for child in reversed(children.get(commit, [])))
    return found


def _put(
    files: dict[str, tuple[str, str]], names: list[str], name: str, held: tuple[str, str] | None
) -> None:
    """``files[name] = held`` (None: no such file), ``names`` kept the sorted names of ``files``."""
    at = bisect.bisect_left(names, name)
    there = at < len(names) and names[at] == name
    if held is None:
        if there:
            del names[at], files[name]
        return
    if not there:
        names.insert(at, name)
    files[name] = held


def uses(start: Start, found: SessionRefs, known: Collection[str]) -> tuple[tuple[str, str], ...]:
    """Each id a session used (``found``) with where it stood at its ``start`` (``LIVE``: in
    the memory files, where the view put it tells; ``run.steps``), sorted; ``known``: the ids
    today's memory holds (an id ``start`` lacks is the session's own, or made later, when
    today's memory holds it, else unknown)."""
    live = known_ids(start.live)
    return tuple(
        (i, LIVE)
        if i in live
        else (i, ARCHIVED if i in start.archived else NEW if i in known else UNKNOWN)
        for i in sorted(found.used)
    )
